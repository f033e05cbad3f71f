#pragma once
// Depth-colour bilateral filter (Lin et al., the DCBF of the 3-D propagation
// DIBR algorithm):
//
//   d_A = (1/W_A) sum_{B in S_A} G_s(|x_A - x_B|) G_r(|I_A - I_B|) d_B,
//   W_A = sum_{B in S_A} G_s(|x_A - x_B|) G_r(|I_A - I_B|),
//
// S_A the pixels of the K x K window around A whose depth is known (d > 0),
// G(r) = exp(-r^2 / (2 sigma^2)), weights from look-up tables. W_A = 0 leaves
// A unknown (0). Defaults K = 11, sigma_s = 3 px, sigma_r = 10 grey levels.
//
//   tessera::video::bilateral_filter(exec, depth, luma, out);  // float, uint8, float (h x w)
//
// On Kokkos::Cuda with contiguous rows the native CUDA kernel runs. Queued on
// exec, no fence.
#include "tessera/video/bilateral_spec.hpp"

#include <stdexcept>

namespace tessera::video {

template <class ExecSpace, class Depth, class Luma, class Out>
void bilateral_filter(const ExecSpace& exec, const Depth& depth, const Luma& luma, const Out& out,
                      const BilateralParams& params = {}) {
  static_assert(Depth::rank == 2 && Luma::rank == 2 && Out::rank == 2, "tessera::video: planes are rank-2 Views");
  static_assert(std::is_same_v<typename Luma::non_const_value_type, std::uint8_t>, "bilateral: luma is 8-bit");
  static_assert(std::is_same_v<typename Out::value_type, float>, "bilateral: out is float");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename Depth::memory_space>::accessible &&
                    Kokkos::SpaceAccessibility<ExecSpace, typename Luma::memory_space>::accessible &&
                    Kokkos::SpaceAccessibility<ExecSpace, typename Out::memory_space>::accessible,
                "tessera::video: the execution space cannot access these Views");
  if (depth.extent(0) != luma.extent(0) || depth.extent(1) != luma.extent(1) || depth.extent(0) != out.extent(0) ||
      depth.extent(1) != out.extent(1))
    throw std::invalid_argument("tessera::video::bilateral_filter: depth, luma and out extents differ");
  if (depth.data() == out.data() && depth.size() > 0)
    throw std::invalid_argument("tessera::video::bilateral_filter: out must not alias depth");
  const BilateralTables& tab = bilateral_tables_cached(params);
  if (depth.size() == 0) return;
  impl::BilateralSpec<ExecSpace, Depth, Luma, Out>::apply(exec, depth, luma, out, tab);
}

}  // namespace tessera::video
