#pragma once
// Run-time checks of the host CPU's vector extensions. Builds target the
// x86-64 baseline (SSE2); host kernels written for AVX2 and FMA carry their
// own target attribute and are taken only where the CPU has both.
#if !defined(__CUDA_ARCH__) && defined(__x86_64__) && defined(__GNUC__)
#define TESSERA_HOST_X86 1
#else
#define TESSERA_HOST_X86 0
#endif

namespace tessera {

inline bool host_avx2_fma() {
#if TESSERA_HOST_X86
  static const bool ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return ok;
#else
  return false;
#endif
}

}  // namespace tessera
