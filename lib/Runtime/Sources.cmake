# The sources of the MagiRuntime library (plain C++17, no CUDA, no MLIR),
# shared by lib/Runtime/CMakeLists.txt and the standalone build of
# tools/magi-run/CMakeLists.txt.
set(MAGI_RUNTIME_SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/Json.cpp
  ${CMAKE_CURRENT_LIST_DIR}/Expr.cpp
  ${CMAKE_CURRENT_LIST_DIR}/Tensor.cpp
  ${CMAKE_CURRENT_LIST_DIR}/Manifest.cpp
  ${CMAKE_CURRENT_LIST_DIR}/Executor.cpp
  ${CMAKE_CURRENT_LIST_DIR}/Padding.cpp
  ${CMAKE_CURRENT_LIST_DIR}/Profile.cpp
  ${CMAKE_CURRENT_LIST_DIR}/Zip.cpp
  ${CMAKE_CURRENT_LIST_DIR}/Crc32.cpp
)
# The CUDA device (driver API, cuBLASLt): magi-run and the C runtime API.
set(MAGI_RUNTIME_CUDA_SOURCES ${CMAKE_CURRENT_LIST_DIR}/CudaDevice.cpp)
set(MAGI_RUNTIME_INCLUDE_DIR ${CMAKE_CURRENT_LIST_DIR}/../../include)
