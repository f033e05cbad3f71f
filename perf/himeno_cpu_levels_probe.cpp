// Probe: how fast a core runs the Himeno row sweep when its data sits in L1,
// L2, L3 or DRAM, alone and with every core busy. Each thread sweeps a grid
// of its own (first touched by it), sized for one level; threads start each
// run together. Kernels:
//   row    the library's rows loop (one vector loop along k, 24 streams);
//   split  the same point in two loops over 128-point pieces, with s0's
//          first five terms kept in an L1 buffer between them (12 and 15
//          streams per loop; the same rounding);
// GB/s effective = 14 words x interior points x sweeps / time, summed over
// threads. The ratio of a level's rate to the DRAM rate bounds what
// temporal blocking can gain (the second sweep reads from that level).
// Results: docs/perf/himeno.md (ninth session). By hand:
//   g++ -O3 -fopenmp perf/himeno_cpu_levels_probe.cpp -o levels && ./levels
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

template <class T>
__attribute__((noinline)) double row(int n, T omega, const T* __restrict a0, const T* __restrict a1,
                                     const T* __restrict a2, const T* __restrict a3, const T* __restrict b0,
                                     const T* __restrict b1, const T* __restrict b2, const T* __restrict c0,
                                     const T* __restrict c1, const T* __restrict c2, const T* __restrict wk,
                                     const T* __restrict bn, const T* __restrict q, long si, long sj,
                                     T* __restrict out) {
  T g = 0;
#pragma omp simd reduction(+ : g)
  for (int k = 0; k < n; ++k) {
    const T s0 = a0[k] * q[k + si] + a1[k] * q[k + sj] + a2[k] * q[k + 1] +
                 b0[k] * (q[k + si + sj] - q[k + si - sj] - q[k - si + sj] + q[k - si - sj]) +
                 b1[k] * (q[k + sj + 1] - q[k - sj + 1] - q[k + sj - 1] + q[k - sj - 1]) +
                 b2[k] * (q[k + si + 1] - q[k - si + 1] - q[k + si - 1] + q[k - si - 1]) + c0[k] * q[k - si] +
                 c1[k] * q[k - sj] + c2[k] * q[k - 1] + wk[k];
    const T ss = (s0 * a3[k] - q[k]) * bn[k];
    g += ss * ss;
    out[k] = q[k] + omega * ss;
  }
  return double(g);
}

constexpr int kPiece = 128;
template <class T>
__attribute__((noinline)) double row_split(int n, T omega, const T* __restrict a0, const T* __restrict a1,
                                           const T* __restrict a2, const T* __restrict a3, const T* __restrict b0,
                                           const T* __restrict b1, const T* __restrict b2, const T* __restrict c0,
                                           const T* __restrict c1, const T* __restrict c2, const T* __restrict wk,
                                           const T* __restrict bn, const T* __restrict q, long si, long sj,
                                           T* __restrict out) {
  T g = 0;
  alignas(64) T buf[kPiece];
  for (int k0 = 0; k0 < n; k0 += kPiece) {
    const int m = std::min(kPiece, n - k0);
    const T* __restrict x = q + k0;
    {
      const T *A0 = a0 + k0, *A1 = a1 + k0, *A2 = a2 + k0, *B0 = b0 + k0, *B1 = b1 + k0;
#pragma omp simd
      for (int k = 0; k < m; ++k)
        buf[k] = A0[k] * x[k + si] + A1[k] * x[k + sj] + A2[k] * x[k + 1] +
                 B0[k] * (x[k + si + sj] - x[k + si - sj] - x[k - si + sj] + x[k - si - sj]) +
                 B1[k] * (x[k + sj + 1] - x[k - sj + 1] - x[k + sj - 1] + x[k - sj - 1]);
    }
    const T *B2 = b2 + k0, *C0 = c0 + k0, *C1 = c1 + k0, *C2 = c2 + k0, *W = wk + k0, *A3 = a3 + k0, *BN = bn + k0;
    T* O = out + k0;
#pragma omp simd reduction(+ : g)
    for (int k = 0; k < m; ++k) {
      const T s0 = buf[k] + B2[k] * (x[k + si + 1] - x[k - si + 1] - x[k + si - 1] + x[k - si - 1]) +
                   C0[k] * x[k - si] + C1[k] * x[k - sj] + C2[k] * x[k - 1] + W[k];
      const T ss = (s0 * A3[k] - x[k]) * BN[k];
      g += ss * ss;
      O[k] = x[k] + omega * ss;
    }
  }
  return double(g);
}

// One thread's grid: 14 arrays in one allocation, each 1088 bytes further
// modulo 16 KiB (the library's host placement), Himeno-like random fields.
template <class T>
struct Grid {
  int I, J, K;
  long si, sj, bytes;
  char* raw;
  T* arr[14];
  Grid(int i, int j, int k) : I(i), J(j), K(k), si(long(j) * k), sj(k) {
    const long n = long(I) * J * K;
    bytes = (n * long(sizeof(T)) + 16383) / 16384 * 16384 + 1088;
    raw = static_cast<char*>(std::aligned_alloc(4096, (14 * bytes + 4095) / 4096 * 4096));
    if (!raw) std::abort();
    for (int m = 0; m < 14; ++m) arr[m] = reinterpret_cast<T*>(raw + m * bytes);
    unsigned s = 12345u + unsigned(omp_get_thread_num());
    auto u = [&] { return (s = s * 1664525u + 1013904223u) / 4294967296.0; };
    for (long y = 0; y < n; ++y) {
      double sum = 0;
      for (int m : {0, 1, 2, 7, 8, 9}) sum += arr[m][y] = T(0.5 + u());
      for (int m : {4, 5, 6}) arr[m][y] = T(0.5 * u() - 0.25), sum += 1;
      arr[3][y] = T(1.0 / sum);
      arr[10][y] = T(0.2 * u() - 0.1);
      arr[11][y] = u() < 0.125 ? T(0) : T(1);
      arr[12][y] = arr[13][y] = T(u());
    }
  }
  ~Grid() { std::free(raw); }
  long points() const { return long(I - 2) * (J - 2) * (K - 2); }
};

template <class T, bool Split>
double sweep(Grid<T>& g, const T* p, T* w) {
  double s = 0;
  T* const* a = g.arr;
  for (int i = 1; i < g.I - 1; ++i)
    for (int j = 1; j < g.J - 1; ++j) {
      const long o = i * g.si + j * g.sj + 1;
      const auto f = Split ? row_split<T> : row<T>;
      s += f(g.K - 2, T(0.8), a[0] + o, a[1] + o, a[2] + o, a[3] + o, a[4] + o, a[5] + o, a[6] + o, a[7] + o,
             a[8] + o, a[9] + o, a[10] + o, a[11] + o, p + o, g.si, g.sj, w + o);
    }
  return s;
}

struct Level {
  const char* name;
  int I, J, K;
};

template <class T>
void measure(const Level& lv, int threads, int runs) {
  for (int split = 0; split < 2; ++split) {
    std::vector<double> ms;
    double gb = 0, sink = 0;
#pragma omp parallel num_threads(threads) reduction(+ : sink)
    {
      Grid<T> g(lv.I, lv.J, lv.K);
      const long pts = g.points();
      const int sweeps = int(std::max(2L, 20000000L / pts / 2 * 2));  // ~20 M points per run, even
#pragma omp single
      gb = 14.0 * sizeof(T) * double(pts) * sweeps * threads * 1e-9;
      for (int r = 0; r <= runs; ++r) {
#pragma omp barrier
        const auto t0 = std::chrono::steady_clock::now();
        for (int s = 0; s < sweeps; ++s)
          sink += split ? sweep<T, true>(g, g.arr[12 + s % 2], g.arr[13 - s % 2])
                        : sweep<T, false>(g, g.arr[12 + s % 2], g.arr[13 - s % 2]);
#pragma omp barrier
#pragma omp master
        if (r > 0)
          ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      }
    }
    std::sort(ms.begin(), ms.end());
    const double m = ms[ms.size() / 2];
    const double pts_per_core = gb * 1e9 / (14.0 * sizeof(T)) / threads / (m * 1e-3);
    std::printf("%-6s %-6s %2d threads %-5s %4dx%4dx%4d per thread: %8.1f GB/s eff, %7.1f Mpts/s per core%s\n",
                lv.name, sizeof(T) == 4 ? "float" : "double", threads, split ? "split" : "row", lv.I, lv.J, lv.K,
                gb / (m * 1e-3), pts_per_core * 1e-6, sink == 12345.0 ? " " : "");
  }
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
