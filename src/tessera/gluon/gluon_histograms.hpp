#pragma once
// Weighted distributions of HT and of the smallest jet-jet Delta R (paper
// Fig. 4): each worker fills its own row of bins (no atomics, no global
// atomic per event), then one pass adds the rows bin by bin. Per bin: the sum
// of weights, of squared weights (the bin's error) and the event count;
// accepted events outside the range are summed apart. Events are those of
// integrate() (same seed, same range), so the bins and the outside sum add up
// to sigma * N, and their counts to the accepted events.
#include "tessera/gluon/gluon_output.hpp"
#include "tessera/gluon/gluon_presets.hpp"
#include "tessera/gluon/impl/gluon_kokkos.hpp"

#include <Kokkos_Core.hpp>

#include <cmath>
#include <stdexcept>
#include <vector>

namespace tessera::gluon {

// One distribution's sums over the bins, and over the accepted events outside them.
struct Distribution {
  Binning binning;
  std::vector<double> w, w2, count;  // per bin: summed weights (pb * events), squared weights, events
  double outside_w = 0, outside_w2 = 0, outside_count = 0;
  // dsigma/dx of bin b (pb per unit of x) and its standard error over N events.
  double dsigma(int b, std::uint64_t N) const { return w[b] / double(N) / width(); }
  double dsigma_error(int b, std::uint64_t N) const {
    if (N < 2) return 0;
    const double m = w[b] / double(N), var = (w2[b] / double(N) - m * m) / double(N - 1);
    return var > 0 ? std::sqrt(var) / width() : 0.0;
  }
  double width() const { return (binning.hi - binning.lo) / binning.bins; }
};

struct Histograms {
  Distribution ht, dr;
  std::uint64_t generated = 0;
};

template <class ExecSpace, class T, class MemorySpace>
Histograms histograms(const ExecSpace& exec, EventConfig<T> cfg, const PdfGrid<T, MemorySpace>& pdf,
                      std::uint64_t seed, std::uint64_t first, std::uint64_t count, Binning ht, Binning dr) {
  finalize(cfg);
  check_pdf_range(cfg, pdf);
  if (count == 0) throw std::invalid_argument("tessera::gluon::histograms: the event count must be positive");
  if (ht.bins < 1 || dr.bins < 1 || ht.bins > 100000 || dr.bins > 100000 || !(ht.hi > ht.lo) || !(dr.hi > dr.lo))
    throw std::invalid_argument("tessera::gluon::histograms: bins must be 1..100000 with hi > lo");
  // Rows: a bounded number of workers keeps the rows' memory small. A row
  // holds, per distribution, bins + 1 slots (the last: outside) of w, w^2, count.
  std::uint64_t W = impl::worker_count(exec, count);
  if (W > 4096) W = 4096;
  const int hs = ht.bins + 1, ds = dr.bins + 1, nb = hs + ds;
  Kokkos::View<double**, Kokkos::LayoutRight, typename ExecSpace::memory_space> rows("gluon::hist_rows", W, 3 * nb);
  const double hlo = ht.lo, hhi = ht.hi, dlo = dr.lo, dhi = dr.hi;
  const int hb = ht.bins, db = dr.bins;
  Kokkos::parallel_for(
      "gluon::histograms", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, std::int64_t(W)),
      KOKKOS_LAMBDA(std::int64_t i) {
        BergsScratch<T, T> scratch;
        auto fill = [&](int slot, double w) {
          rows(i, slot) += w;
          rows(i, nb + slot) += w * w;
          rows(i, 2 * nb + slot) += 1;
        };
        for (std::uint64_t e = std::uint64_t(i); e < count; e += W) {
          const EventResult<T> r = generate_event(cfg, pdf, seed, first + e, scratch);
          if (!r.accepted) continue;
          const double w = double(r.weight);
          const int a = impl::bin_of(double(r.ht), hlo, hhi, hb);
          fill(a >= 0 ? a : hb, w);
          const int b = impl::bin_of(double(r.min_dr), dlo, dhi, db);
          fill(hs + (b >= 0 ? b : db), w);
        }
      });
  Kokkos::View<double*, typename ExecSpace::memory_space> tot("gluon::hist", 3 * nb);
  Kokkos::parallel_for(
      "gluon::histograms_sum", Kokkos::RangePolicy<ExecSpace>(exec, 0, 3 * nb), KOKKOS_LAMBDA(int b) {
        Neumaier s;
        for (std::uint64_t i = 0; i < W; ++i) s.add(rows(i, b));
        tot(b) = s.value();
      });
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), tot);
  auto dist = [&](const Binning& bn, int off) {
    Distribution d;
    d.binning = bn;
    const double* p = h.data() + off;
    d.w.assign(p, p + bn.bins);
    d.w2.assign(p + nb, p + nb + bn.bins);
    d.count.assign(p + 2 * nb, p + 2 * nb + bn.bins);
    d.outside_w = p[bn.bins];
    d.outside_w2 = p[nb + bn.bins];
    d.outside_count = p[2 * nb + bn.bins];
    return d;
  };
  Histograms out;
  out.ht = dist(ht, 0);
  out.dr = dist(dr, hs);
  out.generated = count;
  return out;
}

}  // namespace tessera::gluon
