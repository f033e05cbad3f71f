#pragma once
// The depth-colour bilateral filter's weighted mean of one window, shared by
// the portable kernel and the host vector kernel's edge pixels (Kokkos-free
// native code includes bilateral_math.hpp only).
#include <Kokkos_Macros.hpp>

#include <cstddef>
#include <cstdint>

namespace tessera::video {

// The filtered depth of one pixel: d and l point at its depth and luma in
// planes of rows `stride` apart that reach r pixels past it on every side
// (depth <= 0: unknown, no weight); gs and gr are the tables' spatial and
// range weights. 0 where no neighbour is known.
KOKKOS_INLINE_FUNCTION float bilateral_window_mean(const float* d, const std::uint8_t* l, std::ptrdiff_t stride,
                                                   const float* gs, const float* gr, int r) {
  const int ia = l[0];
  float sum = 0.0f, wsum = 0.0f;
  for (int dy = -r; dy <= r; ++dy) {
    const std::ptrdiff_t row = dy * stride;
    for (int dx = -r; dx <= r; ++dx) {
      const float db = d[row + dx];
      if (db > 0.0f) {
        const int di = ia - int(l[row + dx]);
        const float wt = gs[dy * dy + dx * dx] * gr[di < 0 ? -di : di];
        sum += wt * db;
        wsum += wt;
      }
    }
  }
  return wsum > 0.0f ? sum / wsum : 0.0f;
}

}  // namespace tessera::video
