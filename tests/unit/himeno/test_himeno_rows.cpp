// The rows kernel on every built backend, on random fields: against a plain
// double loop and against the mdrange kernel, for float, mixed and double,
// rows longer than one chunk, plane ranges, and the boundary (never written).
#include "exec_spaces.hpp"
#include "tessera/himeno/himeno.hpp"
#include "tessera/himeno/impl/himeno_kokkos_rows.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace tessera::himeno;
using tessera::test::ExecSpaces;

// Host copy of a rank-3 or rank-4 View, flattened (LayoutRight).
template <class View>
std::vector<double> host_values(const View& v) {
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  return std::vector<double>(h.data(), h.data() + h.span());
}

// himenoBMTxps.c's jacobi() in double over host copies of the arrays, planes
// [ib, ie) only; wrk2 starts as a copy of the state's wrk2, so what the sweep
// leaves alone is whatever was there.
struct Plain {
  Grid g;
  double omega;
  std::vector<double> a, b, c, p, bnd, wrk1, wrk2;
  template <class State>
  explicit Plain(const State& s)
      : g(s.grid), omega(double(s.omega)), a(host_values(s.a)), b(host_values(s.b)), c(host_values(s.c)),
        p(host_values(s.p)), bnd(host_values(s.bnd)), wrk1(host_values(s.wrk1)), wrk2(host_values(s.wrk2)) {}
  std::size_t at(int i, int j, int k) const { return (std::size_t(i) * g.jmax + j) * g.kmax + k; }
  double sweep(int ib = 1, int ie = -1) {
    if (ie < 0) ie = g.imax - 1;
    const std::size_t plane = std::size_t(g.points());
    double gosa = 0;
    for (int i = ib; i < ie; ++i)
      for (int j = 1; j < g.jmax - 1; ++j)
        for (int k = 1; k < g.kmax - 1; ++k) {
          const std::size_t x = at(i, j, k);
          const auto P = [&](int di, int dj, int dk) { return p[at(i + di, j + dj, k + dk)]; };
          const auto A = [&](const std::vector<double>& v, int n) { return v[n * plane + x]; };
          const double s0 = A(a, 0) * P(1, 0, 0) + A(a, 1) * P(0, 1, 0) + A(a, 2) * P(0, 0, 1) +
                            A(b, 0) * (P(1, 1, 0) - P(1, -1, 0) - P(-1, 1, 0) + P(-1, -1, 0)) +
                            A(b, 1) * (P(0, 1, 1) - P(0, -1, 1) - P(0, 1, -1) + P(0, -1, -1)) +
                            A(b, 2) * (P(1, 0, 1) - P(-1, 0, 1) - P(1, 0, -1) + P(-1, 0, -1)) + A(c, 0) * P(-1, 0, 0) +
                            A(c, 1) * P(0, -1, 0) + A(c, 2) * P(0, 0, -1) + wrk1[x];
          const double ss = (s0 * A(a, 3) - P(0, 0, 0)) * bnd[x];
          gosa += ss * ss;
          wrk2[x] = P(0, 0, 0) + omega * ss;
        }
    p.swap(wrk2);
    return gosa;
  }
};

double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

// Index and size of the largest |x - ref| (NaN counts as infinite).
struct Diff {
  std::size_t at = 0;
  double err = 0;
};
Diff max_diff(const std::vector<double>& x, const std::vector<double>& ref) {
  Diff d;
  for (std::size_t n = 0; n < x.size(); ++n) {
    const double e = std::isnan(x[n]) != std::isnan(ref[n]) ? std::numeric_limits<double>::infinity()
                     : std::isnan(x[n])                     ? 0.0
                                                            : std::abs(x[n] - ref[n]);
    if (e > d.err) d = {n, e};
  }
  return d;
}

std::string point(const Grid& g, std::size_t x) {
  const std::size_t k = x % g.kmax, j = x / g.kmax % g.jmax, i = x / g.kmax / g.jmax;
  return "(" + std::to_string(i) + ", " + std::to_string(j) + ", " + std::to_string(k) + ")";
}

SweepOptions rows_opt(int ib = 0, int ie = 0) {
  SweepOptions o;
  o.kernel = Kernel::rows;
  o.i_begin = ib;
  o.i_end = ie;
  return o;
}

// 7x9x13 and 13x5x37: odd extents, rows shorter than one vector; 4x3x600:
// 598 points per row, two full chunks of 256 and a partial one; 3x3x3: one point.
const Grid kGrids[] = {{7, 9, 13}, {13, 5, 37}, {4, 3, 600}, {3, 3, 3}, {6, 11, 66}};

template <class ExecSpace>
class HimenoRows : public ::testing::Test {};
TYPED_TEST_SUITE(HimenoRows, ExecSpaces);

// iters sweeps of rows, of mdrange (same initial state) and of the double
// loop: p and every gosa agree within the bounds of test_himeno.cpp.
template <class S, class A, class ExecSpace>
void check_against_mdrange_and_plain(const Grid& grid, int iters) {
  const auto seed = tessera::test::fresh_seed();
  SCOPED_TRACE(std::string(ExecSpace::name()) + " grid " + grid.str() + ", " + std::to_string(iters) +
               " sweeps, seed " + std::to_string(seed));
  using Mem = typename ExecSpace::memory_space;
  ExecSpace exec;
  HimenoState<S, Mem> rows(grid), md(grid);
  initialize_random(exec, rows, seed);
  initialize_random(exec, md, seed);
  Plain ref(rows);
  const double eps = std::numeric_limits<S>::epsilon(), pts = double(grid.interior());
  SweepOptions mdo;
  mdo.kernel = Kernel::mdrange;
  for (int n = 1; n <= iters; ++n) {
    SCOPED_TRACE("sweep " + std::to_string(n));
    const double want = ref.sweep(), e = 16 * n * eps;
    const double got = sweep<A>(exec, rows, rows_opt());
    const double got_md = sweep<A>(exec, md, mdo);
    // ss differs from the double loop by <= e: Cauchy-Schwarz bound on gosa,
    // plus the summation's own error (test_himeno.cpp).
    const double tol_sum = pts * std::numeric_limits<A>::epsilon() * want;
    EXPECT_NEAR(got, want, tol_sum + 2 * e * std::sqrt(pts * want) + pts * e * e);
    // mdrange evaluates the same stencil in the same order: ss agree to
    // rounding (equal on CPUs; contraction to FMA may differ on GPUs), the
    // sums to their summation order.
    const double e_md = 4 * n * eps;
    EXPECT_NEAR(got, got_md, 2 * tol_sum + 2 * e_md * std::sqrt(pts * want) + pts * e_md * e_md);
    const auto p = host_values(rows.p);
    const Diff d = max_diff(p, ref.p), dm = max_diff(p, host_values(md.p));
    EXPECT_LE(d.err, e * max_abs(ref.p)) << "at " << point(grid, d.at);
    EXPECT_LE(dm.err, e_md * max_abs(ref.p)) << "at " << point(grid, dm.at) << " (against mdrange)";
  }
}

TYPED_TEST(HimenoRows, MatchesMdrangeAndPlainLoopDouble) {
  for (const auto& g : kGrids)
    for (int iters : {1, 3}) check_against_mdrange_and_plain<double, double, TypeParam>(g, iters);
}
TYPED_TEST(HimenoRows, MatchesMdrangeAndPlainLoopMixed) {
  for (const auto& g : kGrids)
    for (int iters : {1, 3}) check_against_mdrange_and_plain<float, double, TypeParam>(g, iters);
}
TYPED_TEST(HimenoRows, MatchesMdrangeAndPlainLoopFloat) {
  for (const auto& g : kGrids)
    for (int iters : {1, 3}) check_against_mdrange_and_plain<float, float, TypeParam>(g, iters);
}

// One sweep into a wrk2 full of a sentinel: the updated points (the interior
// of planes [ib, ie)) match the double loop, every other point of wrk2 (the
// boundary, the other planes) still holds the sentinel, and p is untouched.
template <class S, class ExecSpace>
void check_planes(const Grid& grid, int ib, int ie) {
  const auto seed = tessera::test::fresh_seed();
  SCOPED_TRACE(std::string(ExecSpace::name()) + " grid " + grid.str() + ", planes [" + std::to_string(ib) + ", " +
               std::to_string(ie) + "), seed " + std::to_string(seed));
  using Mem = typename ExecSpace::memory_space;
  ExecSpace exec;
  HimenoState<S, Mem> s(grid);
  initialize_random(exec, s, seed);
  const S sentinel = S(-1234.5);
  Kokkos::deep_copy(s.wrk2, sentinel);
  Plain ref(s);
  const auto p_before = host_values(s.p);
  const double want = ref.sweep(ib == 0 && ie == 0 ? 1 : ib, ib == 0 && ie == 0 ? grid.imax - 1 : ie);
  const double got = sweep<double>(exec, s, rows_opt(ib, ie));
  const double eps = std::numeric_limits<S>::epsilon(), e = 16 * eps, pts = double(grid.interior());
  EXPECT_NEAR(got, want, pts * 1e-15 * want + 2 * e * std::sqrt(pts * want) + pts * e * e);
  const auto p = host_values(s.p);  // the new values (p and wrk2 were swapped)
  int written = 0, expected = 0;
  for (std::size_t x = 0; x < p.size(); ++x) {
    const bool changed = p[x] != double(sentinel);
    const bool reference_changed = ref.p[x] != double(sentinel);
    written += changed;
    expected += reference_changed;
    if (changed != reference_changed) {
      ADD_FAILURE() << (changed ? "written" : "not written") << " at " << point(grid, x);
      break;
    }
  }
  EXPECT_EQ(written, expected);
  const Diff d = max_diff(p, ref.p);
  EXPECT_LE(d.err, e * max_abs(p_before)) << "at " << point(grid, d.at);
  EXPECT_EQ(max_diff(host_values(s.wrk2), p_before).err, 0.0) << "p was written";
}

TYPED_TEST(HimenoRows, UpdatesOnlyTheInteriorOfThePlaneRange) {
  for (const auto& g : {Grid{13, 5, 37}, Grid{9, 7, 300}}) {
    check_planes<double, TypeParam>(g, 0, 0);  // all planes
    check_planes<float, TypeParam>(g, 0, 0);
    check_planes<double, TypeParam>(g, 1, 2);  // the first plane only
    check_planes<double, TypeParam>(g, 3, g.imax - 1);
    check_planes<float, TypeParam>(g, 2, 5);
    check_planes<double, TypeParam>(g, g.imax - 2, g.imax - 1);  // the last plane only
    check_planes<double, TypeParam>(g, 4, 4);                    // none: gosa 0, nothing written
  }
}

TYPED_TEST(HimenoRows, InvalidPlaneRangesAreRejected) {
  using Mem = typename TypeParam::memory_space;
  TypeParam exec;
  const Grid g{7, 9, 13};
  HimenoState<double, Mem> s(g);
  initialize_random(exec, s, tessera::test::fresh_seed());
  EXPECT_THROW(sweep(exec, s, rows_opt(0, 3)), std::invalid_argument);
  EXPECT_THROW(sweep(exec, s, rows_opt(2, 7)), std::invalid_argument);
  EXPECT_THROW(sweep(exec, s, rows_opt(5, 4)), std::invalid_argument);
}

// gosa into a rank-0 View in the execution space's memory (queued), float
// and double accumulators, agrees with the blocking form.
TYPED_TEST(HimenoRows, QueuedSweepAgrees) {
  using Mem = typename TypeParam::memory_space;
  TypeParam exec;
  const Grid g{6, 11, 66};
  const auto seed = tessera::test::fresh_seed();
  HimenoState<float, Mem> s1(g), s2(g);
  initialize_random(exec, s1, seed);
  initialize_random(exec, s2, seed);
  Kokkos::View<double, Mem> gd("gosa_d");
  Kokkos::View<float, Mem> gf("gosa_f");
  sweep(exec, s1, gd, rows_opt());
  sweep(exec, s1, gf, rows_opt());
  const double d = sweep<double>(exec, s2, rows_opt());
  const double f = sweep<float>(exec, s2, rows_opt());
  double hd = 0;
  float hf = 0;
  Kokkos::deep_copy(hd, gd);
  Kokkos::deep_copy(hf, gf);
  EXPECT_NEAR(hd, d, 1e-13 * d);
  EXPECT_NEAR(double(hf), f, 1e-6 * f);
  EXPECT_GT(d, 0.0);
  EXPECT_EQ(host_values(s1.p), host_values(s2.p));
}

#ifdef TESSERA_HIMENO_ROWS_ISA
// The copies of the row loop compiled for wider vectors give the baseline
// copy's bits (no FMA: each point rounds alike), and the widest one the CPU
// runs is the one rows_chunk picks.
template <class Scalar>
void check_isa_copies_agree() {
  using namespace tessera::himeno::impl;
  const int n = 301;  // not a multiple of any vector
  const std::ptrdiff_t sj = n + 2, si = 3 * sj, sn = 3 * si;
  std::mt19937_64 rng(tessera::test::fresh_seed());
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<Scalar> coef(4 * sn), p(3 * si), bnd(3 * si), wrk1(3 * si);
  for (auto* v : {&coef, &p, &bnd, &wrk1})
    for (auto& x : *v) x = Scalar(u(rng));
  const std::ptrdiff_t o = si + sj + 1;  // point (1, 1, 1)
  const Scalar* a = coef.data() + o;
  std::vector<Scalar> w_ref(n), ss_ref(n), w(n), ss(n);
  rows_chunk_fn<Scalar>(RowsIsa::baseline)(n, Scalar(0.8), a, a, a, sn, bnd.data() + o, wrk1.data() + o,
                                           p.data() + o, -si, si, sj, w_ref.data(), ss_ref.data());
  bool any = false;
  for (const RowsIsa isa : {RowsIsa::avx2}) {
    if (!rows_isa_supported(isa)) continue;
    any = true;
    rows_chunk_fn<Scalar>(isa)(n, Scalar(0.8), a, a, a, sn, bnd.data() + o, wrk1.data() + o, p.data() + o, -si, si,
                               sj, w.data(), ss.data());
    EXPECT_EQ(std::memcmp(w.data(), w_ref.data(), n * sizeof(Scalar)), 0) << rows_isa_name(isa);
    EXPECT_EQ(std::memcmp(ss.data(), ss_ref.data(), n * sizeof(Scalar)), 0) << rows_isa_name(isa);
  }
  EXPECT_EQ(rows_isa(), rows_isa_supported(RowsIsa::avx2) ? RowsIsa::avx2 : RowsIsa::baseline);
  if (!any) GTEST_SKIP() << "this CPU runs only the baseline copy";
}
TEST(HimenoRowsIsa, WiderCopiesGiveTheSameBitsDouble) { check_isa_copies_agree<double>(); }
TEST(HimenoRowsIsa, WiderCopiesGiveTheSameBitsFloat) { check_isa_copies_agree<float>(); }
#endif

}  // namespace
