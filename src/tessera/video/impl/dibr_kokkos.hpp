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
#include "tessera/video/impl/dibr_math.hpp"

#include <Kokkos_Core.hpp>
#include <Kokkos_Sort.hpp>

namespace tessera::video::impl {

template <class ExecSpace, class Depth, class ZBuf, class Out>
void dibr_atomic_kokkos(const ExecSpace& exec, const Depth& depth, const ZBuf& zbuf, const Out& out,
                        const CameraRig& rig) {
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
