#pragma once
// Dispatch of conv3d's automatic algorithm (Kokkos Kernels' _spec shape): the
// portable register-blocked kernel, and on Kokkos::Cuda the native CUDA
// kernel for contiguous LayoutRight float Views (the tensor-core one when
// the caller promises integer samples).
#include "tessera/config.hpp"
#include "tessera/core/exec_space.hpp"
#include "tessera/video/impl/conv3d_kokkos.hpp"
#if TESSERA_HAS_CUDA_NATIVE
#include "tessera/video/conv3d_native_cuda.hpp"
#endif

#include <type_traits>

namespace tessera::video::impl {

template <class ExecSpace, class VView, class OView, class Enable = void>
struct Conv3dSpec {
  template <class KView>
  static void apply(const ExecSpace& exec, const VView& v, const KView& kf, const float* /*kf_host*/,
                    const OView& out, const Conv3dGeometry& g, bool /*integer_samples*/) {
    conv3d_register_kokkos(exec, v, kf, out, g);
  }
};

#if TESSERA_HAS_CUDA_NATIVE
template <class View>
inline constexpr bool conv3d_native_view_v =
    std::is_same_v<typename View::non_const_value_type, float> &&
    std::is_same_v<typename View::array_layout, Kokkos::LayoutRight> && can_access_v<Kokkos::Cuda, View>;

template <class VView, class OView>
struct Conv3dSpec<Kokkos::Cuda, VView, OView,
                  std::enable_if_t<conv3d_native_view_v<VView> && conv3d_native_view_v<OView>>> {
  template <class KView>
  static void apply(const Kokkos::Cuda& exec, const VView& v, const KView& kf, const float* kf_host,
                    const OView& out, const Conv3dGeometry& g, bool integer_samples) {
    if (v.span_is_contiguous() && out.span_is_contiguous() && integer_samples &&
        native_cuda::conv3d_tensor_supports(g.k))
      native_cuda::conv3d_tensor(exec.cuda_stream(), v.data(), kf.data(), out.data(), g);
    else if (v.span_is_contiguous() && out.span_is_contiguous())
      native_cuda::conv3d_register(exec.cuda_stream(), v.data(), kf.data(), out.data(), g, kf_host);
    else
      conv3d_register_kokkos(exec, v, kf, out, g);
  }
};
#endif

}  // namespace tessera::video::impl
