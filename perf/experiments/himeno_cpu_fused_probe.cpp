// Probe: two Jacobi sweeps per pass over memory (temporal blocking) on a
// multicore CPU, standalone (no Kokkos), against the rows single sweep, at
// the benchmark's M and L grids in float and double. Candidates:
//   rows@t           one sweep per pass on t threads: OpenMP over (i, j)
//                    rows, a vector loop along k (the library's kokkos-rows);
//                    all and half the threads, to see whether DRAM or the
//                    cores bound it;
//   rows pf          the same, each 64-point piece after a prefetch (into L2)
//                    of the same piece of the thread's next row;
//   rows pairs       the same on two neighbouring rows per loop (they share
//                    10 of their 38 loads of p);
//   fused JxK        the library's kokkos-fused2 scheme: a thread owns tiles
//                    of J rows x K points (K: whole rows) x a chunk of planes,
//                    marches in i, per row: sweep 1 of row (i, j) into a
//                    window of planes, sweep 2 of row (i-1, j-1) from it;
//   fused JxK pf     the same, and during sweep 2 of a row the next sweep-1
//                    row's lines (12 coefficients, p's leading row) are
//                    prefetched into L2, so that a core keeps DRAM busy while
//                    it computes from cache;
//   fused JxK il     the same, sweep 1 of row (i, j) and sweep 2 of row
//                    (i-1, j-1) in alternating 64-point pieces (whole rows);
// and first the ceiling: the rows sweep (and rows pairs) on a grid in the
// cores' L2 (in_cache).
// fused_sweeps also takes k tiles (tk), measured and dropped: they restart
// the hardware prefetcher's streams at every row.
// The variants run interleaved, run by run, so the machine's noise hits all
// alike; median of the runs, GB/s = 14 words x interior points x sweeps /
// time. Each fused candidate is checked against two rows sweeps first.
// Results (16-core Xeon of the GPU machine): docs/perf/himeno.md,
// "CPU: what bounds the 16-core Xeon" (2026-11-23). Built with every flavour and
// -DTESSERA_BUILD_EXPERIMENTS=ON (perf/README.md):
// build/<flavour>/perf/experiments/himeno_cpu_fused_probe [runs] [in-cache] (in-cache:
// only the rows sweep on a grid in the cores' L2); by hand:
// g++ -O3 -fopenmp perf/experiments/himeno_cpu_fused_probe.cpp -o probe.
#include "himeno_cpu_probe_common.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace {

// ss of point k of a row from its p rows (m: i-1, z: i, p: i+1; a: j-1,
// b: j, c: j+1) and its coefficients at x (the listing's term order).
template <class T>
inline T stencil(int k, long x, const T* ma, const T* mb, const T* mc, const T* za, const T* zb, const T* zc,
                 const T* pa, const T* pb, const T* pc, const T* const* q12) {
  const T s0 = q12[0][x] * pb[k] + q12[1][x] * zc[k] + q12[2][x] * zb[k + 1] +
               q12[4][x] * (pc[k] - pa[k] - mc[k] + ma[k]) +
               q12[5][x] * (zc[k + 1] - za[k + 1] - zc[k - 1] + za[k - 1]) +
               q12[6][x] * (pb[k + 1] - mb[k + 1] - pb[k - 1] + mb[k - 1]) + q12[7][x] * mb[k] +
               q12[8][x] * za[k] + q12[9][x] * zb[k - 1] + q12[10][x];
  return (s0 * q12[3][x] - zb[k]) * q12[11][x];
}

// Rows (i, j) and (i, j+1) of the grid in one loop: the 19-point stencils of
// two neighbouring rows share 10 of their 38 loads of p. q, out: row j's
// point 0 in the grid's p and output; c: its index in the coefficients.
template <class T>
inline double grid_row_pair(const Grid<T>& G, long c, int n, T omega, const T* q, T* __restrict out) {
  const long si = G.si, sj = G.sj;
  const T *ma = q - si - sj, *mb = q - si, *mc = q - si + sj, *md = q - si + 2 * sj;  // plane i-1, rows j-1 .. j+2
  const T *za = q - sj, *zb = q, *zc = q + sj, *zd = q + 2 * sj;
  const T *pa = q + si - sj, *pb = q + si, *pc = q + si + sj, *pd = q + si + 2 * sj;
  const T* const q12[12] = {G.a[0] + c, G.a[1] + c, G.a[2] + c, G.a[3] + c, G.b[0] + c, G.b[1] + c,
                            G.b[2] + c, G.c[0] + c, G.c[1] + c, G.c[2] + c, G.wrk1 + c, G.bnd + c};
  T g = 0;
#pragma omp simd reduction(+ : g)
  for (int k = 0; k < n; ++k) {
    const T s1 = stencil(k, k, ma, mb, mc, za, zb, zc, pa, pb, pc, q12);
    const T s2 = stencil(k, k + sj, mb, mc, md, zb, zc, zd, pb, pc, pd, q12);
    g += s1 * s1 + s2 * s2;
    out[k] = zb[k] + omega * s1;
    out[k + sj] = zc[k] + omega * s2;
  }
  return double(g);
}

// Row (i, j) of the grid's coefficients, points k0 .. k0+n-1, p from q.
template <class T>
inline double grid_row(const Grid<T>& G, int i, int j, int k0, int n, T omega, const T* q, long si, long sj,
                       T* out) {
  const long c = i * G.si + j * G.sj + k0;
  return row<T>(n, omega, G.a[0] + c, G.a[1] + c, G.a[2] + c, G.a[3] + c, G.b[0] + c, G.b[1] + c, G.b[2] + c,
                G.c[0] + c, G.c[1] + c, G.c[2] + c, G.wrk1 + c, G.bnd + c, q, si, sj, out);
}

// The prefetch of the sweep-1 row (i, j), points [k0, k0 + n): its 12
// coefficient rows and p's leading row (i+1, j+1), into L2 (prefetcht1).
template <class T>
inline void prefetch_row(const Grid<T>& G, const T* p, int i, int j, int k0, int n) {
  constexpr int L = 64 / sizeof(T);
  const long c = i * G.si + j * G.sj;
  const T* rows[13] = {G.a[0] + c, G.a[1] + c, G.a[2] + c, G.a[3] + c, G.b[0] + c, G.b[1] + c, G.b[2] + c,
                       G.c[0] + c, G.c[1] + c, G.c[2] + c, G.wrk1 + c, G.bnd + c, p + c + G.si + G.sj};
  for (int k = k0 / L * L; k < k0 + n; k += L)
    for (const T* r : rows) __builtin_prefetch(r + k, 0, 2);
}

// Threads of the next parallel region (the thread-scaling rows).
int g_threads = 1;

template <class T>
double rows_sweep(Grid<T>& G, const T* p, T* w, T omega) {
  double gosa = 0;
#pragma omp parallel for collapse(2) schedule(static) num_threads(g_threads) reduction(+ : gosa)
  for (int i = 1; i < G.I - 1; ++i)
    for (int j = 1; j < G.J - 1; ++j) {
      const long c = i * G.si + j * G.sj + 1;
      gosa += grid_row(G, i, j, 1, G.K - 2, omega, p + c, G.si, G.sj, w + c);
    }
  return gosa;
}

// rows_sweep on pairs of rows (grid_row_pair; an odd last row alone).
template <class T>
double rows_sweep_pairs(Grid<T>& G, const T* p, T* w, T omega) {
  const int pairs = (G.J - 2 + 1) / 2;
  double gosa = 0;
#pragma omp parallel for collapse(2) schedule(static) num_threads(g_threads) reduction(+ : gosa)
  for (int i = 1; i < G.I - 1; ++i)
    for (int jp = 0; jp < pairs; ++jp) {
      const int j = 1 + 2 * jp;
      const long c = i * G.si + j * G.sj + 1;
      if (j + 1 < G.J - 1) gosa += grid_row_pair(G, c, G.K - 2, omega, p + c, w + c);
      else gosa += grid_row(G, i, j, 1, G.K - 2, omega, p + c, G.si, G.sj, w + c);
    }
  return gosa;
}

// rows_sweep, and in pieces of 64 points, each after the prefetch of the
// same piece of the next row (the thread's next row under the static schedule).
template <class T>
double rows_sweep_pf(Grid<T>& G, const T* p, T* w, T omega) {
  constexpr int kPiece = 64;
  double gosa = 0;
#pragma omp parallel for collapse(2) schedule(static) num_threads(g_threads) reduction(+ : gosa)
  for (int i = 1; i < G.I - 1; ++i)
    for (int j = 1; j < G.J - 1; ++j) {
      const long c = i * G.si + j * G.sj + 1;
      double g = 0;
      for (int k = 0; k < G.K - 2; k += kPiece) {
        const int n = std::min(kPiece, G.K - 2 - k);
        if (j + 1 < G.J - 1) prefetch_row(G, p, i, j + 1, 1 + k, n);
        g += grid_row(G, i, j, 1 + k, n, omega, p + c + k, G.si, G.sj, w + c + k);
      }
      gosa += g;
    }
  return gosa;
}

// Two sweeps fused: p -> wrk2 after two sweeps; g[0], g[1] the gosas. Tiles
// of tj rows x tk points (tk 0: whole rows); mode kPrefetch: during sweep 2
// of a row, the next sweep-1 row's lines (prefetch_row); kInterleave (whole
// rows): the two rows' sweeps in alternating pieces.
constexpr int kPlain = 0, kPrefetch = 1, kInterleave = 2;
template <class T>
void fused_sweeps(Grid<T>& G, const T* p, T* w, T omega, int tj, int tk, int mode, double g[2]) {
  const bool prefetch = mode == kPrefetch;
  const int ni = G.I - 2, nj = G.J - 2, nk = G.K - 2;
  if (tk <= 0 || tk > nk) tk = nk;
  const int ntj = (nj + tj - 1) / tj, ntk = (nk + tk - 1) / tk;
  // Chunks along i: at least 32 planes, enough tiles for 4 per thread.
  const int segs = std::max(1, std::min((ni + 31) / 32, (4 * g_threads + ntj * ntk - 1) / (ntj * ntk)));
  const int ti = (ni + segs - 1) / segs;
  const int nti = (ni + ti - 1) / ti;
  const long row_len = (tk + 2 + 15) / 16 * 16;  // window row: k0-1 .. k0+tk, 64-byte multiple
  const long slot = long(tj + 2) * row_len;
  constexpr int kWindow = 8;
  double g1 = 0, g2 = 0;
#pragma omp parallel num_threads(g_threads) reduction(+ : g1, g2)
  {
    std::vector<T> window(kWindow * slot + 64);
    T* const win = window.data();
#pragma omp for schedule(static)
    for (int tile = 0; tile < nti * ntj * ntk; ++tile) {
      const int k0 = 1 + (tile % ntk) * tk, j0 = 1 + (tile / ntk % ntj) * tj, i0 = 1 + (tile / (ntk * ntj)) * ti;
      const int mk = std::min(tk, G.K - 1 - k0), mj = std::min(tj, G.J - 1 - j0), i1 = std::min(G.I - 1, i0 + ti);
      // Window column x is k = k0 - 1 + x; sweep 1 computes [kb, ke) (tile and halo, interior only).
      const int kb = std::max(1, k0 - 1), ke = std::min(G.K - 1, k0 + mk + 1);
      int first = i0 - 1;  // the plane in slot 0
      for (int i = i0 - 1; i <= i1; ++i) {
        if (i - first == kWindow) {  // full: planes i-2, i-1 to slots 0, 1
          std::memcpy(win, win + (kWindow - 2) * slot, 2 * slot * sizeof(T));
          first = i - 2;
        }
        T* const cur = win + (i - first) * slot;
        const bool boundary_plane = i == 0 || i == G.I - 1;
        for (int r = 0; r < mj + 2; ++r) {
          const int j = j0 - 1 + r;
          T* const out = cur + r * row_len;
          const long c = i * G.si + j * G.sj + k0 - 1;  // window column 0
          const bool boundary_row = boundary_plane || j == 0 || j == G.J - 1;
          if (mode == kInterleave && mk == nk && !boundary_row && i > i0 && r >= 2) {
            // Sweep 1 of row (i, j) and sweep 2 of row (i-1, j-1) in alternating
            // 64-point pieces, sweep 2 one piece behind (it reads sweep 1's k+1).
            constexpr int kPiece = 64;
            const int ic = i - 1, jc = j - 1;
            const T* q = cur - slot + (r - 1) * row_len + 1;
            T* o = w + ic * G.si + jc * G.sj + k0;
            out[0] = p[c], out[mk + 1] = p[c + mk + 1];
            double s1 = 0, s2 = 0;
            for (int q0 = 0; q0 < mk + kPiece; q0 += kPiece) {
              if (q0 < mk)
                s1 += grid_row(G, i, j, k0 + q0, std::min(kPiece, mk - q0), omega, p + c + 1 + q0, G.si, G.sj,
                               out + 1 + q0);
              if (q0 >= kPiece) {
                const int b = q0 - kPiece;
                s2 += grid_row(G, ic, jc, k0 + b, std::min(kPiece, mk - b), omega, q + b, slot, row_len, o + b);
              }
            }
            if (i >= i0 && i < i1 && r >= 1 && r <= mj) g1 += s1;
            g2 += s2;
            continue;
          }
          if (boundary_row) {
            std::memcpy(out, p + c, (mk + 2) * sizeof(T));
          } else {
            out[0] = p[c], out[mk + 1] = p[c + mk + 1];
            // The tile's points, then its halo columns (gosa: the tile's only).
            const double s = grid_row(G, i, j, k0, mk, omega, p + c + 1, G.si, G.sj, out + 1);
            if (kb < k0) grid_row(G, i, j, kb, 1, omega, p + c, G.si, G.sj, out);
            if (ke > k0 + mk) grid_row(G, i, j, k0 + mk, 1, omega, p + c + mk + 1, G.si, G.sj, out + mk + 1);
            if (i >= i0 && i < i1 && r >= 1 && r <= mj) g1 += s;
          }
          if (i > i0 && r >= 2) {  // sweep 2 of row (i-1, j-1), from the window
            const int ic = i - 1, jc = j - 1;
            const T* q = cur - slot + (r - 1) * row_len + 1;
            T* o = w + ic * G.si + jc * G.sj + k0;
            const bool next = prefetch && r + 1 < mj + 2 && j + 1 < G.J - 1 && !boundary_plane;
            if (!next) {
              g2 += grid_row(G, ic, jc, k0, mk, omega, q, slot, row_len, o);
            } else {  // in pieces of 64 points, each after the prefetch of the next row's piece
              constexpr int kPiece = 64;
              const int n1 = ke - kb;
              const int pieces = (mk + kPiece - 1) / kPiece, per = (n1 + pieces - 1) / pieces;
              double sum = 0;
              for (int q0 = 0, e = 0; q0 < mk; q0 += kPiece, ++e) {
                prefetch_row(G, p, i, j + 1, kb + e * per, std::min(per, n1 - e * per));
                sum += grid_row(G, ic, jc, k0 + q0, std::min(kPiece, mk - q0), omega, q + q0, slot, row_len, o + q0);
              }
              g2 += sum;
            }
          }
        }
      }
    }
  }
  g[0] = g1, g[1] = g2;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class T>
void bench(const char* size, int I, int J, int K, int runs) {
  Grid<T> G(I, J, K);
  const T omega = T(0.8);
  const int sweeps = 10;
  const double gb = 14.0 * sizeof(T) * double(I - 2) * (J - 2) * (K - 2) * sweeps * 1e-9;
  // Check: fused against two rows sweeps, from the same p.
  std::vector<T> p0(G.p, G.p + long(I) * J * K);
  g_threads = omp_get_max_threads();
  const double gr1 = rows_sweep(G, G.p, G.wrk2, omega);
  std::vector<T> w1(G.wrk2, G.wrk2 + p0.size());
  const double gr = rows_sweep(G, w1.data(), G.wrk2, omega);
  std::vector<T> ref(G.wrk2, G.wrk2 + p0.size());
  {  // rows on pairs of rows: the same two sweeps
    std::copy(p0.begin(), p0.end(), G.p);
    std::copy(p0.begin(), p0.end(), G.wrk2);
    rows_sweep_pairs(G, G.p, G.wrk2, omega);
    std::vector<T> w1p(G.wrk2, G.wrk2 + p0.size());
    const double gp = rows_sweep_pairs(G, w1p.data(), G.wrk2, omega);
    double err = 0;
    for (long x = 0; x < long(p0.size()); ++x) err = std::max(err, double(std::fabs(G.wrk2[x] - ref[x])));
    if (!(err <= 8 * std::numeric_limits<T>::epsilon()) || !(std::fabs(gp - gr) <= 1e-4 * gr)) {
      std::printf("%s: rows pairs differ from rows: max |diff| %.3e, gosa %.9e vs %.9e\n", size, err, gp, gr);
      std::exit(1);
    }
    std::copy(p0.begin(), p0.end(), G.p);
  }
  struct Variant {
    std::string name;
    std::function<void()> run;  // `sweeps` sweeps from p
    std::vector<double> ms;
  };
  std::vector<Variant> v;
  const int all = omp_get_max_threads();
  struct Rows {
    int threads;
    bool pf, pairs;
  };
  // (Transparent huge pages, measured once and dropped: docs/perf/himeno.md.)
  for (const Rows& r : {Rows{all, false, false}, Rows{all / 2, false, false}, Rows{all, true, false},
                        Rows{all, false, true}}) {
    if (r.threads < 1) continue;
    v.push_back({std::string("rows") + (r.pf ? " pf" : "") + (r.pairs ? " pairs" : "") + "@" +
                     std::to_string(r.threads),
                 [&, r] {
                   g_threads = r.threads;
                   for (int s = 0; s < sweeps; ++s) {
                     const T* in = s % 2 ? G.wrk2 : G.p;
                     T* out = s % 2 ? G.p : G.wrk2;
                     if (r.pf) rows_sweep_pf(G, in, out, omega);
                     else if (r.pairs) rows_sweep_pairs(G, in, out, omega);
                     else rows_sweep(G, in, out, omega);
                   }
                 },
                 {}});
  }
  struct Shape {
    int tj, tk, mode;
  };
  for (const Shape& sh : {Shape{16, 0, kPlain}, Shape{32, 0, kPlain}, Shape{16, 0, kInterleave},
                          Shape{32, 0, kInterleave}, Shape{16, 0, kPrefetch}}) {
    v.push_back({"fused " + std::to_string(sh.tj) + "x" + (sh.tk ? std::to_string(sh.tk) : std::string("K")) +
                     (sh.mode == kPrefetch ? " pf" : sh.mode == kInterleave ? " il" : "") + "@" +
                     std::to_string(all),
                 [&, sh] {
                   g_threads = all;
                   double g[2];
                   for (int s = 0; s < sweeps; s += 2) {
                     fused_sweeps(G, G.p, G.wrk2, omega, sh.tj, sh.tk, sh.mode, g);
                     std::swap(G.p, G.wrk2);
                   }
                 },
                 {}});
    g_threads = all;
    double g[2];
    std::copy(p0.begin(), p0.end(), G.p);
    std::copy(p0.begin(), p0.end(), G.wrk2);
    fused_sweeps(G, G.p, G.wrk2, omega, sh.tj, sh.tk, sh.mode, g);
    double err = 0;
    for (long x = 0; x < long(p0.size()); ++x) err = std::max(err, double(std::fabs(G.wrk2[x] - ref[x])));
    // The same expression per point; the gosa's row sums split differently (float lanes).
    const double tol = 8 * std::numeric_limits<T>::epsilon(), gtol = sizeof(T) == 4 ? 1e-4 : 1e-9;
    if (!(err <= tol) || !(std::fabs(g[0] - gr1) <= gtol * gr1) || !(std::fabs(g[1] - gr) <= gtol * gr)) {
      std::printf("%s: %s differs from two rows sweeps: max |diff| %.3e, gosa %.9e %.9e vs %.9e %.9e\n", size,
                  v.back().name.c_str(), err, g[0], g[1], gr1, gr);
      std::exit(1);
    }
  }
  for (int r = 0; r < runs + 1; ++r)
    for (auto& x : v) {
      const auto t0 = std::chrono::steady_clock::now();
      x.run();
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      if (r > 0) x.ms.push_back(ms);  // run 0: warm-up
    }
  const double rows_ms = median(v[0].ms);
  std::printf("%s %s %dx%dx%d, %d sweeps, @threads, median of %d:\n", size, sizeof(T) == 4 ? "float" : "double", I,
              J, K, sweeps, runs);
  for (auto& x : v) {
    const double ms = median(x.ms);
    std::printf("  %-22s %9.2f ms %7.1f GB/s  %.2fx rows   (min %.2f max %.2f ms)\n", x.name.c_str(), ms,
                gb / (ms * 1e-3), rows_ms / ms, *std::min_element(x.ms.begin(), x.ms.end()),
                *std::max_element(x.ms.begin(), x.ms.end()));
  }
}

// The rows sweep's rate when its data is in each core's L2: a grid of
// 16 x (threads) planes of 8 x 126 interior points (1.2 MiB per thread in
// double), the threads' planes contiguous under the static schedule.
template <class T>
void in_cache(int runs) {
  const int threads = omp_get_max_threads();
  Grid<T> G(2 + 8 * threads, 10, 128);
  g_threads = threads;
  const T omega = T(0.8);
  const int sweeps = 200;
  const double gb = 14.0 * sizeof(T) * double(G.I - 2) * (G.J - 2) * (G.K - 2) * sweeps * 1e-9;
  for (bool pairs : {false, true}) {
    std::vector<double> ms;
    for (int r = 0; r < runs + 1; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      for (int s = 0; s < sweeps; ++s) {
        if (pairs) rows_sweep_pairs(G, s % 2 ? G.wrk2 : G.p, s % 2 ? G.p : G.wrk2, omega);
        else rows_sweep(G, s % 2 ? G.wrk2 : G.p, s % 2 ? G.p : G.wrk2, omega);
      }
      if (r > 0)
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    const double m = median(ms);
    std::printf("in cache %s %dx%dx%d, %d sweeps, %d threads: rows%s %.2f ms %.1f GB/s\n",
                sizeof(T) == 4 ? "float" : "double", G.I, G.J, G.K, sweeps, threads, pairs ? " pairs" : "", m,
                gb / (m * 1e-3));
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 7;
  const bool only_cache = argc > 2 && std::strcmp(argv[2], "in-cache") == 0;
  if (runs < 1 || argc > 3 || (argc > 2 && !only_cache)) {
    std::fprintf(stderr, "usage: %s [runs >= 1] [in-cache]\n", argv[0]);
    return 2;
  }
  in_cache<float>(runs);
  in_cache<double>(runs);
  if (only_cache) return 0;
  bench<float>("M", 128, 128, 256, runs);
  bench<double>("M", 128, 128, 256, runs);
  bench<float>("L", 256, 256, 512, runs);
  bench<double>("L", 256, 256, 512, runs);
  return 0;
}
