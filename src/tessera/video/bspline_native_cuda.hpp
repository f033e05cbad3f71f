#pragma once
// Native CUDA cubic B-spline kernels (backends/cuda/video/bspline_native.cu),
// queued on the given stream. Row-major planes; coef is h x w contiguous,
// in/out rows ld elements apart.
//
// Two paths. The paper's: the IIR prefilter runs a whole plane in one block's
// shared memory (it returns false, and queues nothing, for a plane too large
// for that, which the caller then gives to the portable kernels), then the
// evaluation kernel reads the coefficients from global memory. The fused one:
// a single launch for up to kBsplineFusedMaxPlanes planes, each block
// computing the coefficients its output tile needs from a window of the input
// (the prefilter as the truncated FIR of impl/bspline_math.hpp) and
// evaluating the tile; any size, no coefficient plane.
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

// One plane of a fused upscale: in is h x w, out (u h) x (u w).
template <class TIn, class TOut>
struct BsplinePlane {
  const TIn* in = nullptr;
  std::int64_t ld_in = 0;
  TOut* out = nullptr;
  std::int64_t ld_out = 0;
  int h = 0, w = 0;
};

// Planes per launch (a frame's three, with room for alpha); more take more launches.
inline constexpr int kBsplineFusedMaxPlanes = 4;

void bspline_upscale_fused(cudaStream_t stream, const BsplinePlane<std::uint8_t, std::uint8_t>* planes, int n,
                           const video::BsplinePhases& phases);
void bspline_upscale_fused(cudaStream_t stream, const BsplinePlane<std::uint8_t, float>* planes, int n,
                           const video::BsplinePhases& phases);
void bspline_upscale_fused(cudaStream_t stream, const BsplinePlane<float, std::uint8_t>* planes, int n,
                           const video::BsplinePhases& phases);
void bspline_upscale_fused(cudaStream_t stream, const BsplinePlane<float, float>* planes, int n,
                           const video::BsplinePhases& phases);

}  // namespace tessera::native_cuda
