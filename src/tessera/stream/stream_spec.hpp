#pragma once
// Dispatch of the STREAM kernels (Kokkos Kernels' _spec shape): the primary
// templates run the portable Kokkos kernels; a native backend specialises them
// for its execution space and falls back to the portable kernel for Views it
// does not handle (strided, misaligned, other scalar types).
#include "tessera/config.hpp"
#include "tessera/core/exec_space.hpp"
#include "tessera/stream/impl/stream_kokkos.hpp"
#if TESSERA_HAS_CUDA_NATIVE
#include "tessera/stream/stream_native_cuda.hpp"
#endif

namespace tessera::stream::impl {

template <class ExecSpace, class ViewA, class ViewC, class Enable = void>
struct CopySpec {
  static void apply(const ExecSpace& exec, const ViewA& a, const ViewC& c) { copy_kokkos(exec, a, c); }
};

template <class ExecSpace, class ViewA, class ViewB, class ViewC, class Enable = void>
struct TriadSpec {
  template <class S>
  static void apply(const ExecSpace& exec, const ViewA& a, const ViewB& b, const ViewC& c, S scalar) {
    triad_kokkos(exec, a, b, c, scalar);
  }
};

template <class ExecSpace, class ViewA, class Enable = void>
struct SumSpec {
  static double apply(const ExecSpace& exec, const ViewA& a) { return sum_kokkos(exec, a); }
};

#if TESSERA_HAS_CUDA_NATIVE
// Native CUDA: float/double Views that Cuda can access, all of one scalar type.
template <class... Views>
inline constexpr bool native_cuda_views_v =
    ((std::is_same_v<typename Views::non_const_value_type, double> && ...) ||
     (std::is_same_v<typename Views::non_const_value_type, float> && ...)) &&
    (can_access_v<Kokkos::Cuda, Views> && ...);

template <class View>
bool contiguous(const View& v) {
  return v.span_is_contiguous() && (v.extent(0) < 2 || v.stride(0) == 1);
}

template <class ViewA, class ViewC>
struct CopySpec<Kokkos::Cuda, ViewA, ViewC, std::enable_if_t<native_cuda_views_v<ViewA, ViewC>>> {
  static void apply(const Kokkos::Cuda& exec, const ViewA& a, const ViewC& c) {
    if (contiguous(a) && contiguous(c))
      native_cuda::stream_copy(exec.cuda_stream(), a.data(), c.data(), a.extent(0));
    else
      copy_kokkos(exec, a, c);
  }
};

template <class ViewA, class ViewB, class ViewC>
struct TriadSpec<Kokkos::Cuda, ViewA, ViewB, ViewC,
                 std::enable_if_t<native_cuda_views_v<ViewA, ViewB, ViewC>>> {
  template <class S>
  static void apply(const Kokkos::Cuda& exec, const ViewA& a, const ViewB& b, const ViewC& c, S scalar) {
    if (contiguous(a) && contiguous(b) && contiguous(c))
      native_cuda::stream_triad(exec.cuda_stream(), a.data(), b.data(), c.data(), scalar, a.extent(0));
    else
      triad_kokkos(exec, a, b, c, scalar);
  }
};

template <class ViewA>
struct SumSpec<Kokkos::Cuda, ViewA, std::enable_if_t<native_cuda_views_v<ViewA>>> {
  static double apply(const Kokkos::Cuda& exec, const ViewA& a) {
    if (contiguous(a)) return native_cuda::stream_sum(exec.cuda_stream(), a.data(), a.extent(0));
    return sum_kokkos(exec, a);
  }
};
#endif

}  // namespace tessera::stream::impl
