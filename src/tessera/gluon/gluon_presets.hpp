#pragma once
// Cut and scale presets of the paper: table3 (Table 3: muR = muF = MZ, pT > 20
// GeV, |eta| < 2.5, Delta R > 0.4) and fig4 (Fig. 4: mu = HT, pT > 60 GeV,
// |eta| < 2.0, Delta R > 0.4); the PDF grid's range check.
#include "tessera/gluon/gluon_event.hpp"

#include <stdexcept>
#include <string>

namespace tessera::gluon {

template <class T>
EventConfig<T> preset(const std::string& name, int n, double sqrt_s = 14000.0) {
  EventConfig<T> c;
  c.n = n;
  c.sqrt_s = T(sqrt_s);
  if (name == "table3") {
    c.scale = ScaleChoice::fixed;
    c.mu_fixed = T(91.188);
    c.pt_min = T(20);
    c.eta_max = T(2.5);
    c.dr_min = T(0.4);
  } else if (name == "fig4") {
    c.scale = ScaleChoice::ht;
    c.pt_min = T(60);
    c.eta_max = T(2.0);
    c.dr_min = T(0.4);
  } else {
    throw std::invalid_argument("gluon: unknown preset '" + name + "' (table3, fig4)");
  }
  return c;
}

// The grid must cover the run: x down to tau_min and the scale's range
// (beyond the grid the interpolation is frozen at its edge).
template <class T>
void check_pdf_range(const EventConfig<T>& c, double xmin, double q2min, double q2max) {
  if (double(c.tau_min) < xmin * (1 - 1e-6))
    throw std::invalid_argument("gluon: the PDF grid starts at x = " + std::to_string(xmin) +
                                ", the run needs x down to " + std::to_string(double(c.tau_min)));
  const double qlo = c.scale == ScaleChoice::fixed ? double(c.mu_fixed) : (c.n - 2) * double(c.pt_min);
  if (qlo * qlo < q2min * (1 - 1e-6) || (c.scale == ScaleChoice::fixed && qlo * qlo > q2max * (1 + 1e-6)))
    throw std::invalid_argument("gluon: the scale " + std::to_string(qlo) + " GeV is outside the PDF grid");
}
template <class T, class MemorySpace>
void check_pdf_range(const EventConfig<T>& c, const PdfGrid<T, MemorySpace>& g) {
  check_pdf_range(c, double(g.xmin), double(g.q2min), double(g.q2max));
}
template <class T>
void check_pdf_range(const EventConfig<T>& c, const PdfGridHost& g) {
  g.validate();
  check_pdf_range(c, g.x.front(), g.q.front() * g.q.front(), g.q.back() * g.q.back());
}

}  // namespace tessera::gluon
