#pragma once
// The compute ceiling: FMA throughput of independent chains held in
// registers, one Kokkos source for every backend. Each work item runs
// kChains chains of a = a * b + c for `steps` steps (2 flops each); on GPUs
// nvcc contracts each into one FMA, on CPUs the build's flags decide
// (without -mfma: a multiply and an add, so the measured ceiling is that of
// the build, which is what its kernels can reach).
#include <Kokkos_Core.hpp>

#include <cstdint>

namespace tessera {

template <class T>
struct FmaPeakWork {
  static constexpr int kChains = 16;
  double flops(std::int64_t items, int steps) const { return 2.0 * kChains * double(items) * steps; }
};

// Queues the kernel on exec; out(i) keeps the chains' sum live.
template <class ExecSpace, class T>
void fma_peak_kernel(const ExecSpace& exec, const Kokkos::View<T*, typename ExecSpace::memory_space>& out,
                     int steps) {
  constexpr int kChains = FmaPeakWork<T>::kChains;
  const T b = T(0.9999999), c = T(1e-7);
  Kokkos::parallel_for(
      "tessera::fma_peak", Kokkos::RangePolicy<ExecSpace>(exec, 0, out.extent(0)), KOKKOS_LAMBDA(std::int64_t i) {
        T a[kChains];
        for (int k = 0; k < kChains; ++k) a[k] = T(1) + T(1e-9) * T(i + k);
        for (int s = 0; s < steps; ++s)
          for (int k = 0; k < kChains; ++k) a[k] = a[k] * b + c;
        T sum = 0;
        for (int k = 0; k < kChains; ++k) sum += a[k];
        out(i) = sum;
      });
}

}  // namespace tessera
