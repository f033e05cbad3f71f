#pragma once
// Native CUDA depth propagation: the atomic z-buffer variant
// (backends/cuda/video/dibr_native.cu) and the sorted one without atomics
// (dibr_sorted_native.cu: keys one per source pixel, CUB radix sort into a
// workspace kept per stream, segmented min). Row-major, contiguous planes;
// queued on the stream.
#include "tessera/video/impl/dibr_math.hpp"

#include <cuda_runtime.h>

#include <cstdint>

namespace tessera::native_cuda {

void dibr_atomic(cudaStream_t stream, const float* depth, int h, int w, std::uint32_t* zbuf, float* out, int th, int tw,
                 const video::CameraRig& rig);

void dibr_sorted(cudaStream_t stream, const float* depth, int h, int w, std::uint64_t* keys, float* out, int th, int tw,
                 const video::CameraRig& rig);

}  // namespace tessera::native_cuda
