// HT and min Delta R histograms on every backend against a host loop over the
// same events (weights, squared weights, counts, the events outside the
// range); their totals against the cross section's sum of weights and the
// accepted events.
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
  // HT's range leaves the hardest events outside; every accepted dR is inside.
  const Binning ht{180, 1000, 41}, dr{0, 7, 35};
  const std::uint64_t n = 20000;
  SigmaResult s;
  const Histograms h = hist_on<E>(cfg, seed, n, ht, dr, s);
  // Host loop over the same events: per bin w, w^2, count; index bins = outside.
  const auto pdf = make_pdf_grid<double, Kokkos::HostSpace>(toy_gluon_set());
  EventConfig<double> c = cfg;
  finalize(c);
  struct Ref {
    std::vector<double> w, w2, n;
    explicit Ref(int bins) : w(bins + 1, 0.0), w2(bins + 1, 0.0), n(bins + 1, 0.0) {}
    void add(int b, double x) { w[b] += x, w2[b] += x * x, n[b] += 1; }
  } rh(ht.bins), rd(dr.bins);
  BergsScratch<double, double> scratch;
  for (std::uint64_t e = 0; e < n; ++e) {
    const auto r = generate_event(c, pdf, seed, e, scratch);
    if (!r.accepted) continue;
    const int a = impl::bin_of(r.ht, ht.lo, ht.hi, ht.bins), b = impl::bin_of(r.min_dr, dr.lo, dr.hi, dr.bins);
    rh.add(a < 0 ? ht.bins : a, r.weight);
    rd.add(b < 0 ? dr.bins : b, r.weight);
  }
  auto check = [&](const Distribution& d, const Ref& ref, const char* what) {
    const int bins = d.binning.bins;
    double tw = d.outside_w, tn = d.outside_count;
    for (int b = 0; b <= bins; ++b) {
      const double w = b < bins ? d.w[b] : d.outside_w, w2 = b < bins ? d.w2[b] : d.outside_w2;
      const double cnt = b < bins ? d.count[b] : d.outside_count;
      EXPECT_NEAR(w, ref.w[b], 1e-10 * std::abs(ref.w[b]) + 1e-300) << what << " bin " << b;
      EXPECT_NEAR(w2, ref.w2[b], 1e-10 * std::abs(ref.w2[b]) + 1e-300) << what << " bin " << b;
      EXPECT_EQ(cnt, ref.n[b]) << what << " bin " << b;
      if (b < bins) tw += w, tn += cnt;
    }
    EXPECT_NEAR(tw / s.sum_w, 1.0, 1e-10) << what;
    EXPECT_EQ(tn, double(s.accepted)) << what;
  };
  EXPECT_GT(s.accepted, 0u);
  check(h.ht, rh, "HT");
  check(h.dr, rd, "dR");
  EXPECT_GT(h.ht.outside_count, 0.0);  // the range test means something
  EXPECT_EQ(h.dr.outside_count, 0.0);
}

}  // namespace
