#pragma once
// Portable cubic B-spline kernels: the prefilter with one thread per
// scanline, rows then columns, and the separable 4x4 evaluation with one
// thread per output pixel. A team stages a block of whole scanlines in
// scratch (columns transposed so each is contiguous), runs the recursions
// there and writes the block back: the recursions' dependent steps then wait
// on scratch, not on global memory, and the global loads and stores are
// coalesced. Scanlines too long for scratch take the same recursions in place.
#include "tessera/core/exec_space.hpp"
#include "tessera/video/impl/bspline_host_eval.hpp"
#include "tessera/video/impl/bspline_host_fused.hpp"
#include "tessera/video/impl/bspline_host_simd.hpp"
#include "tessera/video/impl/bspline_math.hpp"
#include "tessera/video/impl/plane_layout.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace tessera::video::impl {

// Scanlines per team: up to 32 (a warp's worth on GPUs) within 48 KiB of
// scratch at a stride of len + 1 floats (odd strides keep the lines of a warp
// in distinct shared-memory banks); 0 when one line does not fit.
inline int bspline_lines_per_team(int len) {
  const long long per_line = 4LL * (len + 1);
  const long long fit = (48LL * 1024) / per_line;
  return int(fit < 32 ? fit : 32);
}

// The prefilter of `count` scanlines of `len` samples in coef: sample pos of
// line j lives at c[j * line_step + pos * pos_step] and starts as
// source(j, pos) (the gain already applied). A team stages a block of lines
// in scratch, each contiguous at a stride of len + 1 floats, runs the
// recursions there and writes the block back; the staging loops walk global
// memory in address order (along the line for rows, across the lines for
// columns). Lines too long for scratch: the recursions in place.
//
// CPUs: a thread takes L lines at a time into a buffer of its own, sample-
// major (t[pos * L + j]), so the recursions run as one vector loop over the
// lines (bspline_iir_lines); L = 64 for columns (a row's 64 samples are 4
// cache lines read together), 16 for rows (more blocks to share out). Each
// stage runs while its samples are at hand: rows go through the buffer in
// blocks of 64 samples (4 x 4 transposes in and out, the causal steps after
// a block arrives, the anti-causal ones before it leaves), columns a row at
// a time, so the buffer is walked twice instead of six times.

// Rows ahead that the host column pass requests (prefetch_piece).
inline constexpr int kPrefetch = 8;

// A software prefetch of the L floats at p (one request a 64-byte line).
template <int L>
inline void prefetch_piece(const float* p, bool write) {
#if defined(__GNUC__)
  for (int j = 0; j < L; j += 16) {
    if (write)
      __builtin_prefetch(p + j, 1);
    else
      __builtin_prefetch(p + j, 0);
  }
#else
  (void)p, (void)write;
#endif
}

// Row y's samples: gain * in(y, x); a single sample is its own coefficient.
template <class In>
struct BsplineRowSource {
  In in;
  float gain;
  KOKKOS_INLINE_FUNCTION float operator()(int y, int x) const { return gain * float(in(y, x)); }
};

// 8-bit rows whose samples are adjacent: the host row pass loads them 16 at a time.
template <class Source>
struct BsplineU8Rows : std::false_type {};
template <class In>
struct BsplineU8Rows<BsplineRowSource<In>>
    : std::bool_constant<std::is_same_v<typename In::non_const_value_type, std::uint8_t>> {};

template <int L, class ExecSpace, class Source>
void bspline_prefilter_lines_host(const ExecSpace& exec, const char* label, float* c, int count, int len,
                                  std::int64_t line_step, std::int64_t pos_step, const Source& source,
                                  BsplineHostStores stores) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  const std::size_t bytes = std::size_t(L) * std::size_t(len) * sizeof(float);
  const bool along_line = pos_step == 1;
  bool u8_rows = false;
  if constexpr (BsplineU8Rows<Source>::value) u8_rows = rows_contiguous(source.in);
  // Blocks of kPos samples: a block's share of t (kPos L floats) stays in L1
  // while it is transposed in and its causal steps run, and again while its
  // anti-causal steps run and it is transposed out. Lines of at most kPos
  // samples take the whole recursion between the transposes.
  constexpr int kPos = 64;
  const bool stream = along_line && len > kPos && bspline_can_stream(c, line_step) &&
                     bspline_host_streams(stores, std::size_t(count) * std::size_t(len) * sizeof(float));
  Kokkos::parallel_for(
      label, Policy(exec, (count + L - 1) / L, 1).set_scratch_size(1, Kokkos::PerTeam(bytes)),
      [=](const Member& team) {
        float* t = static_cast<float*>(team.team_scratch(1).get_shmem(bytes));
        const int j0 = team.league_rank() * L;
        const int n = count - j0 < L ? count - j0 : L;  // lines past the last: zeros, computed and dropped
        const bool whole = len <= kPos;
        if (along_line) {
          auto load_block = [&](const int p0, const int p1) {
            int j = 0;
            for (; j + 4 <= n; j += 4) {  // four lines a step: t's four floats are one store
              int pos = p0;
              if constexpr (BsplineU8Rows<Source>::value) {
                if (u8_rows) {
                  const std::uint8_t* r[4];
                  for (int i = 0; i < 4; ++i) r[i] = &source.in(j0 + j + i, 0);
                  for (; pos + kBsplineInStep <= p1; pos += kBsplineInStep)
                    bspline_transpose_in_u8<L>(r, pos, source.gain, t + j);
                }
              }
              for (; pos < p1; ++pos) {
                float* d = t + std::int64_t(pos) * L + j;
                const float v0 = source(j0 + j, pos), v1 = source(j0 + j + 1, pos);
                const float v2 = source(j0 + j + 2, pos), v3 = source(j0 + j + 3, pos);
                d[0] = v0, d[1] = v1, d[2] = v2, d[3] = v3;
              }
            }
            for (; j < n; ++j)
              for (int pos = p0; pos < p1; ++pos) t[std::int64_t(pos) * L + j] = source(j0 + j, pos);
            for (int pos = p0; pos < p1 && n < L; ++pos)
              for (int jj = n; jj < L; ++jj) t[std::int64_t(pos) * L + jj] = 0.0f;
          };
          auto store_block = [&](const int p0, const int p1) {
            int j = 0;
            for (; j + 4 <= n; j += 4) {
              float* r[4];
              for (int i = 0; i < 4; ++i) r[i] = c + std::int64_t(j0 + j + i) * line_step;
              int pos = p0;
              if (stream)
                for (; pos + kBsplineOutStep <= p1; pos += kBsplineOutStep) bspline_transpose_out<L, true>(t + j, pos, r);
              else
                for (; pos + kBsplineOutStep <= p1; pos += kBsplineOutStep) bspline_transpose_out<L>(t + j, pos, r);
              for (; pos < p1; ++pos)
                for (int i = 0; i < 4; ++i) r[i][pos] = t[std::int64_t(pos) * L + j + i];
            }
            for (; j < n; ++j) {
              float* line = c + std::int64_t(j0 + j) * line_step;
              for (int pos = p0; pos < p1; ++pos) line[pos] = t[std::int64_t(pos) * L + j];
            }
          };
          if (whole) {
            load_block(0, len);
            bspline_iir_lines<L>(t, len);
            store_block(0, len);
            return;
          }
          // len > kPos >= 42: the causal initial value needs positions 0..40 only.
          for (int p0 = 0; p0 < len; p0 += kPos) {
            const int p1 = p0 + kPos < len ? p0 + kPos : len;
            load_block(p0, p1);
            if (p0 == 0) bspline_iir_lines_init<L>(t, len);
            bspline_iir_lines_causal<L>(t, p0 > 0 ? p0 : 1, p1);
          }
          bspline_iir_lines_last<L>(t, len);
          for (int p0 = (len - 1) / kPos * kPos; p0 >= 0; p0 -= kPos) {
            const int p1 = p0 + kPos < len ? p0 + kPos : len;
            bspline_iir_lines_anticausal<L>(t, p1 < len - 1 ? p1 : len - 1, p0);
            store_block(p0, p1);
          }
          if (stream) bspline_stream_fence();
        } else {
          // Columns read (and below write) c itself, one short piece a row,
          // rows a page or more apart: the hardware prefetchers do not follow,
          // so the piece kPrefetch rows ahead is requested here. The causal
          // steps run as each row arrives, the anti-causal ones as each row
          // leaves.
          auto load_row = [&](const int pos) {
            if (pos + kPrefetch < len) prefetch_piece<L>(c + std::int64_t(pos + kPrefetch) * pos_step + j0, false);
            float* d = t + std::int64_t(pos) * L;
            for (int j = 0; j < n; ++j) d[j] = source(j0 + j, pos);
            for (int j = n; j < L; ++j) d[j] = 0.0f;
          };
          auto store_row = [&](const int pos) {
            if (pos - kPrefetch >= 0) prefetch_piece<L>(c + std::int64_t(pos - kPrefetch) * pos_step + j0, true);
            float* row = c + std::int64_t(pos) * pos_step + std::int64_t(j0) * line_step;
            const float* d = t + std::int64_t(pos) * L;
            for (int j = 0; j < n; ++j) row[j * line_step] = d[j];
          };
          if (whole) {
            for (int pos = 0; pos < len; ++pos) load_row(pos);
            bspline_iir_lines<L>(t, len);
            for (int pos = len - 1; pos >= 0; --pos) store_row(pos);
            return;
          }
          constexpr int kInit = 41;  // positions the causal initial value reads (len > kPos)
          for (int pos = 0; pos < kInit; ++pos) load_row(pos);
          bspline_iir_lines_init<L>(t, len);
          bspline_iir_lines_causal<L>(t, 1, kInit);
          for (int pos = kInit; pos < len; ++pos) {
            load_row(pos);
            bspline_iir_lines_causal<L>(t, pos, pos + 1);
          }
          bspline_iir_lines_last<L>(t, len);
          store_row(len - 1);
          for (int pos = len - 2; pos >= 0; --pos) {
            bspline_iir_lines_anticausal<L>(t, pos + 1, pos);
            store_row(pos);
          }
        }
      });
}

template <class ExecSpace, class Source>
void bspline_prefilter_lines(const ExecSpace& exec, const char* label, float* c, int count, int len,
                             std::int64_t line_step, std::int64_t pos_step, const Source& source,
                             BsplineHostStores stores = BsplineHostStores::automatic) {
  if constexpr (!is_device_space_v<ExecSpace>) {
    if (pos_step == 1)
      bspline_prefilter_lines_host<16>(exec, label, c, count, len, line_step, pos_step, source, stores);
    else
      bspline_prefilter_lines_host<64>(exec, label, c, count, len, line_step, pos_step, source, stores);
    return;
  }
  (void)stores;
  const int lines = bspline_lines_per_team(len);
  if (lines == 0) {
    // Consecutive threads own consecutive lines (columns: coalesced on GPUs).
    Kokkos::parallel_for(
        label, Kokkos::RangePolicy<ExecSpace>(exec, 0, count), KOKKOS_LAMBDA(const int j) {
          float* line = c + j * line_step;
          for (int pos = 0; pos < len; ++pos) line[pos * pos_step] = source(j, pos);
          bspline_iir_line(line, pos_step, len);
        });
    return;
  }
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  const int ld = len + 1;
  const bool along_line = pos_step == 1;
  const std::size_t bytes = std::size_t(lines) * ld * sizeof(float);
  Kokkos::parallel_for(
      label, Policy(exec, (count + lines - 1) / lines, Kokkos::AUTO).set_scratch_size(0, Kokkos::PerTeam(bytes)),
      KOKKOS_LAMBDA(const Member& team) {
        float* tile = static_cast<float*>(team.team_scratch(0).get_shmem(bytes));
        const int j0 = team.league_rank() * lines;
        const int n = (count - j0 < lines ? count - j0 : lines);
        // Element i of the block: (line, pos) in global address order.
        auto split = [&](const int i, int& j, int& pos) {
          if (along_line) {
            j = i / len, pos = i - j * len;
          } else {
            pos = i / n, j = i - pos * n;
          }
        };
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n * len), [&](const int i) {
          int j, pos;
          split(i, j, pos);
          tile[j * ld + pos] = source(j0 + j, pos);
        });
        team.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n),
                             [&](const int j) { bspline_iir_line(tile + j * ld, 1, len); });
        team.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, n * len), [&](const int i) {
          int j, pos;
          split(i, j, pos);
          c[(j0 + j) * line_step + pos * pos_step] = tile[j * ld + pos];
        });
      });
}

// Column x's samples: gain * coef(y, x), after the row pass.
struct BsplineColumnSource {
  const float* c;
  int w;
  float gain;
  KOKKOS_INLINE_FUNCTION float operator()(int x, int y) const { return gain * c[std::int64_t(y) * w + x]; }
};

// coef = gain * in, then the IIR along each row.
template <class ExecSpace, class In, class Coef>
void bspline_prefilter_rows_kokkos(const ExecSpace& exec, const In& in, const Coef& coef,
                                   BsplineHostStores stores = BsplineHostStores::automatic) {
  const int h = int(coef.extent(0)), w = int(coef.extent(1));
  bspline_prefilter_lines(exec, "tessera::video::bspline_rows", coef.data(), h, w, w, 1,
                          BsplineRowSource<In>{in, w > 1 ? 6.0f : 1.0f}, stores);
}

// coef *= gain, then the IIR along each column.
template <class ExecSpace, class Coef>
void bspline_prefilter_cols_kokkos(const ExecSpace& exec, const Coef& coef) {
  const int h = int(coef.extent(0)), w = int(coef.extent(1));
  bspline_prefilter_lines(exec, "tessera::video::bspline_cols", coef.data(), w, h, 1, w,
                          BsplineColumnSource{coef.data(), w, h > 1 ? 6.0f : 1.0f});
}

// Host spaces take the one-pass prefilter where it applies
// (bspline_host_fused.hpp: 8-bit rows, AVX2 and FMA); two_pass keeps the
// rows-then-columns path, whose coefficients bspline_iir_line matches to the bit.
enum class BsplineHostPath { automatic, two_pass };

template <class ExecSpace, class In, class Coef>
void bspline_prefilter_kokkos(const ExecSpace& exec, const In& in, const Coef& coef,
                              BsplineHostStores stores = BsplineHostStores::automatic,
                              BsplineHostPath path = BsplineHostPath::automatic) {
  if constexpr (!is_device_space_v<ExecSpace>) {
    if (path == BsplineHostPath::automatic && bspline_prefilter_fused_host(exec, in, coef, stores)) return;
  }
  (void)path;
  bspline_prefilter_rows_kokkos(exec, in, coef, stores);
  bspline_prefilter_cols_kokkos(exec, coef);
}

// Host evaluation: the horizontal sum of a coefficient row for every output
// column (the t of the portable kernel below, term for term) is worked out
// once and kept while the u or so output rows that use it are made, each as
// four weighted rows added along x: about 4 + 16 / u multiply-adds an output
// instead of 20, and no division or mirror per pixel (the columns' taps and
// weights are tabulated once a call). A thread takes a run of output rows
// with a ring of four horizontal rows. With AVX2 and FMA (`simd`, checked at
// run time) the rows' interior blocks and the 8-bit output rows run the
// vector loops of bspline_host_eval.hpp; the plain loops make the rest.
template <class ExecSpace, class Coef, class Out>
void bspline_interpolate_host(const ExecSpace& exec, const Coef& coef, const Out& out, const BsplinePhases& ph,
                              bool simd = true) {
  using T = typename Out::non_const_value_type;
  const int h = int(coef.extent(0)), w = int(coef.extent(1));
  const int oh = int(out.extent(0)), ow = int(out.extent(1));
  std::vector<int> cols(std::size_t(ow) * 4);
  std::vector<float> wx(std::size_t(ow) * 4);
  for (int ox = 0; ox < ow; ++ox) {
    const int rx = ox % ph.u, ix = ox / ph.u + ph.offset[rx];
    for (int k = 0; k < 4; ++k) {
      cols[std::size_t(ox) * 4 + k] = mirror_index(ix - 1 + k, w);
      wx[std::size_t(ox) * 4 + k] = ph.w[rx][k];
    }
  }
  const float* c = coef.data();
  const int* cx = cols.data();
  const float* wk = wx.data();
  const std::int64_t cstride = coef.extent(0) > 1 ? std::int64_t(coef.stride(0)) : w;
  const bool vec = simd && host_avx2_fma();
  const BsplineRowTaps taps = bspline_row_taps(ph);
  int q0 = 0, q1 = 0;
  if (vec) bspline_row_blocks(taps, w, ph.u, ow, q0, q1);
  const bool vec_out = vec && std::is_same_v<T, std::uint8_t> && (ow < 2 || out.stride(1) == 1);
  const int pitch = ow + 16;  // a ring row and the vector stores' overrun
  const int runs = std::max(1, std::min(oh, 4 * int(exec.concurrency())));
  Kokkos::parallel_for(
      "tessera::video::bspline_interpolate_host", Kokkos::RangePolicy<ExecSpace>(exec, 0, runs), [=](const int q) {
        const int oy0 = int(std::int64_t(q) * oh / runs), oy1 = int(std::int64_t(q + 1) * oh / runs);
        std::vector<float> ring(std::size_t(pitch) * 4);
        int held[4] = {INT_MIN, INT_MIN, INT_MIN, INT_MIN};  // the (unmirrored) coefficient row in each slot
        // hs[ox] for ox in [x0, x1) by the tables.
        auto sums = [&](const float* src, float* hs, const int x0, const int x1) {
          for (int ox = x0; ox < x1; ++ox) {
            const int* x = cx + std::size_t(ox) * 4;
            const float* a = wk + std::size_t(ox) * 4;
            float t = 0.0f;
            for (int k = 0; k < 4; ++k) t += a[k] * src[x[k]];
            hs[ox] = t;
          }
        };
        for (int oy = oy0; oy < oy1; ++oy) {
          const int ry = oy % ph.u, iy = oy / ph.u + ph.offset[ry];
          const float* hr[4];
          for (int j = 0; j < 4; ++j) {
            const int row = iy - 1 + j, slot = row & 3;
            float* hs = ring.data() + std::size_t(slot) * pitch;
            if (held[slot] != row) {
              const float* src = c + std::int64_t(mirror_index(row, h)) * cstride;
#if TESSERA_HOST_X86
              if (q1 > q0) {
                sums(src, hs, 0, q0 * ph.u);
                bspline_row_sums_vector(src, taps, ph.u, q0, q1, hs);  // before the right edge: its overrun
                sums(src, hs, q1 * ph.u, ow);
              } else
#endif
              {
                sums(src, hs, 0, ow);
              }
              held[slot] = row;
            }
            hr[j] = hs;
          }
          T* const orow = &out(oy, 0);
#if TESSERA_HOST_X86
          if (vec_out) {
            bspline_rows_to_u8_avx2(hr, ph.w[ry], reinterpret_cast<std::uint8_t*>(orow), ow);
            continue;
          }
#endif
          const float w0 = ph.w[ry][0], w1 = ph.w[ry][1], w2 = ph.w[ry][2], w3 = ph.w[ry][3];
          const float *h0 = hr[0], *h1 = hr[1], *h2 = hr[2], *h3 = hr[3];
          // A local count and a row pointer: 8-bit stores may alias anything,
          // the captured width included, which would keep the loop scalar.
          const int n = ow;
          const std::ptrdiff_t step = ow > 1 ? std::ptrdiff_t(out.stride(1)) : 1;
          auto sum = [&](const int ox) { return w0 * h0[ox] + w1 * h1[ox] + w2 * h2[ox] + w3 * h3[ox]; };
          if (step == 1) {
            for (int ox = 0; ox < n; ++ox) orow[ox] = bspline_store<T>(sum(ox));
          } else {
            for (int ox = 0; ox < n; ++ox) orow[ox * step] = bspline_store<T>(sum(ox));
          }
        }
      });
  exec.fence();  // cols and wx live until the rows are done
}

template <class ExecSpace, class Coef, class Out>
void bspline_interpolate_kokkos(const ExecSpace& exec, const Coef& coef, const Out& out, const BsplinePhases& ph) {
  if constexpr (!is_device_space_v<ExecSpace>) {
    if (out.extent(0) > 0 && out.extent(1) > 0) bspline_interpolate_host(exec, coef, out, ph);
    return;
  }
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
