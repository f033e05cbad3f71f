// The fused two-sweep kernel (impl::sweep2_rows) on every built backend: wrk2
// bit-identical to two rows sweeps (sweep 1 on the planes sweep 2 needs),
// nothing else of wrk2 written, p untouched, both gosas equal to the rows
// sweeps' up to summation order; random fields and the benchmark's initial
// state, float, mixed and double, full and partial plane ranges, default tiles
// and small ones that put tile, chunk and window boundaries everywhere.
#include "exec_spaces.hpp"
#include "tessera/himeno/himeno.hpp"
#include "tessera/himeno/impl/himeno_kokkos_fused.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace tessera::himeno;
using tessera::test::ExecSpaces;

// Host copy of a View, flattened (LayoutRight), in its own type: compared bit for bit.
template <class View>
std::vector<typename View::non_const_value_type> host_values(const View& v) {
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  return std::vector<typename View::non_const_value_type>(h.data(), h.data() + h.span());
}

template <class T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

std::string point(const Grid& g, std::size_t x) {
  const std::size_t k = x % g.kmax, j = x / g.kmax % g.jmax, i = x / g.kmax / g.jmax;
  return "(" + std::to_string(i) + ", " + std::to_string(j) + ", " + std::to_string(k) + ")";
}

SweepOptions planes(int ib, int ie) {
  SweepOptions o;
  o.kernel = Kernel::rows;
  o.i_begin = ib;
  o.i_end = ie;
  return o;
}

// Tiles (i, j, k); 0 = the default. {1, 1, 1}: every point its own tile,
// all of sweep 1 halo; {3, 2, 7}, {7, 5, 0}: boundaries mid-grid and chunks
// long enough to move the window.
struct Tiles {
  int i, j, k;
};
const Tiles kTiles[] = {{0, 0, 0}, {1, 1, 1}, {3, 2, 7}, {7, 5, 0}};

std::string tiles_str(const Tiles& t) {
  return "tiles " + std::to_string(t.i) + "x" + std::to_string(t.j) + "x" + std::to_string(t.k);
}

// Two rows sweeps on a copy of the state: sweep 1 on r's planes and their i
// neighbours within the interior, sweep 2 on r. Returns {gosa1, gosa2} over
// r; ref.wrk2 holds sweep 2's result.
template <class A, class ExecSpace, class State>
std::vector<double> two_rows_sweeps(const ExecSpace& exec, State& ref, impl::PlaneRange r) {
  const int imax = ref.grid.imax;
  A g1 = 0, g2 = 0, unused = 0;
  impl::sweep_rows<A>(exec, ref, planes(std::max(1, r.begin - 1), std::min(imax - 1, r.end + 1)), unused);
  impl::sweep_rows<A>(exec, ref, planes(r.begin, r.end), g1);  // gosa over r only (same values again)
  std::swap(ref.p, ref.wrk2);
  impl::sweep_rows<A>(exec, ref, planes(r.begin, r.end), g2);
  return {double(g1), double(g2)};
}

// Fused against two rows sweeps on the same state: wrk2 (first filled with
// NaN) bit-identical on the interior of planes [ib, ie) (0, 0: all), NaN
// elsewhere; p unchanged; gosas within summation-order rounding.
template <class S, class A, class ExecSpace>
void check(const Grid& grid, int ib, int ie, const Tiles& tiles, bool benchmark_init = false) {
  const auto seed = tessera::test::fresh_seed();
  SCOPED_TRACE(std::string(ExecSpace::name()) + " grid " + grid.str() + ", planes [" + std::to_string(ib) + ", " +
               std::to_string(ie) + "), " + tiles_str(tiles) + (benchmark_init ? ", benchmark state" : "") +
               ", storage " + (sizeof(S) == 4 ? "float" : "double") + ", accum " +
               (sizeof(A) == 4 ? "float" : "double") + ", seed " + std::to_string(seed));
  using Mem = typename ExecSpace::memory_space;
  ExecSpace exec;
  HimenoState<S, Mem> s(grid), ref(grid);
  if (benchmark_init) {
    initialize(exec, s);
    initialize(exec, ref);
  } else {
    initialize_random(exec, s, seed);
    initialize_random(exec, ref, seed);
  }
  SweepOptions opt = planes(ib, ie);
  opt.tile_i = tiles.i, opt.tile_j = tiles.j, opt.tile_k = tiles.k;
  const impl::PlaneRange r = impl::plane_range(grid.imax, opt);
  const auto want = two_rows_sweeps<A>(exec, ref, r);

  Kokkos::deep_copy(s.wrk2, std::numeric_limits<S>::quiet_NaN());
  const auto p_before = host_values(s.p);
  Kokkos::View<A*, Mem> gosa2("gosa2", 3);
  Kokkos::deep_copy(gosa2, A(-7));  // gosa2(2) must stay
  impl::sweep2_rows<A>(exec, s, opt, gosa2);
  const auto got = host_values(gosa2);

  const auto w = host_values(s.wrk2), w_ref = host_values(ref.wrk2);
  int written = 0, mismatches = 0;
  for (std::size_t x = 0; x < w.size(); ++x) {
    const int k = int(x % grid.kmax), j = int(x / grid.kmax % grid.jmax), i = int(x / grid.kmax / grid.jmax);
    const bool updated = i >= r.begin && i < r.end && j > 0 && j < grid.jmax - 1 && k > 0 && k < grid.kmax - 1;
    written += !std::isnan(w[x]);
    if (updated ? !same_bits(w[x], w_ref[x]) : !std::isnan(w[x])) {
      if (++mismatches <= 3)
        ADD_FAILURE() << (updated ? "wrk2 differs from two rows sweeps" : "wrk2 written outside the range") << " at "
                      << point(grid, x) << ": " << w[x] << " vs " << (updated ? w_ref[x] : S(NAN));
    }
  }
  EXPECT_EQ(mismatches, 0);
  EXPECT_EQ(written, (r.end - r.begin) * (grid.jmax - 2) * (grid.kmax - 2));
  const auto p_after = host_values(s.p);
  EXPECT_TRUE(std::equal(p_after.begin(), p_after.end(), p_before.begin(), same_bits<S>)) << "p was written";

  // Both sums of the same ss^2 in different orders: each within n eps of
  // the exact sum (n points), usually far closer.
  const double n = double(r.end - r.begin) * (grid.jmax - 2) * (grid.kmax - 2);
  const double tol = sizeof(A) == 8 ? 1e-12 : 2 * n * std::numeric_limits<A>::epsilon();
  EXPECT_NEAR(double(got[0]), want[0], tol * want[0]) << "gosa of sweep 1";
  EXPECT_NEAR(double(got[1]), want[1], tol * want[1]) << "gosa of sweep 2";
  if (n >= 64 && !benchmark_init) EXPECT_GT(want[1], 0.0);  // not all of bnd 0
  EXPECT_EQ(double(got[2]), -7.0) << "gosa2(2) was written";
  if (benchmark_init && r.begin == 1 && r.end == grid.imax - 1 && sizeof(S) == 8 && sizeof(A) == 8) {
    // every interior point has ss = 1 / (3 (imax-1)^2) (see test_himeno.cpp)
    const double ss = 1 / (3 * double(grid.imax - 1) * (grid.imax - 1));
    EXPECT_NEAR(double(got[0]), first_gosa_closed_form(grid),
                64 * std::numeric_limits<double>::epsilon() / ss * first_gosa_closed_form(grid));
  }
}

template <class ExecSpace>
class HimenoFused : public ::testing::Test {};
TYPED_TEST_SUITE(HimenoFused, ExecSpaces);

// 9x7x13, 17x12x33: odd extents, rows shorter than one vector; 3x3x3: one
// point; 20x9x300: rows longer than a rows_chunk and than a default tile
// (two k tiles); 40x6x10: a chunk of 32 planes, the ring of planes wraps
// many times.
const Grid kGrids[] = {{9, 7, 13}, {17, 12, 33}, {3, 3, 3}, {20, 9, 300}, {40, 6, 10}};

template <class S, class A, class ExecSpace>
void check_all_ranges() {
  for (const auto& g : kGrids)
    for (const auto& t : kTiles) {
      check<S, A, ExecSpace>(g, 0, 0, t);  // all planes
      if (g.imax < 5) continue;
      check<S, A, ExecSpace>(g, 1, 2, t);                    // the first plane: its i-1 neighbour is the boundary
      check<S, A, ExecSpace>(g, 2, g.imax - 2, t);           // both halo planes computed by sweep 1
      check<S, A, ExecSpace>(g, g.imax - 2, g.imax - 1, t);  // the last plane
      check<S, A, ExecSpace>(g, 3, 4, t);                    // one plane mid-grid
    }
}

TYPED_TEST(HimenoFused, MatchesTwoRowsSweepsDouble) { check_all_ranges<double, double, TypeParam>(); }
TYPED_TEST(HimenoFused, MatchesTwoRowsSweepsMixed) { check_all_ranges<float, double, TypeParam>(); }
TYPED_TEST(HimenoFused, MatchesTwoRowsSweepsFloat) { check_all_ranges<float, float, TypeParam>(); }

// The benchmark's initial state: the first gosa in closed form, the second
// as two rows sweeps give it.
TYPED_TEST(HimenoFused, BenchmarkInitialState) {
  for (const Grid g : {Grid{32, 32, 64}, Grid{9, 10, 11}, Grid{45, 7, 19}, Grid{3, 3, 3}}) {
    check<double, double, TypeParam>(g, 0, 0, {0, 0, 0}, true);
    check<double, double, TypeParam>(g, 0, 0, {3, 2, 7}, true);
    check<float, double, TypeParam>(g, 0, 0, {0, 0, 0}, true);
    check<float, float, TypeParam>(g, 0, 0, {0, 0, 0}, true);
  }
}

// An empty plane range writes nothing and gives two zero gosas.
TYPED_TEST(HimenoFused, EmptyRangeWritesNothing) {
  using Mem = typename TypeParam::memory_space;
  TypeParam exec;
  const Grid g{9, 7, 13};
  HimenoState<double, Mem> s(g);
  initialize_random(exec, s, tessera::test::fresh_seed());
  Kokkos::deep_copy(s.wrk2, -1.0);
  Kokkos::View<double*, Mem> gosa2("gosa2", 2);
  Kokkos::deep_copy(gosa2, 5.0);
  impl::sweep2_rows<double>(exec, s, planes(4, 4), gosa2);
  const auto got = host_values(gosa2);
  EXPECT_EQ(got[0], 0.0);
  EXPECT_EQ(got[1], 0.0);
  const auto w = host_values(s.wrk2);
  EXPECT_TRUE(std::all_of(w.begin(), w.end(), [](double x) { return x == -1.0; }));
}

TYPED_TEST(HimenoFused, InvalidArgumentsAreRejected) {
  using Mem = typename TypeParam::memory_space;
  TypeParam exec;
  const Grid g{7, 9, 13};
  HimenoState<double, Mem> s(g);
  initialize_random(exec, s, tessera::test::fresh_seed());
  Kokkos::View<double*, Mem> gosa2("gosa2", 2), short_gosa("gosa1", 1);
  EXPECT_THROW(impl::sweep2_rows<double>(exec, s, planes(0, 3), gosa2), std::invalid_argument);
  EXPECT_THROW(impl::sweep2_rows<double>(exec, s, planes(2, 7), gosa2), std::invalid_argument);
  EXPECT_THROW(impl::sweep2_rows<double>(exec, s, planes(5, 4), gosa2), std::invalid_argument);
  EXPECT_THROW(impl::sweep2_rows<double>(exec, s, planes(0, 0), short_gosa), std::invalid_argument);
  SweepOptions neg;
  neg.tile_j = -1;
  EXPECT_THROW(impl::sweep2_rows<double>(exec, s, neg, gosa2), std::invalid_argument);
}

// Repeated use, as a solver would: fused + swap, twice, equals four rows
// sweeps on the whole grid (the state's wrk2 carries p's boundary).
TYPED_TEST(HimenoFused, RepeatedUseMatchesFourRowsSweeps) {
  using Mem = typename TypeParam::memory_space;
  TypeParam exec;
  const Grid g{12, 10, 40};
  const auto seed = tessera::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  HimenoState<float, Mem> s(g), ref(g);
  initialize_random(exec, s, seed);
  initialize_random(exec, ref, seed);
  Kokkos::View<double*, Mem> gosa2("gosa2", 2);
  for (int n = 0; n < 2; ++n) {
    impl::sweep2_rows<double>(exec, s, SweepOptions{}, gosa2);
    std::swap(s.p, s.wrk2);
    const auto got = host_values(gosa2);
    const double want1 = sweep<double>(exec, ref, planes(0, 0)), want2 = sweep<double>(exec, ref, planes(0, 0));
    EXPECT_NEAR(got[0], want1, 1e-12 * want1);
    EXPECT_NEAR(got[1], want2, 1e-12 * want2);
  }
  const auto p = host_values(s.p), p_ref = host_values(ref.p);
  EXPECT_TRUE(std::equal(p.begin(), p.end(), p_ref.begin(), same_bits<float>));
}

// The public sweep2 (on Kokkos::Cuda: the native two-sweep kernel) against
// two automatic sweeps, over several fused pairs: the same p to rounding
// (native kernels' FMA contractions differ from the portable ones'), both
// gosas, into double and float Views (the latter converted on Cuda). Grids
// with partial tiles everywhere.
template <class S, class G, class ExecSpace>
void check_public_sweep2(const Grid& g) {
  const SweepOptions opt;
  using Mem = typename ExecSpace::memory_space;
  ExecSpace exec;
  const auto seed = tessera::test::fresh_seed();
  SCOPED_TRACE(std::string(ExecSpace::name()) + " grid " + g.str() + ", storage " + (sizeof(S) == 4 ? "float" : "double") +
               ", gosa " + (sizeof(G) == 4 ? "float" : "double") + ", seed " + std::to_string(seed));
  HimenoState<S, Mem> s(g), ref(g);
  initialize_random(exec, s, seed);
  initialize_random(exec, ref, seed);
  Kokkos::View<G*, Mem> gosa2("gosa2", 2);
  const double eps = std::numeric_limits<S>::epsilon(), geps = std::numeric_limits<G>::epsilon();
  for (int pair = 0; pair < 2; ++pair) {
    sweep2(exec, s, gosa2, opt);
    const auto got = host_values(gosa2);
    const double want1 = sweep<double>(exec, ref, opt), want2 = sweep<double>(exec, ref, opt);
    // p changes by ~1 per sweep: relative differences of a few eps per sweep;
    // gosa sums n such squares.
    const double n = double(g.interior());
    const double tol = 256 * eps + 4 * n * geps;
    EXPECT_NEAR(double(got[0]), want1, tol * want1) << "gosa of sweep 1, pair " << pair;
    EXPECT_NEAR(double(got[1]), want2, tol * want2) << "gosa of sweep 2, pair " << pair;
    EXPECT_GT(want2, 0.0);
  }
  const auto p = host_values(s.p), p_ref = host_values(ref.p);
  int bad = 0;
  for (std::size_t x = 0; x < p.size(); ++x)
    if (!(std::abs(double(p[x]) - double(p_ref[x])) <= 256 * eps * (1 + std::abs(double(p_ref[x]))))) {
      if (++bad <= 3) ADD_FAILURE() << "p differs at " << point(g, x) << ": " << p[x] << " vs " << p_ref[x];
    }
  EXPECT_EQ(bad, 0);
}

TYPED_TEST(HimenoFused, PublicSweep2MatchesTwoSweeps) {
  for (const Grid& g : {Grid{5, 6, 7}, Grid{19, 35, 70}, Grid{70, 17, 33}}) {
    check_public_sweep2<float, double, TypeParam>(g);
    check_public_sweep2<double, double, TypeParam>(g);
    check_public_sweep2<float, float, TypeParam>(g);
  }
}

// CPU chunks along i: the count whose pass (ceil(tiles / threads) tiles of
// planes / chunks + 2 halo planes each) is shortest, chunks of at least
// kFusedMinPlanes planes, and one chunk on one thread.
TEST(HimenoFusedTiles, CpuChunksBalanceTheThreads) {
  using namespace tessera::himeno::impl;
  const auto cdiv = [](long long a, long long b) { return (a + b - 1) / b; };
  const auto cost = [&](long long planes, long long per_chunk, long long threads, long long seg) {
    return cdiv(seg * per_chunk, threads) * (cdiv(planes, seg) + 2);
  };
  for (const long long planes : {1LL, 31LL, 64LL, 126LL, 254LL, 510LL, 1022LL})
    for (const long long per_chunk : {1LL, 11LL, 16LL, 32LL, 33LL, 200LL})
      for (const long long threads : {1LL, 2LL, 16LL, 64LL}) {
        const long long seg = fused_cpu_segments(planes, per_chunk, threads);
        SCOPED_TRACE(std::to_string(planes) + " planes, " + std::to_string(per_chunk) + " tiles per chunk, " +
                     std::to_string(threads) + " threads: " + std::to_string(seg) + " chunks");
        ASSERT_GE(seg, 1);
        EXPECT_LE(seg, std::max(1LL, planes / kFusedMinPlanes));
        for (long long other = 1; other <= std::max(1LL, planes / kFusedMinPlanes); ++other)
          EXPECT_LE(cost(planes, per_chunk, threads, seg), cost(planes, per_chunk, threads, other));
        if (threads == 1) EXPECT_EQ(seg, 1);
      }
  // L with 8-row tiles on 16 threads: 32 tiles per chunk, one chunk (2 tiles
  // each); 11 tiles per chunk (24 rows): not 6 chunks (66 tiles, 5 for some
  // threads) but 10 (110 tiles of 51 planes, 7 for most).
  EXPECT_EQ(fused_cpu_segments(510, 32, 16), 1);
  EXPECT_EQ(fused_cpu_segments(510, 11, 16), 10);
}

}  // namespace
