#pragma once
// Portable Himeno kernel "rows", written for CPUs: one work item per (i, j)
// row of k, and within the row plain loops over raw __restrict__ pointers that
// g++ -O3 vectorises along k (unit stride). The MDRange kernel does not
// vectorise: its per-point body sits behind Kokkos' tile loops and adds ss^2
// to one accumulator, a sequential floating-point sum the compiler may not
// reorder without -ffast-math. Here a row is done in chunks: the first loop
// writes wrk2 and keeps ss in a stack buffer (no reduction: vectorises), the
// second sums the buffer into kGosaLanes independent partial sums (vectorises
// as lanes). The stencil is point_ss() itself, on row accessors, so the float
// rounding of ss and wrk2 is that of the other kernels; only gosa's summation
// order differs. On GPUs this is one thread per row (uncoalesced, slow) but
// correct: use teamscratch or the native kernels there.
#include "tessera/himeno/impl/himeno_kokkos.hpp"

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>

namespace tessera::himeno::impl {

// k points per chunk: the ss buffer (1 KiB float, 2 KiB double) stays in L1
// between the two loops.
inline constexpr int kRowChunk = 256;
// Partial gosa sums: at least one vector of Accum (8 doubles = AVX-512).
inline constexpr int kGosaLanes = 8;

// point_ss() accessors over one row (k only; i and j are fixed): a 3-D array
// at x, a 4-D one at x + n * sn.
template <class Scalar>
struct Row3 {
  using non_const_value_type = Scalar;
  const Scalar* __restrict__ x;
  KOKKOS_FORCEINLINE_FUNCTION Scalar operator()(int, int, int k) const { return x[k]; }
};
template <class Scalar>
struct Row4 {
  const Scalar* __restrict__ x;
  std::ptrdiff_t sn;
  KOKKOS_FORCEINLINE_FUNCTION Scalar operator()(int n, int, int, int k) const { return x[n * sn + k]; }
};

// One chunk of n points of a row: wrk2[0, n) and ss[0, n). Pointers are at
// the chunk's first point; p's neighbour planes i-1 and i+1 are at p + s_dn
// and p + s_up (-si and +si in an array; a ring of planes in fused), its
// neighbour rows at -+ sj. The pointers are __restrict__ parameters (g++
// reliably uses restrict only there) and each array has one, so g++
// vectorises without run-time overlap checks (beyond 10 it gives up; a p row
// picked from several restrict pointers was not recognised either).
template <class Scalar>
KOKKOS_FORCEINLINE_FUNCTION void rows_chunk_body(int n, Scalar omega, const Scalar* __restrict__ a,
                                                 const Scalar* __restrict__ b, const Scalar* __restrict__ c,
                                                 std::ptrdiff_t sn, const Scalar* __restrict__ bnd,
                                                 const Scalar* __restrict__ wrk1, const Scalar* __restrict__ p,
                                                 std::ptrdiff_t s_dn, std::ptrdiff_t s_up, std::ptrdiff_t sj,
                                                 Scalar* __restrict__ wrk2, Scalar* __restrict__ ss) {
  const Row4<Scalar> va{a, sn}, vb{b, sn}, vc{c, sn};
  const Row3<Scalar> vbnd{bnd}, vw{wrk1};
  for (int k = 0; k < n; ++k) {
    const auto P = [=](int di, int dj, int dk) {
      return p[(di < 0 ? s_dn : di > 0 ? s_up : 0) + dj * sj + k + dk];
    };
    const Scalar s = point_ss(P, va, vb, vc, vbnd, vw, 0, 0, k);
    wrk2[k] = p[k] + omega * s;
    ss[k] = s;
  }
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__CUDA_ARCH__)
#define TESSERA_HIMENO_ROWS_ISA 1
// Host builds are compiled for the baseline x86-64 (SSE2: 2 doubles or 4
// floats per vector) so that one binary runs anywhere; rows_chunk picks the
// widest copy of the loop this CPU runs, once. AVX2 (no FMA, so every
// copy rounds alike and gives the same bits) doubles the vector; on the
// 16-core Xeon of the GPU machine it runs the loop from L2 1.4-2x faster,
// which is what the two-sweep kernel's second sweep reads from (AVX-512
// measured no faster: docs/perf/himeno.md, "The CPU loop's rate by cache level").
#define TESSERA_HIMENO_ROWS_COPY(isa, attr)                                                                      \
  template <class Scalar>                                                                                      \
  attr __attribute__((noinline)) void rows_chunk_##isa(                                                        \
      int n, Scalar omega, const Scalar* __restrict__ a, const Scalar* __restrict__ b,                         \
      const Scalar* __restrict__ c, std::ptrdiff_t sn, const Scalar* __restrict__ bnd,                         \
      const Scalar* __restrict__ wrk1, const Scalar* __restrict__ p, std::ptrdiff_t s_dn, std::ptrdiff_t s_up, \
      std::ptrdiff_t sj, Scalar* __restrict__ wrk2, Scalar* __restrict__ ss) {                                 \
    rows_chunk_body<Scalar>(n, omega, a, b, c, sn, bnd, wrk1, p, s_dn, s_up, sj, wrk2, ss);                    \
  }
TESSERA_HIMENO_ROWS_COPY(baseline, )
TESSERA_HIMENO_ROWS_COPY(avx2, __attribute__((target("avx2"))))
#undef TESSERA_HIMENO_ROWS_COPY

// The copies of the row loop, widest first; rows_isa(): the widest this CPU runs.
enum class RowsIsa { avx2, baseline };
inline const char* rows_isa_name(RowsIsa isa) { return isa == RowsIsa::avx2 ? "avx2" : "baseline"; }
inline bool rows_isa_supported(RowsIsa isa) {
  return isa == RowsIsa::baseline || __builtin_cpu_supports("avx2");
}
inline RowsIsa rows_isa() {
  static const RowsIsa isa = rows_isa_supported(RowsIsa::avx2) ? RowsIsa::avx2 : RowsIsa::baseline;
  return isa;
}
template <class Scalar>
using RowsChunkFn = void (*)(int, Scalar, const Scalar*, const Scalar*, const Scalar*, std::ptrdiff_t, const Scalar*,
                             const Scalar*, const Scalar*, std::ptrdiff_t, std::ptrdiff_t, std::ptrdiff_t, Scalar*,
                             Scalar*);
template <class Scalar>
RowsChunkFn<Scalar> rows_chunk_fn(RowsIsa isa) {
  return isa == RowsIsa::avx2 ? &rows_chunk_avx2<Scalar> : &rows_chunk_baseline<Scalar>;
}
// The copy rows_chunk runs: the widest this CPU supports; benchmarks set it
// to compare the copies (perf/bench/himeno_cpu_bench.cpp).
template <class Scalar>
RowsChunkFn<Scalar>& rows_chunk_active() {
  static RowsChunkFn<Scalar> fn = rows_chunk_fn<Scalar>(rows_isa());
  return fn;
}
#endif

// rows_chunk_body: on x86-64 hosts the widest copy this CPU runs; elsewhere
// (GPUs, other CPUs) the loop itself.
template <class Scalar>
KOKKOS_INLINE_FUNCTION void rows_chunk(int n, Scalar omega, const Scalar* a, const Scalar* b, const Scalar* c,
                                       std::ptrdiff_t sn, const Scalar* bnd, const Scalar* wrk1, const Scalar* p,
                                       std::ptrdiff_t s_dn, std::ptrdiff_t s_up, std::ptrdiff_t sj, Scalar* wrk2,
                                       Scalar* ss) {
#ifdef TESSERA_HIMENO_ROWS_ISA
  rows_chunk_active<Scalar>()(n, omega, a, b, c, sn, bnd, wrk1, p, s_dn, s_up, sj, wrk2, ss);
#else
  rows_chunk_body<Scalar>(n, omega, a, b, c, sn, bnd, wrk1, p, s_dn, s_up, sj, wrk2, ss);
#endif
}

template <class State, class Accum>
struct SweepRows {
  using Scalar = typename State::scalar_type;
  using value_type = Accum;
  Arrays<State> f;
  Scalar omega;
  int ibegin, nj, kmax;  // row r is (ibegin + r / nj, 1 + r % nj)

  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t r, Accum& gosa) const {
    const int i = ibegin + int(r / nj), j = 1 + int(r % nj);
    const auto& a = f.a;
    const auto& b = f.b;
    const auto& c = f.c;
    const auto& p = f.p;
    const std::ptrdiff_t sn = a.stride(0), si = p.stride(0), sj = p.stride(1);
    Scalar ss[kRowChunk];
    Accum acc[kGosaLanes] = {};
    for (int k0 = 1; k0 < kmax - 1; k0 += kRowChunk) {
      const int n = kmax - 1 - k0 < kRowChunk ? kmax - 1 - k0 : kRowChunk;
      rows_chunk<Scalar>(n, omega, &a(0, i, j, k0), &b(0, i, j, k0), &c(0, i, j, k0), sn, &f.bnd(i, j, k0),
                         &f.wrk1(i, j, k0), &p(i, j, k0), -si, si, sj, &f.wrk2(i, j, k0), ss);
      int k = 0;
      for (; k + kGosaLanes <= n; k += kGosaLanes)
        for (int l = 0; l < kGosaLanes; ++l) acc[l] += Accum(ss[k + l]) * Accum(ss[k + l]);
      for (; k < n; ++k) acc[k % kGosaLanes] += Accum(ss[k]) * Accum(ss[k]);
    }
    Accum row = 0;
    for (int l = 0; l < kGosaLanes; ++l) row += acc[l];
    gosa += row;
  }
};

template <class Accum, class ExecSpace, class State, class Result>
void sweep_rows(const ExecSpace& exec, const State& s, const SweepOptions& opt, Result& result) {
  const PlaneRange r = plane_range(s.grid.imax, opt);
  if (r.begin == r.end) {  // nothing to update: gosa 0, as teamscratch does
    sweep_mdrange<Accum>(exec, s, opt, result);
    return;
  }
  const int nj = s.grid.jmax - 2;
  const std::int64_t rows = std::int64_t(r.end - r.begin) * nj;
  Kokkos::parallel_reduce("tessera::himeno::sweep[rows]",
                          Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, rows),
                          SweepRows<State, Accum>{Arrays<State>(s), s.omega, r.begin, nj, s.grid.kmax}, result);
}

}  // namespace tessera::himeno::impl
