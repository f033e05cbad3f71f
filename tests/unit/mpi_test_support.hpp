#pragma once
// What every MPI test program needs: rank facts, a seed shared by all ranks,
// collective assertions and a main that runs the tests on every rank and
// fails on all of them when one fails.
#include "exec_spaces.hpp"
#include "tessera/core/exec_space.hpp"

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdint>
#include <cstdio>

namespace tessera::test::mpi {

inline int rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

inline int ranks() {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

// One seed for all ranks, fresh each run.
inline std::uint64_t shared_seed() {
  std::uint64_t s = fresh_seed();
  MPI_Bcast(&s, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
  return s;
}

// True on every rank when ok on every rank (assertions stay collective).
inline bool all(bool ok) {
  int v = ok, r = 0;
  MPI_Allreduce(&v, &r, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return r != 0;
}

// The body of main: MPI and Kokkos up, every test, the worst result of all
// ranks as the exit code. A Cuda build without a device skips everything.
inline int run_all(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  ::testing::InitGoogleTest(&argc, argv);
  int failed = 0;
#if defined(KOKKOS_ENABLE_CUDA)
  if (tessera::cuda_device_count() == 0) {
    if (rank() == 0)
      std::printf("[  SKIPPED ] all tests: this build uses Kokkos' Cuda backend, which cannot initialise "
                  "without a CUDA device\n");
    MPI_Finalize();
    return 0;
  }
#endif
  {
    Kokkos::ScopeGuard kokkos(argc, argv);
    failed = RUN_ALL_TESTS();
  }
  int any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any;
}

}  // namespace tessera::test::mpi
