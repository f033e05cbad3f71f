#pragma once
// Asynchronous 4- and 16-byte global -> shared copies (sm_80+) for the native
// conv3d kernels (conv3d_native.cu, conv3d_tensor.cu): a frame's staging is
// issued before the previous frame's arithmetic and lands while it runs.
// Out-of-range elements copy 0 bytes and are zero-filled.
#include <cuda_runtime.h>

namespace tessera::native_cuda::conv3d_detail {

// The shared-memory address of p, as the copy instructions take it.
__device__ __forceinline__ unsigned smem_addr(const void* p) { return unsigned(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ void cp_async_f32(float* dst, const float* src, bool valid) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(smem_addr(dst)), "l"(src), "r"(valid ? 4 : 0));
}
__device__ __forceinline__ void cp_async_f32x4(float* dst, const float* src, bool valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr(dst)), "l"(src),
               "r"(valid ? 16 : 0));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void cp_async_wait() {  // at most N of this thread's groups still in flight
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

}  // namespace tessera::native_cuda::conv3d_detail
