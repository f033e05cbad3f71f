#pragma once
// Weighted distributions of HT and of the smallest jet-jet Delta R (paper
// Fig. 4): each worker fills its own row of bins (no atomics, no global
// atomic per event), then one pass adds the rows bin by bin. Events are those
// of integrate() (same seed, same range), so the histograms' total equals
// sigma * N.
#include "tessera/gluon/gluon_presets.hpp"
#include "tessera/gluon/impl/gluon_kokkos.hpp"

#include <Kokkos_Core.hpp>

#include <stdexcept>
#include <vector>

namespace tessera::gluon {

struct Binning {
  double lo = 0, hi = 1;
  int bins = 1;
};

struct Histograms {
  Binning ht, dr;
  std::vector<double> ht_w, dr_w;  // summed weights (pb * events); divide by N and the bin width for dsigma/dx
  std::uint64_t generated = 0;
};

namespace impl {
KOKKOS_INLINE_FUNCTION int bin_of(double v, double lo, double hi, int n) {
  if (!(v >= lo) || !(v < hi)) return -1;
  int b = int((v - lo) / (hi - lo) * n);
  return b < n ? b : n - 1;
}
}  // namespace impl

template <class ExecSpace, class T, class MemorySpace>
Histograms histograms(const ExecSpace& exec, EventConfig<T> cfg, const PdfGrid<T, MemorySpace>& pdf,
                      std::uint64_t seed, std::uint64_t first, std::uint64_t count, Binning ht, Binning dr) {
  finalize(cfg);
  check_pdf_range(cfg, pdf);
  if (count == 0) throw std::invalid_argument("tessera::gluon::histograms: the event count must be positive");
  if (ht.bins < 1 || dr.bins < 1 || ht.bins > 100000 || dr.bins > 100000 || !(ht.hi > ht.lo) || !(dr.hi > dr.lo))
    throw std::invalid_argument("tessera::gluon::histograms: bins must be 1..100000 with hi > lo");
  // Rows: a bounded number of workers keeps the rows' memory small.
  std::uint64_t W = impl::worker_count(exec, count);
  if (W > 4096) W = 4096;
  const int nb = ht.bins + dr.bins;
  Kokkos::View<double**, Kokkos::LayoutRight, typename ExecSpace::memory_space> rows("gluon::hist_rows", W, nb);
  const double hlo = ht.lo, hhi = ht.hi, dlo = dr.lo, dhi = dr.hi;
  const int hb = ht.bins, db = dr.bins;
  Kokkos::parallel_for(
      "gluon::histograms", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, std::int64_t(W)),
      KOKKOS_LAMBDA(std::int64_t i) {
        BergsScratch<T, T> scratch;
        for (std::uint64_t e = std::uint64_t(i); e < count; e += W) {
          const EventResult<T> r = generate_event(cfg, pdf, seed, first + e, scratch);
          if (!r.accepted) continue;
          const int a = impl::bin_of(double(r.ht), hlo, hhi, hb);
          if (a >= 0) rows(i, a) += double(r.weight);
          const int b = impl::bin_of(double(r.min_dr), dlo, dhi, db);
          if (b >= 0) rows(i, hb + b) += double(r.weight);
        }
      });
  Kokkos::View<double*, typename ExecSpace::memory_space> tot("gluon::hist", nb);
  Kokkos::parallel_for(
      "gluon::histograms_sum", Kokkos::RangePolicy<ExecSpace>(exec, 0, nb), KOKKOS_LAMBDA(int b) {
        Neumaier s;
        for (std::uint64_t i = 0; i < W; ++i) s.add(rows(i, b));
        tot(b) = s.value();
      });
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), tot);
  Histograms out;
  out.ht = ht;
  out.dr = dr;
  out.generated = count;
  out.ht_w.assign(h.data(), h.data() + hb);
  out.dr_w.assign(h.data() + hb, h.data() + nb);
  return out;
}

}  // namespace tessera::gluon
