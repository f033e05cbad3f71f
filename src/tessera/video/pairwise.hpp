#pragma once
// Pairwise squared Euclidean distances between the rows of F (m x l) and the
// rows of D (n x l), eq. (3) of Lin et al.:
//
//   P(i, j) = sum_k (F(i, k) - D(j, k))^2        P is m x n, float
//
//   tessera::video::pairwise_distance(exec, F, D, P);   // queued on exec
//
// Algorithms: tiled (16 x 16 tiles of P, features in chunks of 16 through team
// scratch; exact differences, so near-equal rows keep their small distances)
// and gemm (||f||^2 + ||d||^2 - 2 F D^T by KokkosBlas::gemm (cuBLAS on CUDA
// builds with the TPL; no TF32), clamped at 0; faster, but the cancellation
// costs absolute accuracy of order eps (||f||^2 + ||d||^2)), and gemm_fused
// (the GEMM form's arithmetic in one native CUDA kernel, norms and clamp
// included; elsewhere it is gemm). automatic runs the tiled kernel (native
// CUDA where built). The gemm form fences exec.
#include "tessera/config.hpp"
#include "tessera/video/impl/pairwise_kokkos.hpp"
#if TESSERA_HAS_CUDA_NATIVE
#include "tessera/video/pairwise_native_cuda.hpp"
#endif

#include <stdexcept>
#include <string>
#include <type_traits>

namespace tessera::video {

enum class PairwiseAlgorithm { automatic, tiled, gemm, gemm_fused };

namespace detail {
template <class ExecSpace, class FView, class DView, class PView>
void pairwise_check(const FView& F, const DView& D, const PView& P) {
  static_assert(Kokkos::is_view<FView>::value && FView::rank == 2 && Kokkos::is_view<DView>::value &&
                    DView::rank == 2 && Kokkos::is_view<PView>::value && PView::rank == 2,
                "tessera::video::pairwise_distance: F, D, P must be rank-2 Views");
  static_assert(std::is_same_v<typename PView::value_type, float>,
                "tessera::video::pairwise_distance: P must hold float");
  static_assert(can_access_v<ExecSpace, FView> && can_access_v<ExecSpace, DView> && can_access_v<ExecSpace, PView>,
                "tessera::video::pairwise_distance: the execution space cannot access the Views");
  if (F.extent(1) != D.extent(1) || P.extent(0) != F.extent(0) || P.extent(1) != D.extent(0))
    throw std::invalid_argument("tessera::video::pairwise_distance: F is " + std::to_string(F.extent(0)) + "x" +
                                std::to_string(F.extent(1)) + ", D " + std::to_string(D.extent(0)) + "x" +
                                std::to_string(D.extent(1)) + ", P " + std::to_string(P.extent(0)) + "x" +
                                std::to_string(P.extent(1)) + " (need m x l, n x l, m x n)");
  if (F.extent(0) > (1u << 30) || D.extent(0) > (1u << 30) || F.extent(1) > (1u << 30))
    throw std::invalid_argument("tessera::video::pairwise_distance: sizes over 2^30");
}
}  // namespace detail

template <class ExecSpace, class FView, class DView, class PView>
void pairwise_distance(const ExecSpace& exec, const FView& F, const DView& D, const PView& P,
                       PairwiseAlgorithm algorithm = PairwiseAlgorithm::automatic) {
  detail::pairwise_check<ExecSpace>(F, D, P);
  if (P.extent(0) == 0 || P.extent(1) == 0) return;
#if TESSERA_HAS_CUDA_NATIVE
  if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda> &&
                std::is_same_v<typename FView::non_const_value_type, float> &&
                std::is_same_v<typename DView::non_const_value_type, float> &&
                std::is_same_v<typename FView::array_layout, Kokkos::LayoutRight> &&
                std::is_same_v<typename DView::array_layout, Kokkos::LayoutRight> &&
                std::is_same_v<typename PView::array_layout, Kokkos::LayoutRight>) {
    const bool contiguous = F.span_is_contiguous() && D.span_is_contiguous() && P.span_is_contiguous();
    const int m = int(F.extent(0)), n = int(D.extent(0)), l = int(F.extent(1));
    if (contiguous && algorithm == PairwiseAlgorithm::automatic) {
      native_cuda::pairwise_tiled(exec.cuda_stream(), F.data(), D.data(), P.data(), m, n, l);
      return;
    }
    if (contiguous && algorithm == PairwiseAlgorithm::gemm_fused) {
      native_cuda::pairwise_gemm_fused(exec.cuda_stream(), F.data(), D.data(), P.data(), m, n, l);
      return;
    }
  }
#endif
  if (algorithm == PairwiseAlgorithm::gemm || algorithm == PairwiseAlgorithm::gemm_fused) {
    Kokkos::View<float*, typename ExecSpace::memory_space> fn(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::video::pairwise_fn"), F.extent(0));
    Kokkos::View<float*, typename ExecSpace::memory_space> dn(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::video::pairwise_dn"), D.extent(0));
    impl::pairwise_gemm_kokkos(exec, F, D, P, fn, dn);
    return;
  }
  impl::pairwise_tiled_kokkos(exec, F, D, P);
}

}  // namespace tessera::video
