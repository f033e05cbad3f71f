#pragma once
// What the Himeno runners share: the overlap's two instances, timing across
// MPI ranks, and the stepper a validation run advances.
#include "tessera/core/timer.hpp"
#include "tessera/driver/mpi_session.hpp"

#include <Kokkos_Core.hpp>

#include <chrono>
#include <functional>
#include <stdexcept>
#include <type_traits>
#include <utility>
#include <vector>

namespace tessera::himeno::workload {


// Two instances of an execution space for halo/compute overlap: two streams
// on CUDA (created once, kept for the process), the one instance elsewhere.
template <class ExecSpace>
std::pair<ExecSpace, ExecSpace> overlap_instances() {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda>) {
    static cudaStream_t streams[2] = {nullptr, nullptr};
    if (!streams[0])
      for (auto& st : streams)
        if (cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking) != cudaSuccess)
          throw std::runtime_error("himeno: cudaStreamCreate failed");
    return {Kokkos::Cuda(streams[0]), Kokkos::Cuda(streams[1])};
  }
#endif
  return {ExecSpace(), ExecSpace()};
}

// Median of repeats timed across all ranks: a barrier, then the slowest
// rank's time (each call of f ends with its work complete).
template <class F>
TimingStats time_repeats_world(int warmup, int repeats, F&& f) {
  for (int i = 0; i < warmup; ++i) f();
  std::vector<double> t;
  for (int i = 0; i < repeats; ++i) {
    driver::world_barrier();
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(driver::world_max(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()));
  }
  return summarize(std::move(t));
}

// The first count values of a rank-1 View (any memory), as doubles on the host.
template <class View>
std::vector<double> first_values(const View& v, int count) {
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  return std::vector<double>(h.data(), h.data() + count);
}

// How a variant advances its state: advance(n, limit) performs sweeps n, ...
// (at most up to limit) and returns how many; history(count) gives the
// global gosa of sweeps [0, count) (collective under MPI).
struct Stepper {
  std::function<int(int, int)> advance;
  std::function<std::vector<double>(int)> history;
};

}  // namespace tessera::himeno::workload
