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
// Kokkos::Cuda with contiguous rows the native CUDA kernels run. Work is
// queued on exec, no fence.
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

template <class ExecSpace, class In, class Coef, class Out>
void bspline_upscale(const ExecSpace& exec, const In& in, const Coef& coef, const Out& out, int u,
                     Alignment align = Alignment::centre) {
  bspline_prefilter(exec, in, coef);
  bspline_interpolate(exec, coef, out, u, align);
}

}  // namespace tessera::video
