#pragma once
// What both native depth-propagation kernels share: the block size and grid,
// and one source pixel's projection into the target view.
#include "tessera/video/dibr_native_cuda.hpp"

#include <cstdint>

namespace tessera::native_cuda::dibr {

constexpr int kBlock = 256;

inline unsigned blocks(std::int64_t n) { return unsigned((n + kBlock - 1) / kBlock); }

// Source pixel i of an h x w depth map (row-major): true with its target pixel
// (tx, ty) and depth bits z when it lands inside the tw x th target.
__device__ inline bool project_pixel(const float* __restrict__ depth, std::int64_t i, int w, int th, int tw,
                                     const video::CameraRig& rig, int& tx, int& ty, std::uint32_t& z) {
  const int y = int(i / w), x = int(i - std::int64_t(y) * w);
  return video::dibr_project(rig, x, y, __ldg(depth + i), tw, th, tx, ty, z);
}

}  // namespace tessera::native_cuda::dibr
