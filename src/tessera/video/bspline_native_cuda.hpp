#pragma once
// Native CUDA cubic B-spline kernels (backends/cuda/video/bspline_native.cu),
// queued on the given stream. Row-major planes; coef is h x w contiguous,
// in/out rows ld elements apart. The prefilter runs a whole plane in one
// block's shared memory; it returns false (and queues nothing) for a plane
// too large for that, which the caller then gives to the portable kernels.
#include "tessera/video/impl/bspline_math.hpp"

#include <cuda_runtime.h>

#include <cstdint>

namespace tessera::native_cuda {

bool bspline_prefilter(cudaStream_t stream, const std::uint8_t* in, std::int64_t ld_in, float* coef, int h, int w);
bool bspline_prefilter(cudaStream_t stream, const float* in, std::int64_t ld_in, float* coef, int h, int w);
void bspline_interpolate(cudaStream_t stream, const float* coef, int h, int w, std::uint8_t* out, std::int64_t ld_out,
                         const video::BsplinePhases& phases);
void bspline_interpolate(cudaStream_t stream, const float* coef, int h, int w, float* out, std::int64_t ld_out,
                         const video::BsplinePhases& phases);

}  // namespace tessera::native_cuda
