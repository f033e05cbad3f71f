#pragma once
// Portable Kokkos kernels of the gluon Monte Carlo: one event per thread
// (RangePolicy over workers, each summing its events with Neumaier
// compensation), a team per event with the currents in team scratch (level L
// of the recursion computed by the n-L team threads, the paper's scheme),
// events on a few vector lanes each with their currents in team scratch (the
// GPU's choice from n = 10 float / 8 double), and per-event weights (for
// checks). The partial sums of the workers are added by Kokkos' tree
// reductions.
#include "tessera/core/exec_space.hpp"
#include "tessera/gluon/gluon_event.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

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
  constexpr bool host = !is_device_space_v<ExecSpace>;
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

// Bytes of scratch an event of the one-event-per-thread kernel touches:
// currents, prefix sums and momenta (the polarisations share the currents'
// slots, generate_event), four-vectors of `bytes`-byte numbers.
constexpr int thread_scratch_bytes(int n, int bytes) {
  const int nl = n - 1;
  return (nl * (nl + 1) / 2 + nl + 1 + n) * 4 * bytes;
}

// Events in flight per 2048 resident GPU threads (an H100 SM) for the
// one-event-per-thread kernel. An event's scratch (thread_scratch_bytes,
// n = 8 double 1.4 KB) is thread stack, cached in the SM's L1 (256 KB with
// the shared memory): too many events in flight thrash it, too few hide less
// latency. From the H100 sweep in docs/perf/gluon.md (the
// best count per n and precision; ~300-450 KB of scratch an SM); at most 512,
// four 128-thread blocks, resident up to 128 registers a thread, so that no
// worker waits for a second wave (a grid-stride worker that starts late
// finishes late).
constexpr int thread_events_per_sm(int n, int bytes) {
  if (bytes <= 4) return n <= 8 ? 512 : (n <= 10 ? 384 : 256);
  return n <= 6 ? 512 : (n <= 9 ? 256 : 128);
}

// Workers of the one-event-per-thread kernel: on a GPU capped by
// thread_events_per_sm.
template <class T, class ExecSpace>
std::uint64_t thread_worker_count(const ExecSpace& exec, int n, std::uint64_t n_events) {
  std::uint64_t w = worker_count(exec, n_events);
  if (is_device_space_v<ExecSpace>) {
    const std::uint64_t per_sm = std::uint64_t(thread_events_per_sm(n, int(sizeof(T))));
    const std::uint64_t cap = std::uint64_t(exec.concurrency()) / 2048 * per_sm;
    if (cap >= 128 && w > cap) w = cap;
  }
  return w;
}

// One event per thread: worker i takes events first + i, first + i + W, ...
// (blocks of 128 threads, so that the capped workers spread over every SM).
template <class T, class ExecSpace, class MemorySpace>
SigmaResult integrate_thread_kokkos(const ExecSpace& exec, const EventConfig<T>& cfg,
                                    const PdfGrid<T, MemorySpace>& pdf, std::uint64_t seed, std::uint64_t first,
                                    std::uint64_t count) {
  const std::uint64_t W = thread_worker_count<T>(exec, cfg.n, count);
  Kokkos::View<SigmaPartial*, typename ExecSpace::memory_space> part(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "gluon::partials"), W);
  using Policy = Kokkos::RangePolicy<ExecSpace, Kokkos::LaunchBounds<128, 1>, Kokkos::IndexType<std::int64_t>>;
  Kokkos::parallel_for(
      "gluon::events_thread", Policy(exec, 0, std::int64_t(W)),
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
  constexpr bool host = !is_device_space_v<ExecSpace>;
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
            bg_leaves(nl, sh.ord, sh.k, sh.eps, sh.s.J, sh.s.P);
          });
          t.team_barrier();
          if (sh.me) {
            for (int len = 2; len < nl; ++len) {
              Kokkos::parallel_for(Kokkos::TeamThreadRange(t, nl - len + 1), [&](int a) {
                const int b = a + len - 1;
                sh.s.J[bg_index(nl, len, a)] = bg_propagate(bg_vertices(sh.s, nl, a, b), sh.s.P, a, b);
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

// Lanes per event on a GPU for n gluons in a precision of `bytes` bytes (0:
// one event per thread), from the sweep of docs/perf/gluon.md (H100): the
// thread kernel up to n = 11 (float) / 8 (double), 2 lanes for double n = 9,
// 10, 4 lanes above.
constexpr int lanes_per_event(int n, int bytes) {
  const bool f = bytes <= 4;
  if (n <= (f ? 11 : 8)) return 0;
  return !f && n <= 10 ? 2 : 4;
}

// Whether tessera::gluon::integrate runs the lanes kernel on ExecSpace.
template <class ExecSpace>
constexpr bool uses_lanes_kernel(int n, int bytes) {
  return is_device_space_v<ExecSpace> && lanes_per_event(n, bytes) > 0;
}

// The lanes kernel's shape on ExecSpace for n gluons of type T: V lanes an
// event, lane groups a team, scratch bytes a group (the analogue of the
// paper's Table 1).
struct LanesShape {
  int lanes, groups;
  std::size_t group_bytes;
};
template <class T, class ExecSpace>
LanesShape lanes_shape(int n, int lanes) {
  constexpr bool host = !is_device_space_v<ExecSpace>;
  const int V = host ? 1 : (lanes > 0 ? lanes : std::max(2, lanes_per_event(n, int(sizeof(T)))));
  const int nl = n - 1, nJ = nl * (nl + 1) / 2;
  // A lane group's scratch: currents J, prefix sums P, the lanes' partial
  // sums, their events' flags (twice); groups 16 B apart modulo 128 B so that
  // neighbouring groups use different shared-memory banks.
  std::size_t per_group = sizeof(Vec4<T>) * std::size_t(nJ + nl + 1 + V) + sizeof(int) * std::size_t(2 * V);
  per_group = (per_group + 127) / 128 * 128 + 16;
  // A warp a team on a GPU (fewer groups where their scratch would exceed
  // the team's), one group a team on host.
  const int fit = int(Kokkos::TeamPolicy<ExecSpace>::scratch_size_max(0) / per_group);
  if (fit < 1)
    throw std::invalid_argument("gluon: " + std::to_string(per_group) + " B of scratch an event exceeds the team scratch");
  return {V, host ? 1 : std::max(1, std::min(32 / V, fit)), per_group};
}

// Several lanes per event (on a GPU V vector lanes of a warp, 2 or 4 by
// lanes_per_event; on host backends one): the paper's level-parallel
// recursion without its single-thread set-up and block barriers. A group of
// V lanes draws V events at once, one a lane (as the one-event-per-thread
// kernel does), then evaluates their recursions one after another, all V
// lanes on each: the event's currents live in team scratch sized by n, a
// level with at least V currents spreads its currents over the lanes, a
// shorter one (and the amplitude) splits each current's vertex sum over them.
// Lanes meet only at the ends of the vector-range loops (a warp-level barrier
// on CUDA), never at a team barrier. Lane v runs iteration v of a V-long
// vector range (how Kokkos maps vector ranges on CUDA; one lane on host
// backends), so it keeps its own event's draw in its own variables.
template <class T, class ExecSpace, class MemorySpace>
SigmaResult integrate_lanes_kokkos(const ExecSpace& exec, const EventConfig<T>& cfg, const PdfGrid<T, MemorySpace>& pdf,
                                   std::uint64_t seed, std::uint64_t first, std::uint64_t count, int lanes = 0) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  constexpr bool host = !is_device_space_v<ExecSpace>;
  const LanesShape shape = lanes_shape<T, ExecSpace>(cfg.n, lanes);
  const int V = shape.lanes, groups = shape.groups;
  const std::size_t per_group = shape.group_bytes;
  const int n = cfg.n, nl = n - 1, nJ = nl * (nl + 1) / 2;
  const std::size_t team_bytes = per_group * std::size_t(groups);
  const std::uint64_t per_team = std::uint64_t(groups) * std::uint64_t(V);  // events a team draws at once
  std::uint64_t L = host ? worker_count(exec, count) : std::uint64_t(exec.concurrency()) / per_team;
  const std::uint64_t teams_needed = (count + per_team - 1) / per_team;
  if (L > teams_needed) L = teams_needed;
  if (L < 1) L = 1;
  const std::uint64_t G = L * std::uint64_t(groups);  // lane groups
  Kokkos::View<SigmaPartial*, typename ExecSpace::memory_space> part(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "gluon::partials"), G * std::uint64_t(V));
  Policy policy(exec, int(L), groups, V);
  Kokkos::parallel_for(
      "gluon::events_lanes", policy.set_scratch_size(0, Kokkos::PerTeam(team_bytes)), KOKKOS_LAMBDA(const Member& t) {
        char* base = static_cast<char*>(t.team_scratch(0).get_shmem(team_bytes));
        Vec4<T>* J = reinterpret_cast<Vec4<T>*>(base + per_group * std::size_t(t.team_rank()));
        Vec4<T>* P = J + nJ;
        Vec4<T>* partial = P + nl + 1;
        int* flags = reinterpret_cast<int*>(partial + V);
        // The lanes' parts of a vertex sum, added in lane order.
        const auto lane_sum = [&]() {
          Vec4<T> s = partial[0];
          for (int l = 1; l < V; ++l) s = add(s, partial[l]);
          return s;
        };
        const std::uint64_t group = std::uint64_t(t.league_rank()) * std::uint64_t(groups) + std::uint64_t(t.team_rank());
        // This lane's event and its sums.
        Vec4<T> k[max_gluons], eps[max_gluons];
        int ord[max_gluons];
        T pre = T(0);
        bool accepted = false;
        Neumaier sw, sw2;
        std::uint64_t acc = 0;
        int buffer = 0;
        for (std::uint64_t e0 = group * std::uint64_t(V); e0 < count; e0 += G * std::uint64_t(V)) {
          // (two flag buffers: a lane ahead writes one while the others may
          // still read the other)
          int* flag = flags + buffer * V;
          buffer ^= 1;
          Kokkos::parallel_for(Kokkos::ThreadVectorRange(t, V), [&](int v) {
            const std::uint64_t e = e0 + std::uint64_t(v);
            int me = 0;
            accepted = false;
            if (e < count) {
              const EventResult<T> r = prepare_event(cfg, pdf, seed, first + e, k, eps, ord, pre);
              accepted = r.accepted;
              acc += r.accepted ? 1 : 0;
              me = needs_matrix_element(cfg, r) ? 1 : 0;
              if (!me) {  // no matrix element: the weight is 0
                sw.add(0.0);
                sw2.add(0.0);
              }
            }
            flag[v] = me;
          });
          for (int u = 0; u < V; ++u) {
            if (!flag[u]) continue;
            // Lane u writes its event's prefix sums and one-leg currents.
            Kokkos::parallel_for(Kokkos::ThreadVectorRange(t, V), [&](int v) {
              if (v == u) bg_leaves(nl, ord, k, eps, J, P);
            });
            for (int len = 2; len < nl; ++len) {
              const int c = nl - len + 1;
              if (c >= V) {
                Kokkos::parallel_for(Kokkos::ThreadVectorRange(t, c), [&](int a) {
                  J[bg_index(nl, len, a)] = bg_propagate(bg_vertices(J, P, nl, a, a + len - 1), P, a, a + len - 1);
                });
              } else {
                for (int a = 0; a < c; ++a) {
                  const int b = a + len - 1;
                  Kokkos::parallel_for(Kokkos::ThreadVectorRange(t, V),
                                       [&](int v) { partial[v] = bg_vertices(J, P, nl, a, b, v, V); });
                  Kokkos::single(Kokkos::PerThread(t),
                                 [&]() { J[bg_index(nl, len, a)] = bg_propagate(lane_sum(), P, a, b); });
                }
              }
            }
            Kokkos::parallel_for(Kokkos::ThreadVectorRange(t, V),
                                 [&](int v) { partial[v] = bg_vertices(J, P, nl, 0, nl - 1, v, V); });
            // Lane u adds the weight of its event.
            Kokkos::parallel_for(Kokkos::ThreadVectorRange(t, V), [&](int v) {
              if (v != u) return;
              const T m = dot(eps[ord[0]], lane_sum());
              const double w = accepted ? double(pre * (m * m)) : 0.0;
              sw.add(w);
              sw2.add(w * w);
            });
          }
        }
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(t, V), [&](int v) {
          part(group * std::uint64_t(V) + std::uint64_t(v)) = SigmaPartial{sw.value(), sw2.value(), acc};
        });
      });
  return reduce_partials(exec, part, count);
}

}  // namespace impl
}  // namespace tessera::gluon
