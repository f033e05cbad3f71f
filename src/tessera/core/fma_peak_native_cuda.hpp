#pragma once
// Native CUDA FMA throughput (backends/cuda/common/fma_peak.cu): the GPU's
// compute ceiling in FP64 and FP32, queued on the given stream.
#include <cuda_runtime.h>

#include <cstdint>

namespace tessera::native_cuda {

// Launches enough blocks to fill the device; returns the flops queued.
double fma_peak(cudaStream_t stream, double* out, std::int64_t items, int steps);
double fma_peak(cudaStream_t stream, float* out, std::int64_t items, int steps);

}  // namespace tessera::native_cuda
