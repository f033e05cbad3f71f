#pragma once
// Multi-gluon Monte Carlo (Giele, Stavenga, Winter, "Thread-scalable
// evaluation of multi-jet observables"): the leading-colour cross section of
// gg -> (n-2) gluons in pp collisions with jet cuts,
//
//   auto pdf = tessera::gluon::make_pdf_grid<double, Kokkos::CudaSpace>(tessera::gluon::toy_gluon_set());
//   tessera::gluon::EventConfig<double> cfg;  cfg.n = 6;  // defaults: preset table3, 14 TeV
//   auto r = tessera::gluon::integrate(exec, cfg, pdf, seed, 0, 100000000);
//   r.sigma(), r.error()  // pb
//
// Events first .. first+count-1 of the stream `seed` are generated; disjoint
// ranges (MPI ranks, repeated calls) merge exactly with SigmaResult::operator+=.
// The portable Kokkos kernel runs on every execution space (impl/gluon_kokkos.hpp;
// on Kokkos::Cuda it is faster than the native CUDA kernel, which stays
// callable as native_cuda::gluon_integrate). Blocks until the result is
// known. Conventions and normalisation: docs/gluon.md.
#include "tessera/core/exec_space.hpp"
#include "tessera/gluon/gluon_presets.hpp"
#include "tessera/gluon/gluon_spec.hpp"

#include <stdexcept>

namespace tessera::gluon {

template <class ExecSpace, class T, class MemorySpace>
SigmaResult integrate(const ExecSpace& exec, EventConfig<T> cfg, const PdfGrid<T, MemorySpace>& pdf,
                      std::uint64_t seed, std::uint64_t first, std::uint64_t count) {
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, MemorySpace>::accessible,
                "tessera::gluon::integrate: the execution space cannot access the PDF grid's memory");
  finalize(cfg);
  check_pdf_range(cfg, pdf);
  if (count == 0) throw std::invalid_argument("tessera::gluon::integrate: the event count must be positive");
  return impl::IntegrateSpec<ExecSpace, T, MemorySpace>::apply(exec, cfg, pdf, seed, first, count);
}

// The weight (pb, 0 when the cuts fail) of events first .. first+w.extent(0)-1.
template <class ExecSpace, class T, class MemorySpace, class WView>
void event_weights(const ExecSpace& exec, EventConfig<T> cfg, const PdfGrid<T, MemorySpace>& pdf, std::uint64_t seed,
                   std::uint64_t first, const WView& w) {
  static_assert(Kokkos::is_view<WView>::value && WView::rank == 1, "tessera::gluon::event_weights: w must be a rank-1 View");
  finalize(cfg);
  check_pdf_range(cfg, pdf);
  impl::event_weights_kokkos(exec, cfg, pdf, seed, first, w);
}

}  // namespace tessera::gluon

#include "tessera/gluon/gluon_histograms.hpp"
