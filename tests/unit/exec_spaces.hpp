#pragma once
// The execution spaces this Kokkos build has, as a GoogleTest type list.
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <type_traits>

namespace tessera::test {

template <class... T>
struct List {};
template <class A, class B>
struct Cat;
template <class... A, class... B>
struct Cat<List<A...>, List<B...>> {
  using type = List<A..., B...>;
};
template <class L>
struct ToTypes;
template <class... A>
struct ToTypes<List<A...>> {
  using type = ::testing::Types<A...>;
};

#if defined(KOKKOS_ENABLE_SERIAL)
using SerialList = List<Kokkos::Serial>;
#else
using SerialList = List<>;
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
using OpenMPList = List<Kokkos::OpenMP>;
#else
using OpenMPList = List<>;
#endif
#if defined(KOKKOS_ENABLE_CUDA)
using CudaList = List<Kokkos::Cuda>;
#else
using CudaList = List<>;
#endif

using ExecSpaces = ToTypes<Cat<Cat<SerialList, OpenMPList>::type, CudaList>::type>::type;

// A fresh seed per run: tests must hold for any input, not one lucky draw.
// Tests report it through SCOPED_TRACE; TESSERA_TEST_SEED=N replays it.
inline std::uint64_t fresh_seed() {
  if (const char* s = std::getenv("TESSERA_TEST_SEED"); s && *s) return std::strtoull(s, nullptr, 0);
  static std::random_device rd;
  return (std::uint64_t(rd()) << 32) ^ rd();
}

// An instance other than the default one where the space has several: on
// CUDA one on a stream of its own (created once), elsewhere the default.
template <class ExecSpace>
ExecSpace non_default_instance() {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda>) {
    static cudaStream_t stream = [] {
      cudaStream_t s = nullptr;
      cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
      return s;
    }();
    return Kokkos::Cuda(stream);
  }
#endif
  return ExecSpace();
}

}  // namespace tessera::test
