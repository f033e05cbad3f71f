// Initialises Kokkos once for all tests of a program.
#include "tessera/core/exec_space.hpp"

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <cstdio>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
#if defined(KOKKOS_ENABLE_CUDA)
  if (tessera::cuda_device_count() == 0) {
    std::printf(
        "[  SKIPPED ] all tests: this build uses Kokkos' Cuda backend, which cannot initialise "
        "without a CUDA device; run the host flavour's tests on this machine\n");
    return 0;
  }
#endif
  Kokkos::ScopeGuard kokkos(argc, argv);
  return RUN_ALL_TESTS();
}
