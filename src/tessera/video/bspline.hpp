#pragma once
// Cubic B-spline upscaling by an integer factor u (Unser, "Splines: a perfect
// fit"): the prefilter turns samples into B-spline coefficients (causal and
// anti-causal first-order IIR per scanline, rows then columns, mirror
// boundary), then each output pixel is the separable 4x4 sum of coefficients
// weighted by beta3 at its phase (u weight sets, precomputed).
//
//   Kokkos::View<float**> coef("coef", h, w);           // workspace, contiguous
//   tessera::video::bspline_upscale(exec, in, coef, out, 7);  // out: (7h) x (7w)
//
// in: h x w plane of std::uint8_t or float; out: (u h) x (u w) of uint8_t
// (rounded, clamped to 0..255) or float (unrounded). Pixel-centre alignment
// by default, Alignment::corner puts output X = k u on input sample k. On
// Kokkos::Cuda with contiguous rows the native CUDA kernels run; there
// bspline_upscale runs the fused kernel, which leaves coef untouched (it is
// workspace: its contents afterwards are unspecified). bspline_upscale_planes
// takes the planes of a frame at once (one launch on Cuda). Work is queued
// on exec, no fence.
#include "tessera/core/exec_space.hpp"
#include "tessera/video/bspline_spec.hpp"

#include <stdexcept>
#include <string>

namespace tessera::video {

namespace detail {
template <class ExecSpace, class V>
void require_plane() {
  static_assert(Kokkos::is_view<V>::value && V::rank == 2, "tessera::video: planes are rank-2 Views (rows, columns)");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename V::memory_space>::accessible,
                "tessera::video: the execution space cannot access this View's memory space");
}
template <class Coef>
void require_coef(const char* fn, const Coef& coef) {
  static_assert(std::is_same_v<typename Coef::value_type, float>, "tessera::video: B-spline coefficients are float");
  if (!coef.span_is_contiguous() || (coef.extent(1) > 1 && coef.stride(1) != 1) ||
      (coef.extent(0) > 1 && coef.stride(0) != std::size_t(coef.extent(1))))
    throw std::invalid_argument(std::string("tessera::video::") + fn + ": coef must be a contiguous row-major View");
  if (coef.extent(0) == 0 || coef.extent(1) == 0)
    throw std::invalid_argument(std::string("tessera::video::") + fn + ": empty plane");
}
}  // namespace detail

// coef = B-spline coefficients of in (same extents).
template <class ExecSpace, class In, class Coef>
void bspline_prefilter(const ExecSpace& exec, const In& in, const Coef& coef) {
  detail::require_plane<ExecSpace, In>();
  detail::require_plane<ExecSpace, Coef>();
  detail::require_coef("bspline_prefilter", coef);
  if (in.extent(0) != coef.extent(0) || in.extent(1) != coef.extent(1))
    throw std::invalid_argument("tessera::video::bspline_prefilter: in and coef extents differ");
  impl::BsplinePrefilterSpec<ExecSpace, In, Coef>::apply(exec, in, coef);
}

// out(Y, X) = sum_jk w_Y[j] w_X[k] coef(i_Y - 1 + j, i_X - 1 + k), out = u x coef's extents.
template <class ExecSpace, class Coef, class Out>
void bspline_interpolate(const ExecSpace& exec, const Coef& coef, const Out& out, int u,
                         Alignment align = Alignment::centre) {
  detail::require_plane<ExecSpace, Coef>();
  detail::require_plane<ExecSpace, Out>();
  detail::require_coef("bspline_interpolate", coef);
  const BsplinePhases ph = make_bspline_phases(u, align);
  if (out.extent(0) != coef.extent(0) * std::size_t(u) || out.extent(1) != coef.extent(1) * std::size_t(u))
    throw std::invalid_argument("tessera::video::bspline_interpolate: out must be " + std::to_string(u) +
                                " times the input's extents");
  impl::BsplineInterpolateSpec<ExecSpace, Coef, Out>::apply(exec, coef, out, ph);
}

namespace detail {
template <class ExecSpace, class In, class Coef, class Out>
void require_upscale(const In& in, const Coef& coef, const Out& out, int u) {
  require_plane<ExecSpace, In>();
  require_plane<ExecSpace, Coef>();
  require_plane<ExecSpace, Out>();
  require_coef("bspline_upscale", coef);
  if (in.extent(0) != coef.extent(0) || in.extent(1) != coef.extent(1))
    throw std::invalid_argument("tessera::video::bspline_upscale: in and coef extents differ");
  if (out.extent(0) != in.extent(0) * std::size_t(u) || out.extent(1) != in.extent(1) * std::size_t(u))
    throw std::invalid_argument("tessera::video::bspline_upscale: out must be " + std::to_string(u) +
                                " times the input's extents");
}
}  // namespace detail

// bspline_prefilter, then bspline_interpolate (on Cuda: the fused kernel).
template <class ExecSpace, class In, class Coef, class Out>
void bspline_upscale(const ExecSpace& exec, const In& in, const Coef& coef, const Out& out, int u,
                     Alignment align = Alignment::centre) {
  const BsplinePhases ph = make_bspline_phases(u, align);
  detail::require_upscale<ExecSpace>(in, coef, out, u);
  impl::BsplineUpscaleSpec<ExecSpace, In, Coef, Out>::apply(exec, 1, &in, &coef, &out, ph);
}

// bspline_upscale of in[i] into out[i] (coef[i] its workspace) for every
// plane of a frame: std::vector or std::array of Views, one type each.
template <class ExecSpace, class InPlanes, class CoefPlanes, class OutPlanes>
void bspline_upscale_planes(const ExecSpace& exec, const InPlanes& in, const CoefPlanes& coef, const OutPlanes& out,
                            int u, Alignment align = Alignment::centre) {
  using In = typename InPlanes::value_type;
  using Coef = typename CoefPlanes::value_type;
  using Out = typename OutPlanes::value_type;
  const BsplinePhases ph = make_bspline_phases(u, align);
  if (in.size() != coef.size() || in.size() != out.size())
    throw std::invalid_argument("tessera::video::bspline_upscale_planes: in, coef and out hold different plane counts");
  for (std::size_t i = 0; i < in.size(); ++i) detail::require_upscale<ExecSpace>(in[i], coef[i], out[i], u);
  impl::BsplineUpscaleSpec<ExecSpace, In, Coef, Out>::apply(exec, int(in.size()), in.data(), coef.data(), out.data(),
                                                            ph);
}

}  // namespace tessera::video
