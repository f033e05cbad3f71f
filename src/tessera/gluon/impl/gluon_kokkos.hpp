#pragma once
// Portable Kokkos kernels of the gluon Monte Carlo: one event per thread
// (RangePolicy over workers, each summing its events with Neumaier
// compensation), a team per event with the currents in team scratch (level L
// of the recursion computed by the n-L team threads, the paper's scheme), and
// per-event weights (for checks). The partial sums of the workers are added
// by Kokkos' tree reductions.
#include "tessera/gluon/gluon_event.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace tessera::gluon {

// Sum of event weights: sigma = sum_w / N, error = sqrt((sum_w2/N - sigma^2)/(N-1)).
struct SigmaResult {
  double sum_w = 0, sum_w2 = 0;
  std::uint64_t generated = 0, accepted = 0;
  double sigma() const { return generated ? sum_w / double(generated) : 0.0; }
  double error() const {
    if (generated < 2) return 0.0;
    const double N = double(generated), m = sum_w / N;
    const double var = (sum_w2 / N - m * m) / (N - 1);
    return var > 0 ? std::sqrt(var) : 0.0;
  }
  // Exact merge of disjoint event ranges (MPI ranks, repeated calls).
  SigmaResult& operator+=(const SigmaResult& o) {
    sum_w += o.sum_w;
    sum_w2 += o.sum_w2;
    generated += o.generated;
    accepted += o.accepted;
    return *this;
  }
};

// Neumaier's compensated sum (robust when a term exceeds the running sum).
struct Neumaier {
  double s = 0, c = 0;
  KOKKOS_INLINE_FUNCTION void add(double x) {
    const double t = s + x;
    if ((s < 0 ? -s : s) >= (x < 0 ? -x : x)) c += (s - t) + x;
    else c += (x - t) + s;
    s = t;
  }
  KOKKOS_INLINE_FUNCTION double value() const { return s + c; }
};

// Per-worker partial: compensated sums of w and w^2, accepted count.
struct SigmaPartial {
  double w, w2;
  std::uint64_t accepted;
};

namespace impl {

// Workers for a run: on host backends 8 per thread (load balance), on a GPU
// one per resident thread (the partials stay small); each has several events.
template <class ExecSpace>
std::uint64_t worker_count(const ExecSpace& exec, std::uint64_t n_events) {
  constexpr bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible;
  std::uint64_t w = std::uint64_t(exec.concurrency()) * (host ? 8 : 1);
  if (w < 1) w = 1;
  return n_events < w ? (n_events ? n_events : 1) : w;
}

// Adds the workers' partials (Kokkos tree reductions, on exec).
template <class ExecSpace, class PartialView>
SigmaResult reduce_partials(const ExecSpace& exec, const PartialView& part, std::uint64_t generated) {
  SigmaResult r;
  const auto n = part.extent(0);
  using P = Kokkos::RangePolicy<ExecSpace>;
  Kokkos::parallel_reduce("gluon::reduce_w", P(exec, 0, n), KOKKOS_LAMBDA(std::size_t i, double& a) { a += part(i).w; },
                          r.sum_w);
  Kokkos::parallel_reduce("gluon::reduce_w2", P(exec, 0, n),
                          KOKKOS_LAMBDA(std::size_t i, double& a) { a += part(i).w2; }, r.sum_w2);
  Kokkos::parallel_reduce("gluon::reduce_acc", P(exec, 0, n),
                          KOKKOS_LAMBDA(std::size_t i, std::uint64_t& a) { a += part(i).accepted; }, r.accepted);
  r.generated = generated;
  return r;
}

// One event per thread: worker i takes events first + i, first + i + W, ...
template <class T, class ExecSpace, class MemorySpace>
SigmaResult integrate_thread_kokkos(const ExecSpace& exec, const EventConfig<T>& cfg,
                                    const PdfGrid<T, MemorySpace>& pdf, std::uint64_t seed, std::uint64_t first,
                                    std::uint64_t count) {
  const std::uint64_t W = worker_count(exec, count);
  Kokkos::View<SigmaPartial*, typename ExecSpace::memory_space> part(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "gluon::partials"), W);
  Kokkos::parallel_for(
      "gluon::events_thread", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, std::int64_t(W)),
      KOKKOS_LAMBDA(std::int64_t i) {
        BergsScratch<T, T> scratch;
        Neumaier sw, sw2;
        std::uint64_t acc = 0;
        for (std::uint64_t e = std::uint64_t(i); e < count; e += W) {
          const EventResult<T> r = generate_event(cfg, pdf, seed, first + e, scratch);
          const double w = double(r.weight);
          sw.add(w);
          sw2.add(w * w);
          acc += r.accepted ? 1 : 0;
        }
        part(i) = SigmaPartial{sw.value(), sw2.value(), acc};
      });
  return reduce_partials(exec, part, count);
}

// Per-event weights (0 for an event that fails the cuts).
template <class T, class ExecSpace, class MemorySpace, class WView>
void event_weights_kokkos(const ExecSpace& exec, const EventConfig<T>& cfg, const PdfGrid<T, MemorySpace>& pdf,
                          std::uint64_t seed, std::uint64_t first, const WView& w) {
  Kokkos::parallel_for(
      "gluon::event_weights", Kokkos::RangePolicy<ExecSpace>(exec, 0, w.extent(0)), KOKKOS_LAMBDA(std::size_t i) {
        BergsScratch<T, T> scratch;
        w(i) = generate_event(cfg, pdf, seed, first + i, scratch).weight;
      });
}

// A team per event: the team's threads share the currents in team scratch.
// Thread 0 draws the event (momenta, ordering, polarisations); level L of the
// recursion is spread over the n-L currents of that level. Each team runs
// events league_rank, league_rank + L, ...
template <class T, class ExecSpace, class MemorySpace>
SigmaResult integrate_team_kokkos(const ExecSpace& exec, const EventConfig<T>& cfg, const PdfGrid<T, MemorySpace>& pdf,
                                  std::uint64_t seed, std::uint64_t first, std::uint64_t count, int team_size = 0) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  using Scratch = BergsScratch<T, T>;
  const int n = cfg.n;
  // Host backends: one thread a team (the team's levels run in sequence);
  // GPUs: a warp a team.
  constexpr bool host = Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible;
  const int ts = team_size > 0 ? team_size : (host ? 1 : 32);
  std::uint64_t L = worker_count(exec, count) / std::uint64_t(ts);
  if (L < 1) L = 1;
  if (L > count && count > 0) L = count;
  Kokkos::View<SigmaPartial*, typename ExecSpace::memory_space> part(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "gluon::partials"), L);
  // Scratch: the recursion's currents and prefix sums, the event's momenta,
  // polarisations and ordering, and the event's outcome.
  struct Shared {
    Scratch s;
    Vec4<T> k[max_gluons], eps[max_gluons];
    int ord[max_gluons];
    T pre;    // weight without |m|^2
    int acc;  // passed the cuts
    int me;   // evaluate the matrix element
  };
  const std::size_t bytes = sizeof(Shared);
  Policy policy(exec, int(L), ts);
  Kokkos::parallel_for(
      "gluon::events_team", policy.set_scratch_size(0, Kokkos::PerTeam(bytes)), KOKKOS_LAMBDA(const Member& t) {
        Shared& sh = *reinterpret_cast<Shared*>(t.team_scratch(0).get_shmem(bytes));
        Neumaier sw, sw2;
        std::uint64_t acc = 0;
        const int nl = n - 1;
        for (std::uint64_t e = std::uint64_t(t.league_rank()); e < count; e += L) {
          Kokkos::single(Kokkos::PerTeam(t), [&]() {
            // Draw the event exactly as generate_event does, up to |m|^2.
            const EventResult<T> r = prepare_event(cfg, pdf, seed, first + e, sh.k, sh.eps, sh.ord, sh.pre);
            sh.acc = r.accepted ? 1 : 0;
            sh.me = needs_matrix_element(cfg, r) ? 1 : 0;
            sh.s.P[0] = zero4<T>();
            for (int i = 0; i < nl; ++i) {
              sh.s.P[i + 1] = add(sh.s.P[i], sh.k[sh.ord[i + 1]]);
              sh.s.J[bg_index(nl, 1, i)] = sh.eps[sh.ord[i + 1]];
            }
          });
          t.team_barrier();
          if (sh.me) {
            for (int len = 2; len < nl; ++len) {
              Kokkos::parallel_for(Kokkos::TeamThreadRange(t, nl - len + 1), [&](int a) {
                const int b = a + len - 1;
                Vec4<T> V = bg_vertices(sh.s, nl, a, b);
                const Vec4<T> K = sub(sh.s.P[b + 1], sh.s.P[a]);
                const T inv = T(1) / dot(K, K);
                for (int mu = 0; mu < 4; ++mu) V[mu] *= inv;
                sh.s.J[bg_index(nl, len, a)] = V;
              });
              t.team_barrier();
            }
          }
          Kokkos::single(Kokkos::PerTeam(t), [&]() {
            double w = 0;
            if (sh.me) {
              const T m = dot(sh.eps[sh.ord[0]], bg_vertices(sh.s, nl, 0, nl - 1));
              if (sh.acc) w = double(sh.pre * (m * m));
            }
            sw.add(w);
            sw2.add(w * w);
            acc += std::uint64_t(sh.acc);
          });
          t.team_barrier();
        }
        Kokkos::single(Kokkos::PerTeam(t), [&]() { part(t.league_rank()) = SigmaPartial{sw.value(), sw2.value(), acc}; });
      });
  return reduce_partials(exec, part, count);
}

}  // namespace impl
}  // namespace tessera::gluon
