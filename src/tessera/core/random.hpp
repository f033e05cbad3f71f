#pragma once
// Counter-based random numbers (splitmix64): value i depends only on (seed, i),
// so inputs can be filled in parallel, on any backend, and stay reproducible.
#include <Kokkos_Core.hpp>

#include <cstdint>

namespace tessera {

KOKKOS_INLINE_FUNCTION std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Uniform in [lo, hi), 53 random bits.
KOKKOS_INLINE_FUNCTION double random_uniform(std::uint64_t seed, std::uint64_t i, double lo = 0.0, double hi = 1.0) {
  const std::uint64_t r = splitmix64(splitmix64(seed) ^ (i * 0xD1B54A32D192ED03ull));
  return lo + (hi - lo) * (static_cast<double>(r >> 11) * 0x1.0p-53);
}

}  // namespace tessera
