// The built-in LO DGLAP set: the Les Houches benchmark's LO variable-flavour
// table at mu^2 = 10^4 GeV^2 (Giele et al., hep-ph/0204316, with the
// corrected definition L+ = 2(ubar + dbar)), the momentum and quark-number
// sum rules, alpha_s against the analytic LO formula, and the set as an
// lhagrid1 grid (valid, written and read back exactly, interpolated close
// to the evolution between its knots).
#include "exec_spaces.hpp"
#include "temp_dir.hpp"
#include "tessera/gluon/gluon_dglap.hpp"
#include "tessera/gluon/gluon_lhagrid.hpp"
#include "tessera/gluon/gluon_presets.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace {

using namespace tessera::gluon;
using F = LhFlavour;
const double kPi = 3.14159265358979323846;

// Shared by the tests: one evolution to mu^2 = 2 (input), 10^2, 10^4, 10^6, 10^8 GeV^2.
const LhToyEvolution& evolution() {
  static const LhToyEvolution ev;
  return ev;
}
const std::vector<LhToyPdfs>& evolved() {
  static const std::vector<LhToyPdfs> p = evolution().evolve({std::sqrt(2.0), 10.0, 100.0, 1e3, 1e4}, true);
  return p;
}

// The benchmark's LO VFN table (mu_F^2 = mu_R^2 = 10^4 GeV^2), x*f.
const double kX[11] = {1e-7, 1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 0.1, 0.3, 0.5, 0.7, 0.9};
const double kTable[8][11] = {
    {5.8771e-5, 3.3933e-4, 1.9006e-3, 1.0186e-2, 5.0893e-2, 2.2080e-1, 5.7166e-1, 3.7597e-1, 1.3284e-1, 2.2643e-2,
     4.2047e-4},  // uv
    {3.4963e-5, 2.0129e-4, 1.1229e-3, 5.9819e-3, 2.9576e-2, 1.2497e-1, 2.8334e-1, 1.4044e-1, 3.4802e-2, 3.5134e-3,
     2.1529e-5},  // dv
    {7.8233e-7, 5.1142e-6, 3.2249e-5, 1.9345e-4, 1.0730e-3, 4.9985e-3, 1.0428e-2, 3.2629e-3, 4.2031e-4, 1.5468e-5,
     1.0635e-8},  // L- = dbar - ubar
    {1.0181e+2, 5.1182e+1, 2.4693e+1, 1.1406e+1, 5.0424e+0, 2.0381e+0, 4.0496e-1, 3.9592e-2, 2.8066e-3, 6.7201e-5,
     3.4998e-8},  // L+ = 2 (ubar + dbar)
    {4.9815e+1, 2.4725e+1, 1.1659e+1, 5.1583e+0, 2.0973e+0, 7.2625e-1, 1.1596e-1, 1.0363e-2, 7.1707e-4, 1.7278e-5,
     9.8394e-9},  // s+
    {4.9088e+1, 2.4148e+1, 1.1201e+1, 4.7953e+0, 1.8147e+0, 5.3107e-1, 5.8288e-2, 4.0740e-3, 2.5958e-4, 6.3958e-6,
     4.7330e-9},  // c+
    {4.6070e+1, 2.2239e+1, 1.0037e+1, 4.1222e+0, 1.4582e+0, 3.8106e-1, 3.5056e-2, 2.2039e-3, 1.3522e-4, 3.3996e-6,
     2.8903e-9},  // b+
    {1.3272e+3, 6.0117e+2, 2.5282e+2, 9.6048e+1, 3.1333e+1, 7.7728e+0, 8.4358e-1, 7.8026e-2, 7.4719e-3, 3.5241e-4,
     1.0307e-6},  // g
};

TEST(GluonDglap, BenchmarkTableLoVfn) {
  const auto& ev = evolution();
  const LhToyPdfs& p = evolved()[2];
  ASSERT_EQ(p.q, 100.0);
  EXPECT_EQ(p.nf, 5);
  const char* names[8] = {"uv", "dv", "L-", "L+", "s+", "c+", "b+", "g"};
  for (int i = 0; i < 11; ++i) {
    const double x = kX[i];
    auto f = [&](F fl) { return ev.xf(p, fl, x); };
    const double ubar = (f(F::uplus) - f(F::uv)) / 2, dbar = (f(F::dplus) - f(F::dv)) / 2;
    const double ours[8] = {f(F::uv),    f(F::dv),    f(F::lminus), 2 * (ubar + dbar),
                            f(F::splus), f(F::cplus), f(F::bplus),  f(F::g)};
    for (int k = 0; k < 8; ++k)  // the table has 5 digits: rounding alone is up to 5e-5
      EXPECT_NEAR(ours[k] / kTable[k][i], 1.0, 1e-4) << names[k] << " at x = " << x;
    // No top below mt; the quark sum is the evolved singlet.
    EXPECT_EQ(f(F::tplus), 0.0);
    double sum = 0;
    for (F q : {F::dplus, F::uplus, F::splus, F::cplus, F::bplus}) sum += f(q);
    EXPECT_NEAR(sum / f(F::sigma), 1.0, 1e-12);
  }
}

// int_0^xmin dx x^(power-1) (x f), from the local power law at xmin.
double small_x_tail(const LhToyEvolution& ev, const LhToyPdfs& p, F f, int power) {
  const double x0 = ev.xmin(), f0 = ev.xf(p, f, x0), f1 = ev.xf(p, f, 2 * x0);
  const double slope = std::log(f1 / f0) / std::log(2.0);  // x f ~ x^slope
  return f0 * std::pow(x0, power) / (power + slope);
}

TEST(GluonDglap, SumRules) {
  const auto& ev = evolution();
  for (const LhToyPdfs& p : evolved()) {
    const double momentum = ev.integral(p, F::sigma, 1) + ev.integral(p, F::g, 1) +
                            small_x_tail(ev, p, F::sigma, 1) + small_x_tail(ev, p, F::g, 1);
    EXPECT_NEAR(momentum, 1.0, 1e-4) << "Q = " << p.q;
    EXPECT_NEAR(ev.integral(p, F::uv, 0) + small_x_tail(ev, p, F::uv, 0), 2.0, 1e-5) << "Q = " << p.q;
    EXPECT_NEAR(ev.integral(p, F::dv, 0) + small_x_tail(ev, p, F::dv, 0), 1.0, 1e-5) << "Q = " << p.q;
  }
}

TEST(GluonDglap, AlphaS) {
  const LhToySettings s;
  // Exact LO: 1/alpha_s grows by b0(nf) ln(Q2'/Q2) in each flavour region.
  auto b0 = [](int nf) { return (33.0 - 2 * nf) / (12 * kPi); };
  const double mz = 91.188;
  const double inv = 1 / 0.35 + b0(4) * std::log(4.5 * 4.5 / 2.0) + b0(5) * std::log(mz * mz / (4.5 * 4.5));
  EXPECT_NEAR(lo_alphas(s, mz), 1 / inv, 1e-14);
  EXPECT_NEAR(lo_alphas(s, std::sqrt(2.0)), 0.35, 1e-15);
  const double inv_top = inv + b0(5) * std::log(175.0 * 175.0 / (mz * mz)) + b0(6) * std::log(1e6 / (175.0 * 175.0));
  EXPECT_NEAR(lo_alphas(s, 1000.0), 1 / inv_top, 1e-14);
  EXPECT_EQ(lo_flavours(s, std::sqrt(2.0)), 3);
  EXPECT_EQ(lo_flavours(s, mz), 5);
  EXPECT_EQ(lo_flavours(s, 200.0), 6);
  EXPECT_NEAR(evolved()[2].alphas, lo_alphas(s, 100.0), 1e-15);
  // The set's alpha_s (ipol) at MZ.
  const auto g = make_pdf_grid<double, Kokkos::HostSpace>(load_pdf("lh-lo-toy"));
  EXPECT_NEAR(g.alphas(mz * mz) / (1 / inv), 1.0, 1e-4);
}

TEST(GluonDglap, SetIsAValidLhagrid1Set) {
  const PdfGridHost h = lh_lo_toy_set();
  EXPECT_NO_THROW(h.validate());
  EXPECT_EQ(h.name, "lh-lo-toy");
  EXPECT_LE(h.x.front(), 1e-7);
  EXPECT_EQ(h.x.back(), 1.0);
  EXPECT_NEAR(h.q.front(), std::sqrt(2.0), 1e-15);
  EXPECT_GE(h.q.back(), 1e5);
  EXPECT_EQ(h.as_q, h.q);
  for (std::size_t j = 0; j < h.q.size(); ++j) {
    EXPECT_NEAR(h.as_val[j], lo_alphas(LhToySettings{}, h.q[j]), 1e-15);
    EXPECT_EQ(h.xg[(h.x.size() - 1) * h.q.size() + j], 0.0);  // x g = 0 at x = 1
  }
  for (double v : h.xg) EXPECT_GE(v, 0.0);
  // Cached by load_pdf; written and read back exactly.
  EXPECT_EQ(load_pdf("lh-lo-toy").xg, h.xg);
  const tessera::test::TempDir tmp("tessera_dglap_");
  const std::string dir = tmp.str() + "/lh-lo-toy";
  ::mkdir(dir.c_str(), 0755);
  write_lhagrid1(h, dir);
  const PdfGridHost r = read_lhagrid1(dir);
  EXPECT_EQ(r.x, h.x);
  EXPECT_EQ(r.q, h.q);
  EXPECT_EQ(r.xg, h.xg);
  EXPECT_EQ(r.as_val, h.as_val);
  // The paper's runs fit in the grid: x down to tau_min, the scales inside.
  for (int n = 4; n <= 14; ++n)
    for (const char* pr : {"table3", "fig4"}) {
      auto c = preset<double>(pr, n, 14000.0);
      finalize(c);
      EXPECT_NO_THROW(check_pdf_range(c, h)) << pr << " n = " << n;
    }
}

// Between the knots, the set's log-bicubic interpolation stays close to the
// evolution itself (off-knot x and Q, thresholds included).
TEST(GluonDglap, SetInterpolatesTheEvolution) {
  const auto& ev = evolution();
  const PdfGridHost h = load_pdf("lh-lo-toy");
  const auto g = make_pdf_grid<double, Kokkos::HostSpace>(h);
  const std::vector<double> qs = {2.0, 4.4, 4.6, 30.0, 91.188, 170.0, 180.0, 1234.5, 14000.0};
  const auto p = ev.evolve(qs, false);
  double worst_small = 0, worst_large = 0;
  for (std::size_t j = 0; j < qs.size(); ++j)
    for (double lx = -6.97; lx < -0.05; lx += 0.0731) {
      const double x = std::pow(10.0, lx);
      const double d = std::abs(g.xfx(x, qs[j] * qs[j]) / ev.xf(p[j], F::g, x) - 1);
      double& worst = x <= 0.5 ? worst_small : worst_large;
      worst = std::max(worst, d);
    }
  EXPECT_LT(worst_small, 1e-3);
  EXPECT_LT(worst_large, 2e-3);
  std::printf("lh-lo-toy interpolation: max relative deviation %.1e (x <= 0.5), %.1e (0.5 < x < 0.9)\n", worst_small,
              worst_large);
}

}  // namespace
