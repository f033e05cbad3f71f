#pragma once
// Portable tall-skinny GEMM kernels (Ernst, Hager, Thies, Wellein): one Kokkos
// source for every backend. Sizes M, N are run-time values (1..64); only the
// register tile TM x TN is fixed, so each (scalar, layout) combination is one
// instantiation, not one per shape.
//
// TSMTTSM  C = alpha op(A)^T B + beta C  (A K x M, B K x N, C M x N):
//   the K loop is a grid-stride loop over blocks of rows, the league sized to
//   the machine's concurrency; each thread keeps a TM x TN tile of C in
//   registers with the paper's transposed (interleaved) mapping, so threads
//   next to each other read neighbouring columns; rows are processed two at
//   a time (two rows' loads in flight before the first FMA). On GPUs, for
//   rows of unit column stride and sides above 8, the team stages blocks of
//   rows in team scratch instead (TsmttsmStaged). On CPUs (teams
//   of one thread) the partial C lives in scratch and takes rank-2 updates
//   whose n loop vectorises. Thread partials
//   are summed in team scratch, then each team adds its partial to C with
//   one atomic per element. beta is applied first by a separate kernel, so
//   beta = 0 never reads C.
// TSMM  B = alpha A C + beta B  (A K x M, C M x N, B K x N):
//   alpha C is staged in team scratch; a group of threads per row computes
//   interleaved outputs of that row, two rows at a time. On GPUs row pairs
//   are interleaved over the league; on CPUs each team owns a contiguous
//   range (interleaved pairs of short rows put several threads' stores in
//   one cache line).
#include "tessera/core/cpu_features.hpp"
#include "tessera/core/exec_space.hpp"

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#if TESSERA_HOST_X86
#include <immintrin.h>  // the AVX2 + FMA host tiles below, chosen at run time
#endif
#include <type_traits>
#include <utility>

// The host kernels' `#pragma GCC unroll` (which keeps their accumulators in
// registers) is for the host compiler; nvcc's front end does not know it.
#if defined(__NVCC__)
#pragma nv_diag_suppress 1675
#endif

namespace tessera::tsm::impl {

using Index = std::int64_t;

inline constexpr int kTileM = 4;  // register tile of TSMTTSM: 16 accumulators
inline constexpr int kTileN = 4;
inline constexpr int kTsmmOut = 4;  // outputs per thread and row chunk in TSMM

template <bool Conj>
KOKKOS_INLINE_FUNCTION double conj_if(double x) {
  return x;
}
template <bool Conj>
KOKKOS_INLINE_FUNCTION Kokkos::complex<double> conj_if(const Kokkos::complex<double>& x) {
  if constexpr (Conj)
    return Kokkos::complex<double>(x.real(), -x.imag());
  else
    return x;
}

// Atomic x += v; a complex value as two independent double atomics (the sum
// is componentwise, and double atomics are native on every backend).
KOKKOS_INLINE_FUNCTION void atomic_accumulate(double* x, double v) { Kokkos::atomic_add(x, v); }
KOKKOS_INLINE_FUNCTION void atomic_accumulate(Kokkos::complex<double>* x, const Kokkos::complex<double>& v) {
  double* p = reinterpret_cast<double*>(x);
  Kokkos::atomic_add(p, v.real());
  Kokkos::atomic_add(p + 1, v.imag());
}

template <class T>
KOKKOS_INLINE_FUNCTION bool is_zero(const T& x) {
  return x == T(0);
}

// B(k, n) = v + beta B(k, n) (beta = 0: B(k, n) = v, B never read).
template <class View, class T>
KOKKOS_INLINE_FUNCTION void store_scaled(const View& B, Index k, int n, const T& v, const T& beta) {
  if (is_zero(beta))
    B(k, n) = v;
  else
    B(k, n) = v + beta * B(k, n);
}

// Two doubles loaded or stored by one 16-byte instruction.
template <class T>
struct alignas(2 * sizeof(T)) Pair {
  T x, y;
};

// The flat staged kernels' loads of block b (rows of A x M values, rows
// rows a block): thread r loads elements e = r, r + team, ... of the block,
// coalesced; row er[j] = e / M (the same in every block), column e - er[j]
// M. Nothing past K or past the last block.
template <int Team, int P, class F, class T>
KOKKOS_INLINE_FUNCTION void fetch_flat_block(const F& f, int r, const int (&er)[P], Index b, T (&v)[P]) {
  const Index k0 = b * f.rows;
  const Index left = b < f.blocks ? f.K - k0 : Index(0);
  const int lim = left < Index(f.rows) ? int(left) : f.rows;
  for (int j = 0; j < P; ++j)
    v[j] = j < f.loads && er[j] < lim ? f.A(k0 + er[j], r + j * Team - er[j] * f.M) : T(0);
}

// X = beta X (beta = 0: X = 0, X never read). Any rank-2 View.
template <class View>
struct ScaleMatrix {
  using T = typename View::non_const_value_type;
  View x;
  T beta;
  Index cols;
  KOKKOS_INLINE_FUNCTION void operator()(Index e) const {
    const Index i = e / cols, j = e % cols;
    if (is_zero(beta))
      x(i, j) = T(0);
    else
      x(i, j) = beta * x(i, j);
  }
};

template <class ExecSpace, class View>
void scale_matrix(const ExecSpace& exec, const View& x, typename View::non_const_value_type beta) {
  const Index rows = Index(x.extent(0)), cols = Index(x.extent(1));
  if (rows * cols == 0) return;
  if (beta == typename View::non_const_value_type(1)) return;
  Kokkos::parallel_for("tessera::tsm::scale",
                       Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<Index>>(exec, 0, rows * cols),
                       ScaleMatrix<View>{x, beta, cols});
}

#if !defined(__CUDA_ARCH__)
// Two doubles in SIMD lanes (GCC vector types), for the host paths below;
// tsm_upair for unaligned loads and stores of doubles.
typedef double tsm_pair __attribute__((vector_size(16)));
typedef double tsm_upair __attribute__((vector_size(16), aligned(8), may_alias));

// (x, y) as a pair (a braced pair of two values is not taken by every
// front end that compiles this header).
inline tsm_pair tsm_make_pair(double x, double y) {
  const double v[2] = {x, y};
  tsm_pair r;
  std::memcpy(&r, v, sizeof r);
  return r;
}

// Host TSMTTSM tile: c[m][n] (row stride ldc) += sum over `rows` rows of
// a[m] b[n], m, n < 4, rows of a and b `a_row` / `b_row` apart, columns
// contiguous. The 4 x 4 accumulators are GCC vector types in a function of
// its own: inside the OpenMP-outlined lambda g++ keeps such loops scalar.
[[gnu::noinline]] inline void tsmttsm_host_tile4(const double* a, std::ptrdiff_t a_row, const double* b,
                                                 std::ptrdiff_t b_row, std::int64_t rows, double* c, int ldc) {
  tsm_pair acc[4][2];
  for (int m = 0; m < 4; ++m) acc[m][0] = acc[m][1] = tsm_pair{0, 0};
  for (std::int64_t k = 0; k < rows; ++k) {
    const double* ak = a + k * a_row;
    tsm_pair b0, b1;
    std::memcpy(&b0, b + k * b_row, sizeof(tsm_pair));
    std::memcpy(&b1, b + k * b_row + 2, sizeof(tsm_pair));
    for (int m = 0; m < 4; ++m) {
      acc[m][0] += ak[m] * b0;
      acc[m][1] += ak[m] * b1;
    }
  }
  for (int m = 0; m < 4; ++m) {
    double v[4];
    std::memcpy(v, acc[m], sizeof(v));
    for (int n = 0; n < 4; ++n) c[m * ldc + n] += v[n];
  }
}

// Rows of two tall matrices to prefetch into L1 while a tile computes: rows
// 0 .. rows-1 from a and b, `a_row` / `b_row` elements apart, `a_cols` /
// `b_cols` doubles each.
struct HostRowPrefetch {
  const double *a = nullptr, *b = nullptr;
  std::ptrdiff_t a_row = 0, b_row = 0;
  std::int64_t rows = 0;
  int a_cols = 0, b_cols = 0;
};

inline void host_prefetch_row(const double* p, int cols) {
  const char* first = reinterpret_cast<const char*>(p);
  const char* last = first + sizeof(double) * std::size_t(cols) - 1;
  for (const char* q = first; q < last; q += 64) __builtin_prefetch(q, 0, 3);
  __builtin_prefetch(last, 0, 3);
}

#if TESSERA_HOST_X86
// tsmttsm_host_tile4 with AVX2 + FMA: a 4 x 4Q tile, row k of b in Q 4-wide
// registers, a[m] broadcast, one FMA per 4 products (SSE2 without FMA: a
// multiply and an add per 2). Eight or more independent accumulator chains
// (two rows a step when Q = 1) cover the FMA latency on two ports. The
// accumulators are one flat array indexed by unrolled constants: passed to a
// row helper by reference, g++ 12 also stored every FMA's result to the stack.
// `next`: rows of the next block to prefetch, one per row computed.
template <int Q>
[[gnu::noinline, gnu::target("avx2,fma")]] inline void tsmttsm_host_tile4_avx2(const double* a, std::ptrdiff_t a_row,
                                                                               const double* b, std::ptrdiff_t b_row,
                                                                               std::int64_t rows, double* c, int ldc,
                                                                               const HostRowPrefetch& next) {
  constexpr int U = Q == 1 ? 2 : 1;
  __m256d acc[U * 4 * Q];
#pragma GCC unroll 16
  for (int i = 0; i < U * 4 * Q; ++i) acc[i] = _mm256_setzero_pd();
  // Local copies: with the prefetch's operands read through `next` in the
  // loop, g++ 12 dropped the prefetches altogether.
  const double *pa = next.a, *pb = next.b;
  const std::ptrdiff_t pa_row = next.a_row, pb_row = next.b_row;
  const std::int64_t pn = next.rows;
  const int pa_cols = next.a_cols, pb_cols = next.b_cols;
  for (std::int64_t k = 0; k < rows; k += U) {
    const int rows_now = rows - k < U ? 1 : U;  // the last row alone
#pragma GCC unroll 2
    for (int u = 0; u < U; ++u) {
      if (u >= rows_now) break;
      if (k + u < pn) {
        host_prefetch_row(pa + (k + u) * pa_row, pa_cols);
        host_prefetch_row(pb + (k + u) * pb_row, pb_cols);
      }
      const double* ak = a + (k + u) * a_row;
      const double* bk = b + (k + u) * b_row;
      __m256d bq[Q];
#pragma GCC unroll 4
      for (int q = 0; q < Q; ++q) bq[q] = _mm256_loadu_pd(bk + 4 * q);
#pragma GCC unroll 4
      for (int m = 0; m < 4; ++m) {
        const __m256d am = _mm256_broadcast_sd(ak + m);
#pragma GCC unroll 4
        for (int q = 0; q < Q; ++q) acc[(u * 4 + m) * Q + q] = _mm256_fmadd_pd(am, bq[q], acc[(u * 4 + m) * Q + q]);
      }
    }
  }
#pragma GCC unroll 4
  for (int m = 0; m < 4; ++m)
#pragma GCC unroll 4
    for (int q = 0; q < Q; ++q) {
      __m256d v = acc[m * Q + q];
      if constexpr (U == 2) v = _mm256_add_pd(v, acc[(4 + m) * Q + q]);
      double* cm = c + m * ldc + 4 * q;
      _mm256_storeu_pd(cm, _mm256_add_pd(_mm256_loadu_pd(cm), v));
    }
}

// Complex TSMTTSM tile in AVX2 + FMA: c[m][n] += op(a[m]) b[n], m < 2, n < 4,
// complex numbers as (re, im) pairs of doubles, a vector two of them. The
// real and imaginary parts of a[m] are broadcast and multiply b apart (two
// accumulators per vector: ar b and ai b, 8 chains in all); the two are
// combined once at the end: (ar br - ai bi, ar bi + ai br), or with the
// conjugate of a (ar br + ai bi, ar bi - ai br). Row strides in doubles.
template <bool Conj>
[[gnu::noinline, gnu::target("avx2,fma")]] inline void tsmttsm_host_ztile_avx2(const double* a, std::ptrdiff_t a_row,
                                                                               const double* b, std::ptrdiff_t b_row,
                                                                               std::int64_t rows, double* c, int ldc,
                                                                               const HostRowPrefetch& next) {
  __m256d acc[8];  // [m][part][q]: m * 4 + part * 2 + q
#pragma GCC unroll 8
  for (int i = 0; i < 8; ++i) acc[i] = _mm256_setzero_pd();
  const double *pa = next.a, *pb = next.b;
  const std::ptrdiff_t pa_row = next.a_row, pb_row = next.b_row;
  const std::int64_t pn = next.rows;
  const int pa_cols = next.a_cols, pb_cols = next.b_cols;
  for (std::int64_t k = 0; k < rows; ++k) {
    if (k < pn) {
      host_prefetch_row(pa + k * pa_row, pa_cols);
      host_prefetch_row(pb + k * pb_row, pb_cols);
    }
    const double* ak = a + k * a_row;
    const double* bk = b + k * b_row;
    const __m256d b0 = _mm256_loadu_pd(bk), b1 = _mm256_loadu_pd(bk + 4);
#pragma GCC unroll 2
    for (int m = 0; m < 2; ++m) {
      const __m256d re = _mm256_broadcast_sd(ak + 2 * m), im = _mm256_broadcast_sd(ak + 2 * m + 1);
      acc[m * 4 + 0] = _mm256_fmadd_pd(re, b0, acc[m * 4 + 0]);
      acc[m * 4 + 1] = _mm256_fmadd_pd(re, b1, acc[m * 4 + 1]);
      acc[m * 4 + 2] = _mm256_fmadd_pd(im, b0, acc[m * 4 + 2]);
      acc[m * 4 + 3] = _mm256_fmadd_pd(im, b1, acc[m * 4 + 3]);
    }
  }
#pragma GCC unroll 2
  for (int m = 0; m < 2; ++m)
#pragma GCC unroll 2
    for (int q = 0; q < 2; ++q) {
      // (ai bi, ai br) beside (ar br, ar bi): addsub gives (ar br - ai bi,
      // ar bi + ai br); with the conjugate, the negated swap.
      const __m256d swapped = _mm256_permute_pd(acc[m * 4 + 2 + q], 0x5);
      const __m256d v = Conj ? _mm256_addsub_pd(acc[m * 4 + q], _mm256_sub_pd(_mm256_setzero_pd(), swapped))
                             : _mm256_addsub_pd(acc[m * 4 + q], swapped);
      double* cm = c + 2 * (m * ldc + 2 * q);
      _mm256_storeu_pd(cm, _mm256_add_pd(_mm256_loadu_pd(cm), v));
    }
}
#endif

// Outputs n .. n + 2P - 1 of rows b0 and b1 (below): 2P accumulators with
// constant indices, so they stay in registers; P = 4 gives 8 independent add
// chains, enough to hide the add latency at large M.
template <int P>
inline void tsmm_host_chunk(const double* a0, const double* a1, const double* c, int M, int N, int n, double* b0,
                            double* b1, double beta) {
  const auto ld = [](const double* p) { return *reinterpret_cast<const tsm_upair*>(p); };
  tsm_pair x[P], y[P];
  for (int i = 0; i < P; ++i) x[i] = y[i] = tsm_pair{0, 0};
  for (int m = 0; m < M; ++m) {
    const double u = a0[m], v = a1[m];
    for (int i = 0; i < P; ++i) {
      const tsm_pair ci = ld(c + m * N + n + 2 * i);
      x[i] += u * ci;
      y[i] += v * ci;
    }
  }
  for (int i = 0; i < P; ++i) {
    if (beta != 0.0) {  // beta = 0 never reads b
      x[i] += beta * ld(b0 + n + 2 * i);
      y[i] += beta * ld(b1 + n + 2 * i);
    }
    *reinterpret_cast<tsm_upair*>(b0 + n + 2 * i) = x[i];
    *reinterpret_cast<tsm_upair*>(b1 + n + 2 * i) = y[i];
  }
}

// One output of host TSMM: row ak of a times column n of c (M x N, row-major)
// into *o (beta = 0 never reads it); the rows' tails.
inline void tsmm_host_one(const double* ak, const double* c, int M, int N, int n, double* o, double beta) {
  double x = 0;
  for (int m = 0; m < M; ++m) x += ak[m] * c[m * N + n];
  *o = beta != 0.0 ? x + beta * *o : x;
}

// The row-pair loop of the host TSMM kernels: chunks of 4, 2 and 1 units of
// Chunk::kWidth outputs, then the last outputs one at a time; an odd last
// row an output at a time. Its callers flatten it in, so Chunk's vector code
// is compiled for the caller's target.
template <class Chunk>
inline void tsmm_host_rows_loop(const double* a, std::ptrdiff_t a_row, const double* c, int M, int N, double* b,
                                std::ptrdiff_t b_row, std::int64_t rows, double beta) {
  constexpr int W = Chunk::kWidth;
  std::int64_t k = 0;
  for (; k + 2 <= rows; k += 2) {
    const double* a0 = a + k * a_row;
    double* b0 = b + k * b_row;
    int n = 0;
    for (; n + 4 * W <= N; n += 4 * W) Chunk::template run<4>(a0, a0 + a_row, c, M, N, n, b0, b0 + b_row, beta);
    if (n + 2 * W <= N) {
      Chunk::template run<2>(a0, a0 + a_row, c, M, N, n, b0, b0 + b_row, beta);
      n += 2 * W;
    }
    if (n + W <= N) {
      Chunk::template run<1>(a0, a0 + a_row, c, M, N, n, b0, b0 + b_row, beta);
      n += W;
    }
    for (; n < N; ++n) {
      tsmm_host_one(a0, c, M, N, n, b0 + n, beta);
      tsmm_host_one(a0 + a_row, c, M, N, n, b0 + b_row + n, beta);
    }
  }
  for (; k < rows; ++k)
    for (int n = 0; n < N; ++n) tsmm_host_one(a + k * a_row, c, M, N, n, b + k * b_row + n, beta);
}

// Chunks of GCC vector pairs: units of 2 outputs (8, 4, 2 a chunk).
struct TsmmPairChunk {
  static constexpr int kWidth = 2;
  template <int P, class... Args>
  static void run(Args... args) {
    tsmm_host_chunk<P>(args...);
  }
};

// Host TSMM rows 0 .. rows-1: b[k][n] = sum_m a[k][m] c[m][n] (+ beta b[k][n]),
// c the M x N matrix alpha C (row-major), rows of a and b `a_row` / `b_row`
// apart, columns contiguous. Two rows at a time, outputs in chunks of 8, 4, 2
// in GCC vector pairs, then one: left to the auto-vectoriser inside the
// OpenMP-outlined functor, g++ mixed scalar and vector code and stored
// element by element (33% of copy at M = N = 4).
[[gnu::noinline, gnu::flatten]] inline void tsmm_host_rows(const double* a, std::ptrdiff_t a_row, const double* c,
                                                           int M, int N, double* b, std::ptrdiff_t b_row,
                                                           std::int64_t rows, double beta) {
  tsmm_host_rows_loop<TsmmPairChunk>(a, a_row, c, M, N, b, b_row, rows, beta);
}

#if TESSERA_HOST_X86
// tsmm_host_chunk with AVX2 + FMA: outputs n .. n + 4Q - 1 of rows b0 and b1,
// 2Q accumulators (Q = 4: 8 FMA chains on two ports).
template <int Q>
[[gnu::always_inline, gnu::target("avx2,fma")]] inline void tsmm_host_chunk_avx2(const double* a0, const double* a1,
                                                                                 const double* c, int M, int N, int n,
                                                                                 double* b0, double* b1, double beta) {
  __m256d x[Q], y[Q];
  for (int q = 0; q < Q; ++q) x[q] = y[q] = _mm256_setzero_pd();
  for (int m = 0; m < M; ++m) {
    const __m256d u = _mm256_broadcast_sd(a0 + m), v = _mm256_broadcast_sd(a1 + m);
    for (int q = 0; q < Q; ++q) {
      const __m256d cq = _mm256_loadu_pd(c + m * N + n + 4 * q);
      x[q] = _mm256_fmadd_pd(u, cq, x[q]);
      y[q] = _mm256_fmadd_pd(v, cq, y[q]);
    }
  }
  for (int q = 0; q < Q; ++q) {
    if (beta != 0.0) {  // beta = 0 never reads b
      const __m256d bb = _mm256_set1_pd(beta);
      x[q] = _mm256_fmadd_pd(bb, _mm256_loadu_pd(b0 + n + 4 * q), x[q]);
      y[q] = _mm256_fmadd_pd(bb, _mm256_loadu_pd(b1 + n + 4 * q), y[q]);
    }
    _mm256_storeu_pd(b0 + n + 4 * q, x[q]);
    _mm256_storeu_pd(b1 + n + 4 * q, y[q]);
  }
}

// tsmm_host_rows in AVX2 + FMA (N >= 4): units of 4 outputs (chunks of 16,
// 8, 4), the last N mod 4 one at a time. At M = N = 16 the pairs of
// tsmm_host_rows issue four times the instructions (a multiply and an add
// per two products) and left the 16-core Xeon at 44-47% of its copy roof.
struct TsmmAvx2Chunk {
  static constexpr int kWidth = 4;
  template <int Q, class... Args>
  [[gnu::target("avx2,fma")]] static void run(Args... args) {
    tsmm_host_chunk_avx2<Q>(args...);
  }
};

[[gnu::noinline, gnu::target("avx2,fma"), gnu::flatten]] inline void tsmm_host_rows_avx2(
    const double* a, std::ptrdiff_t a_row, const double* c, int M, int N, double* b, std::ptrdiff_t b_row,
    std::int64_t rows, double beta) {
  tsmm_host_rows_loop<TsmmAvx2Chunk>(a, a_row, c, M, N, b, b_row, rows, beta);
}

// Two complex outputs from the products of a's real (re) and imaginary (im)
// parts: (re.r - im.i, re.i + im.r), plus beta times o's old values unless
// beta = 0 (then o is not read).
[[gnu::always_inline, gnu::target("avx2,fma")]] inline void tsmm_host_zstore_avx2(__m256d re, __m256d im, double* o,
                                                                                  double beta_re, double beta_im) {
  __m256d v = _mm256_addsub_pd(re, _mm256_permute_pd(im, 0x5));
  if (beta_re != 0.0 || beta_im != 0.0) {
    const __m256d old = _mm256_loadu_pd(o);
    v = _mm256_add_pd(v, _mm256_addsub_pd(_mm256_mul_pd(_mm256_set1_pd(beta_re), old),
                                          _mm256_mul_pd(_mm256_set1_pd(beta_im), _mm256_permute_pd(old, 0x5))));
  }
  _mm256_storeu_pd(o, v);
}

// Complex TSMM in AVX2 + FMA: outputs n .. n + 2Q - 1 (Q vectors of two
// complex numbers, (re, im) pairs) of rows b0 and b1 (b1 null: one row).
// The real and imaginary parts of a[m] multiply c apart (4Q chains) and are
// combined once: (ar cr - ai ci, ar ci + ai cr).
template <int Q>
[[gnu::always_inline, gnu::target("avx2,fma")]] inline void tsmm_host_zchunk_avx2(
    const double* a0, const double* a1, const double* c, int M, int N, int n, double* b0, double* b1, double beta_re,
    double beta_im) {
  __m256d x[2][Q], y[2][Q];  // [part][q]: a row's re and im products
#pragma GCC unroll 4
  for (int q = 0; q < Q; ++q) x[0][q] = x[1][q] = y[0][q] = y[1][q] = _mm256_setzero_pd();
  for (int m = 0; m < M; ++m) {
    const __m256d r0 = _mm256_broadcast_sd(a0 + 2 * m), i0 = _mm256_broadcast_sd(a0 + 2 * m + 1);
    const __m256d r1 = _mm256_broadcast_sd(a1 + 2 * m), i1 = _mm256_broadcast_sd(a1 + 2 * m + 1);
#pragma GCC unroll 4
    for (int q = 0; q < Q; ++q) {
      const __m256d cq = _mm256_loadu_pd(c + 2 * (m * N + n) + 4 * q);
      x[0][q] = _mm256_fmadd_pd(r0, cq, x[0][q]);
      x[1][q] = _mm256_fmadd_pd(i0, cq, x[1][q]);
      y[0][q] = _mm256_fmadd_pd(r1, cq, y[0][q]);
      y[1][q] = _mm256_fmadd_pd(i1, cq, y[1][q]);
    }
  }
#pragma GCC unroll 4
  for (int q = 0; q < Q; ++q) {
    tsmm_host_zstore_avx2(x[0][q], x[1][q], b0 + 2 * n + 4 * q, beta_re, beta_im);
    if (b1) tsmm_host_zstore_avx2(y[0][q], y[1][q], b1 + 2 * n + 4 * q, beta_re, beta_im);
  }
}

// The last output n of rows b0 and b1 (odd N; b1 null: one row, a1 = a0):
// the two rows' complex numbers in one vector, (a0[m], a1[m]) times the
// broadcast real and imaginary parts of c[m][n] (2 chains), combined once.
// N = 1 runs only this (scalar, it held TSMM Z 1 x 1 at half the copy rate).
[[gnu::always_inline, gnu::target("avx2,fma")]] inline void tsmm_host_zlast_avx2(const double* a0, const double* a1,
                                                                                 const double* c, int M, int N, int n,
                                                                                 double* b0, double* b1,
                                                                                 double beta_re, double beta_im) {
  __m256d x = _mm256_setzero_pd(), y = _mm256_setzero_pd();
  for (int m = 0; m < M; ++m) {
    const __m256d am = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(a0 + 2 * m)),
                                            _mm_loadu_pd(a1 + 2 * m), 1);
    const double* cm = c + 2 * (std::ptrdiff_t(m) * N + n);
    x = _mm256_fmadd_pd(am, _mm256_broadcast_sd(cm), x);
    y = _mm256_fmadd_pd(am, _mm256_broadcast_sd(cm + 1), y);
  }
  // (ar cr - ai ci, ai cr + ar ci) per row.
  __m256d v = _mm256_addsub_pd(x, _mm256_permute_pd(y, 0x5));
  if (beta_re != 0.0 || beta_im != 0.0) {
    const __m256d old = _mm256_insertf128_pd(_mm256_castpd128_pd256(_mm_loadu_pd(b0 + 2 * n)),
                                             _mm_loadu_pd((b1 ? b1 : b0) + 2 * n), 1);
    v = _mm256_add_pd(v, _mm256_addsub_pd(_mm256_mul_pd(_mm256_set1_pd(beta_re), old),
                                          _mm256_mul_pd(_mm256_set1_pd(beta_im), _mm256_permute_pd(old, 0x5))));
  }
  _mm_storeu_pd(b0 + 2 * n, _mm256_castpd256_pd128(v));
  if (b1) _mm_storeu_pd(b1 + 2 * n, _mm256_extractf128_pd(v, 1));
}

// Complex host TSMM rows (unit column strides; strides in doubles): two rows
// at a time, outputs in chunks of 4 and 2 complex numbers, an odd last one
// for both rows in one vector. Written with Kokkos::complex inside the
// OpenMP lambda, the rows ran at 0.7-0.8x OpenBLAS on the development host.
[[gnu::noinline, gnu::target("avx2,fma")]] inline void tsmm_host_zrows_avx2(const double* a, std::ptrdiff_t a_row,
                                                                            const double* c, int M, int N, double* b,
                                                                            std::ptrdiff_t b_row, std::int64_t rows,
                                                                            double beta_re, double beta_im) {
  for (std::int64_t k = 0; k < rows; k += 2) {
    const bool two = k + 1 < rows;
    const double* a0 = a + k * a_row;
    const double* a1 = two ? a0 + a_row : a0;
    double* b0 = b + k * b_row;
    double* b1 = two ? b0 + b_row : nullptr;
    int n = 0;
    for (; n + 4 <= N; n += 4) tsmm_host_zchunk_avx2<2>(a0, a1, c, M, N, n, b0, b1, beta_re, beta_im);
    if (n + 2 <= N) {
      tsmm_host_zchunk_avx2<1>(a0, a1, c, M, N, n, b0, b1, beta_re, beta_im);
      n += 2;
    }
    if (n < N) tsmm_host_zlast_avx2(a0, a1, c, M, N, n, b0, b1, beta_re, beta_im);
  }
}
#endif

// Host TSMM rows for the square shapes M = N = 2 and 4 at compile time: C's
// pairs in registers, every loop unrolled, two rows at a time; the sums in
// tsmm_host_chunk's order, so the same bits as tsmm_host_rows, whose run-time
// loops over M and the chunks cost a third of the time at M = N = 2.
template <int M, int N>
[[gnu::noinline]] inline void tsmm_host_rows_square(const double* a, std::ptrdiff_t a_row, const double* c,
                                                    double* b, std::ptrdiff_t b_row, std::int64_t rows, double beta) {
  static_assert(N % 2 == 0, "pairs of outputs");
  constexpr int P = N / 2;
  const auto ld = [](const double* p) { return *reinterpret_cast<const tsm_upair*>(p); };
  tsm_pair cp[M][P];
  for (int m = 0; m < M; ++m)
    for (int q = 0; q < P; ++q) cp[m][q] = ld(c + m * N + 2 * q);
  std::int64_t k = 0;
  for (; k + 2 <= rows; k += 2) {
    const double* a0 = a + k * a_row;
    const double* a1 = a0 + a_row;
    double* b0 = b + k * b_row;
    double* b1 = b0 + b_row;
    tsm_pair x[P], y[P];
    for (int q = 0; q < P; ++q) x[q] = y[q] = tsm_pair{0, 0};
    for (int m = 0; m < M; ++m) {
      const double u = a0[m], v = a1[m];
      for (int q = 0; q < P; ++q) {
        x[q] += u * cp[m][q];
        y[q] += v * cp[m][q];
      }
    }
    for (int q = 0; q < P; ++q) {
      if (beta != 0.0) {  // beta = 0 never reads b
        x[q] += beta * ld(b0 + 2 * q);
        y[q] += beta * ld(b1 + 2 * q);
      }
      *reinterpret_cast<tsm_upair*>(b0 + 2 * q) = x[q];
      *reinterpret_cast<tsm_upair*>(b1 + 2 * q) = y[q];
    }
  }
  for (; k < rows; ++k)
    for (int n = 0; n < N; ++n) tsmm_host_one(a + k * a_row, c, M, N, n, b + k * b_row + n, beta);
}

// Host TSMM rows for odd N (1 or 3) with the rows of b adjacent (b_row = N):
// two rows are 2N contiguous outputs, N pairs that each fill a SIMD register
// (pair p holds flat outputs 2p and 2p + 1, from one row or straddling
// two), so nothing is stored a double at a time. Lane values of pair p at m:
// (a_r(2p)[m], a_r(2p+1)[m]) times (c[m][n(2p)], c[m][n(2p+1)]).
template <int N>
[[gnu::noinline]] inline void tsmm_host_rows_flat(const double* a, std::ptrdiff_t a_row, const double* c, int M,
                                                  double* b, std::int64_t rows, double beta) {
  static_assert(N % 2 == 1, "even N take tsmm_host_rows");
  constexpr int kMaxM = 64;
  const auto ld = [](const double* p) { return *reinterpret_cast<const tsm_upair*>(p); };
  tsm_pair cp[kMaxM][N];  // the C pairs, the same for every two rows
  for (int m = 0; m < M; ++m)
    for (int p = 0; p < N; ++p) cp[m][p] = tsm_make_pair(c[m * N + (2 * p) % N], c[m * N + (2 * p + 1) % N]);
  std::int64_t k = 0;
  for (; k + 2 <= rows; k += 2) {
    const double* a0 = a + k * a_row;
    const double* a1 = a0 + a_row;
    double* b0 = b + k * N;
    tsm_pair x[N];
    for (int p = 0; p < N; ++p) x[p] = tsm_pair{0, 0};
    for (int m = 0; m < M; ++m) {
      const double s0 = a0[m], s1 = a1[m];
      const tsm_pair mixed = tsm_make_pair(s0, s1);
      for (int p = 0; p < N; ++p) {
        const int rows_in_pair = (2 * p) / N + (2 * p + 1) / N;  // 0: row 0 only, 2: row 1 only, 1: both
        x[p] += (rows_in_pair == 0 ? s0 * cp[m][p] : rows_in_pair == 2 ? s1 * cp[m][p] : mixed * cp[m][p]);
      }
    }
    for (int p = 0; p < N; ++p) {
      if (beta != 0.0) x[p] += beta * ld(b0 + 2 * p);  // beta = 0 never reads b
      *reinterpret_cast<tsm_upair*>(b0 + 2 * p) = x[p];
    }
  }
  for (; k < rows; ++k)
    for (int n = 0; n < N; ++n) tsmm_host_one(a + k * a_row, c, M, N, n, b + k * N + n, beta);
}
#endif

// Launch shape shared by the host and the functors.
struct TsmttsmShape {
  int M, N;
  int MT, NT;  // tiles along M and N (tile (mi, ni) holds m = mi + tm MT, n = ni + tn NT)
  int tiles;   // MT NT
  int groups;  // row groups per team (team size / tiles when that is >= 1)
  int passes;  // tiles per thread (> 1 only when the team is smaller than the tile count)
  Index K, block_rows, blocks;
  bool contiguous;  // each team takes a contiguous range of blocks (CPUs: one
                    // prefetch stream per thread), else blocks l, l + L, ... (GPUs)
  // GPUs: 32-byte pieces of a row of A and of B that the team touches in the
  // next block while it computes this one (0: no touching; row-major operands).
  int pieces_a = 0, pieces_b = 0;
  int ahead = 1;  // touch block b + ahead (in the team's steps) while computing block b
};

// Most pieces of the next block one thread touches (a byte each, a register).
inline constexpr int kTouchMax = 4;

// 32-byte pieces of a row of `cols` values of T: what the touches cover.
template <class T>
int touch_pieces(int cols) {
  return int((std::size_t(cols) * sizeof(T) + 31) / 32);
}

// Benchmark overrides of the portable GPU kernels' settings, read from the
// environment once (not on every call): TESSERA_TSM_PORTABLE_TILE, _TOUCH,
// _BLOCK_KB, _AHEAD, _TSMM_TOUCH, _STAGE, _STAGE_LOADS, _TSMM_STAGE and
// _TSMM_COLS, as integers.
struct PortableOverrides {
  std::optional<int> tile, touch, block_kb, ahead, tsmm_touch, stage, stage_loads, tsmm_stage, tsmm_cols;
};
inline const PortableOverrides& portable_overrides() {
  static const PortableOverrides o = [] {
    PortableOverrides p;
    const auto read = [](const char* name, std::optional<int>& v) {
      if (const char* e = std::getenv(name)) v = std::atoi(e);
    };
    read("TESSERA_TSM_PORTABLE_TILE", p.tile);
    read("TESSERA_TSM_PORTABLE_TOUCH", p.touch);
    read("TESSERA_TSM_PORTABLE_BLOCK_KB", p.block_kb);
    read("TESSERA_TSM_PORTABLE_AHEAD", p.ahead);
    read("TESSERA_TSM_PORTABLE_TSMM_TOUCH", p.tsmm_touch);
    read("TESSERA_TSM_PORTABLE_STAGE", p.stage);
    read("TESSERA_TSM_PORTABLE_STAGE_LOADS", p.stage_loads);
    read("TESSERA_TSM_PORTABLE_TSMM_STAGE", p.tsmm_stage);
    read("TESSERA_TSM_PORTABLE_TSMM_COLS", p.tsmm_cols);
    return p;
  }();
  return o;
}

// Adds a thread's TileM x TileN tile (mi, ni) of C, interleaved by MT and NT,
// to the team's partial C (M x N, row-major): a plain store when the thread
// is the only one with that tile (one row group), else an atomic.
template <class T, int TileM, int TileN>
KOKKOS_INLINE_FUNCTION void tile_to_partial(const T (&acc)[TileM][TileN], T* part, int mi, int ni, int MT, int NT,
                                            int M, int N, int groups) {
  for (int tm = 0; tm < TileM; ++tm)
    for (int tn = 0; tn < TileN; ++tn) {
      const int m = mi + tm * MT, n = ni + tn * NT;
      if (m < M && n < N) {
        if (groups == 1)
          part[m * N + n] = acc[tm][tn];
        else
          atomic_accumulate(&part[m * N + n], acc[tm][tn]);
      }
    }
}

template <class ExecSpace, class ViewA, class ViewB, class ViewC, bool Conj, int TileM = kTileM, int TileN = kTileN>
struct TsmttsmTeam {
  using T = typename ViewC::non_const_value_type;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  using Scratch = Kokkos::View<T*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;

  ViewA A;
  ViewB B;
  ViewC C;
  T alpha;
  TsmttsmShape s;
  int scratch_level;

  KOKKOS_INLINE_FUNCTION void load(Index k, int mi, int ni, T (&a)[TileM], T (&b)[TileN]) const {
    for (int tm = 0; tm < TileM; ++tm) {
      const int m = mi + tm * s.MT;
      a[tm] = m < s.M ? conj_if<Conj>(A(k, m)) : T(0);
    }
    for (int tn = 0; tn < TileN; ++tn) {
      const int n = ni + tn * s.NT;
      b[tn] = n < s.N ? B(k, n) : T(0);
    }
  }

  KOKKOS_INLINE_FUNCTION static void fma(T (&acc)[TileM][TileN], const T (&a)[TileM], const T (&b)[TileN]) {
    for (int tm = 0; tm < TileM; ++tm)
      for (int tn = 0; tn < TileN; ++tn) acc[tm][tn] += a[tm] * b[tn];
  }

  // acc += rows k0, k0 + step, ... < k1 of the tile (mi, ni); two rows in
  // flight (one for tiles of more than 16 accumulators: 8 x 8 with two rows
  // needs more than 255 registers).
  KOKKOS_INLINE_FUNCTION void rows(T (&acc)[TileM][TileN], int mi, int ni, Index k0, Index k1, Index step) const {
    Index k = k0;
    if constexpr (TileM * TileN <= 16)
      for (; k + step < k1; k += 2 * step) {
        T a0[TileM], b0[TileN], a1[TileM], b1[TileN];
        load(k, mi, ni, a0, b0);
        load(k + step, mi, ni, a1, b1);
        fma(acc, a0, b0);
        fma(acc, a1, b1);
      }
    for (; k < k1; k += step) {
      T a0[TileM], b0[TileN];
      load(k, mi, ni, a0, b0);
      fma(acc, a0, b0);
    }
  }

  // GPUs: the team's threads load one byte of each 32-byte piece of block nb's
  // rows (the piece comes into L1 with it) and keep the bytes in t until the
  // current block is done. The tiles read each value several times and hold
  // one or two rows in registers; the touches put a whole block's distinct
  // bytes in flight at a register per piece. Thread r touches piece r mod P
  // (P pieces a row) of rows r / P, r / P + ts / P, ...; returns how many.
  KOKKOS_INLINE_FUNCTION int touch(Index nb, int r, int ts, unsigned (&t)[kTouchMax]) const {
    const int per_row = s.pieces_a + s.pieces_b;
    const int j = r % per_row, row_step = ts / per_row;
    const Index k1 = (nb + 1) * s.block_rows < s.K ? (nb + 1) * s.block_rows : s.K;
    Index k = nb * s.block_rows + r / per_row;
    if (r >= row_step * per_row) return 0;
    const bool in_a = j < s.pieces_a;
    const int offset = 32 * (in_a ? j : j - s.pieces_a);
    int n = 0;
    for (int i = 0; i < kTouchMax; ++i, k += row_step)
      if (k < k1) {
        const auto* row = in_a ? reinterpret_cast<const unsigned char*>(&A(k, 0))
                               : reinterpret_cast<const unsigned char*>(&B(k, 0));
        t[i] = row[offset];
        n = i + 1;
      }
    return n;
  }

  // The team's blocks of rows: first, end, step.
  KOKKOS_INLINE_FUNCTION Index per_team(Index L) const { return (s.blocks + L - 1) / L; }
  KOKKOS_INLINE_FUNCTION Index first_block(Index l, Index L) const { return s.contiguous ? l * per_team(L) : l; }
  KOKKOS_INLINE_FUNCTION Index end_block(Index l, Index L) const {
    if (!s.contiguous) return s.blocks;
    const Index e = (l + 1) * per_team(L);
    return e < s.blocks ? e : s.blocks;
  }
  KOKKOS_INLINE_FUNCTION Index block_step(Index L) const { return s.contiguous ? 1 : L; }

  // CPUs: elements [m0, m1) x [n0, n1) of C, one at a time over rows k0..k1
  // (an L1/L2-resident block after the first element), four independent
  // partial sums each; one scratch update per element and block.
  KOKKOS_INLINE_FUNCTION void elements(const Scratch& part, Index k0, Index k1, int m0, int m1, int n0,
                                       int n1) const {
    for (int m = m0; m < m1; ++m)
      for (int n = n0; n < n1; ++n) {
        T acc[4] = {T(0), T(0), T(0), T(0)};
        Index k = k0;
        for (; k + 4 <= k1; k += 4)
          for (int i = 0; i < 4; ++i) acc[i] += conj_if<Conj>(A(k + i, m)) * B(k + i, n);
        for (; k < k1; ++k) acc[0] += conj_if<Conj>(A(k, m)) * B(k, n);
        part(m * s.N + n) += (acc[0] + acc[1]) + (acc[2] + acc[3]);
      }
  }

  // CPUs, the team's row blocks. C smaller than half a register tile: element
  // by element (a tile would be mostly guards and zero FMAs). Real C of 4 x 4
  // and more with rows of unit column stride: 4 x 4 tiles in SIMD lanes
  // (tsmttsm_host_tile4), the edges of C element by element.
  KOKKOS_INLINE_FUNCTION void host_blocks(const Scratch& part, Index l, Index L) const {
    constexpr bool real = std::is_same_v<T, double>;
    constexpr int TM = real ? 4 : 2;  // tile rows: 4 real, 2 complex
    const bool tiles = !(s.M * s.N < kTileM * kTileN / 2) && host_tiles_apply();
    const int M4 = tiles ? s.M / TM * TM : 0, N4 = tiles ? s.N / 4 * 4 : 0;
    for (Index b = first_block(l, L), bn = end_block(l, L); b < bn; b += block_step(L)) {
      const Index k0 = b * s.block_rows;
      const Index k1 = k0 + s.block_rows < s.K ? k0 + s.block_rows : s.K;
#if !defined(__CUDA_ARCH__)
      // Row strides and widths in doubles.
      constexpr int D = real ? 1 : 2;
      const std::ptrdiff_t a_row = D * A.stride(0), b_row = D * B.stride(0);
      const auto ptr = [](auto* p) { return reinterpret_cast<const double*>(p); };
      // The tiles after the first read the block from L1 and leave the
      // memory idle (M = N = 16: 63% of the read roof); they prefetch the
      // next block instead, a slice each, a row per row.
      const int passes = real ? (M4 / 4) * (N4 == 12 ? 1 : (N4 + 7) / 8) : (M4 / 2) * (N4 / 4);
      const Index next = k1 < s.K && b + block_step(L) < bn ? k1 - k0 : 0;
      const Index next_end = k1 + next < s.K ? k1 + next : s.K;
      int pass = 0;
      const auto slice = [&] {
        HostRowPrefetch f;
        if (pass > 0 && next > 0) {
          const Index r0 = k1 + (next_end - k1) * (pass - 1) / (passes - 1);
          const Index r1 = k1 + (next_end - k1) * pass / (passes - 1);
          f = HostRowPrefetch{ptr(&A(r0, 0)), ptr(&B(r0, 0)), a_row, b_row, r1 - r0, D * s.M, D * s.N};
        }
        ++pass;
        return f;
      };
      (void)slice;
      if constexpr (real) {
        for (int m0 = 0; m0 < M4; m0 += 4) {
          int n0 = 0;
#if TESSERA_HOST_X86
          if (host_avx2_fma()) {
            // Twelve columns left: one 4 x 12 tile (12 accumulators) instead
            // of 4 x 8 and 4 x 4, a pass over the block fewer.
            if (N4 - n0 == 12) {
              tsmttsm_host_tile4_avx2<3>(&A(k0, m0), a_row, &B(k0, n0), b_row, k1 - k0, &part(m0 * s.N + n0), s.N,
                                         slice());
              n0 += 12;
            }
            for (; n0 + 8 <= N4; n0 += 8)
              tsmttsm_host_tile4_avx2<2>(&A(k0, m0), a_row, &B(k0, n0), b_row, k1 - k0, &part(m0 * s.N + n0), s.N,
                                         slice());
            for (; n0 < N4; n0 += 4)
              tsmttsm_host_tile4_avx2<1>(&A(k0, m0), a_row, &B(k0, n0), b_row, k1 - k0, &part(m0 * s.N + n0), s.N,
                                         slice());
          }
#endif
          for (; n0 < N4; n0 += 4)
            tsmttsm_host_tile4(&A(k0, m0), a_row, &B(k0, n0), b_row, k1 - k0, &part(m0 * s.N + n0), s.N);
        }
      } else {
#if TESSERA_HOST_X86
        // Complex: 2 x 4 tiles (host_tiles_apply holds only with AVX2 + FMA).
        for (int m0 = 0; m0 < M4; m0 += 2)
          for (int n0 = 0; n0 < N4; n0 += 4)
            tsmttsm_host_ztile_avx2<Conj>(ptr(&A(k0, m0)), a_row, ptr(&B(k0, n0)), b_row, k1 - k0,
                                          reinterpret_cast<double*>(&part(m0 * s.N + n0)), s.N, slice());
#endif
      }
#endif
      elements(part, k0, k1, 0, M4, N4, s.N);
      elements(part, k0, k1, M4, s.M, 0, s.N);
    }
  }
  KOKKOS_INLINE_FUNCTION bool host_tiles_apply() const {
    if constexpr (std::is_same_v<T, double>)
      return A.stride(1) == 1 && B.stride(1) == 1;
    else
#if defined(__CUDA_ARCH__)
      return false;
#else
      return A.stride(1) == 1 && B.stride(1) == 1 && host_avx2_fma();  // the complex tiles are AVX2 only
#endif
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int r = team.team_rank(), ts = team.team_size();
    const Index l = team.league_rank(), L = team.league_size();
    const int MN = s.M * s.N;
    Scratch part(team.team_scratch(scratch_level), MN);
    for (int e = r; e < MN; e += ts) part(e) = T(0);
    team.team_barrier();

    if constexpr (!is_device_space_v<ExecSpace>) {
      if (s.M * s.N < kTileM * kTileN / 2 || host_tiles_apply()) {
        host_blocks(part, l, L);
        team.team_barrier();
        if (first_block(l, L) < s.blocks)
          for (int e = r; e < MN; e += ts) atomic_accumulate(&C(e / s.N, e % s.N), alpha * part(e));
        return;
      }
    }
    if (s.passes == 1) {
      // One tile per thread, kept in registers over all of the team's rows.
      const int tile = r % s.tiles, g = r / s.tiles;
      const int mi = tile / s.NT, ni = tile % s.NT;
      if (g < s.groups) {
        T acc[TileM][TileN];
        for (int tm = 0; tm < TileM; ++tm)
          for (int tn = 0; tn < TileN; ++tn) acc[tm][tn] = T(0);
        unsigned sink = 0;  // the touched bytes, so that their loads stay
        for (Index b = first_block(l, L), bn = end_block(l, L); b < bn; b += block_step(L)) {
          const Index k1 = (b + 1) * s.block_rows < s.K ? (b + 1) * s.block_rows : s.K;
          unsigned t[kTouchMax];
          const Index nb = b + s.ahead * block_step(L);
          const int touched = s.pieces_a > 0 && nb < bn ? touch(nb, r, ts, t) : 0;
          rows(acc, mi, ni, b * s.block_rows + g, k1, s.groups);
          for (int i = 0; i < kTouchMax; ++i)
            if (i < touched) sink += t[i];
        }
        // Practically never true (a wrapped sum of bytes); adding a zero
        // changes at most the sign of a zero.
        if (sink == 0xffffffffu) acc[0][0] += T(0);
        tile_to_partial(acc, part.data(), mi, ni, s.MT, s.NT, s.M, s.N, s.groups);
      }
    } else {
      // Fewer threads than tiles (host teams of one thread): rank-2 updates
      // of the team's partial C, kept in scratch (L1), by rows of C, two rows
      // of A and B at a time; the loop over n is contiguous and vectorises.
      for (Index b = first_block(l, L), bn = end_block(l, L); b < bn; b += block_step(L)) {
        const Index k0 = b * s.block_rows;
        const Index k1 = k0 + s.block_rows < s.K ? k0 + s.block_rows : s.K;
        Index k = k0;
        for (; k + 1 < k1; k += 2)
          for (int m = r; m < s.M; m += ts) {
            const T a0 = conj_if<Conj>(A(k, m)), a1 = conj_if<Conj>(A(k + 1, m));
            T* p = &part(m * s.N);
            for (int n = 0; n < s.N; ++n) p[n] += a0 * B(k, n) + a1 * B(k + 1, n);
          }
        if (k < k1)
          for (int m = r; m < s.M; m += ts) {
            const T a0 = conj_if<Conj>(A(k, m));
            T* p = &part(m * s.N);
            for (int n = 0; n < s.N; ++n) p[n] += a0 * B(k, n);
          }
      }
    }
    team.team_barrier();
    // One atomic per element of C per team.
    if (first_block(l, L) < s.blocks)
      for (int e = r; e < MN; e += ts) atomic_accumulate(&C(e / s.N, e % s.N), alpha * part(e));
  }
};

// Teams of `team` threads a league takes for `work` units: one a unit, at
// most as many as the space runs at once (a grid-stride loop covers the
// rest), at least one.
template <class ExecSpace>
Index league_for(const ExecSpace& exec, Index work, int team) {
  const Index slots = Index(exec.concurrency()) / team;
  return work < slots ? work : (slots > 0 ? slots : 1);
}

// A team policy that asks for full occupancy: on GPUs the kernel's shared-
// memory carve-out is then fitted to the teams an SM holds (Kokkos patch
// 0006) and the rest stays L1, where Kokkos 3.4 launches every team kernel
// preferring shared memory (28 KiB of L1 on sm_90: the lines of the loads
// in flight). Host spaces ignore it.
template <class Policy>
auto full_occupancy(const Policy& policy) {
  return Kokkos::Experimental::prefer(policy, Kokkos::Experimental::DesiredOccupancy{100});
}

// Launches a staged kernel F (its blocks already counted): a league sized
// for them, teams of F::kTeam with F's level-0 scratch.
template <class Bounds, class ExecSpace, class F>
void launch_staged(const ExecSpace& exec, const char* name, const F& f) {
  using T = typename F::T;
  const Index league = league_for(exec, f.blocks, F::kTeam);
  const std::size_t bytes = Kokkos::View<T*, typename ExecSpace::scratch_memory_space>::shmem_size(f.scratch_elems());
  Kokkos::parallel_for(name,
                       full_occupancy(Kokkos::TeamPolicy<ExecSpace, Bounds>(exec, int(league), F::kTeam)
                                          .set_scratch_size(0, Kokkos::PerTeam(bytes))),
                       f);
}

// The staged kernels' pipeline, one barrier a block: the team's blocks are
// first, first + L, ... below `blocks`. Step S computes block b from buffer
// S mod 2, stages block b + L from register array (S + 1) mod Ahead into the
// other buffer and refills that array with block b + (Ahead + 1) L, so the
// arrays hold blocks b + L .. b + Ahead L in flight while block b is
// computed. compute(buf, b), stage(buf, v) and fetch(b, v) are the kernel's;
// fetch loads nothing for blocks past the last. The steps are unrolled over
// the period lcm(2, Ahead), so that buffers and arrays are compile-time.
template <int S, int Ahead, class Member, class T, int P, class Compute, class Stage, class Fetch>
KOKKOS_INLINE_FUNCTION bool staged_step(const Member& team, T (&v)[Ahead][P], T* buf0, T* buf1, Index& b, Index L,
                                        Index blocks, const Compute& compute, const Stage& stage, const Fetch& fetch) {
  compute(S % 2 == 0 ? buf0 : buf1, b);
  if ((b += L) >= blocks) return false;
  constexpr int a = (S + 1) % Ahead;
  stage(S % 2 == 0 ? buf1 : buf0, v[a]);
  team.team_barrier();
  fetch(b + Ahead * L, v[a]);
  return true;
}
template <int Ahead, std::size_t... S, class Member, class T, int P, class Compute, class Stage, class Fetch>
KOKKOS_INLINE_FUNCTION void staged_steps(std::index_sequence<S...>, const Member& team, T (&v)[Ahead][P], T* buf0,
                                         T* buf1, Index b, Index L, Index blocks, const Compute& compute,
                                         const Stage& stage, const Fetch& fetch) {
  while ((staged_step<int(S), Ahead>(team, v, buf0, buf1, b, L, blocks, compute, stage, fetch) && ...)) {
  }
}
template <int Ahead, class Member, class T, int P, class Compute, class Stage, class Fetch>
KOKKOS_INLINE_FUNCTION void staged_pipeline(const Member& team, T (&v)[Ahead][P], T* buf0, T* buf1, Index first,
                                            Index L, Index blocks, const Compute& compute, const Stage& stage,
                                            const Fetch& fetch) {
  fetch(first, v[0]);
  stage(buf0, v[0]);
  team.team_barrier();
  for (int j = 1; j <= Ahead; ++j) fetch(first + j * L, v[j % Ahead]);
  if (first < blocks)
    staged_steps<Ahead>(std::make_index_sequence<Ahead % 2 == 0 ? Ahead : 2 * Ahead>(), team, v, buf0, buf1, first, L,
                        blocks, compute, stage, fetch);
}

// GPUs, rows of unit column stride: the team stages blocks of rows in team
// scratch, each value loaded once and coalesced, and the Tile x Tile register
// tiles read them from there. The loads run Ahead blocks ahead in registers:
// thread r loads column r mod W (W = M + N) of rows r / W, r / W + 256 / W,
// ... (P rows) of a block, so Ahead blocks' distinct bytes are in flight
// while the tiles compute another from scratch. Two scratch buffers, one
// barrier a block. (The unstaged kernel holds a row or two in flight a
// thread, and its tiles load each value once per tile that uses it.)
template <class ExecSpace, class ViewA, class ViewB, class ViewC, bool Conj, int Tile, int P, int Ahead>
struct TsmttsmStaged {
  using T = typename ViewC::non_const_value_type;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  using Scratch = Kokkos::View<T*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;

  ViewA A;
  ViewB B;
  ViewC C;
  T alpha;
  int M, N, MT, NT, tiles, groups;
  int W;              // values a row of A and B: M + N
  int AW, Wp;         // a staged row: A's values padded to Tile MT, then B's padded to Tile NT
  int rows_per_pass;  // team size / W rows loaded by one load a thread
  int loads;          // loads a thread a block (<= P)
  int block_rows;     // loads * rows_per_pass
  Index K, blocks;

  static constexpr int kTeam = 256;

  // Elements of team scratch: two staged blocks, or C's partial when larger
  // (the partial reuses the buffers after the last block).
  KOKKOS_INLINE_FUNCTION std::size_t scratch_elems() const {
    const std::size_t stage = std::size_t(2) * block_rows * Wp, part = std::size_t(M) * N;
    return stage > part ? stage : part;
  }

  // A thread's column of the rows it loads: where it is read and staged.
  struct Lane {
    const T* base;
    Index stride;
    int col, row0;
    bool on;
  };
  KOKKOS_INLINE_FUNCTION Lane lane(int r) const {
    Lane q{nullptr, 0, 0, r / W, r / W < rows_per_pass};
    const int c = r % W;
    if (c < M) {
      q.base = &A(0, c);
      q.stride = Index(A.stride(0));
      q.col = c;
    } else {
      q.base = &B(0, c - M);
      q.stride = Index(B.stride(0));
      q.col = AW + c - M;
    }
    return q;
  }
  KOKKOS_INLINE_FUNCTION void fetch(const Lane& q, Index b, T (&v)[P]) const {
    const Index k = b * block_rows + q.row0;
    for (int j = 0; j < P; ++j) {
      const Index kj = k + Index(j) * rows_per_pass;
      v[j] = q.on && j < loads && b < blocks && kj < K ? q.base[kj * q.stride] : T(0);
    }
  }
  KOKKOS_INLINE_FUNCTION void stage(const Lane& q, T* buf, const T (&v)[P]) const {
    if (q.on)
      for (int j = 0; j < P; ++j)
        if (j < loads) buf[(q.row0 + j * rows_per_pass) * Wp + q.col] = v[j];
  }
  KOKKOS_INLINE_FUNCTION void compute(T (&acc)[Tile][Tile], const T* buf, Index b, int g, int mi, int ni) const {
    const Index left = K - b * block_rows;
    const int rows = left < block_rows ? int(left) : block_rows;
    for (int i = g; i < rows; i += groups) {
      const T* row = buf + i * Wp;
      T a[Tile], x[Tile];
      for (int t = 0; t < Tile; ++t) a[t] = conj_if<Conj>(row[mi + t * MT]);
      for (int t = 0; t < Tile; ++t) x[t] = row[AW + ni + t * NT];
      for (int tm = 0; tm < Tile; ++tm)
        for (int tn = 0; tn < Tile; ++tn) acc[tm][tn] += a[tm] * x[tn];
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int r = team.team_rank(), ts = team.team_size();
    const Index l = team.league_rank(), L = team.league_size();
    const std::size_t elems = scratch_elems();
    Scratch s(team.team_scratch(0), elems);
    T* buf0 = s.data();
    T* buf1 = buf0 + std::size_t(block_rows) * Wp;
    // The padding columns stay zero: the tiles read them without guards.
    for (std::size_t e = r; e < elems; e += ts) s(e) = T(0);
    team.team_barrier();

    const Lane q = lane(r);
    const int tile = r % tiles, g = r / tiles;
    const int mi = tile / NT, ni = tile % NT;
    const bool computes = g < groups;
    T acc[Tile][Tile];
    for (int tm = 0; tm < Tile; ++tm)
      for (int tn = 0; tn < Tile; ++tn) acc[tm][tn] = T(0);

    T v[Ahead][P];
    staged_pipeline(
        team, v, buf0, buf1, l, L, blocks,
        [&](const T* buf, Index b) {
          if (computes) compute(acc, buf, b, g, mi, ni);
        },
        [&](T* buf, const T(&w)[P]) { stage(q, buf, w); }, [&](Index b, T(&w)[P]) { fetch(q, b, w); });
    team.team_barrier();  // every tile done with the buffers: the partial reuses them

    T* part = buf0;
    if (groups > 1) {
      for (int e = r; e < M * N; e += ts) part[e] = T(0);
      team.team_barrier();
    }
    if (computes) tile_to_partial(acc, part, mi, ni, MT, NT, M, N, groups);
    team.team_barrier();
    if (l < blocks)
      for (int e = r; e < M * N; e += ts) atomic_accumulate(&C(e / N, e % N), alpha * part[e]);
  }
};

// Launches the staged kernel with Tile x Tile tiles and at most `loads`
// (<= P) loads a thread a block; the blocks are as many rows as fit two to
// the team scratch a team may take (40 KiB in Kokkos 3.4). Launches nothing
// and returns false where the kernel does not apply: rows without unit
// column stride, or a scratch that holds neither two blocks of one load a
// thread nor C's partial.
template <int Tile, int P, int Ahead, bool Conj, class Bounds, class ExecSpace, class ViewA, class ViewB, class ViewC>
bool tsmttsm_staged(const ExecSpace& exec, typename ViewC::non_const_value_type alpha, const ViewA& A,
                    const ViewB& B, const ViewC& C, int loads) {
  using T = typename ViewC::non_const_value_type;
  using F = TsmttsmStaged<ExecSpace, ViewA, ViewB, ViewC, Conj, Tile, P, Ahead>;
  F f{A, B, C, alpha};
  f.M = int(A.extent(1));
  f.N = int(B.extent(1));
  if ((f.M > 1 && A.stride(1) != 1) || (f.N > 1 && B.stride(1) != 1)) return false;
  f.K = Index(A.extent(0));
  f.MT = (f.M + Tile - 1) / Tile;
  f.NT = (f.N + Tile - 1) / Tile;
  f.tiles = f.MT * f.NT;
  if (f.tiles > F::kTeam) return false;  // small tiles on wide shapes: more tiles than threads
  f.groups = F::kTeam / f.tiles;
  f.W = f.M + f.N;
  f.AW = Tile * f.MT;
  f.Wp = f.AW + Tile * f.NT;
  f.rows_per_pass = F::kTeam / f.W;
  const std::size_t limit = std::size_t(Kokkos::TeamPolicy<ExecSpace>::scratch_size_max(0));
  const int fit = int(limit / (2 * sizeof(T) * std::size_t(f.rows_per_pass) * std::size_t(f.Wp)));
  if (fit < 1 || std::size_t(f.M) * f.N * sizeof(T) > limit) return false;
  f.loads = loads < 1 ? 1 : (loads > P ? P : loads);
  if (f.loads > fit) f.loads = fit;
  f.block_rows = f.loads * f.rows_per_pass;
  f.blocks = (f.K + f.block_rows - 1) / f.block_rows;
  launch_staged<Bounds>(exec, "tessera::tsm::tsmttsm_staged", f);
  return true;
}

template <class ExecSpace>
int scratch_level_for(std::size_t bytes) {
  return bytes <= std::size_t(Kokkos::TeamPolicy<ExecSpace>::scratch_size_max(0)) ? 0 : 1;
}

// C = alpha op(A)^T B + beta C, op = conjugate when conj. Extents checked by the caller.
template <class ExecSpace, class ViewA, class ViewB, class ViewC>
void tsmttsm_kokkos(const ExecSpace& exec, bool conj, typename ViewC::non_const_value_type alpha,
                    const ViewA& A, const ViewB& B, typename ViewC::non_const_value_type beta, const ViewC& C) {
  using T = typename ViewC::non_const_value_type;
  scale_matrix(exec, C, beta);
  const Index K = Index(A.extent(0));
  if (K == 0 || is_zero(alpha)) return;

  const int M = int(A.extent(1)), N = int(B.extent(1));
  const int lo = M < N ? M : N;
  if constexpr (is_device_space_v<ExecSpace>) {
    // GPUs, rows of unit column stride (docs/perf/tsm.md "Portable TSMTTSM
    // on the GPU: staged blocks, two or more blocks' loads in flight"):
    // blocks staged in team scratch by the whole team. Double where both
    // sides exceed 8: 4 x 4 tiles, two teams an SM, two blocks in flight a
    // team; from 48, 8 x 8 tiles, one team, three blocks; where neither
    // side exceeds 6, 1 x 1 tiles up to 2, 2 x 2 tiles above (section
    // "Portable kernels at small sides": 1.10-1.66x the unstaged kernel).
    // Complex from 8: 4 x 4 tiles, four blocks in flight. At the other
    // shapes the unstaged kernel is faster. TESSERA_TSM_PORTABLE_STAGE (0 |
    // 1), _STAGE_LOADS (1..8) and _TILE (1 | 2 | 4 | 8) override, for
    // benchmarks.
    const PortableOverrides& o = portable_overrides();
    const int loads = o.stage_loads ? *o.stage_loads : 8;
    if constexpr (std::is_same_v<T, double>) {
      const int hi = M < N ? N : M;
      const bool stage = o.stage ? *o.stage == 1 : lo > 8 || hi <= 6;
      const int tile = o.tile ? *o.tile : (lo >= 48 ? 8 : lo > 8 ? 4 : hi <= 2 ? 1 : 2);
      using Two = Kokkos::LaunchBounds<256, 2>;
      if (stage && (tile == 8   ? tsmttsm_staged<8, 8, 3, false, Kokkos::LaunchBounds<256, 1>>(exec, alpha, A, B, C, loads)
                    : tile == 1 ? tsmttsm_staged<1, 8, 2, false, Two>(exec, alpha, A, B, C, loads)
                    : tile == 2 ? tsmttsm_staged<2, 8, 2, false, Two>(exec, alpha, A, B, C, loads)
                                : tsmttsm_staged<4, 8, 2, false, Two>(exec, alpha, A, B, C, loads)))
        return;
    } else {
      const bool stage = o.stage ? *o.stage == 1 : lo >= 8;
      if (stage && (conj ? tsmttsm_staged<4, 4, 4, true, Kokkos::LaunchBounds<256, 1>>(exec, alpha, A, B, C, loads)
                         : tsmttsm_staged<4, 4, 4, false, Kokkos::LaunchBounds<256, 1>>(exec, alpha, A, B, C, loads)))
        return;
    }
  }

  TsmttsmShape s;
  s.M = M;
  s.N = N;
  s.K = K;
  int team = 1;
  // GPUs, where the staged kernel does not apply (small sides, rows without
  // unit column stride; H200, docs/perf/tsm.md "Portable TSMTTSM on the GPU:
  // 8 x 8 tiles"): double takes 8 x 8 register tiles where both sides exceed 16 (a quarter
  // of the loads and index work per FMA of 4 x 4 tiles; 1.6-1.8x at 48..64,
  // a tie at 24, slower at 9..16) and touches the next block (32 KiB) with
  // them; complex keeps 4 x 4 tiles and touches where both sides exceed 8.
  // TESSERA_TSM_PORTABLE_TILE (4 | 8), _TOUCH (0 | 1), _BLOCK_KB and _AHEAD
  // (blocks touched ahead) override, for benchmarks.
  int tile = kTileM, rows_per_group = 4, block_kb = 32, ahead = 1;
  bool touch = false;
  if constexpr (is_device_space_v<ExecSpace>) {
    const PortableOverrides& o = portable_overrides();
    if constexpr (std::is_same_v<T, double>) {
      tile = lo > 16 ? 8 : 4;
      if (o.tile) tile = *o.tile == 8 ? 8 : 4;
      touch = tile == 8;
    } else {
      touch = lo > 8;
    }
    if (o.touch) touch = *o.touch == 1;
    if (o.block_kb) block_kb = *o.block_kb;
    if (o.ahead) ahead = *o.ahead == 2 ? 2 : 1;
  }
  s.MT = (s.M + tile - 1) / tile;
  s.NT = (s.N + tile - 1) / tile;
  s.tiles = s.MT * s.NT;
  if constexpr (is_device_space_v<ExecSpace>) {
    team = 256;  // >= the largest tile count (16 x 16 at M = N = 64)
    s.groups = team / s.tiles;
    s.passes = 1;
    if (touch) {
      const Index row_bytes = Index(sizeof(T)) * (s.M + s.N);
      const Index kb = block_kb < 1 ? 1 : (block_kb > 256 ? 256 : block_kb);
      const Index r = (kb * 1024 + row_bytes * s.groups / 2) / (row_bytes * s.groups);
      rows_per_group = int(r < 1 ? 1 : (r > 16 ? 16 : r));
    }
    s.block_rows = rows_per_group * Index(s.groups);
    const int per_row = touch_pieces<T>(s.M) + touch_pieces<T>(s.N);
    if (touch && (s.M <= 1 || A.stride(1) == 1) && (s.N <= 1 || B.stride(1) == 1) &&
        s.block_rows <= Index(kTouchMax) * (team / per_row)) {
      s.pieces_a = touch_pieces<T>(s.M);
      s.pieces_b = touch_pieces<T>(s.N);
      s.ahead = ahead;
    }
  } else {
    s.groups = 1;
    s.passes = s.tiles;
    // The SIMD tiles read a block's rows once per tile: blocks of A and B
    // rows that stay in L1 (16 KiB), 16 to 256 rows.
    const Index rows_in_l1 = Index(16384) / Index(sizeof(T) * std::size_t(s.M + s.N));
    s.block_rows = rows_in_l1 < 16 ? 16 : (rows_in_l1 > 256 ? 256 : rows_in_l1);
  }
  s.blocks = (K + s.block_rows - 1) / s.block_rows;
  s.contiguous = !is_device_space_v<ExecSpace>;
  const Index league = league_for(exec, s.blocks, team);

  const std::size_t bytes = Kokkos::View<T*, typename ExecSpace::scratch_memory_space>::shmem_size(s.M * s.N);
  const int level = scratch_level_for<ExecSpace>(bytes);
  auto launch = [&](auto functor, auto bounds) {
    using Policy = Kokkos::TeamPolicy<ExecSpace, decltype(bounds)>;
    Kokkos::parallel_for("tessera::tsm::tsmttsm",
                         full_occupancy(Policy(exec, int(league), team)
                                            .set_scratch_size(level, Kokkos::PerTeam(bytes))),
                         functor);
  };
  if constexpr (std::is_same_v<T, double>) {
    (void)conj;
    if constexpr (is_device_space_v<ExecSpace>)
      if (tile == 8) {
        launch(TsmttsmTeam<ExecSpace, ViewA, ViewB, ViewC, false, 8, 8>{A, B, C, alpha, s, level},
               Kokkos::LaunchBounds<>());
        return;
      }
    // Two teams of 256 an SM (at most 128 registers): the touches cost a few
    // registers over that, and one team an SM halves the loads in flight.
    launch(TsmttsmTeam<ExecSpace, ViewA, ViewB, ViewC, false>{A, B, C, alpha, s, level}, Kokkos::LaunchBounds<256, 2>());
  } else {
    if (conj)
      launch(TsmttsmTeam<ExecSpace, ViewA, ViewB, ViewC, true>{A, B, C, alpha, s, level}, Kokkos::LaunchBounds<>());
    else
      launch(TsmttsmTeam<ExecSpace, ViewA, ViewB, ViewC, false>{A, B, C, alpha, s, level}, Kokkos::LaunchBounds<>());
  }
}

struct TsmmShape {
  int M, N;
  int tpr;     // threads per row
  int groups;  // rows groups per team
  int chunks;  // output chunks of kTsmmOut tpr columns each thread walks through
  Index K;
  Index span;  // > 0: each team takes `span` contiguous row pairs (CPUs: no two
               // threads write one cache line); 0: pairs interleaved over the
               // league (GPUs: neighbouring groups, neighbouring rows)
  int pieces_a = 0;  // GPUs: 32-byte pieces of a row of A touched a pair ahead (0: none)
};

template <class ExecSpace, class ViewA, class ViewC, class ViewB>
struct TsmmTeam {
  using T = typename ViewB::non_const_value_type;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  using Scratch = Kokkos::View<T*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;

  ViewA A;
  ViewC C;
  ViewB B;
  T alpha, beta;
  TsmmShape s;
  int scratch_level;

  KOKKOS_INLINE_FUNCTION void store(Index k, int n, const T& v) const { store_scaled(B, k, n, v, beta); }

  // CPUs, N < kTsmmOut (the chunks would be mostly guards): blocks of
  // kRows rows, one output column at a time, kRows independent product chains.
  KOKKOS_INLINE_FUNCTION void narrow_rows(const Scratch& c, Index first, Index last) const {
    constexpr int kRows = 8;
    Index k = first;
    for (; k + kRows <= last; k += kRows)
      for (int n = 0; n < s.N; ++n) {
        T acc[kRows];
        for (int i = 0; i < kRows; ++i) acc[i] = T(0);
        for (int m = 0; m < s.M; ++m) {
          const T cv = c(m * s.N + n);
          for (int i = 0; i < kRows; ++i) acc[i] += A(k + i, m) * cv;
        }
        for (int i = 0; i < kRows; ++i) store(k + i, n, acc[i]);
      }
    for (; k < last; ++k)
      for (int n = 0; n < s.N; ++n) {
        T acc = T(0);
        for (int m = 0; m < s.M; ++m) acc += A(k, m) * c(m * s.N + n);
        store(k, n, acc);
      }
  }

  // Outputs n0 .. n0 + W - 1 of rows k and k + 1 (when two), no guards: the
  // j loops vectorise.
  template <int W>
  KOKKOS_INLINE_FUNCTION void row_pair_chunk(const Scratch& c, Index k, bool two, int n0) const {
    T acc0[W], acc1[W];
    for (int j = 0; j < W; ++j) acc0[j] = acc1[j] = T(0);
    for (int m = 0; m < s.M; ++m) {
      const T a0 = A(k, m), a1 = two ? A(k + 1, m) : T(0);
      const T* cm = c.data() + m * s.N + n0;
      for (int j = 0; j < W; ++j) {
        acc0[j] += a0 * cm[j];
        acc1[j] += a1 * cm[j];
      }
    }
    for (int j = 0; j < W; ++j) {
      store(k, n0 + j, acc0[j]);
      if (two) store(k + 1, n0 + j, acc1[j]);
    }
  }

  // CPUs, N >= kTsmmOut: two rows at a time, outputs in chunks of 8, 4, 1.
  KOKKOS_INLINE_FUNCTION void wide_rows(const Scratch& c, Index first, Index last) const {
    for (Index k = first; k < last; k += 2) {
      const bool two = k + 1 < last;
      int n0 = 0;
      for (; n0 + 8 <= s.N; n0 += 8) row_pair_chunk<8>(c, k, two, n0);
      if (n0 + 4 <= s.N) {
        row_pair_chunk<4>(c, k, two, n0);
        n0 += 4;
      }
      for (; n0 < s.N; ++n0) row_pair_chunk<1>(c, k, two, n0);
    }
  }

  // GPUs: the group's threads load one byte of each 32-byte piece of A's
  // rows k and k + 1 (as TsmttsmTeam::touch), lane j taking pieces j, j +
  // tpr, ...: the rows are in L1 when the group gets to them, where the
  // product's own loads (a value at a time, shared by the group) kept only
  // a few hundred bytes a warp in flight. Returns how many bytes it loaded.
  KOKKOS_INLINE_FUNCTION int touch(Index k, int lane, unsigned (&t)[kTouchMax]) const {
    int n = 0;
    for (int i = 0; i < kTouchMax; ++i) {
      int j = lane + i * s.tpr;
      Index row = k;
      if (j >= s.pieces_a) {
        j -= s.pieces_a;
        ++row;
      }
      if (j < s.pieces_a && row < s.K) {
        t[i] = reinterpret_cast<const unsigned char*>(&A(row, 0))[32 * j];
        n = i + 1;
      }
    }
    return n;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int r = team.team_rank(), ts = team.team_size();
    const Index l = team.league_rank(), L = team.league_size();
    const int MN = s.M * s.N;
    Scratch c(team.team_scratch(scratch_level), MN);
    for (int e = r; e < MN; e += ts) c(e) = alpha * C(e / s.N, e % s.N);
    team.team_barrier();
    const int lane = r % s.tpr, g = r / s.tpr;
    if (g >= s.groups) return;
    if (s.span > 0) {
      const Index first = 2 * l * s.span;
      const Index last = first + 2 * s.span < s.K ? first + 2 * s.span : s.K;
      if (first >= last) return;
#if !defined(__CUDA_ARCH__)
      if constexpr (std::is_same_v<T, double>) {
        // Real rows of unit column stride: pairs of outputs in SIMD
        // registers (N = 2: 1.3x the narrow path on the development host).
        // (A single column's stride between columns is never used.)
        const bool unit = A.stride(1) == 1 && (s.N == 1 || B.stride(1) == 1);
        if (unit && (s.N == 1 || s.N == 3) && std::ptrdiff_t(B.stride(0)) == s.N) {
          // Odd N with adjacent rows: pairs straddle rows (M = N = 3: 24-byte rows).
          const double* a = &A(first, 0);
          double* b = &B(first, 0);
          if (s.N == 1)
            tsmm_host_rows_flat<1>(a, std::ptrdiff_t(A.stride(0)), c.data(), s.M, b, last - first, beta);
          else
            tsmm_host_rows_flat<3>(a, std::ptrdiff_t(A.stride(0)), c.data(), s.M, b, last - first, beta);
          return;
        }
        if (unit && s.M == s.N && (s.N == 2 || s.N == 4)) {
          const double* a = &A(first, 0);
          double* b = &B(first, 0);
          const std::ptrdiff_t ar = std::ptrdiff_t(A.stride(0)), br = std::ptrdiff_t(B.stride(0));
          if (s.N == 2)
            tsmm_host_rows_square<2, 2>(a, ar, c.data(), b, br, last - first, beta);
          else
            tsmm_host_rows_square<4, 4>(a, ar, c.data(), b, br, last - first, beta);
          return;
        }
#if TESSERA_HOST_X86
        if (s.N >= 8 && unit && host_avx2_fma()) {
          tsmm_host_rows_avx2(&A(first, 0), std::ptrdiff_t(A.stride(0)), c.data(), s.M, s.N, &B(first, 0),
                              std::ptrdiff_t(B.stride(0)), last - first, beta);
          return;
        }
#endif
        if (s.N >= 2 && unit) {
          tsmm_host_rows(&A(first, 0), std::ptrdiff_t(A.stride(0)), c.data(), s.M, s.N, &B(first, 0),
                         std::ptrdiff_t(B.stride(0)), last - first, beta);
          return;
        }
      } else {
#if TESSERA_HOST_X86
        // Complex rows of unit column stride: AVX2 + FMA where the CPU has them.
        if (A.stride(1) == 1 && (s.N == 1 || B.stride(1) == 1) && host_avx2_fma()) {
          tsmm_host_zrows_avx2(reinterpret_cast<const double*>(&A(first, 0)), 2 * std::ptrdiff_t(A.stride(0)),
                               reinterpret_cast<const double*>(c.data()), s.M, s.N,
                               reinterpret_cast<double*>(&B(first, 0)), 2 * std::ptrdiff_t(B.stride(0)), last - first,
                               beta.real(), beta.imag());
          return;
        }
#endif
      }
#endif
      if (s.N < kTsmmOut)
        narrow_rows(c, first, last);
      else
        wide_rows(c, first, last);
      return;
    }
    const Index step = 2 * L * s.groups;
    unsigned sink = 0;  // the touched bytes, so that their loads stay
    for (Index k = 2 * (l * s.groups + g); k < s.K; k += step) {
      const bool two = k + 1 < s.K;
      unsigned t[kTouchMax];
      const int touched = s.pieces_a > 0 && k + step < s.K ? touch(k + step, lane, t) : 0;
      for (int ch = 0; ch < s.chunks; ++ch) {
        T acc0[kTsmmOut], acc1[kTsmmOut];
        int n[kTsmmOut];
        for (int j = 0; j < kTsmmOut; ++j) {
          acc0[j] = acc1[j] = T(0);
          n[j] = lane + (ch * kTsmmOut + j) * s.tpr;  // interleaved: neighbouring lanes, neighbouring columns
        }
        for (int m = 0; m < s.M; ++m) {
          const T a0 = A(k, m);
          const T a1 = two ? A(k + 1, m) : T(0);
          for (int j = 0; j < kTsmmOut; ++j) {
            const T cv = n[j] < s.N ? c(m * s.N + n[j]) : T(0);
            acc0[j] += a0 * cv;
            acc1[j] += a1 * cv;
          }
        }
        for (int j = 0; j < kTsmmOut; ++j)
          if (n[j] < s.N) {
            store(k, n[j], acc0[j]);
            if (two) store(k + 1, n[j], acc1[j]);
          }
      }
      for (int i = 0; i < kTouchMax; ++i)
        if (i < touched) sink += t[i];
    }
    // Practically never true (a wrapped sum of bytes); adding a zero changes
    // at most the sign of a zero.
    if (sink == 0xffffffffu) atomic_accumulate(&B(0, 0), T(0));
  }
};

// GPUs, double, rows of A with unit column stride: the team stages blocks
// of A's rows in team scratch as TsmttsmStaged does (each value loaded once,
// coalesced, Ahead blocks' loads in flight in registers, two buffers, one
// barrier a block), transposed so that the Rows consecutive rows of a
// thread's tile are adjacent in each column; alpha C sits in scratch row by
// row. A thread's tile is Rows rows x 4 columns interleaved by NT (so that
// a warp's stores of one row of B are consecutive): per column of A Rows / 2
// 16-byte loads of A and 4 loads of C for 4 Rows FMAs; its outputs go
// straight to B. (Two rows: a block has 94-100% as many tiles as the team
// has threads at M = N = 8..16, three quarters at 32; 40 KiB of scratch.)
// (The unstaged kernel reads A a value at a time, shared by a group of
// threads, and holds a row or two in flight a thread.)
template <class ExecSpace, class ViewA, class ViewC, class ViewB, int Rows, int P, int Ahead>
struct TsmmStaged {
  using T = typename ViewB::non_const_value_type;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  using Scratch = Kokkos::View<T*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  static_assert(sizeof(T) == 8 && Rows % 2 == 0, "16-byte pairs of double");

  static constexpr int kTeam = 256;
  static constexpr int kRows = Rows;  // tile rows
  static constexpr int kCols = 4;     // tile columns

  ViewA A;
  ViewC C;
  ViewB B;
  T alpha, beta;
  int M, N, NT;       // NT column tiles
  int CS;             // elements a row of alpha C in scratch: NT * 4, zero past N
  int RS;             // elements a column of a staged block (block_rows, padded)
  int rows_per_pass;  // rows loaded by one load a thread: team size / M, a multiple of kRows
  int loads;          // loads a thread a block (<= P)
  int block_rows;     // loads * rows_per_pass
  int tiles;          // block_rows / kRows * NT
  Index K, blocks;

  using Two = Pair<T>;

  // A staged column: 16 bytes past a multiple of 128, so that a warp's
  // stores of consecutive columns of one row spread over the banks.
  static int column_width(int rows) { return rows + ((2 - rows % 16) % 16 + 16) % 16; }

  // Elements of team scratch: alpha C, then two staged blocks; one more to
  // align the 16-byte pairs.
  KOKKOS_INLINE_FUNCTION std::size_t scratch_elems() const {
    return std::size_t(M) * CS + std::size_t(2) * M * RS + 1;
  }

  // Thread r loads column r mod M of rows r / M, r / M + rows_per_pass, ...
  KOKKOS_INLINE_FUNCTION void fetch(int col, int row0, bool on, Index b, T (&v)[P]) const {
    const Index k = b * block_rows + row0;
    const Index left = on && b < blocks ? K - k : Index(0);
    const int lim = left < Index(block_rows) ? int(left) : block_rows;
    for (int j = 0; j < P; ++j) v[j] = j * rows_per_pass < lim ? A(k + Index(j) * rows_per_pass, col) : T(0);
  }
  KOKKOS_INLINE_FUNCTION void stage(int col, int row0, bool on, T* buf, const T (&v)[P]) const {
    if (on)
      for (int j = 0; j < P; ++j)
        if (j < loads) buf[col * RS + row0 + j * rows_per_pass] = v[j];
  }

  KOKKOS_INLINE_FUNCTION void store(Index k, int n, const T& v) const { store_scaled(B, k, n, v, beta); }

  // acc += (the tile's rows of one column of A) x (the tile's columns of that row of alpha C).
  KOKKOS_INLINE_FUNCTION static void fma_column(T (&acc)[kRows][kCols], const Two* pa, const T* pc, int nt) {
    T a[kRows], c[kCols];
    for (int h = 0; h < kRows / 2; ++h) {
      const Two u = pa[h];
      a[2 * h] = u.x;
      a[2 * h + 1] = u.y;
    }
    for (int j = 0; j < kCols; ++j) c[j] = pc[j * nt];
    for (int i = 0; i < kRows; ++i)
      for (int j = 0; j < kCols; ++j) acc[i][j] += a[i] * c[j];
  }

  // The thread's tiles of block b: rows rt * Rows .. of the block, columns ni + j NT.
  KOKKOS_INLINE_FUNCTION void compute(const T* buf, const T* cs, Index b, int r) const {
    const Index k0 = b * block_rows;
    const Index left = K - k0;
    const int rows = left < block_rows ? int(left) : block_rows;
    for (int tile = r; tile < tiles; tile += kTeam) {
      const int rt = tile / NT, ni = tile % NT;
      if (rt * kRows >= rows) break;
      const Two* pa = reinterpret_cast<const Two*>(buf + rt * kRows);
      const T* pc = cs + ni;
      T acc[kRows][kCols];
      for (int i = 0; i < kRows; ++i)
        for (int j = 0; j < kCols; ++j) acc[i][j] = T(0);
      // Two columns of A a pass: half the loop's own instructions.
      const int ra = RS / 2;
      int m = 0;
      for (; m + 2 <= M; m += 2, pa += 2 * ra, pc += 2 * CS) {
        fma_column(acc, pa, pc, NT);
        fma_column(acc, pa + ra, pc + CS, NT);
      }
      if (m < M) fma_column(acc, pa, pc, NT);
      for (int i = 0; i < kRows; ++i) {
        const Index k = k0 + rt * kRows + i;
        if (k < K)
          for (int j = 0; j < kCols; ++j)
            if (ni + j * NT < N) store(k, ni + j * NT, acc[i][j]);
      }
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int r = team.team_rank(), ts = team.team_size();
    const Index l = team.league_rank(), L = team.league_size();
    Scratch s(team.team_scratch(0), scratch_elems());
    T* cs = s.data();
    if (reinterpret_cast<std::uintptr_t>(cs) % sizeof(Two) != 0) ++cs;
    T* buf0 = cs + std::size_t(M) * CS;
    T* buf1 = buf0 + std::size_t(M) * RS;
    for (int e = r; e < M * CS; e += ts) {  // columns past N zero
      const int m = e / CS, n = e % CS;
      cs[e] = n < N ? alpha * C(m, n) : T(0);
    }
    const int col = r % M, row0 = r / M;
    const bool on = row0 < rows_per_pass;
    T v[Ahead][P];
    staged_pipeline(
        team, v, buf0, buf1, l, L, blocks, [&](const T* buf, Index b) { compute(buf, cs, b, r); },
        [&](T* buf, const T(&w)[P]) { stage(col, row0, on, buf, w); },
        [&](Index b, T(&w)[P]) { fetch(col, row0, on, b, w); });
  }
};

// Launches the staged TSMM kernel; returns false (launching nothing) where
// it does not apply: rows of A without unit column stride, or a scratch that
// holds neither alpha C and two blocks of one load a thread.
template <int Rows, int P, int Ahead, class Bounds, class ExecSpace, class ViewA, class ViewC, class ViewB>
bool tsmm_staged(const ExecSpace& exec, typename ViewB::non_const_value_type alpha, const ViewA& A, const ViewC& C,
                 typename ViewB::non_const_value_type beta, const ViewB& B, int loads) {
  using F = TsmmStaged<ExecSpace, ViewA, ViewC, ViewB, Rows, P, Ahead>;
  using T = typename F::T;
  F f{A, C, B, alpha, beta};
  f.M = int(A.extent(1));
  f.N = int(B.extent(1));
  if (f.M > 1 && A.stride(1) != 1) return false;
  f.K = Index(B.extent(0));
  f.NT = (f.N + F::kCols - 1) / F::kCols;
  f.CS = f.NT * F::kCols;
  f.rows_per_pass = F::kTeam / f.M / F::kRows * F::kRows;
  const std::size_t limit = std::size_t(Kokkos::TeamPolicy<ExecSpace>::scratch_size_max(0));
  f.loads = 0;
  for (int j = loads < P ? loads : P; j >= 1 && f.loads == 0; --j) {
    f.block_rows = j * f.rows_per_pass;
    f.RS = F::column_width(f.block_rows);
    if (sizeof(T) * f.scratch_elems() <= limit) f.loads = j;
  }
  if (f.loads == 0) return false;
  f.tiles = f.block_rows / F::kRows * f.NT;
  f.blocks = (f.K + f.block_rows - 1) / f.block_rows;
  launch_staged<Bounds>(exec, "tessera::tsm::tsmm_staged", f);
  return true;
}

// GPUs, double, small N: the team stages blocks of A's rows in team scratch
// as they lie in memory (a row of M values, padded to an odd stride where
// that fits, so that a warp's reads of up to 16 rows hit distinct banks;
// 40 KiB of scratch a team in Kokkos 3.4), Ahead blocks' loads in
// flight in registers, two buffers, one barrier a block (staged_pipeline).
// Thread t owns columns n, n + NH, ... (Cols of them; n = t mod NH, NH =
// ceil(N / Cols)) of rows t / NH + j G (G = 256 / NH rows a pass, j < J):
// its tile is J rows x Cols columns, so a warp's stores of B are
// consecutive, where the staged tile kernel's 4 columns of one row leave a
// warp's stores 32-64 bytes apart at N <= 8 (a quarter to half of each
// 32-byte sector written per store instruction). Per column of A: Cols
// loads of alpha C and J of A for J Cols FMAs.
template <class ExecSpace, class ViewA, class ViewC, class ViewB, int J, int Cols, int P, int Ahead>
struct TsmmFlat {
  using T = typename ViewB::non_const_value_type;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  using Scratch = Kokkos::View<T*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;

  static constexpr int kTeam = 256;

  ViewA A;
  ViewC C;
  ViewB B;
  T alpha, beta;
  int M, N;
  int MS;          // elements a staged row: M, or M + 1 when M is even, > 2 and it fits
  int NH;          // column groups: ceil(N / Cols); a thread's columns are n, n + NH, ...
  int CW;          // elements a row of alpha C in scratch: NH Cols, zero past N
  int G;           // rows a pass of the team's tiles: kTeam / NH
  int rows;        // rows a block: J G (the last block of A may hold fewer)
  int loads;       // loads a thread a block: ceil(rows M / kTeam) <= P
  Index K, blocks;

  KOKKOS_INLINE_FUNCTION std::size_t scratch_elems() const {
    return std::size_t(M) * CW + std::size_t(2) * rows * MS;
  }

  KOKKOS_INLINE_FUNCTION void fetch(int r, const int (&er)[P], Index b, T (&v)[P]) const {
    fetch_flat_block<kTeam>(*this, r, er, b, v);
  }
  KOKKOS_INLINE_FUNCTION void stage(int r, const int (&er)[P], T* buf, const T (&v)[P]) const {
    for (int j = 0; j < P; ++j)
      if (j < loads && er[j] < rows) buf[r + j * kTeam + er[j] * (MS - M)] = v[j];
  }

  KOKKOS_INLINE_FUNCTION void compute(const T* buf, const T* cs, Index b, int r) const {
    if (r >= G * NH) return;
    const int n = r % NH, q = r / NH;
    T acc[J][Cols];
    for (int j = 0; j < J; ++j)
      for (int c = 0; c < Cols; ++c) acc[j][c] = T(0);
    const T* pa = buf + q * MS;
    for (int m = 0; m < M; ++m) {
      T cv[Cols];
      for (int c = 0; c < Cols; ++c) cv[c] = cs[m * CW + n + c * NH];
      for (int j = 0; j < J; ++j) {
        const T a = pa[j * G * MS + m];
        for (int c = 0; c < Cols; ++c) acc[j][c] += a * cv[c];
      }
    }
    const Index k0 = b * rows + q;
    for (int j = 0; j < J; ++j) {
      const Index k = k0 + Index(j) * G;
      if (k < K)
        for (int c = 0; c < Cols; ++c)
          if (n + c * NH < N) {  // store_scaled written out: through it nvcc schedules this kernel
                                 // differently, not yet measured on a GPU
            if (is_zero(beta))
              B(k, n + c * NH) = acc[j][c];
            else
              B(k, n + c * NH) = acc[j][c] + beta * B(k, n + c * NH);
          }
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int r = team.team_rank(), ts = team.team_size();
    const Index l = team.league_rank(), L = team.league_size();
    Scratch s(team.team_scratch(0), scratch_elems());
    T* cs = s.data();
    T* buf0 = cs + std::size_t(M) * CW;
    T* buf1 = buf0 + std::size_t(rows) * MS;
    for (int e = r; e < M * CW; e += ts) cs[e] = e % CW < N ? alpha * C(e / CW, e % CW) : T(0);
    int er[P];
    for (int j = 0; j < P; ++j) er[j] = (r + j * kTeam) / M;
    T v[Ahead][P];
    staged_pipeline(
        team, v, buf0, buf1, l, L, blocks, [&](const T* buf, Index b) { compute(buf, cs, b, r); },
        [&](T* buf, const T(&w)[P]) { stage(r, er, buf, w); }, [&](Index b, T(&w)[P]) { fetch(r, er, b, w); });
  }
};

// Launches the flat TSMM kernel; returns false (launching nothing) where it
// does not apply: rows of A without unit column stride, or a scratch that
// holds neither alpha C and two blocks of J G rows within P loads a thread.
template <int J, int Cols, int P, int Ahead, class Bounds, class ExecSpace, class ViewA, class ViewC, class ViewB>
bool tsmm_flat(const ExecSpace& exec, typename ViewB::non_const_value_type alpha, const ViewA& A, const ViewC& C,
               typename ViewB::non_const_value_type beta, const ViewB& B) {
  using F = TsmmFlat<ExecSpace, ViewA, ViewC, ViewB, J, Cols, P, Ahead>;
  using T = typename F::T;
  F f{A, C, B, alpha, beta};
  f.M = int(A.extent(1));
  f.N = int(B.extent(1));
  if (f.M > 1 && A.stride(1) != 1) return false;
  f.K = Index(B.extent(0));
  f.NH = (f.N + Cols - 1) / Cols;
  f.CW = f.NH * Cols;
  f.G = F::kTeam / f.NH;
  f.rows = J * f.G;
  f.loads = (f.rows * f.M + F::kTeam - 1) / F::kTeam;
  if (f.loads > P) return false;
  // Rows padded to an odd stride where that still fits (not at M = N = 4).
  const std::size_t limit = std::size_t(Kokkos::TeamPolicy<ExecSpace>::scratch_size_max(0));
  f.MS = f.M % 2 == 0 && f.M > 2 ? f.M + 1 : f.M;
  if (sizeof(T) * f.scratch_elems() > limit) f.MS = f.M;
  if (sizeof(T) * f.scratch_elems() > limit) return false;
  f.blocks = (f.K + f.rows - 1) / f.rows;
  launch_staged<Bounds>(exec, "tessera::tsm::tsmm_flat", f);
  return true;
}

// GPUs, double, 8 <= M <= N <= 32: the team stages blocks of A transposed (a
// column of the block's rows contiguous), so that a thread's J consecutive
// rows of one column are J / 2 16-byte shared loads, and alpha C row by row,
// so that its two adjacent columns 2n, 2n + 1 are one. Thread t owns rows q J
// .. q J + J - 1 (q = t / NH) of columns 2n, 2n + 1 (n = t mod NH, NH =
// ceil(N / 2)): per column of A J / 2 + 1 loads for 2 J FMAs, against J + 2
// in the flat kernel's 4 x 2 tile; a warp's 16-byte stores of B cover whole
// rows. A staged column holds the block's J G rows padded to RS = 2 mod 4
// values, so that a warp's staging stores of consecutive columns of one row
// fall into 8 of the 16 8-byte banks (a column rotated by its index instead
// ran 1.02-1.08x slower at 20..32, in another run: index arithmetic a
// load).
template <class ExecSpace, class ViewA, class ViewC, class ViewB, int J, int P, int Ahead>
struct TsmmPaired {
  using T = typename ViewB::non_const_value_type;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  using Scratch = Kokkos::View<T*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  static_assert(sizeof(T) == 8 && J % 2 == 0, "16-byte pairs of double");

  static constexpr int kTeam = 256;

  using Two = Pair<T>;

  ViewA A;
  ViewC C;
  ViewB B;
  T alpha, beta;
  int M, N;
  int NH;          // column pairs: ceil(N / 2)
  int G;           // row groups a block (G NH <= kTeam; fewer where the scratch is short)
  int rows;        // rows a block: J G
  int RS;          // elements a staged column: the rows padded to 2 mod 4
  int loads;       // loads a thread a block: ceil(rows M / kTeam) <= P
  bool pair_rows;  // B's rows are 16-byte aligned pairs: stores of two columns at once
  Index K, blocks;

  // Elements of team scratch: alpha C (M x 2 NH), two staged blocks, one more
  // to align the pairs.
  KOKKOS_INLINE_FUNCTION std::size_t scratch_elems() const {
    return std::size_t(M) * 2 * NH + std::size_t(2) * M * RS + 1;
  }

  // Loads as the flat kernel's (fetch_flat_block); staged at so[j] (-1: none).
  KOKKOS_INLINE_FUNCTION void fetch(int r, const int (&er)[P], Index b, T (&v)[P]) const {
    fetch_flat_block<kTeam>(*this, r, er, b, v);
  }
  KOKKOS_INLINE_FUNCTION static void stage(const int (&so)[P], T* buf, const T (&v)[P]) {
    for (int j = 0; j < P; ++j)
      if (so[j] >= 0) buf[so[j]] = v[j];
  }

  KOKKOS_INLINE_FUNCTION void store(Index k, int c, const T& x, const T& y) const {
    if (pair_rows) {
      Two& o = reinterpret_cast<Two*>(&B(k, 0))[c / 2];
      if (is_zero(beta)) {
        o = Two{x, y};
      } else {
        const Two w = o;
        o = Two{x + beta * w.x, y + beta * w.y};
      }
      return;
    }
    for (int i = 0; i < 2 && c + i < N; ++i) store_scaled(B, k, c + i, i == 0 ? x : y, beta);
  }

  KOKKOS_INLINE_FUNCTION void compute(const T* buf, const T* cs, Index b, int r) const {
    if (r >= G * NH) return;
    const int n = r % NH, q = r / NH, P2 = RS / 2;
    T acc[J][2];
    for (int i = 0; i < J; ++i) acc[i][0] = acc[i][1] = T(0);
    const Two* pa = reinterpret_cast<const Two*>(buf) + q * (J / 2);
    const Two* pc = reinterpret_cast<const Two*>(cs) + n;
    for (int m = 0; m < M; ++m, pa += P2, pc += NH) {
      const Two c = *pc;
      for (int h = 0; h < J / 2; ++h) {
        const Two a = pa[h];
        acc[2 * h][0] += a.x * c.x;
        acc[2 * h][1] += a.x * c.y;
        acc[2 * h + 1][0] += a.y * c.x;
        acc[2 * h + 1][1] += a.y * c.y;
      }
    }
    const Index k0 = b * rows + q * J;
    for (int i = 0; i < J; ++i)
      if (k0 + i < K) store(k0 + i, 2 * n, acc[i][0], acc[i][1]);
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team) const {
    const int r = team.team_rank(), ts = team.team_size();
    const Index l = team.league_rank(), L = team.league_size();
    Scratch s(team.team_scratch(0), scratch_elems());
    T* cs = s.data();
    if (reinterpret_cast<std::uintptr_t>(cs) % sizeof(Two) != 0) ++cs;
    T* buf0 = cs + std::size_t(M) * 2 * NH;
    T* buf1 = buf0 + std::size_t(M) * RS;
    for (int e = r; e < M * 2 * NH; e += ts) {  // the column past an odd N zero
      const int m = e / (2 * NH), c = e % (2 * NH);
      cs[e] = c < N ? alpha * C(m, c) : T(0);
    }
    int er[P], so[P];
    for (int j = 0; j < P; ++j) {
      const int e = r + j * kTeam, row = e / M, col = e - row * M;
      er[j] = row;
      so[j] = j < loads && row < rows ? col * RS + row : -1;
    }
    T v[Ahead][P];
    staged_pipeline(
        team, v, buf0, buf1, l, L, blocks, [&](const T* buf, Index b) { compute(buf, cs, b, r); },
        [&](T* buf, const T(&w)[P]) { stage(so, buf, w); }, [&](Index b, T(&w)[P]) { fetch(r, er, b, w); });
  }
};

// Launches the paired TSMM kernel; returns false (launching nothing) where
// it does not apply: rows of A without unit column stride, or a scratch that
// holds neither alpha C and two blocks of J rows within P loads a thread.
// The row groups shrink from kTeam / NH until the blocks fit.
template <int J, int P, int Ahead, class Bounds, class ExecSpace, class ViewA, class ViewC, class ViewB>
bool tsmm_paired(const ExecSpace& exec, typename ViewB::non_const_value_type alpha, const ViewA& A, const ViewC& C,
                 typename ViewB::non_const_value_type beta, const ViewB& B) {
  using F = TsmmPaired<ExecSpace, ViewA, ViewC, ViewB, J, P, Ahead>;
  using T = typename F::T;
  F f{A, C, B, alpha, beta};
  f.M = int(A.extent(1));
  f.N = int(B.extent(1));
  if (f.M > 1 && A.stride(1) != 1) return false;
  f.K = Index(B.extent(0));
  f.NH = (f.N + 1) / 2;
  const std::size_t limit = std::size_t(Kokkos::TeamPolicy<ExecSpace>::scratch_size_max(0));
  for (f.G = F::kTeam / f.NH; f.G >= 1; --f.G) {
    f.rows = J * f.G;
    f.RS = f.rows % 4 == 0 ? f.rows + 2 : f.rows;  // rows is even
    f.loads = (f.rows * f.M + F::kTeam - 1) / F::kTeam;
    if (f.loads <= P && sizeof(T) * f.scratch_elems() <= limit) break;
  }
  if (f.G < 1) return false;
  f.pair_rows = f.N % 2 == 0 && B.stride(1) == 1 && B.stride(0) % 2 == 0 &&
                reinterpret_cast<std::uintptr_t>(B.data()) % sizeof(typename F::Two) == 0;
  f.blocks = (f.K + f.rows - 1) / f.rows;
  launch_staged<Bounds>(exec, "tessera::tsm::tsmm_paired", f);
  return true;
}

// B = alpha A C + beta B. Extents checked by the caller.
template <class ExecSpace, class ViewA, class ViewC, class ViewB>
void tsmm_kokkos(const ExecSpace& exec, typename ViewB::non_const_value_type alpha, const ViewA& A, const ViewC& C,
                 typename ViewB::non_const_value_type beta, const ViewB& B) {
  using T = typename ViewB::non_const_value_type;
  const Index K = Index(B.extent(0));
  if (K == 0) return;
  if (is_zero(alpha)) {
    scale_matrix(exec, B, beta);
    return;
  }
  if constexpr (is_device_space_v<ExecSpace> && std::is_same_v<T, double>) {
    // GPUs, double, rows of A of unit column stride: A staged in team
    // scratch (H200, docs/perf/tsm.md "Portable TSMM: the paired kernel",
    // "Portable kernels at small sides" and "Portable TSMM on the GPU").
    // 8 <= M <= N <= 32: the paired kernel (TsmmPaired: 4 rows x 2 adjacent
    // columns, 16-byte shared loads and stores; 1.06-1.29x the flat kernel
    // at M = N = 12..32 and 24 x 32), but not at odd N <= 29, where B's rows
    // are not 16-byte pairs and the flat kernel's 4 x 2 tile ran 1.02-1.47x
    // faster (M = N = 9..29; 0.97x at 31). Else N <= 32: the flat kernel
    // (TsmmFlat: a thread's tile is rows of one or two columns, a warp's
    // stores consecutive; 1.09-2.4x the tile kernel at M = N = 1..32, 3 x 17
    // and 64 x 8): 8 rows x 1 column where M <= N, 1 row where 4N <= M <= 8N
    // (4 rows x 2 columns where forced, or where the paired kernel does not
    // apply and M >= 8, 8 <= N <= 29). Otherwise the tile kernel (TsmmStaged:
    // 2 x 4 tiles; 1.02-1.75x the unstaged kernel from M = N = 4), and where
    // neither fits in the scratch (M = N = 64) the unstaged kernel.
    // TESSERA_TSM_PORTABLE_TSMM_STAGE (0 unstaged | 1 tile | 2 flat | 3
    // paired), _TSMM_COLS (1 | 2) and _STAGE_LOADS override, for benchmarks.
    const PortableOverrides& o = portable_overrides();
    const int M = int(A.extent(1)), N = int(B.extent(1));
    using Bounds = Kokkos::LaunchBounds<256, 2>;
    const bool paired = M >= 8 && M <= N && (N % 2 == 0 || N > 29);
    const int pick = o.tsmm_stage ? *o.tsmm_stage : (N <= 32 ? (paired ? 3 : 2) : 1);
    const bool wide = o.tsmm_cols ? *o.tsmm_cols == 2 : M >= 8 && N >= 8 && N <= 29;
    if (pick == 3 && tsmm_paired<4, 8, 2, Bounds>(exec, alpha, A, C, beta, B)) return;
    if (pick >= 2) {
      if (wide && M <= N && tsmm_flat<4, 2, 8, 2, Bounds>(exec, alpha, A, C, beta, B)) return;
      if (M <= N && tsmm_flat<8, 1, 8, 2, Bounds>(exec, alpha, A, C, beta, B)) return;
      if (M >= 4 * N && M <= 8 * N && tsmm_flat<1, 1, 8, 2, Bounds>(exec, alpha, A, C, beta, B)) return;
    }
    const int loads = o.stage_loads ? *o.stage_loads : 8;
    if (pick >= 1 && tsmm_staged<2, 8, 2, Bounds>(exec, alpha, A, C, beta, B, loads)) return;
  }
  TsmmShape s;
  s.M = int(A.extent(1));
  s.N = int(B.extent(1));
  s.K = K;
  int team = 1;
  if constexpr (is_device_space_v<ExecSpace>) {
    s.tpr = (s.N + kTsmmOut - 1) / kTsmmOut;  // one chunk of kTsmmOut outputs per thread
    team = 256;
    s.groups = team / s.tpr;
    // Touching the group's next pair of rows of A where it helped on an H200
    // (complex 1.17-1.22x at 16 and 32, double 1.03-1.05x at 32..64; slower
    // at 8..24): TESSERA_TSM_PORTABLE_TSMM_TOUCH = 0 | 1 overrides.
    const int lo = s.M < s.N ? s.M : s.N;
    bool touch = std::is_same_v<T, double> ? lo >= 32 : lo > 8;
    if (const auto& o = portable_overrides().tsmm_touch) touch = *o == 1;
    if (touch && (s.M <= 1 || A.stride(1) == 1)) s.pieces_a = touch_pieces<T>(s.M);
  } else {
    s.tpr = 1;
    s.groups = 1;
  }
  s.chunks = (s.N + kTsmmOut * s.tpr - 1) / (kTsmmOut * s.tpr);
  const Index pairs = (K + 1) / 2;
  const Index needed = (pairs + s.groups - 1) / s.groups;
  const Index league = league_for(exec, needed, team);
  s.span = is_device_space_v<ExecSpace> ? 0 : (pairs + league - 1) / league;
  const std::size_t bytes = Kokkos::View<T*, typename ExecSpace::scratch_memory_space>::shmem_size(s.M * s.N);
  const int level = scratch_level_for<ExecSpace>(bytes);
  // Double: three teams of 256 an SM (at most 85 registers; 72 without the
  // touch code), as before it.
  using Bounds = std::conditional_t<std::is_same_v<T, double>, Kokkos::LaunchBounds<256, 3>, Kokkos::LaunchBounds<>>;
  Kokkos::parallel_for("tessera::tsm::tsmm",
                       full_occupancy(Kokkos::TeamPolicy<ExecSpace, Bounds>(exec, int(league), team)
                                          .set_scratch_size(level, Kokkos::PerTeam(bytes))),
                       TsmmTeam<ExecSpace, ViewA, ViewC, ViewB>{A, C, B, alpha, beta, s, level});
}

}  // namespace tessera::tsm::impl

#if defined(__NVCC__)
#pragma nv_diag_default 1675
#endif
