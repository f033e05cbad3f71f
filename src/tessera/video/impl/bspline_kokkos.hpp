#pragma once
// Portable cubic B-spline kernels: the prefilter with one thread per
// scanline (rows, then columns: consecutive threads own consecutive columns,
// so the column pass is coalesced on GPUs), and the separable 4x4 evaluation
// with one thread per output pixel.
#include "tessera/video/impl/bspline_math.hpp"

#include <Kokkos_Core.hpp>

namespace tessera::video::impl {

// coef = 6 * in (row-major, coef contiguous), then the IIR along each row.
template <class ExecSpace, class In, class Coef>
void bspline_prefilter_rows_kokkos(const ExecSpace& exec, const In& in, const Coef& coef) {
  const int h = int(coef.extent(0)), w = int(coef.extent(1));
  float* c = coef.data();
  Kokkos::parallel_for(
      "tessera::video::bspline_rows", Kokkos::RangePolicy<ExecSpace>(exec, 0, h), KOKKOS_LAMBDA(const int y) {
        float* row = c + std::int64_t(y) * w;
        for (int x = 0; x < w; ++x) row[x] = (w > 1 ? 6.0f : 1.0f) * float(in(y, x));  // gain 6; a single sample is its own coefficient
        bspline_iir_line(row, 1, w);
      });
}

template <class ExecSpace, class Coef>
void bspline_prefilter_cols_kokkos(const ExecSpace& exec, const Coef& coef) {
  const int h = int(coef.extent(0)), w = int(coef.extent(1));
  float* c = coef.data();
  Kokkos::parallel_for(
      "tessera::video::bspline_cols", Kokkos::RangePolicy<ExecSpace>(exec, 0, w), KOKKOS_LAMBDA(const int x) {
        float* col = c + x;
        for (int y = 0; y < h; ++y) col[std::int64_t(y) * w] *= (h > 1 ? 6.0f : 1.0f);
        bspline_iir_line(col, w, h);
      });
}

template <class ExecSpace, class In, class Coef>
void bspline_prefilter_kokkos(const ExecSpace& exec, const In& in, const Coef& coef) {
  bspline_prefilter_rows_kokkos(exec, in, coef);
  bspline_prefilter_cols_kokkos(exec, coef);
}

template <class ExecSpace, class Coef, class Out>
void bspline_interpolate_kokkos(const ExecSpace& exec, const Coef& coef, const Out& out, const BsplinePhases& ph) {
  using T = typename Out::non_const_value_type;
  const int h = int(coef.extent(0)), w = int(coef.extent(1));
  const int ow = int(out.extent(1));
  const std::int64_t n = std::int64_t(out.extent(0)) * ow;
  const float* c = coef.data();
  Kokkos::parallel_for(
      "tessera::video::bspline_interpolate", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, n),
      KOKKOS_LAMBDA(const std::int64_t i) {
        const int oy = int(i / ow), ox = int(i - std::int64_t(oy) * ow);
        const int ry = oy % ph.u, rx = ox % ph.u;
        const int iy = oy / ph.u + ph.offset[ry], ix = ox / ph.u + ph.offset[rx];
        int cx[4];
        for (int k = 0; k < 4; ++k) cx[k] = mirror_index(ix - 1 + k, w);
        float s = 0.0f;
        for (int j = 0; j < 4; ++j) {
          const float* row = c + std::int64_t(mirror_index(iy - 1 + j, h)) * w;
          float t = 0.0f;
          for (int k = 0; k < 4; ++k) t += ph.w[rx][k] * row[cx[k]];
          s += ph.w[ry][j] * t;
        }
        out(oy, ox) = bspline_store<T>(s);
      });
}

}  // namespace tessera::video::impl
