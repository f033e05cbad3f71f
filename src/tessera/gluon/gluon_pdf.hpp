#pragma once
// The gluon PDF and alpha_s on a grid, interpolated as LHAPDF does: cubic
// Hermite in ln x and ln Q^2 with finite-difference slopes (one-sided at the
// edges); alpha_s by cubic Hermite in ln Q^2 (LHAPDF's "ipol"). The grid is
// x*g(x, Q^2) on (x knots) x (Q knots), x outer, Q inner, as in lhagrid1.
// PdfGrid holds Views in the memory space of the execution space that uses it;
// its functions run on the host and the device.
#include "tessera/gluon/gluon_physics.hpp"

#include <Kokkos_Core.hpp>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace tessera::gluon {

// Host form of a grid (what a reader or a generator produces).
struct PdfGridHost {
  std::string name;
  std::vector<double> x;       // increasing, > 0, <= 1
  std::vector<double> q;       // GeV, increasing, > 0
  std::vector<double> xg;      // x*g, size x.size()*q.size(), x outer
  std::vector<double> as_q;    // alpha_s knots (GeV), increasing
  std::vector<double> as_val;  // alpha_s values

  // Refuses a malformed grid with one line.
  void validate() const {
    auto fail = [&](const std::string& w) { throw std::invalid_argument("PDF grid '" + name + "': " + w); };
    if (x.size() < 4 || q.size() < 4) fail("needs at least 4 x and 4 Q knots");
    if (xg.size() != x.size() * q.size()) fail("value count differs from (x knots) x (Q knots)");
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (!std::isfinite(x[i]) || x[i] <= 0 || x[i] > 1) fail("x knot outside (0, 1]");
      if (i && !(x[i] > x[i - 1])) fail("x knots not strictly increasing");
    }
    for (std::size_t i = 0; i < q.size(); ++i) {
      if (!std::isfinite(q[i]) || q[i] <= 0) fail("Q knot not positive");
      if (i && !(q[i] > q[i - 1])) fail("Q knots not strictly increasing");
    }
    for (double v : xg)
      if (!std::isfinite(v)) fail("non-finite x*g value");
    if (as_q.size() < 4 || as_q.size() != as_val.size()) fail("alpha_s needs at least 4 (Q, value) knots");
    for (std::size_t i = 0; i < as_q.size(); ++i) {
      if (!std::isfinite(as_q[i]) || as_q[i] <= 0 || !std::isfinite(as_val[i]) || as_val[i] <= 0)
        fail("alpha_s knot not positive and finite");
      if (i && !(as_q[i] > as_q[i - 1])) fail("alpha_s Q knots not strictly increasing");
    }
  }
};

namespace detail {
// Cubic Hermite on [0,1] from the values and slopes (in units of the interval).
template <class T>
KOKKOS_INLINE_FUNCTION T hermite(T t, T f0, T f1, T d0, T d1) {
  const T t2 = t * t, t3 = t2 * t;
  return (T(2) * t3 - T(3) * t2 + T(1)) * f0 + (t3 - T(2) * t2 + t) * d0 + (T(-2) * t3 + T(3) * t2) * f1 +
         (t3 - t2) * d1;
}
// The interval i with k[i] <= v < k[i+1], clamped to [0, nk-2].
template <class View, class T>
KOKKOS_INLINE_FUNCTION int locate(const View& k, int nk, T v) {
  if (!(v >= k(0))) return 0;
  if (v >= k(nk - 1)) return nk - 2;
  int lo = 0, hi = nk - 1;
  while (hi - lo > 1) {
    const int mid = (lo + hi) / 2;
    if (k(mid) <= v) lo = mid;
    else hi = mid;
  }
  return lo;
}
}  // namespace detail

template <class T, class MemorySpace>
struct PdfGrid {
  Kokkos::View<T*, MemorySpace> lnx, lnq2, xg, as_lnq2, as_val;
  // Precomputed on the host in double (so the device divides nowhere): the
  // finite-difference slope d(xg)/d(ln x) at every knot, the knot intervals'
  // inverse widths, the ratios of neighbouring ln Q^2 widths that turn the Q
  // slopes into units of the interval, alpha_s's slopes.
  Kokkos::View<T*, MemorySpace> dxg, inv_hx, inv_hq, hq_ratio_lo, hq_ratio_hi, as_slope, as_inv_h;
  int nx = 0, nq = 0, nas = 0;
  T xmin = 0, q2min = 0, q2max = 0;

  // Cubic Hermite along ln x at Q knot iq.
  KOKKOS_INLINE_FUNCTION T along_x(int ix, T tx, T hx, int iq) const {
    const int i0 = ix * nq + iq, i1 = i0 + nq;
    return detail::hermite(tx, xg(i0), xg(i1), dxg(i0) * hx, dxg(i1) * hx);
  }

  // x*g(x, Q^2): log-bicubic; x and Q^2 clamped to the grid.
  KOKKOS_INLINE_FUNCTION T xfx(T x, T q2) const { return xfx_ln(math::log(x), math::log(q2)); }
  // The same from lx = ln x and lq = ln Q^2 (an event knows them without a log).
  KOKKOS_INLINE_FUNCTION T xfx_ln(T lx, T lq) const {
    const int ix = detail::locate(lnx, nx, lx);
    const int iq = detail::locate(lnq2, nq, lq);
    const T hx = lnx(ix + 1) - lnx(ix);
    T tx = (lx - lnx(ix)) * inv_hx(ix), tq = (lq - lnq2(iq)) * inv_hq(iq);
    tx = tx < T(0) ? T(0) : (tx > T(1) ? T(1) : tx);
    tq = tq < T(0) ? T(0) : (tq > T(1) ? T(1) : tq);
    const T f0 = along_x(ix, tx, hx, iq), f1 = along_x(ix, tx, hx, iq + 1);
    // Q slopes (times the interval's width) from the x-interpolated values
    // at the neighbouring Q knots; one-sided at the grid's edges.
    T d0 = f1 - f0, d1 = f1 - f0;
    if (iq > 0) d0 = T(0.5) * (d0 + (f0 - along_x(ix, tx, hx, iq - 1)) * hq_ratio_lo(iq));
    if (iq + 1 < nq - 1) d1 = T(0.5) * (d1 + (along_x(ix, tx, hx, iq + 2) - f1) * hq_ratio_hi(iq));
    return detail::hermite(tq, f0, f1, d0, d1);
  }

  // alpha_s(Q^2), cubic Hermite in ln Q^2, clamped to the knots.
  KOKKOS_INLINE_FUNCTION T alphas(T q2) const { return alphas_ln(math::log(q2)); }
  KOKKOS_INLINE_FUNCTION T alphas_ln(T lq) const {
    const int i = detail::locate(as_lnq2, nas, lq);
    const T h = as_lnq2(i + 1) - as_lnq2(i);
    T t = (lq - as_lnq2(i)) * as_inv_h(i);
    t = t < T(0) ? T(0) : (t > T(1) ? T(1) : t);
    return detail::hermite(t, as_val(i), as_val(i + 1), as_slope(i) * h, as_slope(i + 1) * h);
  }
};

// Copies a validated host grid to memory space M in precision T.
template <class T, class MemorySpace>
PdfGrid<T, MemorySpace> make_pdf_grid(const PdfGridHost& h) {
  h.validate();
  PdfGrid<T, MemorySpace> g;
  g.nx = int(h.x.size());
  g.nq = int(h.q.size());
  g.nas = int(h.as_q.size());
  auto fill = [](const char* label, const std::vector<double>& src, auto&& op) {
    Kokkos::View<T*, MemorySpace> v(std::string(label), src.size());
    auto m = Kokkos::create_mirror_view(v);
    for (std::size_t i = 0; i < src.size(); ++i) m(i) = T(op(src[i]));
    Kokkos::deep_copy(v, m);
    return v;
  };
  auto id = [](double v) { return v; };
  // The knots in ln x and ln Q^2, in double for the slopes and widths below.
  const std::size_t nx = h.x.size(), nq = h.q.size(), na = h.as_q.size();
  std::vector<double> lx(nx), lq(nq), la(na);
  for (std::size_t i = 0; i < nx; ++i) lx[i] = std::log(h.x[i]);
  for (std::size_t i = 0; i < nq; ++i) lq[i] = 2 * std::log(h.q[i]);
  for (std::size_t i = 0; i < na; ++i) la[i] = 2 * std::log(h.as_q[i]);
  g.lnx = fill("gluon::lnx", lx, id);
  g.lnq2 = fill("gluon::lnq2", lq, id);
  g.xg = fill("gluon::xg", h.xg, id);
  g.as_lnq2 = fill("gluon::as_lnq2", la, id);
  g.as_val = fill("gluon::as_val", h.as_val, id);
  // Slopes and widths in double (LHAPDF's finite differences: central
  // inside, one-sided at the edges).
  auto slopes = [](const std::vector<double>& k, auto&& f) {
    const std::size_t m = k.size();
    std::vector<double> d(m);
    for (std::size_t i = 0; i < m; ++i) {
      if (i == 0) d[i] = (f(1) - f(0)) / (k[1] - k[0]);
      else if (i == m - 1) d[i] = (f(m - 1) - f(m - 2)) / (k[m - 1] - k[m - 2]);
      else d[i] = 0.5 * ((f(i + 1) - f(i)) / (k[i + 1] - k[i]) + (f(i) - f(i - 1)) / (k[i] - k[i - 1]));
    }
    return d;
  };
  std::vector<double> dxg(nx * nq);
  for (std::size_t iq = 0; iq < nq; ++iq) {
    const auto d = slopes(lx, [&](std::size_t i) { return h.xg[i * nq + iq]; });
    for (std::size_t i = 0; i < nx; ++i) dxg[i * nq + iq] = d[i];
  }
  auto inverse_widths = [](const std::vector<double>& k) {
    std::vector<double> w(k.size() - 1);
    for (std::size_t i = 0; i + 1 < k.size(); ++i) w[i] = 1 / (k[i + 1] - k[i]);
    return w;
  };
  // hq_ratio_lo[i] = h_i / h_(i-1), hq_ratio_hi[i] = h_i / h_(i+1), h_i = lq[i+1] - lq[i].
  std::vector<double> rlo(nq - 1, 0.0), rhi(nq - 1, 0.0);
  for (std::size_t i = 0; i + 1 < nq; ++i) {
    if (i > 0) rlo[i] = (lq[i + 1] - lq[i]) / (lq[i] - lq[i - 1]);
    if (i + 2 < nq) rhi[i] = (lq[i + 1] - lq[i]) / (lq[i + 2] - lq[i + 1]);
  }
  g.dxg = fill("gluon::dxg", dxg, id);
  g.inv_hx = fill("gluon::inv_hx", inverse_widths(lx), id);
  g.inv_hq = fill("gluon::inv_hq", inverse_widths(lq), id);
  g.hq_ratio_lo = fill("gluon::hq_ratio_lo", rlo, id);
  g.hq_ratio_hi = fill("gluon::hq_ratio_hi", rhi, id);
  g.as_slope = fill("gluon::as_slope", slopes(la, [&](std::size_t i) { return h.as_val[i]; }), id);
  g.as_inv_h = fill("gluon::as_inv_h", inverse_widths(la), id);
  g.xmin = T(h.x.front());
  g.q2min = T(h.q.front() * h.q.front());
  g.q2max = T(h.q.back() * h.q.back());
  return g;
}

// One-loop alpha_s with nf = 5 from alpha_s(MZ).
inline double alphas_one_loop(double q, double as_mz, double mz = 91.188) {
  const double b0 = (33.0 - 2.0 * 5) / (12.0 * 3.14159265358979323846);
  return as_mz / (1.0 + as_mz * b0 * std::log(q * q / (mz * mz)));
}

// A toy gluon-only set, Q-independent: x*g = A x^-lambda (1-x)^b (by default
// the Les Houches benchmark's input gluon at Q0^2 = 2 GeV^2, not evolved), on x knots
// log-spaced in [1e-7, 0.1) (13 a decade) and linear in [0.1, 1] (step 0.025,
// as real grids are dense at large x), and 24 Q knots in [1, 1e5] GeV;
// alpha_s one-loop from alpha_s(MZ) on the same Q knots.
inline PdfGridHost toy_gluon_set(double A = 1.7, double lambda = 0.1, double b = 5.0, double as_mz = 0.118) {
  PdfGridHost h;
  h.name = "toy-gluon";
  for (int i = 0; i < 78; ++i) h.x.push_back(std::pow(10.0, -7.0 + i / 13.0));
  for (int i = 0; i <= 36; ++i) h.x.push_back(0.1 + 0.025 * i);
  const int nq = 24;
  for (int i = 0; i < nq; ++i) h.q.push_back(std::pow(10.0, 5.0 * i / (nq - 1)));
  for (double x : h.x)
    for (std::size_t j = 0; j < h.q.size(); ++j) h.xg.push_back(A * std::pow(x, -lambda) * std::pow(1 - x, b));
  h.as_q = h.q;
  for (double q : h.q) h.as_val.push_back(alphas_one_loop(std::max(q, 5.0), as_mz));
  return h;
}

}  // namespace tessera::gluon
