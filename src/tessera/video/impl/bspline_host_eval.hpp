#pragma once
// The host evaluation's inner loops in AVX2 and FMA (taken at run time where
// the CPU has them, host_avx2_fma): the horizontal sums of a coefficient
// row for every output column, and an output row as four weighted horizontal
// rows rounded to 8 bits. The horizontal sums go by output block q (the u
// outputs between input columns q and q + 1): all u phases read the same few
// columns around q, so one vector holds the block's u outputs as broadcast
// columns times per-phase weight vectors; no gathers, no index tables. The
// sums differ from the plain loops' by float rounding (fused multiply-adds).
#include "tessera/video/impl/bspline_host_simd.hpp"
#include "tessera/video/impl/bspline_math.hpp"

#if TESSERA_HOST_X86
#include <immintrin.h>
#endif

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace tessera::video::impl {

// Output block q reads input columns q + first .. q + first + taps - 1; phase
// r weighs column q + first + t by weight[t][r] (0 where it does not use it).
struct BsplineRowTaps {
  static constexpr int kMaxTaps = 6;
  int first = 0, taps = 0;  // taps == 0: the phases spread too far for the vector path
  alignas(32) float weight[kMaxTaps][16] = {};
};

inline BsplineRowTaps bspline_row_taps(const BsplinePhases& ph) {
  BsplineRowTaps t;
  int lo = INT_MAX, hi = INT_MIN;
  for (int r = 0; r < ph.u; ++r) {
    lo = std::min(lo, ph.offset[r] - 1);
    hi = std::max(hi, ph.offset[r] + 2);
  }
  if (ph.u > 16 || hi - lo + 1 > BsplineRowTaps::kMaxTaps) return t;
  t.first = lo;
  t.taps = hi - lo + 1;
  for (int r = 0; r < ph.u; ++r)
    for (int k = 0; k < 4; ++k) t.weight[ph.offset[r] - 1 + k - lo][r] = ph.w[r][k];
  return t;
}

// Output blocks [q0, q1) whose columns [q + first, q + first + taps) lie in the
// row: the range the vector path takes (empty when none do).
inline void bspline_row_blocks(const BsplineRowTaps& t, int w, int u, int ow, int& q0, int& q1) {
  q0 = std::max(0, -t.first);
  q1 = std::min({w - t.first - t.taps + 1, ow / u, w});
  if (t.taps == 0 || q1 < q0) q1 = q0;
}

#if TESSERA_HOST_X86
// hs[u q + r] for the blocks q of [q0, q1): every store writes 8 (u <= 8) or
// 16 floats, the lanes past u zero and overwritten by the next block, so hs
// needs 16 floats of room past u q1 and the blocks after q1 are made later.
template <int NT>
[[gnu::target("avx2,fma")]] inline void bspline_row_sums_avx2(const float* src, const BsplineRowTaps& t, int u, int q0,
                                                               int q1, float* hs) {
  __m256 a[NT], b[NT];
  for (int k = 0; k < NT; ++k) {
    a[k] = _mm256_loadu_ps(t.weight[k]);
    b[k] = _mm256_loadu_ps(t.weight[k] + 8);
  }
  const float* s = src + t.first;
  if (u <= 8) {
    for (int q = q0; q < q1; ++q) {
      __m256 v = _mm256_mul_ps(a[0], _mm256_broadcast_ss(s + q));
      for (int k = 1; k < NT; ++k) v = _mm256_fmadd_ps(a[k], _mm256_broadcast_ss(s + q + k), v);
      _mm256_storeu_ps(hs + std::ptrdiff_t(u) * q, v);
    }
  } else {
    for (int q = q0; q < q1; ++q) {
      const __m256 c0 = _mm256_broadcast_ss(s + q);
      __m256 v = _mm256_mul_ps(a[0], c0), x = _mm256_mul_ps(b[0], c0);
      for (int k = 1; k < NT; ++k) {
        const __m256 c = _mm256_broadcast_ss(s + q + k);
        v = _mm256_fmadd_ps(a[k], c, v);
        x = _mm256_fmadd_ps(b[k], c, x);
      }
      _mm256_storeu_ps(hs + std::ptrdiff_t(u) * q, v);
      _mm256_storeu_ps(hs + std::ptrdiff_t(u) * q + 8, x);
    }
  }
}

inline void bspline_row_sums_vector(const float* src, const BsplineRowTaps& t, int u, int q0, int q1, float* hs) {
  switch (t.taps) {
    case 4: bspline_row_sums_avx2<4>(src, t, u, q0, q1, hs); break;
    case 5: bspline_row_sums_avx2<5>(src, t, u, q0, q1, hs); break;
    default: bspline_row_sums_avx2<6>(src, t, u, q0, q1, hs); break;
  }
}

// w0 h0[x] + w1 h1[x] + w2 h2[x] + w3 h3[x] + 1/2, at most 255 (a NaN stays NaN).
[[gnu::target("avx2,fma")]] inline __m256 bspline_row_sum8_avx2(const float* h0, const float* h1, const float* h2,
                                                                  const float* h3, __m256 w0, __m256 w1, __m256 w2,
                                                                  __m256 w3) {
  __m256 s = _mm256_mul_ps(w0, _mm256_loadu_ps(h0));
  s = _mm256_fmadd_ps(w1, _mm256_loadu_ps(h1), s);
  s = _mm256_fmadd_ps(w2, _mm256_loadu_ps(h2), s);
  s = _mm256_fmadd_ps(w3, _mm256_loadu_ps(h3), s);
  return _mm256_min_ps(_mm256_set1_ps(255.0f), _mm256_add_ps(s, _mm256_set1_ps(0.5f)));
}

// out[x] = w0 h0[x] + w1 h1[x] + w2 h2[x] + w3 h3[x], rounded half up and
// clamped to 0..255 (bspline_store), for x < n. 32 outputs a step: four
// truncations to int32, then the saturating packs (int32 -> int16 -> uint8)
// clamp below 0 (a NaN truncates to INT_MIN, so becomes 0 as in
// bspline_store) and one permutation puts the 8-byte groups in order: one
// 32-byte store. 8 at a time with two packs and an 8-byte store, the
// conversions were half of the loop's instructions.
[[gnu::target("avx2,fma")]] inline void bspline_rows_to_u8_avx2(const float* const h[4], const float w[4],
                                                                std::uint8_t* out, int n) {
  const __m256 w0 = _mm256_set1_ps(w[0]), w1 = _mm256_set1_ps(w[1]), w2 = _mm256_set1_ps(w[2]),
               w3 = _mm256_set1_ps(w[3]);
  const float *h0 = h[0], *h1 = h[1], *h2 = h[2], *h3 = h[3];
  // packus leaves lane 0 = bytes 0-3 of each of the four vectors, lane 1 = bytes 4-7.
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  int x = 0;
  for (; x + 32 <= n; x += 32) {
    __m256i i[4];
    for (int v = 0; v < 4; ++v)
      i[v] = _mm256_cvttps_epi32(
          bspline_row_sum8_avx2(h0 + x + 8 * v, h1 + x + 8 * v, h2 + x + 8 * v, h3 + x + 8 * v, w0, w1, w2, w3));
    const __m256i b = _mm256_packus_epi16(_mm256_packs_epi32(i[0], i[1]), _mm256_packs_epi32(i[2], i[3]));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + x), _mm256_permutevar8x32_epi32(b, order));
  }
  for (; x + 8 <= n; x += 8) {
    const __m256i i = _mm256_cvttps_epi32(bspline_row_sum8_avx2(h0 + x, h1 + x, h2 + x, h3 + x, w0, w1, w2, w3));
    const __m128i p = _mm_packs_epi32(_mm256_castsi256_si128(i), _mm256_extracti128_si256(i, 1));
    _mm_storel_epi64(reinterpret_cast<__m128i*>(out + x), _mm_packus_epi16(p, p));
  }
  for (; x < n; ++x) {
    float s = w[0] * h0[x];
    s = std::fma(w[1], h1[x], s);
    s = std::fma(w[2], h2[x], s);
    s = std::fma(w[3], h3[x], s);
    out[x] = bspline_store<std::uint8_t>(s);
  }
}
#endif

}  // namespace tessera::video::impl
