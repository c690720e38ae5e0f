# Thin wrappers over MLIR's CMake functions, in the manner of CIRCT: every
# Magi library is recorded in a global property, and upstream MLIR libraries
# are named under MLIR_LIBS so that they resolve to the shared libMLIR.so.
# Libraries and tools are installed; the libraries into the MagiTargets
# export set (lib/cmake/CMakeLists.txt writes MagiConfig.cmake around it).

# install(TARGETS) for a library of the MagiTargets export set.
function(install_magi_library name)
  target_include_directories(${name} INTERFACE $<INSTALL_INTERFACE:include>)
  install(TARGETS ${name} EXPORT MagiTargets
    ARCHIVE DESTINATION lib
    LIBRARY DESTINATION lib
    RUNTIME DESTINATION bin)
endfunction()

# add_magi_library(name sources... [DEPENDS ...] [LINK_LIBS ...] [MLIR_LIBS ...])
function(add_magi_library name)
  cmake_parse_arguments(ARG "" "" "MLIR_LIBS" ${ARGN})
  add_mlir_library(${name} ${ARG_UNPARSED_ARGUMENTS}
    EXCLUDE_FROM_LIBMLIR DISABLE_INSTALL)
  if(ARG_MLIR_LIBS)
    mlir_target_link_libraries(${name} PUBLIC ${ARG_MLIR_LIBS})
  endif()
  set_property(GLOBAL APPEND PROPERTY MAGI_ALL_LIBS ${name})
  install_magi_library(${name})
endfunction()

function(add_magi_dialect_library name)
  set_property(GLOBAL APPEND PROPERTY MAGI_DIALECT_LIBS ${name})
  add_magi_library(${name} ${ARGN})
endfunction()

function(add_magi_tool name)
  add_llvm_executable(${name} ${ARGN})
  set_target_properties(${name} PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
  install(TARGETS ${name} RUNTIME DESTINATION bin)
endfunction()
