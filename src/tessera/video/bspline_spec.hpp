#pragma once
// Dispatch of the B-spline kernels: portable Kokkos kernels by default; on
// Kokkos::Cuda with uint8/float planes whose rows are contiguous, the native
// CUDA kernels (backends/cuda/video/bspline_native.cu).
//
// bspline_prefilter / bspline_interpolate on Cuda run the paper's algorithm
// natively: the IIR prefilter (planes that fit one block's shared memory),
// then the evaluation from the coefficient plane. bspline_upscale[_planes]
// on Cuda picks the fused kernel instead: the two-stage path is bound by the
// IIR's one thread per scanline and two launches per plane (QCIF x7 luma,
// H100: 43 us), while the fused kernel spreads a frame over hundreds of
// blocks in one launch, each prefiltering its tile's input window with the
// truncated FIR, and moves nothing through global memory but input and
// output. It matches the IIR to float rounding (impl/bspline_math.hpp bounds
// the truncation) and takes every plane size.
#include "tessera/config.hpp"
#include "tessera/video/impl/bspline_kokkos.hpp"
#include "tessera/video/impl/plane_layout.hpp"
#if TESSERA_HAS_CUDA_NATIVE
#include "tessera/video/bspline_native_cuda.hpp"
#endif

#include <type_traits>

namespace tessera::video::impl {

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

// n planes: in[i] -> out[i], coef[i] the workspace of plane i.
template <class ExecSpace, class In, class Coef, class Out, class Enable = void>
struct BsplineUpscaleSpec {
  static void apply(const ExecSpace& exec, int n, const In* in, const Coef* coef, const Out* out,
                    const BsplinePhases& ph) {
    for (int i = 0; i < n; ++i) {
      BsplinePrefilterSpec<ExecSpace, In, Coef>::apply(exec, in[i], coef[i]);
      BsplineInterpolateSpec<ExecSpace, Coef, Out>::apply(exec, coef[i], out[i], ph);
    }
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
    if (!rows_contiguous(in) || !native_cuda::bspline_prefilter(exec.cuda_stream(), in.data(), row_pitch(in),
                                                                coef.data(), int(coef.extent(0)), int(coef.extent(1))))
      bspline_prefilter_kokkos(exec, in, coef);
  }
};

template <class Coef, class Out>
struct BsplineInterpolateSpec<Kokkos::Cuda, Coef, Out, std::enable_if_t<native_plane_v<Out>>> {
  static void apply(const Kokkos::Cuda& exec, const Coef& coef, const Out& out, const BsplinePhases& ph) {
    if (rows_contiguous(out))
      native_cuda::bspline_interpolate(exec.cuda_stream(), coef.data(), int(coef.extent(0)), int(coef.extent(1)),
                                       out.data(), row_pitch(out), ph);
    else
      bspline_interpolate_kokkos(exec, coef, out, ph);
  }
};

// The fused kernel for every plane with contiguous rows (batched into
// launches of kBsplineFusedMaxPlanes); the others take the two stages.
template <class In, class Coef, class Out>
struct BsplineUpscaleSpec<Kokkos::Cuda, In, Coef, Out,
                          std::enable_if_t<native_plane_v<In> && native_plane_v<Out>>> {
  static void apply(const Kokkos::Cuda& exec, int n, const In* in, const Coef* coef, const Out* out,
                    const BsplinePhases& ph) {
    using Plane = native_cuda::BsplinePlane<typename In::non_const_value_type, typename Out::non_const_value_type>;
    Plane batch[native_cuda::kBsplineFusedMaxPlanes];
    int m = 0;
    auto flush = [&] {
      if (m > 0) native_cuda::bspline_upscale_fused(exec.cuda_stream(), batch, m, ph);
      m = 0;
    };
    for (int i = 0; i < n; ++i) {
      if (!rows_contiguous(in[i]) || !rows_contiguous(out[i])) {
        BsplinePrefilterSpec<Kokkos::Cuda, In, Coef>::apply(exec, in[i], coef[i]);
        BsplineInterpolateSpec<Kokkos::Cuda, Coef, Out>::apply(exec, coef[i], out[i], ph);
        continue;
      }
      batch[m++] = Plane{in[i].data(), row_pitch(in[i]), out[i].data(), row_pitch(out[i]), int(in[i].extent(0)),
                         int(in[i].extent(1))};
      if (m == native_cuda::kBsplineFusedMaxPlanes) flush();
    }
    flush();
  }
};
#endif

}  // namespace tessera::video::impl
