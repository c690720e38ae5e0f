# Writes VersionInfo.h from VersionInfo.h.in with the source tree's git
# revision. Run at every build (not only at configure time), so that the
# version, and every cache key that contains it, follows the code; the file
# is rewritten only when its content changes, so nothing rebuilds needlessly.
#   cmake -DSOURCE_DIR=... -DINPUT=... -DOUTPUT=... -DPROJECT_VERSION=...
#         -DLLVM_PACKAGE_VERSION=... -P GenerateVersion.cmake
execute_process(
  COMMAND git describe --always --dirty --abbrev=12 --match=NeVeRmAtCh
  WORKING_DIRECTORY ${SOURCE_DIR}
  OUTPUT_VARIABLE MAGI_GIT_HASH
  OUTPUT_STRIP_TRAILING_WHITESPACE
  ERROR_QUIET)
if(NOT MAGI_GIT_HASH)
  set(MAGI_GIT_HASH "unknown")
endif()
configure_file(${INPUT} ${OUTPUT} @ONLY)
