#pragma once
// Portable Himeno kernel "pointwise": what the fastest native CUDA kernel
// does, written once in Kokkos. One work item per point, in teams of 8 j rows
// × 32 k points whose vector lanes start on a 128-byte line (k = 0 .. 31,
// 32 .. 63, ...; the boundary k idle): a warp's 32 loads of each of the 14
// streams then touch one line, not two (+20% for the native kernel on the
// H100, docs/perf/himeno.md). The caches do the reuse of p. Each thread sums
// its row's ss^2; the team sums those (team_reduce) and adds one value per
// team, as the teamscratch kernel does. On CPUs: one-thread teams (the
// rows kernel is the one for them).
#include "tessera/himeno/impl/himeno_kokkos.hpp"

namespace tessera::himeno::impl {

template <class ExecSpace, class State, class Accum>
struct SweepPointwise {
  using Scalar = typename State::scalar_type;
  using value_type = Accum;
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  static constexpr int TJ = 8, TK = 32;  // rows per team, points per row (a warp)
  Arrays<State> f;
  Scalar omega;
  int ibegin, jmax, kmax, nbj, nbk;

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team, Accum& gosa) const {
    int t = team.league_rank();
    const int kb = t % nbk;
    t /= nbk;
    const int j0 = 1 + (t % nbj) * TJ;
    const int i = ibegin + t / nbj;
    Accum mine = 0;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, TJ), [&](int r) {
      const int j = j0 + r;
      Accum row = 0;
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(team, TK),
          [&](int q, Accum& acc) {
            const int k = kb * TK + q;
            if (j < jmax - 1 && k >= 1 && k < kmax - 1) {
              const auto P = [&](int di, int dj, int dk) { return f.p(i + di, j + dj, k + dk); };
              const Scalar ss = point_ss(P, f.a, f.b, f.c, f.bnd, f.wrk1, i, j, k);
              f.wrk2(i, j, k) = P(0, 0, 0) + omega * ss;
              acc += Accum(ss) * Accum(ss);
            }
          },
          row);
      mine += row;  // every vector lane holds the row sum
    });
    team.team_reduce(Kokkos::Sum<Accum>(mine));
    Kokkos::single(Kokkos::PerTeam(team), [&]() { gosa += mine; });
  }
};

template <class Accum, class ExecSpace, class State, class Result>
void sweep_pointwise(const ExecSpace& exec, const State& s, const SweepOptions& opt, Result& result) {
  using Functor = SweepPointwise<ExecSpace, State, Accum>;
  const PlaneRange r = plane_range(s.grid.imax, opt);
  if (r.begin == r.end) {  // an empty range gives gosa 0
    sweep_mdrange<Accum>(exec, s, opt, result);
    return;
  }
  const int jmax = s.grid.jmax, kmax = s.grid.kmax;
  const int nbj = (jmax - 2 + Functor::TJ - 1) / Functor::TJ, nbk = (kmax + Functor::TK - 1) / Functor::TK;
  constexpr bool gpu = is_device_space_v<ExecSpace>;
  const Kokkos::TeamPolicy<ExecSpace> policy(exec, (r.end - r.begin) * nbj * nbk, gpu ? Functor::TJ : 1,
                                             gpu ? Functor::TK : 1);
  Kokkos::parallel_reduce("tessera::himeno::sweep[pointwise]", policy,
                          Functor{Arrays<State>(s), s.omega, r.begin, jmax, kmax, nbj, nbk}, result);
}

}  // namespace tessera::himeno::impl
