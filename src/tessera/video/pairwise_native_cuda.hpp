#pragma once
// Native CUDA pairwise squared distances (backends/cuda/video/pairwise_native.cu).
// F (m x l), D (n x l), P (m x n): contiguous row-major device arrays. Queued on the stream.
#include <cuda_runtime.h>

namespace tessera::native_cuda {

// 128 x 128 tiles of P per block, each thread 8 x 8 outputs, features in chunks of 16.
// Direct form: sum_k (f - d)^2.
void pairwise_tiled(cudaStream_t stream, const float* F, const float* D, float* P, int m, int n, int l);
// The same tiles with the GEMM form's arithmetic, max(0, |f|^2 + |d|^2 - 2 f.d), norms and clamp in the kernel.
void pairwise_gemm_fused(cudaStream_t stream, const float* F, const float* D, float* P, int m, int n, int l);

}  // namespace tessera::native_cuda
