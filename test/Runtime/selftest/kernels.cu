// Kernels of the magi-run self-test artifact. They take their memrefs the
// way MLIR-generated kernels do (docs/artifact-format.md, "launch"): each
// memref is expanded into allocated pointer, aligned pointer, offset, sizes,
// strides. Regenerate the PTX and cubin with gen.sh.
#include <cstdint>

#define MEMREF2D(T, name)                                                      \
  T *name##_allocated, T *name##_aligned, int64_t name##_offset,               \
      int64_t name##_size0, int64_t name##_size1, int64_t name##_stride0,      \
      int64_t name##_stride1

// y = x * scale + add, elementwise over a 2-D strided x.
extern "C" __global__ void selftest_scale_add(MEMREF2D(const float, x),
                                              MEMREF2D(float, y), int64_t add,
                                              float scale) {
  int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= x_size0 * x_size1)
    return;
  int64_t row = i / x_size1, col = i % x_size1;
  float v = x_aligned[x_offset + row * x_stride0 + col * x_stride1];
  y_aligned[y_offset + row * y_stride0 + col * y_stride1] = v * scale + float(add);
}

// z += n + 0.5 * k, in place (an i64 and an i32 scalar).
extern "C" __global__ void selftest_add_index(MEMREF2D(float, z), int64_t n,
                                              int32_t k) {
  int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= z_size0 * z_size1)
    return;
  int64_t row = i / z_size1, col = i % z_size1;
  float *p = z_aligned + z_offset + row * z_stride0 + col * z_stride1;
  *p = *p + (float(n) + 0.5f * float(k));
}
