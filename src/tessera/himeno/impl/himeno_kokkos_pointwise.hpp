#pragma once
// Portable Himeno kernel "pointwise": what the fastest native CUDA kernel
// does, written once in Kokkos. One work item per point, in teams of 8 j rows
// × 32 k points; a team is 256 threads of one point each (vector length 1),
// so a warp is 32 consecutive k starting on a 128-byte line (k = 0 .. 31,
// 32 .. 63, ...; the boundary k idle): its 32 loads of each of the 14
// streams then touch one line, not two (+20% for the native kernel on the
// H100, docs/perf/himeno.md). The caches do the reuse of p. On CPUs:
// one-thread teams (the rows kernel is the one for them).
#include "tessera/core/fast_div.hpp"
#include "tessera/himeno/impl/himeno_kokkos.hpp"
#include "tessera/himeno/impl/himeno_kokkos_rows.hpp"

#include <cstddef>

namespace tessera::himeno::impl {

template <class ExecSpace, class State, class Accum>
struct SweepPointwise {
  using Scalar = typename State::scalar_type;
  using value_type = Accum;
  static constexpr int TJ = 8, TK = 32, kTeam = TJ * TK;  // rows per team, points per row (a warp)
  // Eight 256-thread teams per multiprocessor in float (at most 32 registers
  // a thread on CUDA, as the native kernel uses), six in double (40: at 32
  // it spilled). Without the bound nvcc took 56-64, halving the threads in
  // flight of a kernel that lives on memory latency.
  static constexpr unsigned kTeamsPerSM = sizeof(Scalar) == 4 ? 8 : 6;
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
  FastDiv nbj, nbk;  // tiles along j and k

  SweepPointwise(const State& s, int ib, int nj_tiles, int nk_tiles)
      : a(s.a.data()), b(s.b.data()), c(s.c.data()), bnd(s.bnd.data()), wrk1(s.wrk1.data()), p(s.p.data()),
        wrk2(s.wrk2.data()), sn(s.a.stride(0)), si(s.p.stride(0)), sj(s.p.stride(1)), omega(s.omega), ibegin(ib),
        jmax(s.grid.jmax), kmax(s.grid.kmax), nbj(nj_tiles), nbk(nk_tiles) {}

  // One point per team thread (vector length 1): each thread adds its own
  // ss^2 to the result, which Kokkos reduces over the team threads; a
  // vector-lane or team reduction per team (shuffle loops, integer divisions,
  // barriers) had cost as much as the stencil.
  KOKKOS_INLINE_FUNCTION void operator()(const Member& team, Accum& gosa) const {
    const int t = team.league_rank();
    const int tjk = nbk.quotient(t), kb = t - tjk * nbk.divisor();
    const int ti = nbj.quotient(tjk), jb = tjk - ti * nbj.divisor();
    const int i = ibegin + ti;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, kTeam), [&](int x) {
      const int j = 1 + jb * TJ + x / TK, k = kb * TK + x % TK;
      if (j < jmax - 1 && k >= 1 && k < kmax - 1) {
        const std::ptrdiff_t o = i * si + j * sj + k;
        const Scalar* po = p + o;
        const auto P = [&](int di, int dj, int dk) { return po[di * si + dj * sj + dk]; };
        const Scalar ss = point_ss(P, Row4<Scalar>{a + o, sn}, Row4<Scalar>{b + o, sn}, Row4<Scalar>{c + o, sn},
                                   Row3<Scalar>{bnd + o}, Row3<Scalar>{wrk1 + o}, 0, 0, 0);
        wrk2[o] = po[0] + omega * ss;
        gosa += Accum(ss) * Accum(ss);
      }
    });
  }
};

template <class Accum, class ExecSpace, class State, class Result>
void sweep_pointwise(const ExecSpace& exec, const State& s, const SweepOptions& opt, Result& result) {
  using Functor = SweepPointwise<ExecSpace, State, Accum>;
  const PlaneRange r = plane_range(s.grid.imax, opt);
  if (r.begin == r.end || !uniform_layout(s)) {  // an empty range gives gosa 0; other layouts: no raw pointers
    sweep_mdrange<Accum>(exec, s, opt, result);
    return;
  }
  const int jmax = s.grid.jmax, kmax = s.grid.kmax;
  const int nbj = (jmax - 2 + Functor::TJ - 1) / Functor::TJ, nbk = (kmax + Functor::TK - 1) / Functor::TK;
  constexpr bool gpu = is_device_space_v<ExecSpace>;
  const typename Functor::Policy policy(exec, (r.end - r.begin) * nbj * nbk, gpu ? Functor::kTeam : 1, 1);
  Kokkos::parallel_reduce("tessera::himeno::sweep[pointwise]", policy,
                          Functor(s, r.begin, nbj, nbk), result);
}

}  // namespace tessera::himeno::impl
