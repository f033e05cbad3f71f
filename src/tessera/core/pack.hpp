#pragma once
// A 16-byte aligned group of scalars. Loading one per access gives GPUs
// 128-bit loads: a Kokkos copy with one double per thread reached 1.70 TB/s on
// the H100, with 16-byte elements 2.99 TB/s. CPUs vectorise it just as well.
#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>

namespace tessera {

template <class T, int Bytes = 16>
struct alignas(Bytes) Pack {
  static_assert(Bytes % sizeof(T) == 0, "Pack: bytes must be a multiple of the scalar size");
  static constexpr int size = Bytes / sizeof(T);
  T v[size];
};

// Whether p may be read as Pack<T> (aligned to the pack size).
template <class T, int Bytes = 16>
KOKKOS_INLINE_FUNCTION bool is_pack_aligned(const T* p) {
  return reinterpret_cast<std::uintptr_t>(p) % Bytes == 0;
}

}  // namespace tessera
