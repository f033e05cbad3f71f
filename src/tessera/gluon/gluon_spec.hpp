#pragma once
// Dispatch of the gluon Monte Carlo (Kokkos Kernels' _spec shape): the primary
// template runs the portable kernels on every execution space. On a GPU it
// picks, by n and precision, one event per thread or an event on several
// lanes with its currents in team scratch (impl::lanes_per_event, from the
// H100 sweep in docs/perf/gluon.md); on host backends one event per thread.
// The native CUDA kernel (gluon_native_cuda.hpp, the `native-cuda` variant)
// is slower than the portable ones at every n and precision measured
// (1.04-1.55x on the H100, 1.06-1.35x on the H200), so no specialisation
// selects it.
#include "tessera/config.hpp"
#include "tessera/gluon/impl/gluon_kokkos.hpp"

namespace tessera::gluon::impl {

template <class ExecSpace, class T, class MemorySpace, class Enable = void>
struct IntegrateSpec {
  static SigmaResult apply(const ExecSpace& exec, const EventConfig<T>& cfg, const PdfGrid<T, MemorySpace>& pdf,
                           std::uint64_t seed, std::uint64_t first, std::uint64_t count) {
    if (uses_lanes_kernel<ExecSpace>(cfg.n, int(sizeof(T))))
      return integrate_lanes_kokkos(exec, cfg, pdf, seed, first, count);
    return integrate_thread_kokkos(exec, cfg, pdf, seed, first, count);
  }
};

}  // namespace tessera::gluon::impl
