#pragma once
// Native CUDA depth-colour bilateral filter (backends/cuda/video/bilateral_native.cu).
// Row-major planes, rows ld elements apart; queued on the stream.
#include "tessera/video/impl/bilateral_math.hpp"

#include <cuda_runtime.h>

#include <cstdint>

namespace tessera::native_cuda {

void bilateral(cudaStream_t stream, const float* depth, std::int64_t ld_depth, const std::uint8_t* luma,
               std::int64_t ld_luma, float* out, std::int64_t ld_out, int h, int w, const video::BilateralTables& tab);

// One pixel a thread at every K (the form before the three-pixel K = 11 kernel),
// for side-by-side measurement.
void bilateral_one_per_thread(cudaStream_t stream, const float* depth, std::int64_t ld_depth,
                              const std::uint8_t* luma, std::int64_t ld_luma, float* out, std::int64_t ld_out, int h,
                              int w, const video::BilateralTables& tab);

}  // namespace tessera::native_cuda
