// HT and min Delta R histograms on every backend against a host loop over the
// same events; their totals against the cross section's sum of weights.
#include "exec_spaces.hpp"
#include "tessera/gluon/gluon.hpp"

#include <cmath>

namespace {

using namespace tessera::gluon;
using tessera::test::ExecSpaces;

template <class ExecSpace>
class GluonHistograms : public ::testing::Test {};
TYPED_TEST_SUITE(GluonHistograms, ExecSpaces);

template <class E>
Histograms hist_on(const EventConfig<double>& cfg, std::uint64_t seed, std::uint64_t n, Binning ht, Binning dr,
                   SigmaResult& s) {
  const auto pdf = make_pdf_grid<double, typename E::memory_space>(toy_gluon_set());
  s = integrate(E(), cfg, pdf, seed, 0, n);
  return histograms(E(), cfg, pdf, seed, 0, n, ht, dr);
}

TYPED_TEST(GluonHistograms, AgainstHostLoop) {
  using E = TypeParam;
  const std::uint64_t seed = tessera::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  auto cfg = preset<double>("fig4", 5, 14000);
  const Binning ht{0, 20000, 40}, dr{0, 7, 35};  // every accepted event falls in a bin
  const std::uint64_t n = 20000;
  SigmaResult s;
  const Histograms h = hist_on<E>(cfg, seed, n, ht, dr, s);
  // Host loop over the same events.
  const auto pdf = make_pdf_grid<double, Kokkos::HostSpace>(toy_gluon_set());
  EventConfig<double> c = cfg;
  finalize(c);
  std::vector<double> rh(ht.bins, 0.0), rd(dr.bins, 0.0);
  BergsScratch<double, double> scratch;
  for (std::uint64_t e = 0; e < n; ++e) {
    const auto r = generate_event(c, pdf, seed, e, scratch);
    if (!r.accepted) continue;
    rh[impl::bin_of(r.ht, ht.lo, ht.hi, ht.bins)] += r.weight;
    rd[impl::bin_of(r.min_dr, dr.lo, dr.hi, dr.bins)] += r.weight;
  }
  double th = 0, td = 0;
  for (int b = 0; b < ht.bins; ++b) {
    EXPECT_NEAR(h.ht_w[b], rh[b], 1e-10 * std::abs(rh[b]) + 1e-300) << "HT bin " << b;
    th += h.ht_w[b];
  }
  for (int b = 0; b < dr.bins; ++b) {
    EXPECT_NEAR(h.dr_w[b], rd[b], 1e-10 * std::abs(rd[b]) + 1e-300) << "dR bin " << b;
    td += h.dr_w[b];
  }
  EXPECT_GT(s.accepted, 0u);
  EXPECT_NEAR(th / s.sum_w, 1.0, 1e-10);
  EXPECT_NEAR(td / s.sum_w, 1.0, 1e-10);
}

}  // namespace
