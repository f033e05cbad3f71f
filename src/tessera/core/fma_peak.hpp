#pragma once
// The compute ceiling: FMA throughput of independent chains held in
// registers, one Kokkos source for every backend. Each work item runs
// kChains chains of a = a * b + c for `steps` steps (2 flops each); on GPUs
// nvcc contracts each into one FMA, on CPUs the build's flags decide
// (without -mfma: a multiply and an add, so the measured ceiling is that of
// the build's SIMD width and instruction set). Where the CPU has AVX2 and
// FMA, fma_peak_kernel_avx2 measures those too and the ceiling is the
// better of the two (driver/ceilings.cpp).
#include "tessera/core/cpu_features.hpp"

#include <Kokkos_Core.hpp>
#if TESSERA_HOST_X86
#include <immintrin.h>
#endif

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

#if TESSERA_HOST_X86
namespace detail {
// The CPU's own FMA rate, where it has AVX2 and FMA: the host kernels that
// take those at run time (TSM tiles, B-spline, bilateral) run past the
// build's SSE2 rate, so a ceiling of the build's instruction set alone would
// not bound them. 12 independent 256-bit chains (two FMA units of 4-5 cycles'
// latency need 8-10). AVX-512 is not measured: on CPUs with two 512-bit FMA
// units the FP rate can be up to 2x this one.
inline constexpr int kFmaAvx2Vectors = 12;

[[gnu::target("avx2,fma"), gnu::noinline]] inline float fma_chains_avx2(std::int64_t i, int steps, float b, float c) {
  __m256 a[kFmaAvx2Vectors];
  for (int k = 0; k < kFmaAvx2Vectors; ++k) a[k] = _mm256_set1_ps(1.0f + 1e-9f * float(i + k));
  const __m256 bv = _mm256_set1_ps(b), cv = _mm256_set1_ps(c);
  for (int s = 0; s < steps; ++s)
    for (int k = 0; k < kFmaAvx2Vectors; ++k) a[k] = _mm256_fmadd_ps(a[k], bv, cv);
  __m256 t = a[0];
  for (int k = 1; k < kFmaAvx2Vectors; ++k) t = _mm256_add_ps(t, a[k]);
  alignas(32) float v[8];
  _mm256_store_ps(v, t);
  return v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
}

[[gnu::target("avx2,fma"), gnu::noinline]] inline double fma_chains_avx2(std::int64_t i, int steps, double b,
                                                                          double c) {
  __m256d a[kFmaAvx2Vectors];
  for (int k = 0; k < kFmaAvx2Vectors; ++k) a[k] = _mm256_set1_pd(1.0 + 1e-9 * double(i + k));
  const __m256d bv = _mm256_set1_pd(b), cv = _mm256_set1_pd(c);
  for (int s = 0; s < steps; ++s)
    for (int k = 0; k < kFmaAvx2Vectors; ++k) a[k] = _mm256_fmadd_pd(a[k], bv, cv);
  __m256d t = a[0];
  for (int k = 1; k < kFmaAvx2Vectors; ++k) t = _mm256_add_pd(t, a[k]);
  alignas(32) double v[4];
  _mm256_store_pd(v, t);
  return v[0] + v[1] + v[2] + v[3];
}
}  // namespace detail

// The AVX2 + FMA chains on a host space (host_avx2_fma() must hold); returns
// the flops queued.
template <class ExecSpace, class T>
double fma_peak_kernel_avx2(const ExecSpace& exec, const Kokkos::View<T*, typename ExecSpace::memory_space>& out,
                            int steps) {
  const T b = T(0.9999999), c = T(1e-7);
  Kokkos::parallel_for("tessera::fma_peak_avx2", Kokkos::RangePolicy<ExecSpace>(exec, 0, out.extent(0)),
                       [=](std::int64_t i) { out(i) = detail::fma_chains_avx2(i, steps, b, c); });
  return 2.0 * detail::kFmaAvx2Vectors * (32.0 / sizeof(T)) * double(out.extent(0)) * steps;
}
#endif

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
