// Himeno sweeps on every built backend: both portable kernels (and explicit
// small tiles) against plain serial loops on random fields, the paper's Table
// VII, the closed-form first sweep, bad input, and the driver workload.
#include "exec_spaces.hpp"
#include "tessera/driver/options.hpp"
#include "tessera/himeno/himeno.hpp"
#include "tessera/himeno/workload/himeno_workload.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace tessera::himeno;
using tessera::test::ExecSpaces;

// Plain serial loops in T (himenoBMTxps.c's jacobi()) over host copies of a
// state's arrays; gosa summed by one accumulator of type A.
template <class T>
struct Plain {
  Grid g;
  T omega;
  std::vector<T> a[4], b[3], c[3], p, bnd, wrk1;

  template <class State>
  explicit Plain(const State& s) : g(s.grid), omega(T(s.omega)) {
    const auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.a);
    const auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.b);
    const auto hc = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.c);
    const auto hp = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.p);
    const auto hbnd = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.bnd);
    const auto hw = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.wrk1);
    for (int i = 0; i < g.imax; ++i)
      for (int j = 0; j < g.jmax; ++j)
        for (int k = 0; k < g.kmax; ++k) {
          for (int n = 0; n < 4; ++n) a[n].push_back(T(ha(n, i, j, k)));
          for (int n = 0; n < 3; ++n) b[n].push_back(T(hb(n, i, j, k))), c[n].push_back(T(hc(n, i, j, k)));
          p.push_back(T(hp(i, j, k)));
          bnd.push_back(T(hbnd(i, j, k)));
          wrk1.push_back(T(hw(i, j, k)));
        }
  }
  std::size_t at(int i, int j, int k) const { return (std::size_t(i) * g.jmax + j) * g.kmax + k; }

  template <class A = double>
  double sweep() {
    std::vector<T> wrk2 = p;
    A gosa = 0;
    for (int i = 1; i < g.imax - 1; ++i)
      for (int j = 1; j < g.jmax - 1; ++j)
        for (int k = 1; k < g.kmax - 1; ++k) {
          const std::size_t x = at(i, j, k);
          auto P = [&](int di, int dj, int dk) { return p[at(i + di, j + dj, k + dk)]; };
          const T s0 = a[0][x] * P(1, 0, 0) + a[1][x] * P(0, 1, 0) + a[2][x] * P(0, 0, 1) +
                       b[0][x] * (P(1, 1, 0) - P(1, -1, 0) - P(-1, 1, 0) + P(-1, -1, 0)) +
                       b[1][x] * (P(0, 1, 1) - P(0, -1, 1) - P(0, 1, -1) + P(0, -1, -1)) +
                       b[2][x] * (P(1, 0, 1) - P(-1, 0, 1) - P(1, 0, -1) + P(-1, 0, -1)) + c[0][x] * P(-1, 0, 0) +
                       c[1][x] * P(0, -1, 0) + c[2][x] * P(0, 0, -1) + wrk1[x];
          const T ss = (s0 * a[3][x] - P(0, 0, 0)) * bnd[x];
          gosa += A(ss * ss);
          wrk2[x] = P(0, 0, 0) + omega * ss;
        }
    p.swap(wrk2);
    return double(gosa);
  }
};

template <class View>
std::vector<double> host_values(const View& v) {
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  return std::vector<double>(h.data(), h.data() + h.span());
}

// max |x - ref| / max |ref|
double rel_err(const std::vector<double>& x, const std::vector<double>& ref) {
  double e = 0, s = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (std::isnan(x[i])) return std::numeric_limits<double>::infinity();
    e = std::max(e, std::abs(x[i] - ref[i]));
    s = std::max(s, std::abs(ref[i]));
  }
  return e / s;
}

std::string kernel_name(const SweepOptions& o) {
  if (o.kernel == Kernel::mdrange) return "mdrange";
  if (o.kernel == Kernel::pointwise) return "pointwise";
  return "teamscratch " + std::to_string(o.tile_i) + "x" + std::to_string(o.tile_j) + "x" + std::to_string(o.tile_k);
}

// mdrange, pointwise, teamscratch with default tiles, and small tiles that leave partial
// tiles in j and k and cut the march into segments.
const SweepOptions kKernels[] = {{Kernel::mdrange, 0, 0, 0}, {Kernel::teamscratch, 0, 0, 0},
                                 {Kernel::teamscratch, 3, 2, 5}, {Kernel::automatic, 4, 3, 7},
                                 {Kernel::pointwise, 0, 0, 0}};
const Grid kSmallGrids[] = {{3, 3, 3}, {9, 10, 11}, {17, 13, 20}, {5, 40, 37}, {12, 7, 70}};

template <class ExecSpace>
class Himeno : public ::testing::Test {};
TYPED_TEST_SUITE(Himeno, ExecSpaces);

// Every kernel against the plain double loop, from random fields, 1 and 4 sweeps.
template <class S, class A, class ExecSpace>
void check_random_fields(const Grid& grid, const SweepOptions& opt, int iters) {
  const auto seed = tessera::test::fresh_seed();
  SCOPED_TRACE(std::string(ExecSpace::name()) + " grid " + grid.str() + ", " + kernel_name(opt) + ", " +
               std::to_string(iters) + " sweeps, seed " + std::to_string(seed));
  ExecSpace exec;
  HimenoState<S, typename ExecSpace::memory_space> s(grid);
  initialize_random(exec, s, seed);
  Plain<double> ref(s);
  // After n sweeps p agrees with the double loop to about n eps(S) max|p|
  // (max|p| < 1 here), so each ss to e = 16 n eps; ss itself may be far
  // smaller than p (small grids converge in a few sweeps), so gosa = sum ss^2
  // is bounded by Cauchy-Schwarz, |d gosa| <= 2 e sqrt(N gosa) + N e^2, plus
  // the summation's N eps(A) gosa.
  const double eps = std::numeric_limits<S>::epsilon(), pts = double(grid.interior());
  for (int n = 1; n <= iters; ++n) {
    const double want = ref.sweep(), e = 16 * n * eps;
    const double got = sweep<A>(exec, s, opt);
    EXPECT_NEAR(got, want, pts * std::numeric_limits<A>::epsilon() * want + 2 * e * std::sqrt(pts * want) + pts * e * e)
        << "sweep " << n;
  }
  EXPECT_LE(rel_err(host_values(s.p), ref.p), 16 * iters * eps);
}

TYPED_TEST(Himeno, KernelsMatchSerialLoopOnRandomFieldsDouble) {
  for (const auto& g : kSmallGrids)
    for (const auto& k : kKernels)
      for (int iters : {1, 4}) check_random_fields<double, double, TypeParam>(g, k, iters);
}
TYPED_TEST(Himeno, KernelsMatchSerialLoopOnRandomFieldsMixed) {
  for (const auto& g : kSmallGrids)
    for (const auto& k : kKernels) check_random_fields<float, double, TypeParam>(g, k, 3);
}
TYPED_TEST(Himeno, KernelsMatchSerialLoopOnRandomFieldsFloatSum) {
  for (const auto& k : kKernels) check_random_fields<float, float, TypeParam>({17, 13, 20}, k, 2);
}

// The pointwise kernel's teams in chunks of j-tiles (9 tiles of 8 rows for
// 1024 floats a row, then a partial chunk of 2).
TYPED_TEST(Himeno, PointwiseInChunksMatchesSerialLoop) {
  ASSERT_EQ(chunk_tiles(1024, 8, sizeof(float), 11), 9);
  check_random_fields<float, double, TypeParam>({5, 90, 1024}, {Kernel::pointwise, 0, 0, 0}, 2);
}

// Chunk order: every tile exactly once, k fastest, a chunk's j-tiles before
// the next plane, whole chunks one after the other; the portable kernel's
// multiply-shift form gives the same order.
// Host states: the seven arrays start at distinct offsets modulo 16 KiB
// (page-aligned starts put a CPU row sweep's 14 streams into the same L1
// sets at power-of-two grids), 64-byte aligned, and do not overlap.
TEST(HimenoState, HostArraysStaggeredAndDisjoint) {
  for (const tessera::himeno::Grid g : {tessera::himeno::Grid{32, 32, 64}, tessera::himeno::Grid{9, 7, 13}}) {
    const tessera::himeno::HimenoState<double, Kokkos::HostSpace> s(g);
    const std::size_t n = std::size_t(g.imax) * g.jmax * g.kmax;
    struct Span {
      const char* begin;
      std::size_t bytes;
    };
    const Span spans[] = {{(const char*)s.a.data(), 4 * n * 8}, {(const char*)s.b.data(), 3 * n * 8},
                          {(const char*)s.c.data(), 3 * n * 8}, {(const char*)s.p.data(), n * 8},
                          {(const char*)s.bnd.data(), n * 8},   {(const char*)s.wrk1.data(), n * 8},
                          {(const char*)s.wrk2.data(), n * 8}};
    std::vector<std::uintptr_t> mod;
    for (const Span& x : spans) {
      EXPECT_EQ(reinterpret_cast<std::uintptr_t>(x.begin) % 64, 0u);
      mod.push_back(reinterpret_cast<std::uintptr_t>(x.begin) % 16384);
      for (const Span& y : spans)
        if (&x != &y) EXPECT_TRUE(x.begin + x.bytes <= y.begin || y.begin + y.bytes <= x.begin) << "overlap";
    }
    std::sort(mod.begin(), mod.end());
    EXPECT_EQ(std::unique(mod.begin(), mod.end()), mod.end()) << "two arrays start at one offset modulo 16 KiB";
  }
}

TEST(HimenoChunkOrder, VisitsEveryTileOnceInChunks) {
  using State = HimenoState<float, Kokkos::HostSpace>;
  const State s(Grid{3, 3, 3});
  struct Shape {
    int nkt, njt, ni, cj;
  };
  for (const Shape& sh : {Shape{1, 1, 1, 1}, Shape{3, 7, 5, 2}, Shape{4, 9, 3, 9}, Shape{2, 10, 4, 3},
                          Shape{5, 32, 6, 18}, Shape{1, 5, 1, 7}}) {
    SCOPED_TRACE("tiles " + std::to_string(sh.nkt) + " x " + std::to_string(sh.njt) + " x " + std::to_string(sh.ni) +
                 ", " + std::to_string(sh.cj) + " j-tiles a chunk");
    const int cj = std::min(sh.cj, sh.njt);
    const ChunkOrder order{sh.nkt, sh.njt, sh.ni, cj};
    const impl::SweepPointwise<Kokkos::DefaultHostExecutionSpace, State, double> portable(s, 1, sh.ni, sh.njt,
                                                                                          sh.nkt, cj);
    const int n = sh.nkt * sh.njt * sh.ni;
    std::vector<int> seen(std::size_t(n), 0);
    int last_chunk = 0, last_plane = 0;
    for (int b = 0; b < n; ++b) {
      int kt, jt, i, kb, jb, ti;
      order.tile(unsigned(b), kt, jt, i);
      portable.tile(b, kb, jb, ti);
      ASSERT_TRUE(kt >= 0 && kt < sh.nkt && jt >= 0 && jt < sh.njt && i >= 0 && i < sh.ni) << "block " << b;
      EXPECT_TRUE(kb == kt && jb == jt && ti == i) << "block " << b << ": portable order differs";
      EXPECT_EQ(kt, b % sh.nkt);
      ++seen[std::size_t((i * sh.njt + jt) * sh.nkt + kt)];
      const int chunk = jt / cj;
      EXPECT_TRUE(chunk > last_chunk || (chunk == last_chunk && i >= last_plane)) << "block " << b;
      last_chunk = chunk, last_plane = i;
    }
    EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), n) << "a tile visited twice or never";
  }
  // About 4 MiB of the 14 streams a chunk plane, at least one tile, at most all.
  EXPECT_EQ(chunk_tiles(1024, 8, sizeof(double), 64), 4);  // XL double: 917 KiB a tile row
  EXPECT_EQ(chunk_tiles(1 << 16, 8, sizeof(double), 64), 1);
  EXPECT_EQ(chunk_tiles(16, 8, sizeof(float), 5), 5);
}

// The queued form (gosa into a View) and jacobi() agree with sweep().
TYPED_TEST(Himeno, QueuedSweepAndJacobiAgree) {
  using Mem = typename TypeParam::memory_space;
  TypeParam exec;
  const Grid g = make_grid(11, 9, 35);
  const auto seed = tessera::test::fresh_seed();
  HimenoState<double, Mem> s1(g), s2(g);
  initialize_random(exec, s1, seed);
  initialize_random(exec, s2, seed);
  Kokkos::View<double*, Mem> gosa("gosa", 3);
  for (int n = 0; n < 3; ++n) sweep(exec, s1, Kokkos::subview(gosa, n));
  std::vector<double> history;
  const double last = jacobi(exec, s2, 3, {}, &history);
  const auto queued = host_values(gosa);
  ASSERT_EQ(history.size(), 3u);
  for (int n = 0; n < 3; ++n) EXPECT_NEAR(queued[n], history[n], 1e-13 * history[n]);
  EXPECT_EQ(last, history.back());
  EXPECT_LE(rel_err(host_values(s1.p), host_values(s2.p)), 1e-15);
}

// Phillips & Fatica, Table VII, "CPU double precision" column: gosa after one
// sweep from the benchmark's state, float storage and arithmetic, gosa summed
// in double. The grids are the C code's imax x jmax x kmax (MIMAX - 1 ...).
struct TableVII {
  Grid grid;
  const char* mixed;  // "CPU double precision"
  const char* single; // "CPU single precision": one float accumulator
};
const TableVII kTableVII[] = {{{32, 32, 64}, "6.714e-03", "6.711e-03"}, {{64, 64, 128}, "3.417e-03", "3.408e-03"}};

std::string digits4(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3e", x);
  return buf;
}

TYPED_TEST(Himeno, ReproducesTableVII) {
  using Mem = typename TypeParam::memory_space;
  TypeParam exec;
  for (const auto& row : kTableVII) {
    HimenoState<float, Mem> s(row.grid);
    for (const auto& k : kKernels) {
      SCOPED_TRACE(row.grid.str() + " " + kernel_name(k));
      initialize(exec, s);
      EXPECT_EQ(digits4(sweep<double>(exec, s, k)), row.mixed);
    }
    // The serial loop with the C code's float accumulator gives the
    // single-precision column: the error the paper attributes to the sum.
    initialize(exec, s);
    Plain<float> plain(s);
    EXPECT_EQ(digits4(plain.template sweep<float>()), row.single);
  }
}

// From the benchmark's state every interior point has ss = 1 / (3 (imax-1)^2):
// the pure-double gosa of the first sweep is N / (9 (imax-1)^4), and p grows by
// omega ss in the interior.
TYPED_TEST(Himeno, FirstSweepClosedForm) {
  using Mem = typename TypeParam::memory_space;
  TypeParam exec;
  EXPECT_NEAR(first_gosa_closed_form({32, 32, 64}), 6.713437e-3, 1e-9);
  EXPECT_NEAR(first_gosa_closed_form({256, 256, 512}), 8.646381e-4, 1e-10);
  for (const Grid g : {Grid{32, 32, 64}, Grid{64, 64, 128}, Grid{3, 3, 3}, Grid{9, 10, 11}, Grid{45, 7, 19}}) {
    HimenoState<double, Mem> s(g);
    const double h2 = double(g.imax - 1) * (g.imax - 1);
    const double ss = 1 / (3 * h2);
    // ss is the difference of O(1) terms: relative rounding ~ eps / ss.
    const double tol = 64 * std::numeric_limits<double>::epsilon() / ss;
    for (const auto& k : kKernels) {
      SCOPED_TRACE(g.str() + " " + kernel_name(k));
      initialize(exec, s);
      EXPECT_NEAR(sweep(exec, s, k), first_gosa_closed_form(g), tol * first_gosa_closed_form(g));
      const auto hp = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.p);
      double err = 0;
      for (int i = 0; i < g.imax; ++i)
        for (int j = 0; j < g.jmax; ++j)
          for (int kk = 0; kk < g.kmax; ++kk) {
            const bool inside = i > 0 && j > 0 && kk > 0 && i < g.imax - 1 && j < g.jmax - 1 && kk < g.kmax - 1;
            const double want = i * double(i) / h2 + (inside ? 0.8 * ss : 0.0);
            err = std::max(err, std::abs(hp(i, j, kk) - want));
          }
      EXPECT_LE(err, 16 * std::numeric_limits<double>::epsilon());
    }
  }
}

template <class F>
void expect_invalid(F&& f, const std::string& words) {
  try {
    f();
    ADD_FAILURE() << "no std::invalid_argument (expected one mentioning '" << words << "')";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TYPED_TEST(Himeno, BadInputIsRejected) {
  using Mem = typename TypeParam::memory_space;
  TypeParam exec;
  expect_invalid([] { make_grid(2, 10, 10); }, "at least 3");
  expect_invalid([] { make_grid(10, 10, 2); }, "at least 3");
  expect_invalid([] { make_grid(10, 0, 10); }, "at least 3");
  expect_invalid([] { make_grid(10, 10, 1 << 20); }, "at most");
  expect_invalid([] { (void)HimenoState<float, Mem>(Grid{5, 2, 5}); }, "at least 3");
  expect_invalid([] { parse_grid("8x8"); }, "IxJxK");
  expect_invalid([] { parse_grid("8x8x-3"); }, "IxJxK");
  expect_invalid([] { parse_grid("2x8x8"); }, "at least 3");
  expect_invalid([] { parse_grid("XXL"); }, "unknown size");
  EXPECT_EQ(parse_grid("9x10x11").str(), "9x10x11");
  EXPECT_EQ(parse_grid("M").str(), "128x128x256");
  HimenoState<float, Mem> s(make_grid(5, 5, 5));
  initialize(exec, s);
  expect_invalid([&] { jacobi(exec, s, 0); }, "iters must be at least 1");
  expect_invalid([&] { jacobi(exec, s, -3); }, "iters must be at least 1");
  expect_invalid([&] { sweep(exec, s, SweepOptions{Kernel::teamscratch, -1, 0, 0}); }, "positive");
  HimenoState<float, Mem> empty;
  expect_invalid([&] { sweep(exec, empty); }, "not allocated");
  expect_invalid([&] { initialize(exec, empty); }, "not allocated");
}

// The driver workload end to end on a tiny grid: every variant validates.
TEST(HimenoWorkload, EveryVariantValidates) {
  using tessera::driver::parse_options;
  auto w = make_himeno_workload();
  for (const char* prec : {"float", "mixed", "double"})
    for (const char* init : {"benchmark", "random"}) {
      SCOPED_TRACE(std::string(prec) + " " + init);
      w->configure(parse_options({"--size", "12x10x37", "--iters", "3", "--precision", prec, "--init", init},
                                 w->options(), "test"));
      EXPECT_NE(w->problem_summary().find("12x10x37"), std::string::npos);
      w->prepare(tessera::test::fresh_seed(), tessera::driver::Progress::none());
      const auto need = w->memory_need();
      EXPECT_GE(need.device_bytes, 14.0 * 12 * 10 * 37 * (prec[0] == 'd' ? 8 : 4));
      for (const auto& v : w->variants().all()) {
        if (!v.in_build() || (v.platform == tessera::driver::Platform::gpu && tessera::cuda_device_count() == 0))
          continue;
        const auto rows = v.run({0, 1});
        ASSERT_EQ(rows.size(), 1u);
        const auto& r = rows[0];
        EXPECT_EQ(r.kernel, "jacobi");
        EXPECT_TRUE(r.valid) << v.name << ": " << r.note;
        ASSERT_EQ(r.observables.size(), 1u);
        EXPECT_EQ(r.observables[0].name, "gosa");
        EXPECT_GT(r.observables[0].value, 0.0);
        EXPECT_GT(r.time.median, 0.0);
        EXPECT_DOUBLE_EQ(r.flops, 34.0 * 10 * 8 * 35 * 3);
        EXPECT_DOUBLE_EQ(r.bytes, 14.0 * 10 * 8 * 35 * 3 * (prec[0] == 'd' ? 8 : 4));
      }
    }
}

TEST(HimenoWorkload, BenchmarkSummaryAndBadOptions) {
  using tessera::driver::parse_options;
  using tessera::driver::UsageError;
  auto w = make_himeno_workload();
  w->configure(parse_options({"--size", "XS", "--iters", "1", "--precision", "mixed"}, w->options(), "test"));
  EXPECT_NE(w->problem_summary().find("final gosa 6.713711e-03"), std::string::npos) << w->problem_summary();
  for (std::vector<std::string> bad : {std::vector<std::string>{"--iters", "0"}, {"--iters", "-2"},
                                       {"--size", "2x8x8"}, {"--size", "8x8"}, {"--size", "XXL"},
                                       {"--precision", "half"}, {"--init", "zero"}})
    EXPECT_THROW(w->configure(parse_options(bad, w->options(), "test")), UsageError) << bad[0] << " " << bad[1];
}

}  // namespace
