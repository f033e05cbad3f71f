#pragma once
// Native CUDA read bandwidth (backends/cuda/common/read_peak.cu): the GPU's
// read-only ceiling, a kernel that reads a buffer and keeps nothing but its
// sums on the device, queued on the given stream.
#include <cuda_runtime.h>

#include <cstddef>

namespace tessera::native_cuda {

// Reads the n doubles of a (16-byte aligned, n even) with one full-occupancy
// grid; returns the bytes read. `sink` (one double) is written only when the
// sum is -1, which keeps the loads live without a store of its own.
double read_peak(cudaStream_t stream, const double* a, std::size_t n, double* sink);

}  // namespace tessera::native_cuda
