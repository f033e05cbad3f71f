#pragma once
// Dispatch of the gluon Monte Carlo (Kokkos Kernels' _spec shape): the primary
// template runs the portable one-event-per-thread kernel, on Kokkos::Cuda too.
// There the native CUDA kernel (gluon_native_cuda.hpp, the `native-cuda`
// variant) is slower at every n and precision measured (the portable kernel is
// 1.04-1.55x faster on the H100, 1.06-1.35x on the H200; docs/perf/gluon.md),
// so no specialisation selects it.
#include "tessera/config.hpp"
#include "tessera/gluon/impl/gluon_kokkos.hpp"

namespace tessera::gluon::impl {

template <class ExecSpace, class T, class MemorySpace, class Enable = void>
struct IntegrateSpec {
  static SigmaResult apply(const ExecSpace& exec, const EventConfig<T>& cfg, const PdfGrid<T, MemorySpace>& pdf,
                           std::uint64_t seed, std::uint64_t first, std::uint64_t count) {
    return integrate_thread_kokkos(exec, cfg, pdf, seed, first, count);
  }
};

}  // namespace tessera::gluon::impl
