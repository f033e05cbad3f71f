// Probe: how fast a core runs the Himeno row sweep (the library's row loop,
// himeno_cpu_probe_common.hpp) when its data sits in L1, L2, L3 or DRAM,
// alone and with every core busy. Each thread sweeps a grid of its own
// (first touched by it), sized for one level; threads start each run
// together. Build it with different -march flags to compare vector widths.
// GB/s effective = 14 words x interior points x sweeps / time, summed over
// threads. The ratio of a level's rate to the DRAM rate bounds what two
// sweeps per pass can gain (the second sweep reads from that level).
// Results: docs/perf/himeno.md (2026-11-24; a variant with the point in
// two loops of fewer streams measured the same and was dropped). By hand:
//   g++ -O3 -fopenmp [-march=...] perf/experiments/himeno_cpu_levels_probe.cpp -o levels && ./levels
#include "himeno_cpu_probe_common.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

template <class T>
double sweep(Grid<T>& g, const T* p, T* w) {
  double s = 0;
  for (int i = 1; i < g.I - 1; ++i)
    for (int j = 1; j < g.J - 1; ++j) {
      const long o = i * g.si + j * g.sj + 1;
      s += row<T>(g.K - 2, T(0.8), g.a[0] + o, g.a[1] + o, g.a[2] + o, g.a[3] + o, g.b[0] + o, g.b[1] + o,
                  g.b[2] + o, g.c[0] + o, g.c[1] + o, g.c[2] + o, g.wrk1 + o, g.bnd + o, p + o, g.si, g.sj, w + o);
    }
  return s;
}

struct Level {
  const char* name;
  int I, J, K;
};

template <class T>
void measure(const Level& lv, int threads, int runs) {
  std::vector<double> ms;
  double gb = 0, sink = 0;
#pragma omp parallel num_threads(threads) reduction(+ : sink)
  {
    Grid<T> g(lv.I, lv.J, lv.K);
    const double pts = double(lv.I - 2) * (lv.J - 2) * (lv.K - 2);
    const int sweeps = int(std::max(2.0, 2e7 / pts)) / 2 * 2;  // ~20 M points per run, even
#pragma omp single
    gb = 14.0 * sizeof(T) * pts * sweeps * threads * 1e-9;
    for (int r = 0; r <= runs; ++r) {  // run 0 warms up
#pragma omp barrier
      const auto t0 = std::chrono::steady_clock::now();
      for (int s = 0; s < sweeps; ++s) sink += s % 2 ? sweep<T>(g, g.wrk2, g.p) : sweep<T>(g, g.p, g.wrk2);
#pragma omp barrier
#pragma omp master
      if (r > 0) ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
  }
  std::sort(ms.begin(), ms.end());
  const double m = ms[ms.size() / 2];
  const double pts_per_core = gb * 1e9 / (14.0 * sizeof(T)) / threads / (m * 1e-3);
  std::printf("%-6s %-6s %2d threads %4dx%4dx%4d per thread: %8.1f GB/s eff, %7.1f Mpts/s per core%s\n", lv.name,
              sizeof(T) == 4 ? "float" : "double", threads, lv.I, lv.J, lv.K, gb / (m * 1e-3), pts_per_core * 1e-6,
              std::isfinite(sink) ? "" : " (not finite!)");
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 5;
  if (runs < 1 || argc > 2) {
    std::fprintf(stderr, "usage: %s [runs >= 1]\n", argv[0]);
    return 2;
  }
  const int all = omp_get_max_threads();
  // Per-thread grids (double; float halves them): L1 one row of 128 points
  // (~15 KiB), L2 ~1.4 MiB, L3 ~7 MiB, DRAM ~140 MiB.
  const Level levels[] = {{"L1", 3, 3, 130}, {"L2", 10, 10, 130}, {"L3", 22, 22, 130}, {"DRAM", 50, 50, 514}};
  for (int threads : {1, all})
    for (const Level& lv : levels) {
      measure<float>(lv, threads, runs);
      measure<double>(lv, threads, runs);
    }
  return 0;
}
