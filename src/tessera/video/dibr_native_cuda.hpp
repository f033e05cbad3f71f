#pragma once
// Native CUDA depth propagation (backends/cuda/video/dibr_native.cu): the
// atomic z-buffer variant. Row-major, contiguous planes; queued on the stream.
#include "tessera/video/impl/dibr_math.hpp"

#include <cuda_runtime.h>

#include <cstdint>

namespace tessera::native_cuda {

void dibr_atomic(cudaStream_t stream, const float* depth, int h, int w, std::uint32_t* zbuf, float* out, int th, int tw,
                 const video::CameraRig& rig);

}  // namespace tessera::native_cuda
