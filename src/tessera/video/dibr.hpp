#pragma once
// Depth propagation (depth image-based rendering, Lin et al.): every pixel
// of the source depth map is back-projected with the source intrinsics,
// moved into the target camera (X_t = R X_s + t), projected with the target
// intrinsics and rounded to the nearest pixel; where several land on one
// pixel the nearest (smallest depth) wins. Depth <= 0 or NaN is unknown;
// target pixels nothing lands on are 0 (unknown).
//
//   Kokkos::View<float**> depth("d", 600, 800), out("o", 600, 800);
//   Kokkos::View<std::uint32_t**> zbuf("z", 600, 800);
//   tessera::video::propagate_depth_atomic(exec, depth, zbuf, out, rig);
//   Kokkos::View<std::uint64_t*> keys("k", 600 * 800);
//   tessera::video::propagate_depth_sorted(exec, depth, keys, out, rig);  // no atomics
//
// Both give identical bits on every backend. On Kokkos::Cuda the atomic
// variant runs the native CUDA kernels for contiguous Views.
#include "tessera/video/dibr_spec.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace tessera::video {

namespace detail {
inline void require_rig(const CameraRig& rig) {
  for (const Intrinsics* k : {&rig.source, &rig.target})
    if (!std::isfinite(k->fx) || !std::isfinite(k->fy) || k->fx == 0 || k->fy == 0 || !std::isfinite(k->cx) ||
        !std::isfinite(k->cy))
      throw std::invalid_argument("tessera::video: camera focal lengths must be finite and non-zero");
  for (double v : rig.R)
    if (!std::isfinite(v)) throw std::invalid_argument("tessera::video: camera rotation must be finite");
  for (double v : rig.t)
    if (!std::isfinite(v)) throw std::invalid_argument("tessera::video: camera translation must be finite");
}
template <class ExecSpace, class... V>
void require_dibr_views() {
  static_assert((Kokkos::SpaceAccessibility<ExecSpace, typename V::memory_space>::accessible && ...),
                "tessera::video: the execution space cannot access these Views");
}
}  // namespace detail

template <class ExecSpace, class Depth, class ZBuf, class Out>
void propagate_depth_atomic(const ExecSpace& exec, const Depth& depth, const ZBuf& zbuf, const Out& out,
                            const CameraRig& rig) {
  static_assert(Depth::rank == 2 && ZBuf::rank == 2 && Out::rank == 2, "propagate_depth_atomic: rank-2 Views");
  static_assert(std::is_same_v<typename ZBuf::value_type, std::uint32_t>, "propagate_depth_atomic: zbuf is uint32");
  static_assert(std::is_same_v<typename Out::value_type, float>, "propagate_depth_atomic: out is float");
  detail::require_dibr_views<ExecSpace, Depth, ZBuf, Out>();
  detail::require_rig(rig);
  if (zbuf.extent(0) != out.extent(0) || zbuf.extent(1) != out.extent(1))
    throw std::invalid_argument("tessera::video::propagate_depth_atomic: zbuf and out extents differ");
  if (depth.size() > std::size_t(1) << 31 || out.size() > std::size_t(1) << 31)
    throw std::invalid_argument("tessera::video::propagate_depth_atomic: planes beyond 2^31 pixels");
  impl::DibrAtomicSpec<ExecSpace, Depth, ZBuf, Out>::apply(exec, depth, zbuf, out, rig);
}

template <class ExecSpace, class Depth, class Keys, class Out>
void propagate_depth_sorted(const ExecSpace& exec, const Depth& depth, const Keys& keys, const Out& out,
                            const CameraRig& rig) {
  static_assert(Depth::rank == 2 && Keys::rank == 1 && Out::rank == 2, "propagate_depth_sorted: rank-2 planes, rank-1 keys");
  static_assert(std::is_same_v<typename Keys::value_type, std::uint64_t>, "propagate_depth_sorted: keys are uint64");
  static_assert(std::is_same_v<typename Out::value_type, float>, "propagate_depth_sorted: out is float");
  detail::require_dibr_views<ExecSpace, Depth, Keys, Out>();
  detail::require_rig(rig);
  if (keys.extent(0) != depth.extent(0) * depth.extent(1))
    throw std::invalid_argument("tessera::video::propagate_depth_sorted: keys must hold one entry per source pixel");
  if (depth.size() > std::size_t(1) << 31 || out.size() > std::size_t(1) << 31)
    throw std::invalid_argument("tessera::video::propagate_depth_sorted: planes beyond 2^31 pixels");
  if (depth.size() == 0) return;
  impl::DibrSortedSpec<ExecSpace, Depth, Keys, Out>::apply(exec, depth, keys, out, rig);
}

}  // namespace tessera::video
