#pragma once
// Portable Himeno kernel "pointwise": what the fastest native CUDA kernel
// does, written once in Kokkos. On GPUs a team is 256 threads (vector length
// 1) over a tile of 16 j rows x 32 k points, two points a thread (rows j and
// j + 8: two independent sets of loads in flight; at one point a thread
// float reached 77% of copy, now 91%). A warp is 32 consecutive k starting
// on a 128-byte line (k = 0 .. 31, 32 .. 63, ...; the boundary k idle): its
// 32 loads of each of the 14 streams then touch one line, not two (+20% for
// the native kernel on the H100, docs/perf/himeno.md). The caches do the
// reuse of p: the teams come in chunks of j-tiles that walk all their planes
// (himeno_chunk_order.hpp), and the policy asks for full occupancy
// (DesiredOccupancy), which gives the kernel the smallest shared-memory
// carve-out and the rest as L1 (Kokkos 3.4 launches team kernels preferring
// shared memory: 28 KiB of L1 on the H100).
// One team per tile: Kokkos patch 0007 lets a Cuda team reduction launch one
// block per team (up to 2^20), fence only the block's partial and sum the
// partials quickly. Unpatched, Kokkos 3.4 loops 32768 blocks over the tiles
// and one warp adds their 32768 partials one load at a time: ncu (L float)
// showed that tail at 35% of the sweep. (One persistent wave of teams
// instead: +25% at L, -25% at XL, where the teams drift apart and lose the
// chunk order's reuse of p in L2.)
// On CPUs: one-thread teams, a point each (the rows kernel is the one for them).
#include "tessera/core/fast_div.hpp"
#include "tessera/himeno/himeno_chunk_order.hpp"
#include "tessera/himeno/impl/himeno_kokkos.hpp"
#include "tessera/himeno/impl/himeno_kokkos_rows.hpp"

#include <algorithm>
#include <cstddef>

namespace tessera::himeno::impl {

template <class ExecSpace, class State, class Accum, int kRows = 1>
struct SweepPointwise {
  using Scalar = typename State::scalar_type;
  using value_type = Accum;
  // Thread rows per team, tile rows, points per row (a warp), team threads.
  static constexpr int TR = 8, TJ = TR * kRows, TK = 32, kTeam = TR * TK;
  // Teams per multiprocessor: with two points a thread, four 256-thread teams
  // (at most 64 registers on CUDA). With one, eight in float (32 registers, as
  // the native kernel uses), six in double (40: at 32 it spilled).
  static constexpr unsigned kTeamsPerSM = kRows == 1 ? (sizeof(Scalar) == 4 ? 8 : 6) : 4;
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::LaunchBounds<kTeam, kTeamsPerSM>>;
  using Member = typename Policy::member_type;
  // Raw pointers and one stride pair (HimenoState's arrays are unpadded
  // LayoutRight of one shape): 14 Views' extents and strides in the kernel's
  // parameters made nvcc spill at 32 registers.
  const Scalar *a, *b, *c, *bnd, *wrk1, *p;
  Scalar* wrk2;
  std::ptrdiff_t sn, si, sj;  // a/b/c's coefficient stride, then i and j
  Scalar omega;
  int ibegin, jmax, kmax;
  // League order: k-tile fastest, then the j-tiles of a chunk, then planes,
  // then chunks; the last chunk may have fewer j-tiles.
  FastDiv nbk, per_chunk, cj, cj_last;  // k-tiles; tile rows per chunk (cj * planes); j-tiles per chunk
  int last_chunk;

  SweepPointwise(const State& s, int ib, int planes, int nj_tiles, int nk_tiles, int chunk)
      : a(s.a.data()), b(s.b.data()), c(s.c.data()), bnd(s.bnd.data()), wrk1(s.wrk1.data()), p(s.p.data()),
        wrk2(s.wrk2.data()), sn(s.a.stride(0)), si(s.p.stride(0)), sj(s.p.stride(1)), omega(s.omega), ibegin(ib),
        jmax(s.grid.jmax), kmax(s.grid.kmax), nbk(nk_tiles), per_chunk(chunk * planes), cj(chunk),
        cj_last(nj_tiles - (nj_tiles - 1) / chunk * chunk), last_chunk((nj_tiles - 1) / chunk) {}

  // One point per team thread (vector length 1): each thread adds its own
  // ss^2 to the result, which Kokkos reduces over the team threads; a
  // vector-lane or team reduction per team (shuffle loops, integer divisions,
  // barriers) had cost as much as the stencil.
  // Team t's tile: k-tile kb, j-tile jb, plane ibegin + ti (ChunkOrder's
  // order, with multiply-shift divisions).
  KOKKOS_INLINE_FUNCTION void tile(int t, int& kb, int& jb, int& ti) const {
    const int r = nbk.quotient(t);
    kb = t - r * nbk.divisor();
    const int ch = per_chunk.quotient(r), rem = r - ch * per_chunk.divisor();
    const FastDiv& width = ch == last_chunk ? cj_last : cj;
    ti = width.quotient(rem);
    jb = ch * cj.divisor() + rem - ti * width.divisor();
  }

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team, Accum& gosa) const {
    int kb, jb, ti;
    tile(team.league_rank(), kb, jb, ti);
    const int i = ibegin + ti;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, kTeam), [&](int x) {
      for (int r = 0; r < kRows; ++r) {
        const int j = 1 + jb * TJ + x / TK + r * TR, k = kb * TK + x % TK;
        if (j < jmax - 1 && k >= 1 && k < kmax - 1) {
          const std::ptrdiff_t o = i * si + j * sj + k;
          const Scalar* po = p + o;
          const auto P = [&](int di, int dj, int dk) { return po[di * si + dj * sj + dk]; };
          const Scalar ss = point_ss(P, Row4<Scalar>{a + o, sn}, Row4<Scalar>{b + o, sn}, Row4<Scalar>{c + o, sn},
                                     Row3<Scalar>{bnd + o}, Row3<Scalar>{wrk1 + o}, 0, 0, 0);
          wrk2[o] = po[0] + omega * ss;
          gosa += Accum(ss) * Accum(ss);
        }
      }
    });
  }
};

template <class Accum, class ExecSpace, class State, class Result>
void sweep_pointwise(const ExecSpace& exec, const State& s, const SweepOptions& opt, Result& result) {
  constexpr bool gpu = is_device_space_v<ExecSpace>;
  using Functor = SweepPointwise<ExecSpace, State, Accum, gpu ? 2 : 1>;  // CPUs: one-thread teams, a point each
  const PlaneRange r = plane_range(s.grid.imax, opt);
  if (r.begin == r.end || !uniform_layout(s)) {  // an empty range gives gosa 0; other layouts: no raw pointers
    sweep_mdrange<Accum>(exec, s, opt, result);
    return;
  }
  const int jmax = s.grid.jmax, kmax = s.grid.kmax;
  const int nbj = (jmax - 2 + Functor::TJ - 1) / Functor::TJ, nbk = (kmax + Functor::TK - 1) / Functor::TK;
  const int planes = r.end - r.begin;
  const int chunk = gpu ? chunk_tiles(kmax, Functor::TJ, sizeof(typename Functor::Scalar), nbj) : std::max(1, nbj);
  const typename Functor::Policy policy(exec, planes * nbj * nbk, gpu ? Functor::kTeam : 1, 1);
  Kokkos::parallel_reduce("tessera::himeno::sweep[pointwise]",
                          Kokkos::Experimental::prefer(policy, Kokkos::Experimental::DesiredOccupancy{100}),
                          Functor(s, r.begin, planes, nbj, nbk, chunk), result);
}

}  // namespace tessera::himeno::impl
