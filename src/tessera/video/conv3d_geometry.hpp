#pragma once
// Sizes of one 3-D convolution (conv3d.hpp), shared by the portable and the
// native kernels: input T x H x W, kernel k^3, output To x Ho x Wo.
namespace tessera::video::impl {

struct Conv3dGeometry {
  int T = 0, H = 0, W = 0, k = 0;
  int To = 0, Ho = 0, Wo = 0;
  int shift = 0;  // input offset of output (0, 0) in y and x: -(k/2) same, 0 valid
};

}  // namespace tessera::video::impl
