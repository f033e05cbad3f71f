#pragma once
// What the gluon probes share (Kokkos Cuda, the library's headers, no Tessera
// library): the spaces and the median wall time of whole runs after a warm-up.
#include "tessera/gluon/impl/gluon_kokkos.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <vector>

namespace gluon_probe {
using Exec = Kokkos::Cuda;
using Mem = Kokkos::CudaSpace;

// Median of `reps` runs of f (each fenced) after one warm-up run, seconds.
template <class F>
double median_seconds(F&& f, int reps) {
  std::vector<double> t;
  f();
  Kokkos::fence();
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    Kokkos::fence();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}
}  // namespace gluon_probe
