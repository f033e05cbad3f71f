#pragma once
// Portable Himeno kernel "fused rows", written for CPUs: two Jacobi sweeps in
// one pass over memory (temporal blocking). The 12 coefficient arrays (a0..a3,
// b0..b2, c0..c2, wrk1, bnd) do not change between sweeps, so the second sweep
// of a point should find them still in cache from the first: ~14 words from
// DRAM per point for two sweeps instead of 2 x 14.
//
// A work item (a one-thread team) owns a tile: a chunk of planes [i0, i1)
// along i, tile_j rows along j and tile_k points along k. It marches along i
// and keeps the sweep-1 field of its tile plus a one-point halo (rows j0-1 ..
// j0+tile_j, columns k0-1 .. k0+tile_k) in a window of plane slots in team
// scratch. Per plane i, row by row: sweep 1 of row (i, j) (from p) into the
// window, then sweep 2 of row (i-1, j-1) (from the window) into wrk2. Between
// sweep 1 and sweep 2 of a row lies one plane of the tile, so its coefficients
// are still in cache: in L2 when the tile is narrow enough (fused_tiles). The
// halo (planes i0-1 and i1, the rows and columns around the tile) is computed
// by sweep 1 here and by the neighbouring tile too: recomputed, not
// communicated. Boundary points of the sweep-1 field are p's (never updated).
//
// Both sweeps are rows_chunk() (himeno_kokkos_rows.hpp): the same stencil
// code, so wrk2 is bit-identical to two rows sweeps. The window is a ring of
// three plane slots (plane x in slot x mod 3): sweep 2 of plane i-1 reads
// planes i-2 .. i while sweep 1 writes plane i over plane i-3; rows_chunk
// takes the offsets of the planes below and above, so the ring needs no copy.
//
// gosa of both sweeps, over planes [r.begin, r.end) only (the halo counts in
// the tile that owns it), in one parallel_reduce with a two-value result:
// per row in kGosaLanes partial sums like rows, then per thread in league
// order (static schedule: deterministic for a fixed thread count).
//
// On GPUs this is one thread per tile with small tiles in shared memory:
// correct, slow (the native and teamscratch kernels are the ones there).
//
// What bounds it on CPUs (docs/perf/himeno.md, 2026-11-23 and -24): a
// core runs sweep 1 (fed from DRAM) and sweep 2 (fed from cache) one after
// the other, so two sweeps per pass gain about 2 / (1 + halo + r), r the
// ratio of the loop's rate from DRAM to its rate from the level sweep 2 reads.
// On the 16-core Xeon the loop runs from L3 barely faster than from DRAM (no
// gain), from L2 2-2.4x faster with the AVX2 copy: hence narrow tiles.
// Tried and dropped: software prefetch of the next sweep-1 row during sweep
// 2, both sweeps in one k loop or in alternating pieces, copying the
// coefficient rows into scratch, k tiles of 128-256 points (the hardware
// prefetcher restarts at every row).
#include "tessera/himeno/impl/himeno_kokkos.hpp"
#include "tessera/himeno/impl/himeno_kokkos_rows.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace tessera::himeno::impl {

// CPU tiles: 8 rows of whole k rows. Sweep 2 of a row reads its
// coefficients one tile plane after sweep 1 did (~21 rows per tile row:
// the 15 arrays sweep 1 reads, p's other planes, the ring, wrk2), so
// narrower tiles keep them nearer the core, at the price of the halo rows
// (2/8 more of sweep 1). On the 16-core Xeon (16 threads, AVX2 copy of the
// row loop, docs/perf/himeno.md of 2026-11-24) 8 rows measured best or
// within noise of the best of 4-32 at M and L in float and double (L float
// 1.36x the single sweep with 8 rows, 1.29x with 16; M double 1.28x and
// 1.23x). Whole k rows: cutting them in two was 20-30% slower (sweep 1's
// DRAM streams restart at every tile row; 128-256-point tiles, earlier:
// 10-40%).
inline constexpr int kFusedTileJ = 8;
// Rows longer than this are cut into equal tiles whatever the cache: it
// bounds the ring to 3 x 10 x 2064 doubles = 0.5 MiB per thread.
inline constexpr int kFusedMaxTileK = 2048;
// Chunks along i: at least 32 planes (the two halo planes of sweep 1 cost
// 2/32 = 6% of it); CPUs pick the count that balances the static schedule
// (fused_cpu_segments), GPUs cut until there are kFusedItemsPerThread tiles
// per thread.
inline constexpr int kFusedMinPlanes = 32;
inline constexpr int kFusedItemsPerThread = 4;
// Plane slots of the window: a ring of three (see the top of this file).
inline constexpr int kFusedRing = 3;
// Window rows start on 64-byte lines (16 floats; 8 doubles would do, one
// constant keeps it simple).
inline constexpr int kFusedRowAlign = 16;
// GPUs: 4 x 32 tiles: 3 x 6 x 34 doubles = 4.8 KiB of shared memory per
// one-thread team, far below the level-0 limit.
inline constexpr int kFusedDeviceTileJ = 4;
inline constexpr int kFusedDeviceTileK = 32;
inline constexpr int kFusedDeviceMinPlanes = 8;

// Resolved fused launch shape.
struct FusedTiles {
  int i, j, k;  // tile extents along i (march), j and k
  int row;      // window row stride (>= k + 2)
};

// CPU chunks along i: the static schedule gives each thread an equal run of
// tiles, so the pass takes ceil(tiles / threads) tiles of (planes / chunks +
// 2 halo planes) each; the number of chunks that makes this least, chunks of
// at least kFusedMinPlanes planes (ties: fewer chunks). Measured on the
// 16-core Xeon: 66 tiles on 16 threads (5 for some, 4 for others) ran 20-40%
// slower than 64.
inline long long fused_cpu_segments(long long planes, long long per_chunk, long long threads) {
  const auto cdiv = [](long long a, long long b) { return (a + b - 1) / b; };
  long long best = 1;
  double best_cost = 0;
  for (long long seg = 1; seg <= std::max(1LL, planes / kFusedMinPlanes); ++seg) {
    const double cost = double(cdiv(seg * per_chunk, threads)) * double(cdiv(planes, seg) + 2);
    if (seg == 1 || cost < best_cost) best = seg, best_cost = cost;
  }
  return best;
}

// opt.tile_i/j/k override the extents (0: the defaults above, whole k rows
// on CPUs); the i chunks otherwise as kFusedMinPlanes says.
template <class ExecSpace>
FusedTiles fused_tiles(const ExecSpace& exec, int planes, int jmax, int kmax, const SweepOptions& opt) {
  if (opt.tile_i < 0 || opt.tile_j < 0 || opt.tile_k < 0)
    throw std::invalid_argument("tessera::himeno::sweep2: tile sizes must be positive (0 = default)");
  constexpr bool gpu = is_device_space_v<ExecSpace>;
  const long long nj = jmax - 2, nk = kmax - 2;
  const auto cdiv = [](long long a, long long b) { return (a + b - 1) / b; };
  const long long def_j = gpu ? kFusedDeviceTileJ : kFusedTileJ;
  const long long def_k = gpu ? kFusedDeviceTileK : cdiv(nk, cdiv(nk, kFusedMaxTileK));  // equal tiles
  FusedTiles t;
  t.j = int(std::min(nj, opt.tile_j ? (long long)opt.tile_j : def_j));
  t.k = int(std::min(nk, opt.tile_k ? (long long)opt.tile_k : def_k));
  t.row = gpu ? t.k + 2 : int(cdiv(t.k + 2, kFusedRowAlign) * kFusedRowAlign);
  const long long per_chunk = cdiv(nj, t.j) * cdiv(nk, t.k);  // tiles of one i chunk
  if (opt.tile_i) {
    t.i = std::min(planes, opt.tile_i);
  } else if (gpu) {
    const long long segments = cdiv((long long)kFusedItemsPerThread * exec.concurrency(), per_chunk);
    t.i = int(std::min((long long)planes, std::max((long long)kFusedDeviceMinPlanes, cdiv(planes, segments))));
  } else {
    t.i = int(cdiv(planes, fused_cpu_segments(planes, per_chunk, exec.concurrency())));
  }
  return t;
}

// One row of one sweep for rows_chunk: points [0, n), pointers at point 0,
// p's neighbour planes at s_dn, s_up, its rows at -+sj; gosa counts the points [lo, hi).
template <class Scalar>
struct RowJob {
  const Scalar *a, *b, *c, *bnd, *wrk1, *p;
  std::ptrdiff_t sn, s_dn, s_up, sj;
  Scalar* out;
  int n, lo, hi;
};

// Points [k, k + m) of a row (m <= kRowChunk, ss's size); ss^2 of those in
// [lo, hi) into the kGosaLanes partial sums acc (as SweepRows).
template <class Accum, class Scalar>
KOKKOS_INLINE_FUNCTION void row_piece(const RowJob<Scalar>& r, int k, int m, Scalar omega, Scalar* ss, Accum* acc) {
  rows_chunk<Scalar>(m, omega, r.a + k, r.b + k, r.c + k, r.sn, r.bnd + k, r.wrk1 + k, r.p + k, r.s_dn, r.s_up, r.sj,
                     r.out + k,
                     ss);
  int q = r.lo > k ? r.lo - k : 0;
  const int e = r.hi - k < m ? r.hi - k : m;
  for (; q + kGosaLanes <= e; q += kGosaLanes)
    for (int l = 0; l < kGosaLanes; ++l) acc[l] += Accum(ss[q + l]) * Accum(ss[q + l]);
  for (; q < e; ++q) acc[q % kGosaLanes] += Accum(ss[q]) * Accum(ss[q]);
}

template <class Accum>
KOKKOS_INLINE_FUNCTION Accum lane_sum(const Accum* acc) {
  Accum s = 0;
  for (int l = 0; l < kGosaLanes; ++l) s += acc[l];
  return s;
}

// One row in pieces of kRowChunk (ss's size); g += its gosa.
template <class Accum, class Scalar>
KOKKOS_INLINE_FUNCTION void row_sweep(const RowJob<Scalar>& r, Scalar omega, Accum& g) {
  Scalar ss[kRowChunk];
  Accum acc[kGosaLanes] = {};
  for (int k = 0; k < r.n; k += kRowChunk) row_piece(r, k, r.n - k < kRowChunk ? r.n - k : kRowChunk, omega, ss, acc);
  g += lane_sum(acc);
}

// The two gosas as one reduction value: a fixed-size type (Kokkos' Cuda team
// reductions take no runtime-sized arrays with teams under 32 threads), laid
// out as two consecutive Accum, so it reduces straight into gosa2(0..1).
template <class Accum>
struct Gosa2 {
  Accum g[2];
};

template <class ExecSpace, class State, class Accum>
struct Sweep2Rows {
  using Scalar = typename State::scalar_type;
  using value_type = Gosa2<Accum>;  // {gosa of sweep 1, gosa of sweep 2}
  using Policy = Kokkos::TeamPolicy<ExecSpace, Kokkos::Schedule<Kokkos::Static>>;
  using Member = typename Policy::member_type;
  using Window =
      Kokkos::View<Scalar*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  Arrays<State> f;
  Scalar omega;
  int imax, jmax, kmax;
  int ibegin, iend;  // sweep 2 updates planes [ibegin, iend)
  FusedTiles t;
  int ntj, ntk, level;  // tiles along j and k, scratch level

  // Window: kFusedRing plane slots of t.j + 2 rows of t.row points.
  KOKKOS_INLINE_FUNCTION static std::ptrdiff_t slot_size(const FusedTiles& t) {
    return std::ptrdiff_t(t.j + 2) * t.row;
  }
  static std::size_t window_size(const FusedTiles& t) { return std::size_t(kFusedRing) * slot_size(t); }

  KOKKOS_INLINE_FUNCTION void init(value_type& v) const { v.g[0] = v.g[1] = 0; }
  KOKKOS_INLINE_FUNCTION void join(value_type& d, const value_type& s) const {
    d.g[0] += s.g[0];
    d.g[1] += s.g[1];
  }
#if KOKKOS_VERSION < 30700
  // Kokkos before 3.7 joins through volatile references (4.0 dropped them).
  KOKKOS_INLINE_FUNCTION void join(volatile value_type& d, const volatile value_type& s) const {
    d.g[0] += s.g[0];
    d.g[1] += s.g[1];
  }
#endif

  KOKKOS_INLINE_FUNCTION void operator()(const Member& team, value_type& gosa) const {
    int tile = team.league_rank();
    const int k0 = 1 + (tile % ntk) * t.k;
    tile /= ntk;
    const int j0 = 1 + (tile % ntj) * t.j;
    const int i0 = ibegin + (tile / ntj) * t.i;
    const int mk = kmax - 1 - k0 < t.k ? kmax - 1 - k0 : t.k;  // points of this tile
    const int mj = jmax - 1 - j0 < t.j ? jmax - 1 - j0 : t.j;
    const int i1 = iend < i0 + t.i ? iend : i0 + t.i;
    const std::ptrdiff_t slot = slot_size(t), row = t.row;
    Scalar* const win = Window(team.team_scratch(level), std::size_t(kFusedRing) * slot).data();
    const std::ptrdiff_t sn = f.a.stride(0), si = f.p.stride(0), sj = f.p.stride(1);
    // Window column x is k = k0 - 1 + x, row r is j = j0 - 1 + r. Sweep 1
    // computes the interior columns [kb, ke) (the tile and its halo); a
    // boundary column is p's.
    const int kb = k0 > 1 ? k0 - 1 : 1;
    const bool last_k = k0 + mk == kmax - 1;
    const int ke = last_k ? kmax - 1 : k0 + mk + 1;
    const int xb = kb - (k0 - 1);
    Accum g1 = 0, g2 = 0;
    // The march's planes i0-1, i0, i0+1 in slots 0, 1, 2, and so on around the ring.
    Scalar* ring[kFusedRing];
    for (int x = 0; x < kFusedRing; ++x) ring[x] = win + x * slot;
    for (int i = i0 - 1; i <= i1; ++i) {
      Scalar* const cur = ring[(i - i0 + 1) % kFusedRing];    // plane i, written over plane i-3
      Scalar* const mid = ring[(i - i0 + 3) % kFusedRing];    // plane i-1
      Scalar* const below = ring[(i - i0 + 2) % kFusedRing];  // plane i-2
      const bool boundary_plane = i == 0 || i == imax - 1;
      const bool own_plane = i >= i0 && i < i1;
      for (int r = 0; r < mj + 2; ++r) {
        const int j = j0 - 1 + r;
        Scalar* const out = cur + r * row;
        if (boundary_plane || j == 0 || j == jmax - 1) {
          for (int x = 0; x < mk + 2; ++x) out[x] = f.p(i, j, k0 - 1 + x);
        } else {
          if (xb == 1) out[0] = f.p(i, j, 0);
          if (last_k) out[mk + 1] = f.p(i, j, kmax - 1);
          const bool own = own_plane && r >= 1 && r <= mj;
          row_sweep(RowJob<Scalar>{&f.a(0, i, j, kb), &f.b(0, i, j, kb), &f.c(0, i, j, kb), &f.bnd(i, j, kb),
                                   &f.wrk1(i, j, kb), &f.p(i, j, kb), sn, -si, si, sj, out + xb, ke - kb,
                                   own ? k0 - kb : 0, own ? k0 + mk - kb : 0},
                    omega, g1);
        }
        // Sweep 2 of row (i-1, j-1), one plane of the tile after sweep 1
        // read its coefficients: its sweep-1 neighbours (planes i-2 .. i,
        // rows j-2 .. j) are all in the window now.
        if (i > i0 && r >= 2) {
          const int c = i - 1, jc = j - 1;
          row_sweep(RowJob<Scalar>{&f.a(0, c, jc, k0), &f.b(0, c, jc, k0), &f.c(0, c, jc, k0), &f.bnd(c, jc, k0),
                                   &f.wrk1(c, jc, k0), mid + (r - 1) * row + 1, sn, below - mid, cur - mid, row,
                                   &f.wrk2(c, jc, k0), mk, 0, mk},
                    omega, g2);
        }
      }
    }
    gosa.g[0] += g1;
    gosa.g[1] += g2;
  }
};

// Two Jacobi sweeps in one pass over memory. Sweep 1 reads s.p, sweep 2 reads
// sweep 1's result; sweep 2's result is written to s.wrk2 on planes
// [r.begin, r.end) (r = plane_range(s.grid.imax, opt)), nothing else of wrk2
// is written; s.p is not modified (the caller swaps p and wrk2 once, as after
// one sweep). gosa2: a rank-1 View of Accum (exec can access), extent >= 2:
// gosa2(0) = gosa of sweep 1, gosa2(1) = gosa of sweep 2, both summed over
// planes [r.begin, r.end) only. Queued on exec (no host sync needed when gosa2
// is device memory). opt.tile_i/j/k set the tile (0: fused_tiles' defaults).
// gosa2 holds the gosa of both sweeps: contiguous, at least 2 values.
template <class GosaView>
void require_gosa2(const GosaView& gosa2) {
  if (gosa2.extent(0) < 2 || gosa2.stride(0) != 1)
    throw std::invalid_argument("tessera::himeno::sweep2: gosa2 must be a contiguous View of at least 2 values");
}

template <class Accum, class ExecSpace, class State, class GosaView>
void sweep2_rows(const ExecSpace& exec, const State& s, const SweepOptions& opt, const GosaView& gosa2) {
  static_assert(Kokkos::is_view<GosaView>::value && GosaView::rank == 1,
                "tessera::himeno::sweep2: gosa2 must be a rank-1 View");
  static_assert(std::is_same_v<typename GosaView::non_const_value_type, Accum>,
                "tessera::himeno::sweep2: gosa2 must hold Accum");
  static_assert(std::is_floating_point_v<Accum>, "tessera::himeno::sweep2: Accum must be float or double");
  static_assert(can_access_v<ExecSpace, GosaView>, "tessera::himeno::sweep2: exec cannot access gosa2's memory");
  static_assert(can_access_v<ExecSpace, typename State::View3>,
                "tessera::himeno::sweep2: exec cannot access the state's memory");
  require_gosa2(gosa2);
  using Functor = Sweep2Rows<ExecSpace, State, Accum>;
  const PlaneRange r = plane_range(s.grid.imax, opt);
  if (r.begin == r.end) {  // nothing to update: both gosas 0
    Kokkos::deep_copy(exec, Kokkos::subview(gosa2, std::make_pair(0, 2)), Accum(0));
    return;
  }
  const int jmax = s.grid.jmax, kmax = s.grid.kmax;
  const FusedTiles t = fused_tiles(exec, r.end - r.begin, jmax, kmax, opt);
  const int nti = (r.end - r.begin + t.i - 1) / t.i, ntj = (jmax - 2 + t.j - 1) / t.j, ntk = (kmax - 2 + t.k - 1) / t.k;
  if ((long long)nti * ntj * ntk > std::numeric_limits<int>::max())
    throw std::invalid_argument("tessera::himeno::sweep2: too many tiles; use larger tile_i, tile_j, tile_k");
  // Static schedule: each thread takes a contiguous run of tiles (k fastest,
  // then j: neighbours share halo rows) and sums them in order.
  typename Functor::Policy policy(exec, nti * ntj * ntk, 1, 1);
  const std::size_t bytes = Functor::Window::shmem_size(Functor::window_size(t));
  const bool fits0 = bytes <= std::size_t(policy.scratch_size_max(0));
  // Level 1 on a GPU is allocated for every resident thread: keep GPU tiles small.
  if (is_device_space_v<ExecSpace> && !fits0)
    throw std::invalid_argument("tessera::himeno::sweep2: a " + std::to_string(t.j) + " x " + std::to_string(t.k) +
                                " tile does not fit in shared memory; use smaller tile_j, tile_k on GPUs");
  const int level = fits0 ? 0 : 1;
  policy.set_scratch_size(level, Kokkos::PerTeam(bytes));
  static_assert(sizeof(Gosa2<Accum>) == 2 * sizeof(Accum), "Gosa2 must be two consecutive Accum");
  const Kokkos::View<Gosa2<Accum>, typename GosaView::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>> result(
      reinterpret_cast<Gosa2<Accum>*>(gosa2.data()));
  Functor fn{Arrays<State>(s), s.omega, s.grid.imax, jmax, kmax, r.begin, r.end, t, ntj, ntk, level};
  Kokkos::parallel_reduce("tessera::himeno::sweep2[fused rows]", policy, fn, result);
}

}  // namespace tessera::himeno::impl
