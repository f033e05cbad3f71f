#pragma once
// Dispatch of the B-spline kernels: portable Kokkos kernels by default; on
// Kokkos::Cuda with uint8/float planes whose rows are contiguous, the native
// CUDA kernels (backends/cuda/video/bspline_native.cu; the prefilter for
// planes that fit one block's shared memory).
#include "tessera/config.hpp"
#include "tessera/video/impl/bspline_kokkos.hpp"
#if TESSERA_HAS_CUDA_NATIVE
#include "tessera/video/bspline_native_cuda.hpp"
#endif

#include <type_traits>

namespace tessera::video::impl {

template <class View>
bool rows_contiguous(const View& v) {
  return v.extent(1) < 2 || v.stride(1) == 1;
}

template <class ExecSpace, class In, class Coef, class Enable = void>
struct BsplinePrefilterSpec {
  static void apply(const ExecSpace& exec, const In& in, const Coef& coef) { bspline_prefilter_kokkos(exec, in, coef); }
};

template <class ExecSpace, class Coef, class Out, class Enable = void>
struct BsplineInterpolateSpec {
  static void apply(const ExecSpace& exec, const Coef& coef, const Out& out, const BsplinePhases& ph) {
    bspline_interpolate_kokkos(exec, coef, out, ph);
  }
};

#if TESSERA_HAS_CUDA_NATIVE
template <class V>
inline constexpr bool native_plane_v =
    (std::is_same_v<typename V::non_const_value_type, std::uint8_t> ||
     std::is_same_v<typename V::non_const_value_type, float>) &&
    Kokkos::SpaceAccessibility<Kokkos::Cuda, typename V::memory_space>::accessible;

template <class In, class Coef>
struct BsplinePrefilterSpec<Kokkos::Cuda, In, Coef, std::enable_if_t<native_plane_v<In>>> {
  static void apply(const Kokkos::Cuda& exec, const In& in, const Coef& coef) {
    if (!rows_contiguous(in) ||
        !native_cuda::bspline_prefilter(exec.cuda_stream(), in.data(),
                                        std::int64_t(in.extent(1) < 2 ? in.extent(1) : in.stride(0)), coef.data(),
                                        int(coef.extent(0)), int(coef.extent(1))))
      bspline_prefilter_kokkos(exec, in, coef);
  }
};

template <class Coef, class Out>
struct BsplineInterpolateSpec<Kokkos::Cuda, Coef, Out, std::enable_if_t<native_plane_v<Out>>> {
  static void apply(const Kokkos::Cuda& exec, const Coef& coef, const Out& out, const BsplinePhases& ph) {
    if (rows_contiguous(out))
      native_cuda::bspline_interpolate(exec.cuda_stream(), coef.data(), int(coef.extent(0)), int(coef.extent(1)),
                                       out.data(), std::int64_t(out.extent(1) < 2 ? out.extent(1) : out.stride(0)), ph);
    else
      bspline_interpolate_kokkos(exec, coef, out, ph);
  }
};
#endif

}  // namespace tessera::video::impl
