#pragma once
// Dispatch of the bilateral filter: portable kernel by default; on
// Kokkos::Cuda with float depth, uint8 luma and contiguous rows, the native
// CUDA kernel.
#include "tessera/config.hpp"
#include "tessera/video/impl/bilateral_kokkos.hpp"
#include "tessera/video/impl/plane_layout.hpp"
#if TESSERA_HAS_CUDA_NATIVE
#include "tessera/video/bilateral_native_cuda.hpp"
#endif

#include <type_traits>

namespace tessera::video::impl {

template <class ExecSpace, class Depth, class Luma, class Out, class Enable = void>
struct BilateralSpec {
  static void apply(const ExecSpace& exec, const Depth& d, const Luma& l, const Out& o, const BilateralTables& t) {
    bilateral_kokkos(exec, d, l, o, t);
  }
};

#if TESSERA_HAS_CUDA_NATIVE
template <class Depth, class Luma, class Out>
struct BilateralSpec<Kokkos::Cuda, Depth, Luma, Out,
                     std::enable_if_t<std::is_same_v<typename Depth::non_const_value_type, float>>> {
  static void apply(const Kokkos::Cuda& exec, const Depth& d, const Luma& l, const Out& o, const BilateralTables& t) {
    if (rows_contiguous(d) && rows_contiguous(l) && rows_contiguous(o))
      native_cuda::bilateral(exec.cuda_stream(), d.data(), row_pitch(d), l.data(), row_pitch(l), o.data(),
                             row_pitch(o), int(d.extent(0)), int(d.extent(1)), t);
    else
      bilateral_kokkos(exec, d, l, o, t);
  }
};
#endif

}  // namespace tessera::video::impl
