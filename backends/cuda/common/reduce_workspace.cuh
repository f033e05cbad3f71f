#pragma once
// Scratch for grid_sum (block_reduce.cuh), kept per (device, stream) across
// calls: allocating it per call cost more than reading a 256 MiB array.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace tessera::native_cuda {

struct ReduceWorkspace {
  double* partial = nullptr;      // at least `blocks` doubles
  unsigned* done_count = nullptr; // zero between launches
  unsigned* wave_count = nullptr; // zero between launches (jacobi_fused2_waves)
  double* result = nullptr;       // device result
  double* host_result = nullptr;  // pinned
  unsigned capacity = 0;
};

// The workspace of the current device and this stream, with room for `blocks` partials.
ReduceWorkspace& reduce_workspace(cudaStream_t stream, unsigned blocks);

// A 64-bit counter of the current device and this stream (the order in
// which a persistent kernel's warps take their work): zero it on the stream
// before each launch that uses it.
unsigned long long* stream_counter(cudaStream_t stream);

// Copies the result to the host and waits for the stream.
double read_result(cudaStream_t stream, ReduceWorkspace& ws);

inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("native_cuda::") + what + ": " + cudaGetErrorString(e));
}

}  // namespace tessera::native_cuda
