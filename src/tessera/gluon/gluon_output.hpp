#pragma once
// What a run reports beyond sigma: the gauge check of the paper's Fig. 4 (left
// panels) on a sample of the run's own events, and the running sigma of
// Fig. 3 (sigma after each chunk of the event stream).
//
// Gauge check: with the polarisation of the ordering's first leg replaced by
// k/E, the amplitude vanishes (current conservation); |m'|/|m| measures how
// much of that cancellation the arithmetic keeps.
#include "tessera/gluon/gluon_event.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace tessera::gluon {

template <class T>
struct GaugeCheck {
  T m;        // the amplitude with the event's polarisations
  T m_gauge;  // the same with eps(ord[0]) -> k(ord[0]) / E
};

// Both amplitudes of one ordered point; eps is left as it was.
template <class T, int NMAX = max_gluons>
KOKKOS_INLINE_FUNCTION GaugeCheck<T> gauge_check(int n, const int* ord, const Vec4<T>* k, Vec4<T>* eps,
                                                 BergsScratch<T, T, NMAX>& s) {
  GaugeCheck<T> g;
  g.m = bg_amplitude<T, T, NMAX>(n, ord, k, eps, s);
  const int a = ord[0];
  const Vec4<T> keep = eps[a];
  eps[a] = {{T(1), k[a][1] / k[a][0], k[a][2] / k[a][0], k[a][3] / k[a][0]}};
  g.m_gauge = bg_amplitude<T, T, NMAX>(n, ord, k, eps, s);
  eps[a] = keep;
  return g;
}

// Equal-width bins [lo, hi); values outside are counted apart.
struct Binning {
  double lo = 0, hi = 1;
  int bins = 1;
};

namespace impl {
KOKKOS_INLINE_FUNCTION int bin_of(double v, double lo, double hi, int n) {
  if (!(v >= lo) || !(v < hi)) return -1;
  int b = int((v - lo) / (hi - lo) * n);
  return b < n ? b : n - 1;
}
}  // namespace impl

// The gauge check over events first .. first+count-1 of a run (host, in the
// run's precision T): the distribution of log10 |m'|/|m|, and the paper's
// profile, the mean of |m'|^2/|m|^2 (with its standard error) in bins of
// log10 W_ME, W_ME = |m|^2 at sqrt(s_hat) = 1. Events with m = 0 are skipped.
struct GaugeProfile {
  Binning ratio;                    // log10 |m'|/|m|
  std::vector<double> ratio_count;  // events per bin
  double ratio_outside = 0;         // events outside ratio's range
  Binning weight;                   // log10 W_ME (the sample's range)
  std::vector<double> mean_ratio2, mean_ratio2_error, weight_count;
  std::uint64_t sampled = 0;        // events with m != 0
  double median_log10 = 0, p99_log10 = 0;  // of log10 |m'|/|m|
};

template <class T, class PdfG>
GaugeProfile gauge_profile(EventConfig<T> cfg, const PdfG& pdf, std::uint64_t seed, std::uint64_t first,
                           std::uint64_t count, Binning ratio = {-20, 0, 40}) {
  finalize(cfg);
  std::vector<double> lr, lw, r2;
  BergsScratch<T, T> s;
  for (std::uint64_t e = first; e < first + count; ++e) {
    Vec4<T> k[max_gluons], eps[max_gluons];
    int ord[max_gluons];
    T pre;
    prepare_event(cfg, pdf, seed, e, k, eps, ord, pre);
    const GaugeCheck<T> g = gauge_check<T>(cfg.n, ord, k, eps, s);
    const double m = double(g.m), mg = double(g.m_gauge);
    if (m == 0 || !std::isfinite(m) || !std::isfinite(mg)) continue;
    const double q = std::abs(mg / m);
    lr.push_back(q > 0 ? std::log10(q) : -300.0);
    lw.push_back(2 * std::log10(std::abs(m)));
    r2.push_back(q * q);
  }
  GaugeProfile p;
  p.ratio = ratio;
  p.ratio_count.assign(ratio.bins, 0.0);
  p.sampled = lr.size();
  if (lr.empty()) return p;
  for (double v : lr) {
    const int b = impl::bin_of(v, ratio.lo, ratio.hi, ratio.bins);
    if (b < 0) p.ratio_outside += 1;
    else p.ratio_count[b] += 1;
  }
  std::vector<double> sorted = lr;
  std::sort(sorted.begin(), sorted.end());
  p.median_log10 = sorted[sorted.size() / 2];
  p.p99_log10 = sorted[std::min(sorted.size() - 1, sorted.size() * 99 / 100)];
  // Profile bins: half decades spanning the sample.
  const auto [wmin, wmax] = std::minmax_element(lw.begin(), lw.end());
  p.weight.lo = std::floor(*wmin);
  p.weight.hi = std::floor(*wmax) + 1;  // the largest value inside [lo, hi)
  const int weight_bins = int(2 * (p.weight.hi - p.weight.lo));
  p.weight.bins = weight_bins;
  std::vector<double> sum(weight_bins, 0.0), sum2(weight_bins, 0.0);
  p.weight_count.assign(weight_bins, 0.0);
  for (std::size_t i = 0; i < lw.size(); ++i) {
    const int b = impl::bin_of(lw[i], p.weight.lo, p.weight.hi, weight_bins);
    if (b < 0) continue;
    p.weight_count[b] += 1;
    sum[b] += r2[i];
    sum2[b] += r2[i] * r2[i];
  }
  p.mean_ratio2.assign(weight_bins, 0.0);
  p.mean_ratio2_error.assign(weight_bins, 0.0);
  for (int b = 0; b < weight_bins; ++b) {
    const double c = p.weight_count[b];
    if (c < 1) continue;
    const double m = sum[b] / c;
    p.mean_ratio2[b] = m;
    const double var = c > 1 ? (sum2[b] / c - m * m) / (c - 1) : 0.0;
    p.mean_ratio2_error[b] = var > 0 ? std::sqrt(var) : 0.0;
  }
  return p;
}

}  // namespace tessera::gluon
