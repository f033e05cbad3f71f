#pragma once
// Native CUDA pairwise squared distances (backends/cuda/video/pairwise_native.cu).
// F (m x l), D (n x l), P (m x n): contiguous row-major device arrays. Queued on the stream.
#include <cuda_runtime.h>

namespace tessera::native_cuda {

// 64 x 64 tiles of P per block, each thread 4 x 4 outputs, features in chunks of 16.
void pairwise_tiled(cudaStream_t stream, const float* F, const float* D, float* P, int m, int n, int l);

}  // namespace tessera::native_cuda
