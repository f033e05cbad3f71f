#pragma once
// Portable Himeno kernels: one source for every Kokkos backend.
//
// mdrange:     one work item per interior point (MDRangePolicy, k fastest),
//              every p neighbour read from global memory, gosa by Kokkos'
//              parallel_reduce.
// teamscratch: the paper's scheme. A team owns a tile_j x tile_k tile of a
//              (j, k) plane and marches along i, the slowest index, through a
//              cyclic buffer of three p planes (with a one-point halo) in team
//              scratch (CUDA shared memory): each step loads plane i+1 into
//              the slot plane i-2 used, then updates plane i from scratch.
//              Each thread sums its own ss^2 along the march; the team sums
//              those at the end (team_reduce) and adds one value per team to
//              the parallel_reduce result.
// Both evaluate the stencil in point_ss(), in the operation order of
// himenoBMTxps.c: the order fixes the float rounding, and with it the digits
// of the paper's Table VII.
//
// Kernels are named functors, not KOKKOS_LAMBDA: nvcc wraps an extended
// __host__ __device__ lambda in __nv_hdl_wrapper_t, whose call pointer is a
// static of internal linkage, set by the wrapper's constructor in its own
// translation unit. When two translation units of one program instantiate the
// same header kernel for a host backend, the linker keeps one copy of the
// (inline) launch code, which may read the other unit's never-set pointer: a
// call through null on OpenMP/Serial in Cuda builds (seen with this test and
// the workload linked together). Functors have no such state.
#include "tessera/core/exec_space.hpp"
#include "tessera/core/random.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace tessera::himeno {

// Which kernel a sweep runs (public: part of SweepOptions). automatic: the
// native CUDA kernel on Kokkos::Cuda (when built), else pointwise on GPUs
// and rows on CPUs.
// rows: one (i, j) row per work item, vectorised along k
// (impl/himeno_kokkos_rows.hpp); for CPUs: correct on GPUs, but slow.
// pointwise: one point per work item in tiles of 16 x 32 (two rows per team
// thread) whose warps start on 128-byte lines
// (impl/himeno_kokkos_pointwise.hpp); for GPUs.
// native_naive / native_march / native_aligned / native_vector: the native
// CUDA kernels, Kokkos::Cuda only.
enum class Kernel {
  automatic,
  mdrange,
  teamscratch,
  rows,
  native_naive,
  native_march,
  native_aligned,
  pointwise,
  native_vector
};

// The kernels that exist only as native CUDA (Kokkos::Cuda only).
constexpr bool is_native_kernel(Kernel k) {
  return k == Kernel::native_naive || k == Kernel::native_march || k == Kernel::native_aligned ||
         k == Kernel::native_vector;
}

struct SweepOptions {
  // automatic: rows on CPUs, pointwise on GPUs (the fastest of the
  // portable kernels there: 91-95% of copy on the H100, docs/perf/himeno.md);
  // a native kernel, where one is dispatched to.
  Kernel kernel = Kernel::automatic;
  // teamscratch tile: points along i (one team's march), j and k; 0 picks
  // the execution space's default (impl::team_tiles). On GPUs tile_j <= 32.
  int tile_i = 0, tile_j = 0, tile_k = 0;
  // Interior planes to update: [i_begin, i_end) along i; 0, 0 = all of them
  // (1 .. imax-2). A slab's interior/boundary split for halo overlap.
  int i_begin = 0, i_end = 0;
};

namespace impl {

// The planes [begin, end) a sweep updates (validated).
struct PlaneRange {
  int begin, end;
};
inline PlaneRange plane_range(int imax, const SweepOptions& opt) {
  if (opt.i_begin == 0 && opt.i_end == 0) return {1, imax - 1};
  if (opt.i_begin < 1 || opt.i_end > imax - 1 || opt.i_begin > opt.i_end)
    throw std::invalid_argument("tessera::himeno::sweep: planes [" + std::to_string(opt.i_begin) + ", " +
                                std::to_string(opt.i_end) + ") are not within the interior [1, " +
                                std::to_string(imax - 1) + ")");
  return {opt.i_begin, opt.i_end};
}

// Initial values of one point (the 13 input arrays; wrk2 starts as p).
template <class Scalar>
struct PointInit {
  Scalar a[4], b[3], c[3], p, bnd, wrk1;
};

// initmt() of himenoBMTxps.c, in the storage type.
struct BenchmarkInit {
  int imax;
  template <class Scalar>
  KOKKOS_INLINE_FUNCTION void at(int i, std::int64_t, PointInit<Scalar>& v) const {
    for (int n = 0; n < 3; ++n) v.a[n] = 1, v.b[n] = 0, v.c[n] = 1;
    v.a[3] = Scalar(1.0 / 6.0);
    v.p = Scalar(std::int64_t(i) * i) / Scalar(std::int64_t(imax - 1) * (imax - 1));
    v.bnd = 1;
    v.wrk1 = 0;
  }
};

// Random fields (see initialize_random); value f of point idx is random number 13 idx + f.
struct RandomInit {
  std::uint64_t seed;
  template <class Scalar>
  KOKKOS_INLINE_FUNCTION void at(int, std::int64_t idx, PointInit<Scalar>& v) const {
    const std::uint64_t base = std::uint64_t(idx) * 13;
    double sum = 0;
    for (int n = 0; n < 3; ++n) {
      v.a[n] = Scalar(random_uniform(seed, base + n, 0.5, 1.5));
      v.b[n] = Scalar(random_uniform(seed, base + 3 + n, -0.25, 0.25));
      v.c[n] = Scalar(random_uniform(seed, base + 6 + n, 0.5, 1.5));
      sum += double(v.a[n]) + double(v.c[n]) + 4 * (v.b[n] < 0 ? -double(v.b[n]) : double(v.b[n]));
    }
    v.a[3] = Scalar(1.0 / sum);
    v.p = Scalar(random_uniform(seed, base + 9));
    v.wrk1 = Scalar(random_uniform(seed, base + 10, -0.1, 0.1));
    v.bnd = random_uniform(seed, base + 11) < 0.125 ? Scalar(0) : Scalar(1);
  }
};

// (k, j, i) iteration, k innermost: contiguous on CPUs; on CUDA, Kokkos maps
// the first index to threadIdx.x, so a warp covers consecutive k.
template <class ExecSpace>
using Range3 = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<3, Kokkos::Iterate::Left, Kokkos::Iterate::Left>,
                                     Kokkos::IndexType<int>>;

template <class ExecSpace>
Range3<ExecSpace> range3(const ExecSpace& exec, int lo, int kmax, int jmax, int imax, int ilo = -1) {
  // GPUs: 32 x 8 points per block, one warp per k row. CPUs: Kokkos' default
  // tiles (whole k rows). i starts at ilo (default lo).
  if (ilo < 0) ilo = lo;
  if constexpr (is_device_space_v<ExecSpace>)
    return Range3<ExecSpace>(exec, {lo, lo, ilo}, {kmax, jmax, imax}, {32, 8, 1});
  else
    return Range3<ExecSpace>(exec, {lo, lo, ilo}, {kmax, jmax, imax});
}

// The arrays a kernel needs, copied out of the state (device-copyable).
template <class State>
struct Arrays {
  typename State::View4 a, b, c;
  typename State::View3 p, bnd, wrk1, wrk2;
  explicit Arrays(const State& s) : a(s.a), b(s.b), c(s.c), p(s.p), bnd(s.bnd), wrk1(s.wrk1), wrk2(s.wrk2) {}
};

// Whether all 14 arrays share p's (i, j) strides with k contiguous, and a, b,
// c hold their coefficients one plane set apart (as HimenoState allocates
// them): then raw pointers and one stride pair address every array.
template <class State>
bool uniform_layout(const State& s) {
  const auto si = s.p.stride(0), sj = s.p.stride(1);
  const auto set = si * s.p.extent(0);
  auto same3 = [&](const auto& v) { return v.stride(0) == si && v.stride(1) == sj && v.stride(2) == 1; };
  auto same4 = [&](const auto& v) {
    return v.stride(0) == set && v.stride(1) == si && v.stride(2) == sj && v.stride(3) == 1;
  };
  return same3(s.p) && same3(s.wrk2) && same3(s.bnd) && same3(s.wrk1) && same4(s.a) && same4(s.b) && same4(s.c);
}

template <class State, class Init>
struct Fill {
  using Scalar = typename State::scalar_type;
  Arrays<State> f;
  Init init;
  int jmax, kmax;
  int i_offset;  // global plane of local plane 0 (a slab of a larger grid)
  KOKKOS_INLINE_FUNCTION void operator()(int k, int j, int i) const {
    PointInit<Scalar> v;
    const int gi = i + i_offset;
    init.template at<Scalar>(gi, (std::int64_t(gi) * jmax + j) * kmax + k, v);
    for (int n = 0; n < 4; ++n) f.a(n, i, j, k) = v.a[n];
    for (int n = 0; n < 3; ++n) f.b(n, i, j, k) = v.b[n], f.c(n, i, j, k) = v.c[n];
    f.p(i, j, k) = v.p;
    f.wrk2(i, j, k) = v.p;
    f.bnd(i, j, k) = v.bnd;
    f.wrk1(i, j, k) = v.wrk1;
  }
};

template <class ExecSpace, class State, class Init>
void fill_kokkos(const ExecSpace& exec, const State& s, const Init& init, int i_offset = 0) {
  Kokkos::parallel_for("tessera::himeno::fill", range3(exec, 0, s.grid.kmax, s.grid.jmax, s.grid.imax),
                       Fill<State, Init>{Arrays<State>(s), init, s.grid.jmax, s.grid.kmax, i_offset});
}

// ss of point (i, j, k); P(di, dj, dk) is p(i+di, j+dj, k+dk). Operation
// order of himenoBMTxps.c (s0 summed left to right), in the storage type.
template <class P, class V4, class V3>
KOKKOS_FORCEINLINE_FUNCTION typename V3::non_const_value_type point_ss(const P& p, const V4& a, const V4& b,
                                                                         const V4& c, const V3& bnd, const V3& wrk1,
                                                                         int i, int j, int k) {
  using Scalar = typename V3::non_const_value_type;
  const Scalar s0 = a(0, i, j, k) * p(1, 0, 0) + a(1, i, j, k) * p(0, 1, 0) + a(2, i, j, k) * p(0, 0, 1) +
                    b(0, i, j, k) * (p(1, 1, 0) - p(1, -1, 0) - p(-1, 1, 0) + p(-1, -1, 0)) +
                    b(1, i, j, k) * (p(0, 1, 1) - p(0, -1, 1) - p(0, 1, -1) + p(0, -1, -1)) +
                    b(2, i, j, k) * (p(1, 0, 1) - p(-1, 0, 1) - p(1, 0, -1) + p(-1, 0, -1)) +
                    c(0, i, j, k) * p(-1, 0, 0) + c(1, i, j, k) * p(0, -1, 0) + c(2, i, j, k) * p(0, 0, -1) +
                    wrk1(i, j, k);
  return (s0 * a(3, i, j, k) - p(0, 0, 0)) * bnd(i, j, k);
}

template <class State, class Accum>
struct SweepMDRange {
  using Scalar = typename State::scalar_type;
  using value_type = Accum;
  Arrays<State> f;
  Scalar omega;
  KOKKOS_INLINE_FUNCTION void operator()(int k, int j, int i, Accum& gosa) const {
    const auto& p = f.p;
    const auto P = [&](int di, int dj, int dk) { return p(i + di, j + dj, k + dk); };
    const Scalar ss = point_ss(P, f.a, f.b, f.c, f.bnd, f.wrk1, i, j, k);
    f.wrk2(i, j, k) = p(i, j, k) + omega * ss;
    gosa += Accum(ss) * Accum(ss);
  }
};

// Result: an Accum lvalue (blocking) or a rank-0 View (queued when device memory).
template <class Accum, class ExecSpace, class State, class Result>
void sweep_mdrange(const ExecSpace& exec, const State& s, const SweepOptions& opt, Result& result) {
  const PlaneRange r = plane_range(s.grid.imax, opt);
  Kokkos::parallel_reduce("tessera::himeno::sweep[mdrange]",
                          range3(exec, 1, s.grid.kmax - 1, s.grid.jmax - 1, r.end, r.begin),
                          SweepMDRange<State, Accum>{Arrays<State>(s), s.omega}, result);
}

// Resolved teamscratch launch shape.
struct TeamTiles {
  int i, j, k;            // tile extents along i (march), j, k
  int team_size, vector;  // threads per team (one per j row on GPUs), vector lanes (along k)
};

// Defaults: GPUs 4 x 128 (j x k) tiles, a thread per j row and 32 vector
// lanes along k, 4 points each (the best of 4..16 x 32..128 on the H100 at
// sizes M to XL, docs/himeno.md); CPUs one-thread teams over 4 whole k rows.
// The march is cut into segments of at least 4 (GPU) or 8 (CPU) planes until
// there are about two waves of teams (each segment reloads two p planes, p
// being one of the 14 words); on grids too small for even 1/16 of that, the
// GPU tile also narrows along k (128 -> 64 -> 32). The resulting tiles on the
// H100 (k x j x i): S 64x4x4, M 128x4x4, L 128x4x15, XL 128x4x102.
template <class ExecSpace>
TeamTiles team_tiles(const ExecSpace& exec, int imax, int jmax, int kmax, const SweepOptions& opt) {
  if (opt.tile_i < 0 || opt.tile_j < 0 || opt.tile_k < 0)
    throw std::invalid_argument("tessera::himeno::sweep: tile sizes must be positive (0 = default)");
  constexpr bool gpu = is_device_space_v<ExecSpace>;
  if (gpu && opt.tile_j > 32)
    throw std::invalid_argument("tessera::himeno::sweep: tile_j must be at most 32 on GPUs (one thread per row), got " +
                                std::to_string(opt.tile_j));
  const long long ni = imax - 2, nj = jmax - 2, nk = kmax - 2;
  const auto cdiv = [](long long a, long long b) { return (a + b - 1) / b; };
  TeamTiles t;
  t.j = int(std::min(nj, (long long)(opt.tile_j ? opt.tile_j : 4)));
  t.team_size = gpu ? t.j : 1;
  t.vector = gpu ? 32 : 1;
  const long long target = gpu ? 2LL * exec.concurrency() / (t.team_size * t.vector) : 4LL * exec.concurrency();
  const int min_segment = gpu ? 4 : 8;
  long long tk = opt.tile_k ? opt.tile_k : (gpu ? 128 : nk);
  if (gpu && !opt.tile_k)
    while (tk > 32 && 16 * cdiv(nj, t.j) * cdiv(nk, tk) * cdiv(ni, min_segment) < target) tk /= 2;
  t.k = int(std::min(nk, tk));
  if (opt.tile_i) {
    t.i = int(std::min(ni, (long long)opt.tile_i));
  } else {
    const long long segments = cdiv(target, cdiv(nj, t.j) * cdiv(nk, t.k));
    t.i = int(std::min(ni, std::max((long long)min_segment, cdiv(ni, segments))));
  }
  return t;
}

template <class ExecSpace, class State, class Accum>
struct SweepTeamScratch {
  using Scalar = typename State::scalar_type;
  using value_type = Accum;
  using Member = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using Planes = Kokkos::View<Scalar***, Kokkos::LayoutRight, typename ExecSpace::scratch_memory_space,
                              Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  Arrays<State> f;
  Scalar omega;
  int ibegin, iend, jmax, kmax;  // planes [ibegin, iend) are updated
  int TI, TJ, TK;       // tile extents
  int ntj, ntk, level;  // tiles along j and k, scratch level

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team, Accum& gosa) const {
    int tile = team.league_rank();
    const int k0 = 1 + (tile % ntk) * TK;
    tile /= ntk;
    const int j0 = 1 + (tile % ntj) * TJ;
    const int i0 = ibegin + (tile / ntj) * TI;
    const int mk = kmax - 1 - k0 < TK ? kmax - 1 - k0 : TK;  // points of this tile
    const int mj = jmax - 1 - j0 < TJ ? jmax - 1 - j0 : TJ;
    const int i1 = iend < i0 + TI ? iend : i0 + TI;
    const Planes buf(team.team_scratch(level), 3, TJ + 2, TK + 2);
    const auto& p = f.p;

    // Plane ip (rows j0-1 .. j0+mj, columns k0-1 .. k0+mk) into slot ip % 3.
    const auto load = [&](int ip) {
      const int slot = ip % 3;
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, mj + 2), [&](int r) {
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, mk + 2),
                             [&](int q) { buf(slot, r, q) = p(ip, j0 - 1 + r, k0 - 1 + q); });
      });
    };
    load(i0 - 1);
    load(i0);
    Accum mine = 0;  // this thread's share of the team's gosa
    for (int i = i0; i < i1; ++i) {
      load(i + 1);
      team.team_barrier();  // plane i+1 complete
      const int slots[3] = {(i - 1) % 3, i % 3, (i + 1) % 3};
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, mj), [&](int r) {
        Accum row = 0;
        Kokkos::parallel_reduce(
            Kokkos::ThreadVectorRange(team, mk),
            [&](int q, Accum& acc) {
              const auto P = [&](int di, int dj, int dk) { return buf(slots[di + 1], r + 1 + dj, q + 1 + dk); };
              const int j = j0 + r, k = k0 + q;
              const Scalar ss = point_ss(P, f.a, f.b, f.c, f.bnd, f.wrk1, i, j, k);
              f.wrk2(i, j, k) = P(0, 0, 0) + omega * ss;
              acc += Accum(ss) * Accum(ss);
            },
            row);
        mine += row;  // every vector lane holds the row sum
      });
      team.team_barrier();  // plane i-1's slot is free for plane i+2
    }
    team.team_reduce(Kokkos::Sum<Accum>(mine));
    Kokkos::single(Kokkos::PerTeam(team), [&]() { gosa += mine; });
  }
};

template <class Accum, class ExecSpace, class State, class Result>
void sweep_teamscratch(const ExecSpace& exec, const State& s, const SweepOptions& opt, Result& result) {
  using Functor = SweepTeamScratch<ExecSpace, State, Accum>;
  const int jmax = s.grid.jmax, kmax = s.grid.kmax;
  const PlaneRange r = plane_range(s.grid.imax, opt);
  if (r.begin == r.end) {  // nothing to update: an empty range gives gosa 0
    sweep_mdrange<Accum>(exec, s, opt, result);
    return;
  }
  const TeamTiles t = team_tiles(exec, r.end - r.begin + 2, jmax, kmax, opt);
  const int nti = (r.end - r.begin + t.i - 1) / t.i, ntj = (jmax - 2 + t.j - 1) / t.j, ntk = (kmax - 2 + t.k - 1) / t.k;
  Kokkos::TeamPolicy<ExecSpace> policy(exec, nti * ntj * ntk, t.team_size, t.vector);
  const std::size_t bytes = Functor::Planes::shmem_size(3, t.j + 2, t.k + 2);
  const int level = bytes <= std::size_t(policy.scratch_size_max(0)) ? 0 : 1;  // level 1: CPU-sized rows
  policy.set_scratch_size(level, Kokkos::PerTeam(bytes));
  Kokkos::parallel_reduce("tessera::himeno::sweep[teamscratch]", policy,
                          Functor{Arrays<State>(s), s.omega, r.begin, r.end, jmax, kmax, t.i, t.j, t.k, ntj, ntk, level},
                          result);
}

}  // namespace impl
}  // namespace tessera::himeno
