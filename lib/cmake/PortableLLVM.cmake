# The portable build's LLVM: Debian built MLIR against the shared libLLVM.so,
# so every static MLIR library names the target `LLVM` (that .so) in its link
# interface. Linking it beside static libraries would put two copies of
# LLVM's global registries (command-line options, targets) in one process.
# Here `LLVM` is replaced, in every MLIR target's link interface, by
# MagiStaticLLVM: every static LLVM library whose own link interface can be
# resolved here. The linker takes only the objects something needs.

# Whether every `ns::name` target that `target` links, directly or through
# other targets, exists (LLVMLineEditor's LibEdit::LibEdit, say, does not
# unless its package is installed), every library file behind them (Debian
# exports Polly without shipping libPolly.a) and every plain library named;
# and that none of them is the shared LLVM.
function(magi_link_interface_resolvable target result)
  set(pending ${target})
  set(seen)
  while(pending)
    list(POP_FRONT pending current)
    if(current IN_LIST seen)
      continue()
    endif()
    list(APPEND seen ${current})
    if(current STREQUAL "LLVM")
      set(${result} FALSE PARENT_SCOPE) # The shared libLLVM.so.
      return()
    endif()
    if(NOT TARGET ${current})
      if(current MATCHES "::")
        set(${result} FALSE PARENT_SCOPE)
        return()
      endif()
      # A plain library name: the C library's, or one to be found (LLVM's
      # benchmarking library names libpfm).
      if(NOT current MATCHES "^(/|-)" AND NOT current MATCHES "^(rt|dl|m|pthread)$")
        find_library(MAGI_PORTABLE_LIB_${current} ${current})
        if(NOT MAGI_PORTABLE_LIB_${current})
          set(${result} FALSE PARENT_SCOPE)
          return()
        endif()
      endif()
      continue()
    endif()
    get_target_property(type ${current} TYPE)
    get_target_property(imported ${current} IMPORTED)
    if(imported AND NOT type STREQUAL "INTERFACE_LIBRARY")
      get_target_property(location ${current} LOCATION)
      if(NOT location OR NOT EXISTS "${location}")
        set(${result} FALSE PARENT_SCOPE)
        return()
      endif()
    endif()
    get_target_property(links ${current} INTERFACE_LINK_LIBRARIES)
    if(links)
      foreach(link ${links})
        string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" link "${link}")
        list(APPEND pending ${link})
      endforeach()
    endif()
  endwhile()
  set(${result} TRUE PARENT_SCOPE)
endfunction()

function(magi_use_static_llvm)
  set(static_llvm)
  foreach(lib ${LLVM_AVAILABLE_LIBS})
    if(NOT lib MATCHES "^LLVM[A-Z]" OR NOT TARGET ${lib})
      continue()
    endif()
    get_target_property(type ${lib} TYPE)
    if(NOT type STREQUAL "STATIC_LIBRARY")
      continue()
    endif()
    magi_link_interface_resolvable(${lib} ok)
    if(ok)
      list(APPEND static_llvm ${lib})
    endif()
  endforeach()
  add_library(MagiStaticLLVM INTERFACE)
  target_link_libraries(MagiStaticLLVM INTERFACE ${static_llvm})

  # `MLIR` (the shared libMLIR.so) appears beside `LLVM` in the execution
  # engine's interface: its static libraries' own dependencies.
  add_library(MagiStaticMLIRForEngine INTERFACE)
  target_link_libraries(MagiStaticMLIRForEngine INTERFACE
    MLIRExecutionEngineUtils MLIRTargetLLVMIRExport MLIRLLVMToLLVMIRTranslation
    MLIRBuiltinToLLVMIRTranslation MLIRIR MLIRSupport)

  foreach(target ${MLIR_EXPORTED_TARGETS})
    if(NOT TARGET ${target})
      continue()
    endif()
    get_target_property(links ${target} INTERFACE_LINK_LIBRARIES)
    if(links)
      set(before "${links}")
      list(TRANSFORM links REPLACE "^(\\$<LINK_ONLY:)?LLVM>?$" "MagiStaticLLVM")
      list(TRANSFORM links REPLACE "^MLIR$" "MagiStaticMLIRForEngine")
      if(NOT links STREQUAL before)
        set_target_properties(${target} PROPERTIES INTERFACE_LINK_LIBRARIES "${links}")
      endif()
    endif()
  endforeach()
endfunction()
