#pragma once
// Dispatch of the bilateral filter: portable kernel by default; on
// Kokkos::Cuda with float depth, uint8 luma and contiguous rows, the native
// CUDA kernel.
#include "tessera/config.hpp"
#include "tessera/video/impl/bilateral_kokkos.hpp"
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
  // Row pitch; a single column still has one (it need not be 1), a single row none.
  template <class V>
  static std::int64_t ld(const V& v) { return v.extent(0) < 2 ? std::int64_t(v.extent(1)) : std::int64_t(v.stride(0)); }
  template <class V>
  static bool rows(const V& v) { return v.extent(1) < 2 || v.stride(1) == 1; }
  static void apply(const Kokkos::Cuda& exec, const Depth& d, const Luma& l, const Out& o, const BilateralTables& t) {
    if (rows(d) && rows(l) && rows(o))
      native_cuda::bilateral(exec.cuda_stream(), d.data(), ld(d), l.data(), ld(l), o.data(), ld(o), int(d.extent(0)),
                             int(d.extent(1)), t);
    else
      bilateral_kokkos(exec, d, l, o, t);
  }
};
#endif

}  // namespace tessera::video::impl
