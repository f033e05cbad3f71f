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
#include "tessera/core/exec_space.hpp"
#include "tessera/video/impl/dibr_math.hpp"

#include <Kokkos_Core.hpp>
#include <Kokkos_Sort.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace tessera::video::impl {

// Host spaces: a run of rows a thread, plain loops along x; the source
// camera's (x - cx) / fx tabulated once a call and (y - cy) / fy once a row,
// which leaves two of dibr_project's four double divisions a pixel (the
// divisions bound the loop) and the same bits. With one thread nothing else
// writes the z-buffer: a plain min instead of the atomic (5% faster on one
// core of the development host).
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
  auto rows = [runs](const int q, const int n, int& r0, int& r1) {
    r0 = int(std::int64_t(q) * n / runs), r1 = int(std::int64_t(q + 1) * n / runs);
  };
  using Range = Kokkos::RangePolicy<ExecSpace>;
  Kokkos::parallel_for("tessera::video::dibr_clear", Range(exec, 0, runs), [=](const int q) {
    int y0, y1;
    rows(q, th, y0, y1);
    for (int y = y0; y < y1; ++y)
      for (int x = 0, n = tw; x < n; ++x) zbuf(y, x) = kDepthUnknownBits;
  });
  Kokkos::parallel_for("tessera::video::dibr_scatter", Range(exec, 0, runs), [=](const int q) {
    int y0, y1;
    rows(q, h, y0, y1);
    for (int y = y0; y < y1; ++y) {
      const double ys = (y - rig.source.cy) / rig.source.fy;
      for (int x = 0, n = w; x < n; ++x) {
        int tx, ty;
        std::uint32_t z;
        if (!dibr_project_normalised(rig, xn[x], ys, float(depth(y, x)), tw, th, tx, ty, z)) continue;
        if (alone) {
          std::uint32_t& t = zbuf(ty, tx);
          if (z < t) t = z;
        } else {
          Kokkos::atomic_fetch_min(&zbuf(ty, tx), z);
        }
      }
    }
  });
  Kokkos::parallel_for("tessera::video::dibr_resolve", Range(exec, 0, runs), [=](const int q) {
    int y0, y1;
    rows(q, th, y0, y1);
    for (int y = y0; y < y1; ++y)
      for (int x = 0, n = tw; x < n; ++x) out(y, x) = depth_from_bits(zbuf(y, x));
  });
  exec.fence();  // xs lives until the scatter is done
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
