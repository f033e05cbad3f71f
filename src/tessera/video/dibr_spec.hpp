#pragma once
// Dispatch of depth propagation: portable by default; on Kokkos::Cuda with
// float depth and contiguous row-major Views both variants run the native
// CUDA kernels (atomic z-buffer; CUB sort + segmented min).
#include "tessera/config.hpp"
#include "tessera/video/impl/dibr_kokkos.hpp"
#if TESSERA_HAS_CUDA_NATIVE
#include "tessera/video/dibr_native_cuda.hpp"
#endif

#include <type_traits>

namespace tessera::video::impl {

template <class ExecSpace, class Depth, class ZBuf, class Out, class Enable = void>
struct DibrAtomicSpec {
  static void apply(const ExecSpace& exec, const Depth& d, const ZBuf& z, const Out& o, const CameraRig& rig) {
    dibr_atomic_kokkos(exec, d, z, o, rig);
  }
};

template <class ExecSpace, class Depth, class Keys, class Out, class Enable = void>
struct DibrSortedSpec {
  static void apply(const ExecSpace& exec, const Depth& d, const Keys& k, const Out& o, const CameraRig& rig) {
    dibr_sorted_kokkos(exec, d, k, o, rig);
  }
};

#if TESSERA_HAS_CUDA_NATIVE
template <class V>
bool dibr_packed(const V& v) {
  return v.span_is_contiguous() && (v.extent(1) < 2 || v.stride(1) == 1) && (v.extent(0) < 2 || v.stride(0) == v.extent(1));
}

template <class Depth, class Keys, class Out>
struct DibrSortedSpec<Kokkos::Cuda, Depth, Keys, Out,
                      std::enable_if_t<std::is_same_v<typename Depth::non_const_value_type, float>>> {
  static void apply(const Kokkos::Cuda& exec, const Depth& d, const Keys& k, const Out& o, const CameraRig& rig) {
    if (dibr_packed(d) && k.span_is_contiguous() && dibr_packed(o))
      native_cuda::dibr_sorted(exec.cuda_stream(), d.data(), int(d.extent(0)), int(d.extent(1)), k.data(), o.data(),
                               int(o.extent(0)), int(o.extent(1)), rig);
    else
      dibr_sorted_kokkos(exec, d, k, o, rig);
  }
};

template <class Depth, class ZBuf, class Out>
struct DibrAtomicSpec<Kokkos::Cuda, Depth, ZBuf, Out,
                      std::enable_if_t<std::is_same_v<typename Depth::non_const_value_type, float>>> {
  static void apply(const Kokkos::Cuda& exec, const Depth& d, const ZBuf& z, const Out& o, const CameraRig& rig) {
    if (dibr_packed(d) && dibr_packed(z) && dibr_packed(o))
      native_cuda::dibr_atomic(exec.cuda_stream(), d.data(), int(d.extent(0)), int(d.extent(1)), z.data(), o.data(),
                               int(o.extent(0)), int(o.extent(1)), rig);
    else
      dibr_atomic_kokkos(exec, d, z, o, rig);
  }
};
#endif

}  // namespace tessera::video::impl
