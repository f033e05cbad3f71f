#pragma once
// The execution spaces this Kokkos build has, as a GoogleTest type list.
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <random>

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
// GTEST reports it through SCOPED_TRACE so a failure can be replayed.
inline std::uint64_t fresh_seed() {
  static std::random_device rd;
  return (std::uint64_t(rd()) << 32) ^ rd();
}

}  // namespace tessera::test
