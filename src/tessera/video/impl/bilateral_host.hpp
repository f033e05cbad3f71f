#pragma once
// Host depth-colour bilateral filter in AVX2 and FMA (taken at run time where
// the CPU has them): 8 neighbouring pixels of a row in the lanes of a vector.
// For every tap (dy, dx) of the window the 8 pixels read 8 contiguous depths
// and lumas, the spatial weight is one broadcast (the same tap for all 8),
// the range weight one gather from the 256-entry table, and unknown depths
// are masked out; the portable kernel, one pixel a thread, spends most of its
// time on the branch and the two table look-ups of every tap. The plane is
// first copied with a K/2 border (depth 0: unknown, so outside pixels never
// count), so no tap needs a bounds check. Sums differ from the portable
// kernel's by float rounding (fused multiply-adds).
#include "tessera/core/cpu_features.hpp"
#include "tessera/video/impl/bilateral_math.hpp"
#include "tessera/video/impl/bilateral_window.hpp"

#include <Kokkos_Core.hpp>
#if TESSERA_HOST_X86
#include <immintrin.h>
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace tessera::video::impl {

// The plane with a border of r pixels on every side: depth (unknown and
// outside: 0) and luma.
struct BilateralPadded {
  int r = 0, pw = 0;  // border, padded row length
  std::vector<float> d;
  std::vector<std::uint8_t> l;
};

// Output pixel (y, x) from the padded plane: the portable kernel's sum.
inline float bilateral_pixel(const BilateralPadded& p, const BilateralTables& tab, int y, int x) {
  const std::size_t centre = std::size_t(y + p.r) * p.pw + std::size_t(x + p.r);
  return bilateral_window_mean(p.d.data() + centre, p.l.data() + centre, p.pw, tab.spatial, tab.range, p.r);
}

#if TESSERA_HOST_X86
// Output pixels x .. x + 7 of row y into o.
[[gnu::target("avx2,fma")]] inline void bilateral_pixels8_avx2(const BilateralPadded& p, const BilateralTables& tab,
                                                               int y, int x, float* o) {
  const int r = p.r;
  const std::size_t centre = std::size_t(y + r) * p.pw + std::size_t(x + r);
  const __m256i ia = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(p.l.data() + centre)));
  const __m256 zero = _mm256_setzero_ps();
  __m256 sum = zero, wsum = zero;
  for (int dy = -r; dy <= r; ++dy) {
    const std::size_t row = centre + std::ptrdiff_t(dy) * p.pw;
    const float* d = p.d.data() + row;
    const std::uint8_t* l = p.l.data() + row;
    for (int dx = -r; dx <= r; ++dx) {
      const __m256 db = _mm256_loadu_ps(d + dx);
      const __m256i lb = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(l + dx)));
      const __m256i di = _mm256_abs_epi32(_mm256_sub_epi32(ia, lb));
      const __m256 gr = _mm256_i32gather_ps(tab.range, di, 4);
      __m256 wt = _mm256_mul_ps(_mm256_set1_ps(tab.spatial[dy * dy + dx * dx]), gr);
      wt = _mm256_and_ps(wt, _mm256_cmp_ps(db, zero, _CMP_GT_OQ));  // unknown depth: no weight
      sum = _mm256_fmadd_ps(wt, db, sum);
      wsum = _mm256_add_ps(wsum, wt);
    }
  }
  const __m256 known = _mm256_cmp_ps(wsum, zero, _CMP_GT_OQ);
  _mm256_storeu_ps(o, _mm256_and_ps(_mm256_div_ps(sum, wsum), known));  // W_A = 0: unknown (0)
}
#endif

// The filter on a host space: depth (float), luma (8-bit) and out (float),
// h x w. False, nothing done, without AVX2 and FMA or with rows of out that
// are not contiguous; the portable kernel then runs.
template <class ExecSpace, class Depth, class Luma, class Out>
bool bilateral_host(const ExecSpace& exec, const Depth& depth, const Luma& luma, const Out& out,
                    const BilateralTables& tab) {
  const int h = int(depth.extent(0)), w = int(depth.extent(1));
  if (!host_avx2_fma() || (w > 1 && out.stride(1) != 1) || h == 0 || w == 0) return false;
#if TESSERA_HOST_X86
  BilateralPadded p;
  p.r = tab.radius;
  p.pw = w + 2 * p.r + 8;  // + 8: the last vector's loads past the row
  const int ph = h + 2 * p.r;
  p.d.assign(std::size_t(ph) * p.pw, 0.0f);
  p.l.assign(std::size_t(ph) * p.pw, 0);
  const BilateralPadded* pp = &p;
  const int runs = std::max(1, std::min(h, 4 * int(exec.concurrency())));
  auto rows = [=](const int q, int& y0, int& y1) {
    y0 = int(std::int64_t(q) * h / runs), y1 = int(std::int64_t(q + 1) * h / runs);
  };
  using Range = Kokkos::RangePolicy<ExecSpace>;
  Kokkos::parallel_for("tessera::video::bilateral_pad", Range(exec, 0, runs), [=, &p](const int q) {
    int y0, y1;
    rows(q, y0, y1);
    for (int y = y0; y < y1; ++y) {
      float* d = p.d.data() + std::size_t(y + p.r) * p.pw + p.r;
      std::uint8_t* l = p.l.data() + std::size_t(y + p.r) * p.pw + p.r;
      for (int x = 0; x < w; ++x) {
        const float v = float(depth(y, x));
        d[x] = v > 0.0f ? v : 0.0f;  // unknown (<= 0, NaN): 0, skipped
        l[x] = std::uint8_t(luma(y, x));
      }
    }
  });
  Kokkos::parallel_for("tessera::video::bilateral_host", Range(exec, 0, runs), [=](const int q) {
    int y0, y1;
    rows(q, y0, y1);
    for (int y = y0; y < y1; ++y) {
      float* o = &out(y, 0);
      int x = 0;
      for (; x + 8 <= w; x += 8) bilateral_pixels8_avx2(*pp, tab, y, x, o + x);
      for (; x < w; ++x) o[x] = bilateral_pixel(*pp, tab, y, x);
    }
  });
  exec.fence();  // the padded plane lives until the rows are done
  return true;
#else
  (void)exec, (void)luma, (void)out, (void)tab;
  return false;
#endif
}

}  // namespace tessera::video::impl
