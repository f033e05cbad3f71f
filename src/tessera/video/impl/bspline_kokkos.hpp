#pragma once
// Portable cubic B-spline kernels: the prefilter with one thread per
// scanline, rows then columns, and the separable 4x4 evaluation with one
// thread per output pixel. A team stages a block of whole scanlines in
// scratch (columns transposed so each is contiguous), runs the recursions
// there and writes the block back: the recursions' dependent steps then wait
// on scratch, not on global memory, and the global loads and stores are
// coalesced. Scanlines too long for scratch take the same recursions in place.
#include "tessera/video/impl/bspline_math.hpp"

#include <Kokkos_Core.hpp>

namespace tessera::video::impl {

// Scanlines per team: up to 32 (a warp's worth on GPUs) within 48 KiB of
// scratch at a stride of len + 1 floats (odd strides keep the lines of a warp
// in distinct shared-memory banks); 0 when one line does not fit.
inline int bspline_lines_per_team(int len) {
  const long long per_line = 4LL * (len + 1);
  const long long fit = (48LL * 1024) / per_line;
  return int(fit < 32 ? fit : 32);
}

// coef = gain * in, then the IIR along each row.
template <class ExecSpace, class In, class Coef>
void bspline_prefilter_rows_kokkos(const ExecSpace& exec, const In& in, const Coef& coef) {
  const int h = int(coef.extent(0)), w = int(coef.extent(1));
  const float gain = w > 1 ? 6.0f : 1.0f;  // a single sample is its own coefficient
  float* c = coef.data();
  const int lines = bspline_lines_per_team(w);
  if (lines == 0) {
    Kokkos::parallel_for(
        "tessera::video::bspline_rows", Kokkos::RangePolicy<ExecSpace>(exec, 0, h), KOKKOS_LAMBDA(const int y) {
          float* row = c + std::int64_t(y) * w;
          for (int x = 0; x < w; ++x) row[x] = gain * float(in(y, x));
          bspline_iir_line(row, 1, w);
        });
    return;
  }
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  const int ld = w + 1;
  const std::size_t bytes = std::size_t(lines) * ld * sizeof(float);
  Kokkos::parallel_for(
      "tessera::video::bspline_rows",
      Policy(exec, (h + lines - 1) / lines, Kokkos::AUTO).set_scratch_size(0, Kokkos::PerTeam(bytes)),
      KOKKOS_LAMBDA(const Member& team) {
        float* tile = static_cast<float*>(team.team_scratch(0).get_shmem(bytes));
        const int y0 = team.league_rank() * lines;
        const int n = (h - y0 < lines ? h - y0 : lines);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n * w), [&](const int i) {
          const int r = i / w, x = i - r * w;
          tile[r * ld + x] = gain * float(in(y0 + r, x));
        });
        team.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n),
                             [&](const int r) { bspline_iir_line(tile + r * ld, 1, w); });
        team.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n * w), [&](const int i) {
          const int r = i / w, x = i - r * w;
          c[std::int64_t(y0 + r) * w + x] = tile[r * ld + x];
        });
      });
}

template <class ExecSpace, class Coef>
void bspline_prefilter_cols_kokkos(const ExecSpace& exec, const Coef& coef) {
  const int h = int(coef.extent(0)), w = int(coef.extent(1));
  const float gain = h > 1 ? 6.0f : 1.0f;
  float* c = coef.data();
  const int lines = bspline_lines_per_team(h);
  if (lines == 0) {
    // Consecutive threads own consecutive columns: coalesced on GPUs.
    Kokkos::parallel_for(
        "tessera::video::bspline_cols", Kokkos::RangePolicy<ExecSpace>(exec, 0, w), KOKKOS_LAMBDA(const int x) {
          float* col = c + x;
          for (int y = 0; y < h; ++y) col[std::int64_t(y) * w] *= gain;
          bspline_iir_line(col, w, h);
        });
    return;
  }
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  const int ld = h + 1;
  const std::size_t bytes = std::size_t(lines) * ld * sizeof(float);
  Kokkos::parallel_for(
      "tessera::video::bspline_cols",
      Policy(exec, (w + lines - 1) / lines, Kokkos::AUTO).set_scratch_size(0, Kokkos::PerTeam(bytes)),
      KOKKOS_LAMBDA(const Member& team) {
        float* tile = static_cast<float*>(team.team_scratch(0).get_shmem(bytes));
        const int x0 = team.league_rank() * lines;
        const int n = (w - x0 < lines ? w - x0 : lines);
        // Row-major reads of n adjacent columns, stored column-contiguous.
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n * h), [&](const int i) {
          const int y = i / n, j = i - y * n;
          tile[j * ld + y] = gain * c[std::int64_t(y) * w + x0 + j];
        });
        team.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n),
                             [&](const int j) { bspline_iir_line(tile + j * ld, 1, h); });
        team.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n * h), [&](const int i) {
          const int y = i / n, j = i - y * n;
          c[std::int64_t(y) * w + x0 + j] = tile[j * ld + y];
        });
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
  const int oh = int(out.extent(0)), ow = int(out.extent(1));
  const float* c = coef.data();
  // Output row by team, columns by thread: no 64-bit division per pixel.
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  Kokkos::parallel_for(
      "tessera::video::bspline_interpolate", Policy(exec, oh, Kokkos::AUTO), KOKKOS_LAMBDA(const Member& team) {
        const int oy = team.league_rank();
        const int ry = oy % ph.u, iy = oy / ph.u + ph.offset[ry];
        const float* rows[4];
        for (int j = 0; j < 4; ++j) rows[j] = c + std::int64_t(mirror_index(iy - 1 + j, h)) * w;
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, ow), [&](const int ox) {
          const int rx = ox % ph.u, ix = ox / ph.u + ph.offset[rx];
          int cx[4];
          for (int k = 0; k < 4; ++k) cx[k] = mirror_index(ix - 1 + k, w);
          float s = 0.0f;
          for (int j = 0; j < 4; ++j) {
            float t = 0.0f;
            for (int k = 0; k < 4; ++k) t += ph.w[rx][k] * rows[j][cx[k]];
            s += ph.w[ry][j] * t;
          }
          out(oy, ox) = bspline_store<T>(s);
        });
      });
}

}  // namespace tessera::video::impl
