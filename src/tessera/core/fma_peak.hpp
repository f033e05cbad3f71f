#pragma once
// The compute ceiling: FMA throughput of independent chains held in
// registers, one Kokkos source for every backend. Each work item runs
// kChains chains of a = a * b + c for `steps` steps (2 flops each); on GPUs
// nvcc contracts each into one FMA, on CPUs the build's flags decide
// (without -mfma: a multiply and an add, so the measured ceiling is that of
// the build's SIMD width and instruction set, which is what its vectorised
// kernels can reach).
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

namespace tessera {

// Chains per work item: 16 per GPU thread (the warps supply the rest); on
// CPUs 12 SIMD registers' worth at 128 bits (48 float or 24 double chains),
// enough independent vectors to cover the multiply and add latencies.
template <class T, class ExecSpace>
inline constexpr int fma_peak_chains =
#if defined(KOKKOS_ENABLE_CUDA)
    std::is_same_v<ExecSpace, Kokkos::Cuda> ? 16 :
#endif
                                            (sizeof(T) == 4 ? 48 : 24);

template <class T, class ExecSpace = Kokkos::DefaultHostExecutionSpace>
struct FmaPeakWork {
  static constexpr int kChains = fma_peak_chains<T, ExecSpace>;
  double flops(std::int64_t items, int steps) const { return 2.0 * kChains * double(items) * steps; }
};

namespace detail {

template <class T, int kChains>
KOKKOS_INLINE_FUNCTION T fma_chains(std::int64_t i, int steps, T b, T c) {
  T a[kChains];
  for (int k = 0; k < kChains; ++k) a[k] = T(1) + T(1e-9) * T(i + k);
  for (int s = 0; s < steps; ++s)
    for (int k = 0; k < kChains; ++k) a[k] = a[k] * b + c;
  T sum = 0;
  for (int k = 0; k < kChains; ++k) sum += a[k];
  return sum;
}

#if !defined(__CUDA_ARCH__)
// The same chains as a host function of their own: GCC vectorises the chain
// loop here, not inside the OpenMP-outlined functor body (measured: scalar
// there, 3-5x below the SIMD rate).
template <class T, int kChains>
[[gnu::noinline]] T fma_chains_host(std::int64_t i, int steps, T b, T c) {
  return fma_chains<T, kChains>(i, steps, b, c);
}
#endif

}  // namespace detail

// Queues the kernel on exec; out(i) keeps the chains' sum live.
template <class ExecSpace, class T>
void fma_peak_kernel(const ExecSpace& exec, const Kokkos::View<T*, typename ExecSpace::memory_space>& out,
                     int steps) {
  constexpr int kChains = FmaPeakWork<T, ExecSpace>::kChains;
  const T b = T(0.9999999), c = T(1e-7);
  Kokkos::parallel_for(
      "tessera::fma_peak", Kokkos::RangePolicy<ExecSpace>(exec, 0, out.extent(0)), KOKKOS_LAMBDA(std::int64_t i) {
#if defined(__CUDA_ARCH__)
        out(i) = detail::fma_chains<T, kChains>(i, steps, b, c);
#else
        out(i) = detail::fma_chains_host<T, kChains>(i, steps, b, c);
#endif
      });
}

}  // namespace tessera
