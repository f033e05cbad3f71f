#pragma once
// The host prefilter in one pass over the plane (x86-64 with AVX2 and FMA,
// 8-bit rows): rows and columns together, so the plane is read once as 8-bit
// samples and written once as coefficients (5 bytes a pixel instead of the
// two-pass path's 13). A thread takes a band of rows. Rows are filtered
// along x 8 at a time in vector lanes (a byte transpose in, an 8 x 8 float
// transpose out: every recursion step one FMA for 8 samples) and take their
// causal column steps as they are stored into a ring of row buffers of the
// thread's own; every kFusedBlock rows the anti-causal column steps run up
// from kFusedReach rows further down, a row at a time, storing the block's
// finished rows. On request the plane goes through in column strips (the
// row filter runs kFusedReach samples past each strip edge and starts there
// from the mirror values), so that the ring fits a smaller cache; whole rows
// are the default (strips of 1024 were 1.2x slower on an AMD EPYC, docs/
// perf/video.md). Where the plane's own ends are in reach the recursions
// start from the exact mirror values; elsewhere (above a band, below a
// block, past a strip edge) they start kFusedReach rows or samples away: the
// impulse response sqrt(3) z^|n| has fallen below 2^-30 of its peak there
// (|z|^16 = 7e-10), so the coefficients differ from the two-pass path's by
// float rounding only (the bound is the fused native kernel's, see
// kBsplineFirRadius in bspline_math.hpp), not to the bit.
#include "tessera/video/impl/bspline_host_simd.hpp"
#include "tessera/video/impl/bspline_math.hpp"
#include "tessera/video/impl/plane_layout.hpp"

#include <Kokkos_Core.hpp>
#if TESSERA_HOST_X86
#include <immintrin.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>

namespace tessera::video::impl {

// Rows finished per anti-causal sweep, rows beyond a band or block where the
// truncated recursions start, and rows filtered at a time. The ring holds a
// block, its reach and up to 7 rows of the group that crossed it; a block and
// its reach cover the 41 rows the exact causal start at the top reads.
inline constexpr int kFusedBlock = 32;
inline constexpr int kFusedReach = 16;
inline constexpr int kFusedGroup = 8;
inline constexpr int kFusedRing = kFusedBlock + kFusedReach + kFusedGroup - 1;
static_assert(kFusedBlock + kFusedReach >= 41, "the exact causal start reads rows 0..40");
static_assert(kFusedReach % kFusedGroup == 0, "a band's warm-up is whole groups");
// Shortest row (the row filter's exact start drops the far end's terms from
// 42 samples on), fewest rows (the exact start at the top reads 41, filtered
// in whole groups), and fewest rows a band takes (its warm-up and reach add
// 2 kFusedReach rows of row filtering).
inline constexpr int kFusedMinWidth = 42;
inline constexpr int kFusedMinHeight = 48;
inline constexpr int kFusedMinBand = 64;


// Column strips of a plane w wide, each at most `strip` samples (0: the
// whole width; at least 48) wide: strip s is [begin(s), begin(s + 1)), the
// edges multiples of 8; the last takes the remainder, or joins the one
// before where, with its reach, it would be narrower than the row filter's
// minimum.
struct BsplineFusedStrips {
  int count, width, w;
  int begin(int s) const { return s >= count ? w : s * width; }
};
inline BsplineFusedStrips bspline_fused_strips(int w, int strip = 0) {
  if (strip <= 0) return {1, w, w};
  const int width = std::max(48, strip) / 8 * 8;
  if (w <= width) return {1, w, w};
  int count = (w + width - 1) / width;
  if (w - (count - 1) * width + kFusedReach < kFusedMinWidth) --count;
  return {count, width, w};
}

// Bands the one-pass prefilter splits an h x w plane into on `threads`
// threads (each at least kFusedMinBand rows); 0 where it does not take the
// plane (too small, or a CPU without AVX2 and FMA).
inline int bspline_fused_bands(int h, int w, int threads) {
  if (!host_avx2_fma() || w < kFusedMinWidth || h < kFusedMinHeight) return 0;
  return std::max(1, std::min(threads, h / kFusedMinBand));
}

#if TESSERA_HOST_X86
// 8 x 8 transpose: v[j] holds sample j of rows 0..7 in, row i's 8 samples out.
[[gnu::target("avx2,fma")]] inline void bspline_transpose8_avx2(__m256* v) {
  const __m256 t0 = _mm256_unpacklo_ps(v[0], v[1]), t1 = _mm256_unpackhi_ps(v[0], v[1]);
  const __m256 t2 = _mm256_unpacklo_ps(v[2], v[3]), t3 = _mm256_unpackhi_ps(v[2], v[3]);
  const __m256 t4 = _mm256_unpacklo_ps(v[4], v[5]), t5 = _mm256_unpackhi_ps(v[4], v[5]);
  const __m256 t6 = _mm256_unpacklo_ps(v[6], v[7]), t7 = _mm256_unpackhi_ps(v[6], v[7]);
  const __m256 s0 = _mm256_shuffle_ps(t0, t2, 0x44), s1 = _mm256_shuffle_ps(t0, t2, 0xEE);
  const __m256 s2 = _mm256_shuffle_ps(t1, t3, 0x44), s3 = _mm256_shuffle_ps(t1, t3, 0xEE);
  const __m256 s4 = _mm256_shuffle_ps(t4, t6, 0x44), s5 = _mm256_shuffle_ps(t4, t6, 0xEE);
  const __m256 s6 = _mm256_shuffle_ps(t5, t7, 0x44), s7 = _mm256_shuffle_ps(t5, t7, 0xEE);
  v[0] = _mm256_permute2f128_ps(s0, s4, 0x20), v[1] = _mm256_permute2f128_ps(s1, s5, 0x20);
  v[2] = _mm256_permute2f128_ps(s2, s6, 0x20), v[3] = _mm256_permute2f128_ps(s3, s7, 0x20);
  v[4] = _mm256_permute2f128_ps(s0, s4, 0x31), v[5] = _mm256_permute2f128_ps(s1, s5, 0x31);
  v[6] = _mm256_permute2f128_ps(s2, s6, 0x31), v[7] = _mm256_permute2f128_ps(s3, s7, 0x31);
}

// Samples x..x+7 of 8-bit rows r[0..7] as 8 vectors (v[j]: sample x + j of
// the 8 rows) times g: a byte transpose (12 unpacks) and 16 widenings.
[[gnu::target("avx2,fma")]] inline void bspline_load8_u8_avx2(const std::uint8_t* const* r, int x, __m256 g,
                                                              __m256* v) {
  __m128i a[8];
  for (int i = 0; i < 8; ++i) a[i] = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(r[i] + x));
  const __m128i b0 = _mm_unpacklo_epi8(a[0], a[1]), b1 = _mm_unpacklo_epi8(a[2], a[3]);
  const __m128i b2 = _mm_unpacklo_epi8(a[4], a[5]), b3 = _mm_unpacklo_epi8(a[6], a[7]);
  const __m128i c0 = _mm_unpacklo_epi16(b0, b1), c1 = _mm_unpackhi_epi16(b0, b1);  // samples 0-3 / 4-7, rows 0-3
  const __m128i c2 = _mm_unpacklo_epi16(b2, b3), c3 = _mm_unpackhi_epi16(b2, b3);  // rows 4-7
  const __m128i d[4] = {_mm_unpacklo_epi32(c0, c2), _mm_unpackhi_epi32(c0, c2), _mm_unpacklo_epi32(c1, c3),
                        _mm_unpackhi_epi32(c1, c3)};  // samples 2k, 2k + 1 of rows 0-7
  for (int k = 0; k < 4; ++k) {
    v[2 * k] = _mm256_mul_ps(g, _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(d[k])));
    v[2 * k + 1] = _mm256_mul_ps(g, _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_unpackhi_epi64(d[k], d[k]))));
  }
}

// Rows from which the row filter runs two recursion chains (below, one).
inline constexpr int kRowSplitMin = 256;

// Causal steps of block x (8 samples of the 8 rows, loaded and transposed):
// prev runs through them; stored sample-major into t unless only warming up.
[[gnu::target("avx2,fma")]] inline void bspline_causal_block_avx2(const std::uint8_t* const* r, int x, __m256 g,
                                                                  __m256 zv, __m256& prev, float* t, bool store) {
  __m256 v[8];
  bspline_load8_u8_avx2(r, x, g, v);
  for (int j = 0; j < 8; ++j) {
    prev = _mm256_fmadd_ps(zv, prev, v[j]);
    if (store) _mm256_storeu_ps(t + 8 * (x + j), prev);
  }
}

// Anti-causal steps of block x0 down from prev (exact: its last sample is
// prev itself, the line's exact end value), transposed to rows, the causal
// column steps folded in (o[i] += z o[i-1], o[0] += z above), stored.
[[gnu::target("avx2,fma")]] inline void bspline_anticausal_block_avx2(const float* t, int x0, __m256 zv, __m256 mz,
                                                                      __m256& prev, float* const* o, bool exact,
                                                                      bool columns, const float* above) {
  __m256 v[8];
  int j = 7;
  if (exact) v[j--] = prev;
  for (; j >= 0; --j) v[j] = prev = _mm256_fmadd_ps(zv, prev, _mm256_mul_ps(mz, _mm256_loadu_ps(t + 8 * (x0 + j))));
  bspline_transpose8_avx2(v);
  if (columns) {
    if (above) v[0] = _mm256_fmadd_ps(zv, _mm256_loadu_ps(above + x0), v[0]);
    for (int i = 1; i < 8; ++i) v[i] = _mm256_fmadd_ps(zv, v[i - 1], v[i]);
  }
  for (int i = 0; i < 8; ++i) _mm256_storeu_ps(o[i] + x0, v[i]);
}

// o[i] = the prefilter of the row gain * r[i], i < 8 (n >= kFusedMinWidth
// samples), the 8 rows in the lanes of a vector: every step one FMA for 8
// samples. t: 8 n floats of the thread's own (sample-major, the causal
// values between the two sweeps). Columns: the causal column steps of the 8
// rows as they are stored, o[i] += z o[i-1], o[0] += z above (above null:
// row 0 starts the recursion). Rows of kRowSplitMin samples or more run as
// two halves whose recursions interleave (each step waits on the one before
// it, so one chain leaves the FMA units idle): the second half's chains
// start from zero kFusedReach samples before their half, as the bands do.
[[gnu::target("avx2,fma")]] inline void bspline_rows8_avx2(const std::uint8_t* const* r, float* const* o, float* t,
                                                           int n, float gain, bool columns = false,
                                                           const float* above = nullptr) {
  constexpr double z = kBsplinePole;
  const __m256 g = _mm256_set1_ps(gain), zv = _mm256_set1_ps(float(z)), mz = _mm256_set1_ps(-float(z));
  __m256 v[8];
  // The first 48 samples, then the causal initial value (bspline_iir_line's
  // mirror sum for n >= 42, in double) and their causal steps.
  int x = 0;
  for (; x < 48 && x + 8 <= n; x += 8) {
    bspline_load8_u8_avx2(r, x, g, v);
    for (int j = 0; j < 8; ++j) _mm256_storeu_ps(t + 8 * (x + j), v[j]);
  }
  for (; x < 48 && x < n; ++x)
    for (int i = 0; i < 8; ++i) t[8 * x + i] = gain * float(r[i][x]);
  {
    __m256d lo = _mm256_cvtps_pd(_mm_loadu_ps(t)), hi = _mm256_cvtps_pd(_mm_loadu_ps(t + 4));
    double zn = z;
    for (int k = 1; k <= 40; ++k) {
      const __m256d w = _mm256_set1_pd(zn);
      lo = _mm256_fmadd_pd(w, _mm256_cvtps_pd(_mm_loadu_ps(t + 8 * k)), lo);
      hi = _mm256_fmadd_pd(w, _mm256_cvtps_pd(_mm_loadu_ps(t + 8 * k + 4)), hi);
      zn *= z;
    }
    _mm256_storeu_ps(t, _mm256_set_m128(_mm256_cvtpd_ps(hi), _mm256_cvtpd_ps(lo)));
  }
  __m256 prev = _mm256_loadu_ps(t);
  const int head = x;
  for (int k = 1; k < head; ++k) {
    prev = _mm256_fmadd_ps(zv, prev, _mm256_loadu_ps(t + 8 * k));
    _mm256_storeu_ps(t + 8 * k, prev);
  }
  // The rest, loaded, transposed and run through the causal steps at once:
  // [head, m) on the first chain, [m, n8) on the second (from zero at m - 16).
  const int n8 = n / 8 * 8;
  const int m = n >= kRowSplitMin ? n8 / 16 * 8 : n8;
  static_assert(kFusedReach % 8 == 0, "whole blocks of warm-up");
  __m256 pb = _mm256_setzero_ps();
  if (m < n8)
    for (int w = m - kFusedReach; w < m; w += 8) bspline_causal_block_avx2(r, w, g, zv, pb, t, false);
  int xa = head, xb = m;
  for (; xa < m && xb < n8; xa += 8, xb += 8) {
    bspline_causal_block_avx2(r, xa, g, zv, prev, t, true);
    bspline_causal_block_avx2(r, xb, g, zv, pb, t, true);
  }
  for (; xa < m; xa += 8) bspline_causal_block_avx2(r, xa, g, zv, prev, t, true);
  for (; xb < n8; xb += 8) bspline_causal_block_avx2(r, xb, g, zv, pb, t, true);
  if (m < n8) prev = pb;
  for (x = std::max(n8, head); x < n; ++x) {  // rows under 48 samples: the head took them
    alignas(32) float s[8];
    for (int i = 0; i < 8; ++i) s[i] = gain * float(r[i][x]);
    prev = _mm256_fmadd_ps(zv, prev, _mm256_load_ps(s));
    _mm256_storeu_ps(t + 8 * x, prev);
  }
  // The anti-causal steps from the exact last value: c = z c' - z c+.
  {
    const __m256d f = _mm256_set1_pd(z / (z * z - 1.0)), zd = _mm256_set1_pd(z);
    const float* a = t + 8 * (n - 2);
    const __m256d lo = _mm256_mul_pd(f, _mm256_fmadd_pd(zd, _mm256_cvtps_pd(_mm_loadu_ps(a)), _mm256_cvtps_pd(_mm_loadu_ps(a + 8))));
    const __m256d hi =
        _mm256_mul_pd(f, _mm256_fmadd_pd(zd, _mm256_cvtps_pd(_mm_loadu_ps(a + 4)), _mm256_cvtps_pd(_mm_loadu_ps(a + 12))));
    prev = _mm256_set_m128(_mm256_cvtpd_ps(hi), _mm256_cvtpd_ps(lo));
  }
  const float zf = float(z);
  {
    // Samples n8..n-1 one at a time (the last one exact), stored lane by lane.
    alignas(32) float s[8];
    for (int k = n - 1; k >= n8; --k) {
      if (k < n - 1) prev = _mm256_fmadd_ps(zv, prev, _mm256_mul_ps(mz, _mm256_loadu_ps(t + 8 * k)));
      _mm256_store_ps(s, prev);
      if (columns) {
        if (above) s[0] = std::fma(zf, above[k], s[0]);
        for (int i = 1; i < 8; ++i) s[i] = std::fma(zf, s[i - 1], s[i]);
      }
      for (int i = 0; i < 8; ++i) o[i][k] = s[i];
    }
  }
  // Blocks [m, n8) down from the exact end on the first chain, [0, m) down on
  // the second (from zero at m + 16). n8 = n: the last sample is the exact value.
  pb = _mm256_setzero_ps();
  if (m < n8)
    for (int k = m + kFusedReach - 1; k >= m; --k)
      pb = _mm256_fmadd_ps(zv, pb, _mm256_mul_ps(mz, _mm256_loadu_ps(t + 8 * k)));
  else
    pb = prev;
  xa = n8 - 8;
  xb = m - 8;
  if (m < n8) {
    for (; xa >= m && xb >= 0; xa -= 8, xb -= 8) {
      bspline_anticausal_block_avx2(t, xa, zv, mz, prev, o, xa + 7 == n - 1, columns, above);
      bspline_anticausal_block_avx2(t, xb, zv, mz, pb, o, false, columns, above);
    }
    for (; xa >= m; xa -= 8) bspline_anticausal_block_avx2(t, xa, zv, mz, prev, o, xa + 7 == n - 1, columns, above);
  }
  for (; xb >= 0; xb -= 8) bspline_anticausal_block_avx2(t, xb, zv, mz, pb, o, m == n8 && xb + 7 == n - 1, columns, above);
}

// The causal column step of a row: c[x] += z p[x], p the row above.
[[gnu::target("avx2,fma")]] inline void bspline_col_causal_avx2(float* c, const float* p, int n) {
  const float zf = float(kBsplinePole);
  const __m256 z = _mm256_set1_ps(zf);
  int x = 0;
  for (; x + 8 <= n; x += 8)
    _mm256_storeu_ps(c + x, _mm256_fmadd_ps(z, _mm256_loadu_ps(p + x), _mm256_loadu_ps(c + x)));
  for (; x < n; ++x) c[x] = std::fma(zf, p[x], c[x]);
}

// The exact causal start of every column: row 0 = sum_{k <= 40} z^k row k
// in double, as bspline_iir_line has it for lines of 42 samples or more.
[[gnu::target("avx2,fma")]] inline void bspline_col_init_avx2(float* const* rows, int n) {
  double zk[41];
  zk[0] = 1.0;
  for (int k = 1; k <= 40; ++k) zk[k] = zk[k - 1] * kBsplinePole;
  int x = 0;
  for (; x + 4 <= n; x += 4) {
    __m256d s = _mm256_cvtps_pd(_mm_loadu_ps(rows[0] + x));
    for (int k = 1; k <= 40; ++k) s = _mm256_fmadd_pd(_mm256_set1_pd(zk[k]), _mm256_cvtps_pd(_mm_loadu_ps(rows[k] + x)), s);
    _mm_storeu_ps(rows[0] + x, _mm256_cvtpd_ps(s));
  }
  for (; x < n; ++x) {
    double s = double(rows[0][x]);
    for (int k = 1; k <= 40; ++k) s += zk[k] * double(rows[k][x]);
    rows[0][x] = float(s);
  }
}

// One anti-causal column step of a row: acc = z (acc - c), and out = acc
// where out is not null (Stream: non-temporal stores, out 32-byte aligned).
template <bool Stream>
[[gnu::target("avx2,fma")]] inline void bspline_col_anticausal_avx2(float* acc, const float* c, float* out, int n) {
  const float zf = float(kBsplinePole);
  const __m256 z = _mm256_set1_ps(zf);
  int x = 0;
  if (out) {
    for (; x + 8 <= n; x += 8) {
      const __m256 a = _mm256_mul_ps(z, _mm256_sub_ps(_mm256_loadu_ps(acc + x), _mm256_loadu_ps(c + x)));
      _mm256_storeu_ps(acc + x, a);
      if constexpr (Stream)
        _mm256_stream_ps(out + x, a);
      else
        _mm256_storeu_ps(out + x, a);
    }
    for (; x < n; ++x) out[x] = acc[x] = zf * (acc[x] - c[x]);
  } else {
    for (; x + 8 <= n; x += 8)
      _mm256_storeu_ps(acc + x, _mm256_mul_ps(z, _mm256_sub_ps(_mm256_loadu_ps(acc + x), _mm256_loadu_ps(c + x))));
    for (; x < n; ++x) acc[x] = zf * (acc[x] - c[x]);
  }
}
#endif

// Whether the one-pass prefilter takes the plane `in` on the host space
// exec (8-bit samples, contiguous rows, a CPU with AVX2 and FMA, a plane
// large enough for a band): bspline_prefilter_kokkos then reads it once and
// writes the coefficients once (5 bytes a pixel instead of 13).
template <class ExecSpace, class In>
bool bspline_prefilter_one_pass(const ExecSpace& exec, const In& in) {
  if constexpr (std::is_same_v<typename In::non_const_value_type, std::uint8_t> && TESSERA_HOST_X86) {
    return rows_contiguous(in) && bspline_fused_bands(int(in.extent(0)), int(in.extent(1)), int(exec.concurrency())) > 0;
  } else {
    (void)exec;
    (void)in;
    return false;
  }
}

// The one-pass prefilter of the 8-bit plane in into coef (both h x w, rows
// of in contiguous) on a host execution space, in `bands` bands (0: as
// bspline_fused_bands picks) and column strips of at most `strip` samples
// (0: whole rows). False, nothing done, where it does not take the plane;
// the two-pass path then runs. Coefficients leave through non-temporal
// stores under the two-pass row pass's rule (BsplineHostStores).
template <class ExecSpace, class In, class Coef>
bool bspline_prefilter_fused_host(const ExecSpace& exec, const In& in, const Coef& coef, BsplineHostStores stores,
                                  int bands = 0, int strip = 0) {
#if TESSERA_HOST_X86
  if constexpr (std::is_same_v<typename In::non_const_value_type, std::uint8_t>) {
    const int h = int(coef.extent(0)), w = int(coef.extent(1));
    if (!bspline_prefilter_one_pass(exec, in)) return false;
    bands = bands > 0 ? std::min(bands, std::max(1, h / kFusedMinBand)) : bspline_fused_bands(h, w, int(exec.concurrency()));
    const std::int64_t ld = coef.stride(0);
    const BsplineFusedStrips strips = bspline_fused_strips(w, strip);
    int widest = 0;  // a strip and its reach on both sides
    for (int q = 0; q < strips.count; ++q)
      widest = std::max(widest, std::min(w, strips.begin(q + 1) + kFusedReach) -
                                    std::max(0, strips.begin(q) - kFusedReach));
    const std::int64_t rld = (widest + 15) / 16 * 16;  // ring rows 64-byte multiples apart
    // The ring, the anti-causal running row, a spare row for rows past the
    // plane's end, and the row filter's 8 rows sample-major.
    const std::size_t bytes = std::size_t(kFusedRing + 2 + kFusedGroup) * std::size_t(rld) * sizeof(float);
    const bool stream = bspline_host_streams(stores, std::size_t(h) * w * sizeof(float)) &&
                        reinterpret_cast<std::uintptr_t>(coef.data()) % 32 == 0 && ld % 8 == 0 && w % 8 == 0;
    const std::uint8_t* src = in.data();
    const std::int64_t pitch = row_pitch(in);
    float* out = coef.data();
    using Policy = Kokkos::TeamPolicy<ExecSpace>;
    Kokkos::parallel_for(
        "tessera::video::bspline_prefilter_fused", Policy(exec, bands, 1).set_scratch_size(1, Kokkos::PerTeam(bytes)),
        [=](const typename Policy::member_type& team) {
          constexpr int R = kFusedRing;
          float* ring = static_cast<float*>(team.team_scratch(1).get_shmem(bytes));
          float* acc = ring + R * rld;  // the anti-causal recursion's running row
          auto slot = [&](int y) { return ring + (y % R) * rld; };
          const int b = team.league_rank();
          const int y0 = int(std::int64_t(b) * h / bands), y1 = int(std::int64_t(b + 1) * h / bands);
          float* spare = acc + rld;
          float* lanes = spare + rld;
          for (int q = 0; q < strips.count; ++q) {
            // Columns [x0, x1) of the band from the samples [xs, xs + n): the
            // strip and its reach (the row filter starts there from the
            // mirror values; at the plane's ends they are exact).
            const int x0 = strips.begin(q), x1 = strips.begin(q + 1);
            const int xs = std::max(0, x0 - kFusedReach), n = std::min(w, x1 + kFusedReach) - xs;
            const int off = x0 - xs, sw = x1 - x0;
            // Rows y..y+7 filtered along x into their slots (rows past the
            // plane: the last row again, into the spare row), with their causal
            // column steps when `columns` (row y's from the row above unless
            // above is null: row y starts the recursion).
            auto rows = [&](int y, bool columns, const float* above) {
              const std::uint8_t* r[kFusedGroup];
              float* o[kFusedGroup];
              for (int i = 0; i < kFusedGroup; ++i) {
                r[i] = src + std::min(y + i, h - 1) * pitch + xs;
                o[i] = y + i < h ? slot(y + i) : spare;
              }
              bspline_rows8_avx2(r, o, lanes, n, 36.0f, columns, above);
            };
            int next;
            if (y0 == 0) {
              for (int y = 0; y < 41; y += kFusedGroup) rows(y, false, nullptr);
              float* first[41];
              for (int k = 0; k <= 40; ++k) first[k] = slot(k);
              bspline_col_init_avx2(first, n);
              next = (41 + kFusedGroup - 1) / kFusedGroup * kFusedGroup;
              for (int y = 1; y < next; ++y) bspline_col_causal_avx2(slot(y), slot(y - 1), n);
            } else {
              // y0 >= kFusedMinBand > kFusedReach: the warm-up starts inside the plane.
              rows(y0 - kFusedReach, true, nullptr);
              for (int y = y0 - kFusedReach + kFusedGroup; y < y0; y += kFusedGroup) rows(y, true, slot(y - 1));
              next = y0;
            }
            for (int b0 = y0; b0 < y1; b0 += kFusedBlock) {
              const int bend = std::min(y1, b0 + kFusedBlock), e = std::min(h, bend + kFusedReach) - 1;
              for (; next <= e; next += kFusedGroup) rows(next, true, slot(next - 1));
              // The anti-causal steps a row at a time up from row e, the
              // running row in acc (the strip's own columns only): exact at
              // the plane's last row, else zero below row e.
              int y = e;
              if (e == h - 1) {
                const float *c1 = slot(h - 1) + off, *c2 = slot(h - 2) + off;
                for (int x = 0; x < sw; ++x) acc[x] = bspline_anticausal_last(c2[x], c1[x]);
                if (y < bend) std::copy(acc, acc + sw, out + y * ld + x0);
                --y;
              } else {
                std::fill(acc, acc + sw, 0.0f);
              }
              for (; y >= b0; --y) {
                float* o = y < bend ? out + y * ld + x0 : nullptr;
                if (stream)
                  bspline_col_anticausal_avx2<true>(acc, slot(y) + off, o, sw);
                else
                  bspline_col_anticausal_avx2<false>(acc, slot(y) + off, o, sw);
              }
            }
          }
          if (stream) bspline_stream_fence();
        });
    return true;
  }
#endif
  (void)exec, (void)in, (void)coef, (void)stores, (void)bands;
  return false;
}

}  // namespace tessera::video::impl
