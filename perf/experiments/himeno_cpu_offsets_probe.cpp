// Probe: does the placement of Himeno's 14 arrays matter on a CPU? One
// OpenMP row sweep (the rows kernel's loop, double, M = 128 x 128 x 256
// interior), run with the arrays page-aligned (all at the same offset modulo
// 4 KiB, as separate large allocations come) and with each array staggered
// by 1088 bytes more than the previous one (17 cache lines, modulo 16 KiB).
// Prints the best of 7 sweeps for both, as GB/s by the 14-word convention.
// Build: g++ -O3 -fopenmp [-march=native] perf/experiments/himeno_cpu_offsets_probe.cpp -o probe; ./probe
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

double sweep_gbs(bool stagger) {
  const int I = 130, J = 130, K = 258;
  const long n = long(I) * J * K;
  std::vector<char*> raw(14);
  std::vector<double*> a(14);
  for (int m = 0; m < 14; ++m) {
    raw[m] = static_cast<char*>(std::aligned_alloc(4096, n * sizeof(double) + 16384));
    if (!raw[m]) {
      std::fprintf(stderr, "out of memory\n");
      std::exit(1);
    }
    a[m] = reinterpret_cast<double*>(raw[m] + (stagger ? (m * 1088) % 16384 : 0));
    for (long x = 0; x < n; ++x) a[m][x] = 0.5 + double(x % 7) * 0.01;
  }
  const long si = long(J) * K, sj = K;
  double best = 1e30, gosa = 0;
  for (int rep = 0; rep < 7; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    double g_all = 0;
#pragma omp parallel for collapse(2) reduction(+ : g_all)
    for (int i = 1; i < I - 1; ++i)
      for (int j = 1; j < J - 1; ++j) {
        const long c = i * si + j * sj;
        const double *p = a[12] + c, *a0 = a[0] + c, *a1 = a[1] + c, *a2 = a[2] + c, *a3 = a[3] + c,
                     *b0 = a[4] + c, *b1 = a[5] + c, *b2 = a[6] + c, *c0 = a[7] + c, *c1 = a[8] + c,
                     *c2 = a[9] + c, *wk = a[10] + c, *bn = a[11] + c;
        double* __restrict__ w = a[13] + c;
        double g = 0;
#pragma omp simd reduction(+ : g)
        for (int k = 1; k < K - 1; ++k) {
          const double s0 = a0[k] * p[k + si] + a1[k] * p[k + sj] + a2[k] * p[k + 1] +
                            b0[k] * (p[k + si + sj] - p[k + si - sj] - p[k - si + sj] + p[k - si - sj]) +
                            b1[k] * (p[k + sj + 1] - p[k - sj + 1] - p[k + sj - 1] + p[k - sj - 1]) +
                            b2[k] * (p[k + si + 1] - p[k - si + 1] - p[k + si - 1] + p[k - si - 1]) +
                            c0[k] * p[k - si] + c1[k] * p[k - sj] + c2[k] * p[k - 1] + wk[k];
          const double ss = (s0 * a3[k] - p[k]) * bn[k];
          g += ss * ss;
          w[k] = p[k] + 0.8 * ss;
        }
        g_all += g;
      }
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    gosa += g_all;
  }
  for (char* r : raw) std::free(r);
  if (!(gosa > 0)) std::fprintf(stderr, "unexpected gosa %g\n", gosa);  // keeps the sweeps live
  return 14.0 * sizeof(double) * (I - 2) * (J - 2) * (K - 2) / best * 1e-9;
}

}  // namespace

int main(int argc, char**) {
  if (argc != 1) {
    std::fprintf(stderr, "usage: probe (no arguments; OMP_NUM_THREADS sets the threads)\n");
    return 2;
  }
  for (int round = 0; round < 2; ++round)
    std::printf("%d threads: page-aligned %.1f GB/s, staggered %.1f GB/s\n", omp_get_max_threads(),
                sweep_gbs(false), sweep_gbs(true));
  return 0;
}
