#pragma once
// What the standalone CPU probes share (no Kokkos): a grid of the 14 arrays
// placed as the library's HostSpace state places them, and the library's row
// loop on raw pointers. Included by himeno_cpu_fused_probe.cpp and
// himeno_cpu_levels_probe.cpp.
#include <omp.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace {

template <class T>
struct Grid {
  int I, J, K;
  long si, sj;
  char* raw = nullptr;
  T *a[4], *b[3], *c[3], *wrk1, *bnd, *p, *wrk2;
  Grid(int i, int j, int k) : I(i), J(j), K(k), si(long(j) * k), sj(k) {
    const long n = long(I) * J * K;
    // One allocation, each array 1088 bytes further modulo 16 KiB (the library's HostSpace placement).
    const long bytes = (n * long(sizeof(T)) + 16383) / 16384 * 16384 + 1088;
    const long total = (14 * bytes + 16384 + 4095) / 4096 * 4096;  // aligned_alloc: a multiple of the alignment
    raw = static_cast<char*>(std::aligned_alloc(4096, total));
    if (!raw) {
      std::fprintf(stderr, "out of memory\n");
      std::exit(1);
    }
    T* arr[14];
    for (int m = 0; m < 14; ++m) arr[m] = reinterpret_cast<T*>(raw + m * bytes);
    for (int m = 0; m < 4; ++m) a[m] = arr[m];
    for (int m = 0; m < 3; ++m) b[m] = arr[4 + m], c[m] = arr[7 + m];
    wrk1 = arr[10], bnd = arr[11], p = arr[12], wrk2 = arr[13];
    // Random-ish fields, first touched by the threads that sweep them.
#pragma omp parallel for schedule(static)
    for (int x = 0; x < I; ++x)
      for (long y = long(x) * si; y < long(x + 1) * si; ++y) {
        unsigned s = unsigned(y) * 2654435761u + 12345u;
        auto u = [&] { return (s = s * 1664525u + 1013904223u) / 4294967296.0; };
        double sum = 0;
        for (int m = 0; m < 3; ++m) sum += a[m][y] = T(0.5 + u());
        for (int m = 0; m < 3; ++m) sum += c[m][y] = T(0.5 + u());
        for (int m = 0; m < 3; ++m) sum += 4 * std::fabs(b[m][y] = T(0.5 * u() - 0.25));
        a[3][y] = T(1.0 / sum);
        wrk1[y] = T(0.2 * u() - 0.1);
        bnd[y] = u() < 0.125 ? T(0) : T(1);
        p[y] = wrk2[y] = T(u());
      }
  }
  ~Grid() { std::free(raw); }
  Grid(const Grid&) = delete;
  Grid& operator=(const Grid&) = delete;
};

// One row of one sweep: points [0, n) from pointers at point 0; p's
// neighbours at +-si, +-sj of q (the window's strides for sweep 2); returns
// the row's sum of ss^2 in double.
template <class T>
inline double row(int n, T omega, const T* __restrict a0, const T* __restrict a1, const T* __restrict a2,
                  const T* __restrict a3, const T* __restrict b0, const T* __restrict b1, const T* __restrict b2,
                  const T* __restrict c0, const T* __restrict c1, const T* __restrict c2, const T* __restrict wk,
                  const T* __restrict bn, const T* __restrict q, long si, long sj, T* __restrict out) {
  T g = 0;  // the row's partial sum in T (vector lanes), added in double
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

}  // namespace
