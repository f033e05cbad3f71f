#pragma once
// Native CUDA STREAM kernels (backends/cuda/stream/stream_native.cu). Queued on
// the given stream; stream_sum waits for its result. Any alignment and size.
#include <cuda_runtime.h>

#include <cstddef>

namespace tessera::native_cuda {

void stream_copy(cudaStream_t stream, const double* a, double* c, std::size_t n);
void stream_copy(cudaStream_t stream, const float* a, float* c, std::size_t n);
void stream_triad(cudaStream_t stream, double* a, const double* b, const double* c, double scalar,
                  std::size_t n);
void stream_triad(cudaStream_t stream, float* a, const float* b, const float* c, float scalar,
                  std::size_t n);
double stream_sum(cudaStream_t stream, const double* a, std::size_t n);
double stream_sum(cudaStream_t stream, const float* a, std::size_t n);

}  // namespace tessera::native_cuda
