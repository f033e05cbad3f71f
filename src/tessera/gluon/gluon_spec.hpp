#pragma once
// Dispatch of the gluon Monte Carlo (Kokkos Kernels' _spec shape): the primary
// template runs the portable one-event-per-thread kernel; on Kokkos::Cuda with
// native kernels built, the native CUDA kernel runs.
#include "tessera/config.hpp"
#include "tessera/gluon/impl/gluon_kokkos.hpp"
#if TESSERA_HAS_CUDA_NATIVE
#include "tessera/gluon/gluon_native_cuda.hpp"
#endif

namespace tessera::gluon::impl {

template <class ExecSpace, class T, class MemorySpace, class Enable = void>
struct IntegrateSpec {
  static SigmaResult apply(const ExecSpace& exec, const EventConfig<T>& cfg, const PdfGrid<T, MemorySpace>& pdf,
                           std::uint64_t seed, std::uint64_t first, std::uint64_t count) {
    return integrate_thread_kokkos(exec, cfg, pdf, seed, first, count);
  }
};

#if TESSERA_HAS_CUDA_NATIVE
template <class T>
struct IntegrateSpec<Kokkos::Cuda, T, Kokkos::CudaSpace,
                     std::enable_if_t<std::is_same_v<T, float> || std::is_same_v<T, double>>> {
  static SigmaResult apply(const Kokkos::Cuda& exec, const EventConfig<T>& cfg,
                           const PdfGrid<T, Kokkos::CudaSpace>& pdf, std::uint64_t seed, std::uint64_t first,
                           std::uint64_t count) {
    return native_cuda::gluon_integrate(exec.cuda_stream(), cfg, pdf, seed, first, count);
  }
};
#endif

}  // namespace tessera::gluon::impl
