#pragma once
// Dispatch of the tall-skinny products (Kokkos Kernels' _spec shape): the
// primary templates run the portable Kokkos kernels; the Kokkos::Cuda
// specialisations call the native kernels for row-major tall operands
// (LayoutRight, or LayoutStride with unit column stride) and fall back to the
// portable kernels otherwise (LayoutLeft tall operands, and the double shapes
// of tsmttsm_prefers_portable).
#include "tessera/config.hpp"
#include "tessera/core/exec_space.hpp"
#include "tessera/tsm/impl/tsm_kokkos.hpp"

#include <type_traits>

#if TESSERA_HAS_CUDA_NATIVE
#include "tessera/tsm/tsm_native_cuda.hpp"
#endif

namespace tessera::tsm::impl {

template <class ExecSpace, class ViewA, class ViewB, class ViewC, class Enable = void>
struct TsmttsmSpec {
  using T = typename ViewC::non_const_value_type;
  static void apply(const ExecSpace& exec, bool conj, T alpha, const ViewA& A, const ViewB& B, T beta, const ViewC& C) {
    tsmttsm_kokkos(exec, conj, alpha, A, B, beta, C);
  }
};

template <class ExecSpace, class ViewA, class ViewC, class ViewB, class Enable = void>
struct TsmmSpec {
  using T = typename ViewB::non_const_value_type;
  static void apply(const ExecSpace& exec, T alpha, const ViewA& A, const ViewC& C, T beta, const ViewB& B) {
    tsmm_kokkos(exec, alpha, A, C, beta, B);
  }
};

// Double TSMTTSM shapes the Cuda dispatch gives to the portable kernel although native kernels apply: M != N
// with a side of 1, or of 2 or 3 and the other at most 32 (1 x 64, 64 x 1, 3 x 17). In `compare` on an H200
// (2026-11-30) the portable kernel ran 1.08-1.31x the native one at 1 x 64, 64 x 1 and 1 x 16 and tied it at
// 3 x 17, 17 x 3 and 3 x 8; with the wider side 33..64 and the thin one 2 or 3 the native staged kernel won
// (1.04-1.20x; docs/perf/tsm.md, "Thin sides"). Complex runs natively at every shape (1.39-1.80x the portable
// kernel there).
inline bool tsmttsm_prefers_portable(bool complex, int M, int N) {
  const int s = M < N ? M : N, d = M < N ? N : M;
  return !complex && M != N && (s == 1 || (s <= 3 && d <= 32));
}

#if TESSERA_HAS_CUDA_NATIVE
template <class... Views>
inline constexpr bool native_views_v = (can_access_v<Kokkos::Cuda, Views> && ...);

// Row k of a row-major tall operand starts at data() + k * stride(0).
template <class View>
bool row_major(const View& v) {
  return v.extent(1) <= 1 || v.stride(1) == 1;
}

template <class ViewA, class ViewB, class ViewC>
struct TsmttsmSpec<Kokkos::Cuda, ViewA, ViewB, ViewC, std::enable_if_t<native_views_v<ViewA, ViewB, ViewC>>> {
  using T = typename ViewC::non_const_value_type;
  static void apply(const Kokkos::Cuda& exec, bool conj, T alpha, const ViewA& A, const ViewB& B, T beta,
                    const ViewC& C) {
    if (!row_major(A) || !row_major(B) ||
        tsmttsm_prefers_portable(!std::is_same_v<T, double>, int(A.extent(1)), int(B.extent(1)))) {
      tsmttsm_kokkos(exec, conj, alpha, A, B, beta, C);
      return;
    }
    native_cuda::tsm_tsmttsm(exec.cuda_stream(), conj, int(A.extent(1)), int(B.extent(1)),
                             std::int64_t(A.extent(0)), alpha, A.data(), std::int64_t(A.stride(0)), B.data(),
                             std::int64_t(B.stride(0)), beta, C.data(), std::int64_t(C.stride(0)),
                             std::int64_t(C.stride(1)));
  }
};

template <class ViewA, class ViewC, class ViewB>
struct TsmmSpec<Kokkos::Cuda, ViewA, ViewC, ViewB, std::enable_if_t<native_views_v<ViewA, ViewC, ViewB>>> {
  using T = typename ViewB::non_const_value_type;
  static void apply(const Kokkos::Cuda& exec, T alpha, const ViewA& A, const ViewC& C, T beta, const ViewB& B) {
    if (!row_major(A) || !row_major(B)) {
      tsmm_kokkos(exec, alpha, A, C, beta, B);
      return;
    }
    native_cuda::tsm_tsmm(exec.cuda_stream(), int(A.extent(1)), int(B.extent(1)), std::int64_t(A.extent(0)),
                          alpha, A.data(), std::int64_t(A.stride(0)), C.data(), std::int64_t(C.stride(0)),
                          std::int64_t(C.stride(1)), beta, B.data(), std::int64_t(B.stride(0)));
  }
};
#endif

}  // namespace tessera::tsm::impl
