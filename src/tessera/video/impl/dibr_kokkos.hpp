#pragma once
// Portable depth propagation, two ways:
//  - atomic: every source pixel projects and does an atomic min on the bits
//    of its depth in a 32-bit z-buffer (positive floats order like their
//    bits), then the z-buffer becomes depth (empty -> 0, unknown);
//  - sorted: no atomics in the algorithm; every source pixel writes one
//    64-bit key (target pixel << 32 | depth bits), the keys are sorted
//    (Kokkos::sort), and the first key of each target pixel's run is its
//    nearest depth (a segmented min). This is the prefix-sum style method
//    Lin et al. proposed instead of atomics.
// Both give the same bits on every backend.
#include "tessera/core/cpu_features.hpp"
#include "tessera/core/exec_space.hpp"
#include "tessera/video/impl/dibr_math.hpp"

#include <Kokkos_Core.hpp>
#include <Kokkos_Sort.hpp>
#if TESSERA_HOST_X86
#include <immintrin.h>
#endif

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace tessera::video::impl {

// z-buffer entry t = min(t, z) where one thread owns t: without a branch (the
// depth compare mispredicts about as often as not).
inline void dibr_zmin(std::uint32_t& t, const std::uint32_t z) { t = z < t ? z : t; }

#if TESSERA_HOST_X86
// r[0] X + r[1] Y + r[2] Z + t, left to right as dibr_project_normalised adds.
[[gnu::target("avx2")]] inline __m256d dibr_row_avx2(const double* r, double t, __m256d X, __m256d Y, __m256d Z) {
  __m256d a = _mm256_add_pd(_mm256_mul_pd(_mm256_set1_pd(r[0]), X), _mm256_mul_pd(_mm256_set1_pd(r[1]), Y));
  a = _mm256_add_pd(a, _mm256_mul_pd(_mm256_set1_pd(r[2]), Z));
  return _mm256_add_pd(a, _mm256_set1_pd(t));
}

// dibr_project_normalised for the 4 source pixels xs[0..3] of a row (depths
// d[0..3]) in the lanes of AVX2 vectors, in the same order of operations, so
// the same bits (the target has no FMA, so nothing is contracted); index[i]
// = ty * w + tx, or -1 where pixel i lands nowhere.
[[gnu::target("avx2")]] inline void dibr_project4_avx2(const CameraRig& rig, const double* xs, double ys,
                                                       const float* d, int w, int h, std::int32_t* index,
                                                       std::uint32_t* zbits) {
  const __m128 df = _mm_loadu_ps(d);
  const __m256d D = _mm256_cvtps_pd(df);
  const __m128 known = _mm_and_ps(_mm_cmpgt_ps(df, _mm_setzero_ps()), _mm_cmplt_ps(df, _mm_set1_ps(3.0e38f)));
  const __m256d X = _mm256_mul_pd(_mm256_loadu_pd(xs), D), Y = _mm256_mul_pd(_mm256_set1_pd(ys), D);
  const __m256d xt = dibr_row_avx2(rig.R, rig.t[0], X, Y, D), yt = dibr_row_avx2(rig.R + 3, rig.t[1], X, Y, D),
                zt = dibr_row_avx2(rig.R + 6, rig.t[2], X, Y, D);
  const __m128 zf = _mm256_cvtpd_ps(zt);
  const __m128 front = _mm_and_ps(_mm_cmpgt_ps(zf, _mm_setzero_ps()), _mm_cmplt_ps(zf, _mm_set1_ps(3.0e38f)));
  const __m256d half = _mm256_set1_pd(0.5), zero = _mm256_setzero_pd();
  const __m256d u = _mm256_add_pd(
      _mm256_add_pd(_mm256_div_pd(_mm256_mul_pd(_mm256_set1_pd(rig.target.fx), xt), zt), _mm256_set1_pd(rig.target.cx)),
      half);
  const __m256d v = _mm256_add_pd(
      _mm256_add_pd(_mm256_div_pd(_mm256_mul_pd(_mm256_set1_pd(rig.target.fy), yt), zt), _mm256_set1_pd(rig.target.cy)),
      half);
  const __m256d inside = _mm256_and_pd(
      _mm256_and_pd(_mm256_cmp_pd(u, zero, _CMP_GE_OQ), _mm256_cmp_pd(v, zero, _CMP_GE_OQ)),
      _mm256_and_pd(_mm256_cmp_pd(u, _mm256_set1_pd(double(w)), _CMP_LT_OQ),
                    _mm256_cmp_pd(v, _mm256_set1_pd(double(h)), _CMP_LT_OQ)));
  // The three tests as 32-bit lane masks: inside's 64-bit lanes narrowed.
  const __m128 in32 = _mm256_cvtpd_ps(_mm256_and_pd(inside, _mm256_set1_pd(1.0)));
  const __m128 ok = _mm_and_ps(_mm_and_ps(known, front), _mm_cmpgt_ps(in32, _mm_setzero_ps()));
  const __m256d us = _mm256_blendv_pd(zero, u, inside), vs = _mm256_blendv_pd(zero, v, inside);
  const __m128i tx = _mm256_cvttpd_epi32(us), ty = _mm256_cvttpd_epi32(vs);  // >= 0 where inside: floor
  const __m128i idx = _mm_add_epi32(_mm_mullo_epi32(ty, _mm_set1_epi32(w)), tx);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(index), _mm_or_si128(_mm_andnot_si128(_mm_castps_si128(ok), _mm_set1_epi32(-1)),
                                                                 _mm_and_si128(_mm_castps_si128(ok), idx)));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(zbits), _mm_castps_si128(zf));
}

// Pixels x0 .. (the last whole 4) of source row ys (depths d) through
// dibr_project4_avx2 in one AVX2 function (called per 4 pixels it was not
// inlined: a call, and the lanes through memory, every 4 pixels). Targets
// with index in [i0, i1) take dibr_zmin into z; the others go to
// land_elsewhere.
// Returns the first pixel not done.
template <class Elsewhere>
[[gnu::target("avx2")]] inline int dibr_row_avx2(const CameraRig& rig, const double* xn, double ys, const float* d,
                                                 int w, int tw, int th, std::uint32_t* z, std::int32_t i0,
                                                 std::int32_t i1, Elsewhere&& land_elsewhere) {
  int x = 0;
  for (; x + 4 <= w; x += 4) {
    alignas(16) std::int32_t index[4];
    alignas(16) std::uint32_t zb[4];
    dibr_project4_avx2(rig, xn + x, ys, d + x, tw, th, index, zb);
    for (int i = 0; i < 4; ++i)
      if (index[i] >= i0 && index[i] < i1)
        dibr_zmin(z[index[i]], zb[i]);
      else if (index[i] >= 0)
        land_elsewhere(index[i], zb[i]);
  }
  return x;
}
#endif

// Host spaces: a run of rows a thread, plain loops along x; the source
// camera's (x - cx) / fx tabulated once a call and (y - cy) / fy once a row,
// which leaves two of dibr_project's four double divisions a pixel (the
// divisions bound the loop) and the same bits.
// Several threads: run q owns the same fraction of the target rows as of the
// source rows (band q). It clears its band, and a source pixel landing in it
// takes a plain min: nothing else writes the band meanwhile. Pixels landing
// in other bands (near the band edges for a small baseline; every pixel in a
// rotated rig) are kept in the run's list and applied after every band is
// clear: few, by each band's owner, which then resolves its band; many, by
// atomic min, then the resolve. A lock-prefixed compare-exchange a pixel held
// the 16-core Xeon's 16 threads at 8x one thread. One thread: plain min
// everywhere, the band clear first.
struct DibrSpill {
  std::int64_t t;  // target pixel ty * tw + tx
  std::uint32_t z;
};

template <class ExecSpace, class Depth, class ZBuf, class Out>
void dibr_atomic_host(const ExecSpace& exec, const Depth& depth, const ZBuf& zbuf, const Out& out,
                      const CameraRig& rig) {
  const int h = int(depth.extent(0)), w = int(depth.extent(1));
  const int th = int(out.extent(0)), tw = int(out.extent(1));
  std::vector<double> xs(static_cast<std::size_t>(w));
  for (int x = 0; x < w; ++x) xs[std::size_t(x)] = (x - rig.source.cx) / rig.source.fx;
  const double* xn = xs.data();
  const int runs = std::max(1, 4 * int(exec.concurrency()));
  const bool alone = exec.concurrency() == 1;
  // The vector projection: AVX2, float depth rows and a z-buffer of
  // contiguous rows (target pixel ty * tw + tx), fewer than 2^31 of them.
  constexpr bool float_depth = std::is_same_v<typename Depth::non_const_value_type, float>;
  const bool vec = float_depth && host_avx2_fma() && (w < 2 || depth.stride(1) == 1) &&
                   (tw < 2 || zbuf.stride(1) == 1) && (th < 2 || std::size_t(zbuf.stride(0)) == std::size_t(tw)) &&
                   std::int64_t(th) * tw < (std::int64_t(1) << 31);
  auto rows = [runs](const int q, const int n, int& r0, int& r1) {
    r0 = int(std::int64_t(q) * n / runs), r1 = int(std::int64_t(q + 1) * n / runs);
  };
  std::vector<std::vector<DibrSpill>> spills(alone ? 0 : std::size_t(runs));
  using Range = Kokkos::RangePolicy<ExecSpace>;
  if (alone)
    Kokkos::parallel_for("tessera::video::dibr_clear", Range(exec, 0, 1), [=](const int) {
      for (int y = 0; y < th; ++y)
        for (int x = 0; x < tw; ++x) zbuf(y, x) = kDepthUnknownBits;
    });
  auto* spill_lists = spills.data();
  Kokkos::parallel_for("tessera::video::dibr_scatter", Range(exec, 0, runs), [=](const int q) {
    int y0, y1, b0, b1;
    rows(q, h, y0, y1);
    rows(q, th, b0, b1);
    if (alone) {
      b0 = 0;  // cleared above
      b1 = th;
    } else {
      for (int y = b0; y < b1; ++y)
        for (int x = 0; x < tw; ++x) zbuf(y, x) = kDepthUnknownBits;
    }
    auto land = [&](const int ty, const int tx, const std::uint32_t z) {
      if (ty >= b0 && ty < b1) {
        dibr_zmin(zbuf(ty, tx), z);
      } else {
        spill_lists[q].push_back(DibrSpill{std::int64_t(ty) * tw + tx, z});
      }
    };
    for (int y = y0; y < y1; ++y) {
      const double ys = (y - rig.source.cy) / rig.source.fy;
      int x = 0;
#if TESSERA_HOST_X86
      if (vec)
        x = dibr_row_avx2(rig, xn, ys, &depth(y, 0), w, tw, th, &zbuf(0, 0), b0 * tw, b1 * tw,
                          [&](const std::int32_t t, const std::uint32_t z) {
                            spill_lists[q].push_back(DibrSpill{t, z});
                          });
#endif
      for (; x < w; ++x) {
        int tx, ty;
        std::uint32_t z;
        if (dibr_project_normalised(rig, xn[x], ys, float(depth(y, x)), tw, th, tx, ty, z)) land(ty, tx, z);
      }
    }
  });
  exec.fence();  // the lists' sizes
  // Few spilled pixels: each band's owner scans every list for its own (at
  // most about a pixel's work per source pixel in all); else atomics.
  std::size_t spilled = 0;
  for (const auto& l : spills) spilled += l.size();
  const bool scan = spilled * std::size_t(runs) <= std::size_t(h) * std::size_t(w);
  if (!alone && !scan)
    Kokkos::parallel_for("tessera::video::dibr_spills", Range(exec, 0, runs), [=](const int q) {
      for (const DibrSpill& e : spill_lists[q]) {
        std::uint32_t* t = &zbuf(int(e.t / tw), int(e.t % tw));
        if (e.z < *t) Kokkos::atomic_fetch_min(t, e.z);  // a larger depth never lowers it
      }
    });
  Kokkos::parallel_for("tessera::video::dibr_resolve", Range(exec, 0, runs), [=](const int q) {
    int y0, y1;
    rows(q, th, y0, y1);
    if (!alone && scan)
      for (int p = 0; p < runs; ++p)
        for (const DibrSpill& e : spill_lists[p]) {
          const int ty = int(e.t / tw);
          if (ty >= y0 && ty < y1) dibr_zmin(zbuf(ty, int(e.t % tw)), e.z);
        }
    for (int y = y0; y < y1; ++y)
      for (int x = 0, n = tw; x < n; ++x) out(y, x) = depth_from_bits(zbuf(y, x));
  });
  exec.fence();  // xs and the lists live until the kernels are done
}

template <class ExecSpace, class Depth, class ZBuf, class Out>
void dibr_atomic_kokkos(const ExecSpace& exec, const Depth& depth, const ZBuf& zbuf, const Out& out,
                        const CameraRig& rig) {
  if constexpr (!is_device_space_v<ExecSpace>) {
    dibr_atomic_host(exec, depth, zbuf, out, rig);
    return;
  }
  const int h = int(depth.extent(0)), w = int(depth.extent(1));
  const int th = int(out.extent(0)), tw = int(out.extent(1));
  using Range2 = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>;
  Kokkos::parallel_for(
      "tessera::video::dibr_clear", Range2(exec, {0, 0}, {th, tw}),
      KOKKOS_LAMBDA(const int y, const int x) { zbuf(y, x) = kDepthUnknownBits; });
  Kokkos::parallel_for(
      "tessera::video::dibr_scatter", Range2(exec, {0, 0}, {h, w}), KOKKOS_LAMBDA(const int y, const int x) {
        int tx, ty;
        std::uint32_t z;
        if (dibr_project(rig, x, y, float(depth(y, x)), tw, th, tx, ty, z)) Kokkos::atomic_fetch_min(&zbuf(ty, tx), z);
      });
  Kokkos::parallel_for(
      "tessera::video::dibr_resolve", Range2(exec, {0, 0}, {th, tw}),
      KOKKOS_LAMBDA(const int y, const int x) { out(y, x) = depth_from_bits(zbuf(y, x)); });
}

// keys: h*w elements. Kokkos::sort runs on the keys' default execution-space
// instance: exec is fenced around it.
template <class ExecSpace, class Depth, class Keys, class Out>
void dibr_sorted_kokkos(const ExecSpace& exec, const Depth& depth, const Keys& keys, const Out& out,
                        const CameraRig& rig) {
  const int h = int(depth.extent(0)), w = int(depth.extent(1));
  const int th = int(out.extent(0)), tw = int(out.extent(1));
  const std::int64_t n = std::int64_t(h) * w;
  using Range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;
  using Range2 = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>;
  Kokkos::parallel_for(
      "tessera::video::dibr_keys", Range(exec, 0, n), KOKKOS_LAMBDA(const std::int64_t i) {
        const int y = int(i / w), x = int(i - std::int64_t(y) * w);
        int tx, ty;
        std::uint32_t z;
        keys(i) = dibr_project(rig, x, y, float(depth(y, x)), tw, th, tx, ty, z)
                      ? (std::uint64_t(std::int64_t(ty) * tw + tx) << 32) | z
                      : no_target_key(std::int64_t(th) * tw, i);
      });
  Kokkos::parallel_for(
      "tessera::video::dibr_clear", Range2(exec, {0, 0}, {th, tw}),
      KOKKOS_LAMBDA(const int y, const int x) { out(y, x) = 0.0f; });
  exec.fence();
  Kokkos::sort(keys);
  Kokkos::fence();
  Kokkos::parallel_for(
      "tessera::video::dibr_segment_min", Range(exec, 0, n), KOKKOS_LAMBDA(const std::int64_t i) {
        const std::uint64_t k = keys(i);
        if (std::int64_t(k >> 32) >= std::int64_t(th) * tw) return;  // lands nowhere
        if (i > 0 && (keys(i - 1) >> 32) == (k >> 32)) return;  // not the first (nearest) of its pixel
        const std::int64_t t = std::int64_t(k >> 32);
        const int ty = int(t / tw), tx = int(t - std::int64_t(ty) * tw);
        out(ty, tx) = depth_from_bits(std::uint32_t(k & 0xffffffffu));
      });
}

}  // namespace tessera::video::impl
