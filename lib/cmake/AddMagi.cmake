# Thin wrappers over MLIR's CMake functions, in the manner of CIRCT: every
# Magi library is recorded in a global property, and upstream MLIR libraries
# are named under MLIR_LIBS so that they resolve to the shared libMLIR.so.

# add_magi_library(name sources... [DEPENDS ...] [LINK_LIBS ...] [MLIR_LIBS ...])
function(add_magi_library name)
  cmake_parse_arguments(ARG "" "" "MLIR_LIBS" ${ARGN})
  add_mlir_library(${name} ${ARG_UNPARSED_ARGUMENTS}
    EXCLUDE_FROM_LIBMLIR DISABLE_INSTALL)
  if(ARG_MLIR_LIBS)
    mlir_target_link_libraries(${name} PUBLIC ${ARG_MLIR_LIBS})
  endif()
  set_property(GLOBAL APPEND PROPERTY MAGI_ALL_LIBS ${name})
endfunction()

function(add_magi_dialect_library name)
  set_property(GLOBAL APPEND PROPERTY MAGI_DIALECT_LIBS ${name})
  add_magi_library(${name} ${ARGN})
endfunction()

function(add_magi_tool name)
  add_llvm_executable(${name} ${ARGN})
  set_target_properties(${name} PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bin)
endfunction()
