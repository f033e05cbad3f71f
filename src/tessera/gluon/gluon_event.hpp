#pragma once
// One Monte Carlo event of gg -> (n-2) gluons (paper eq. 8): tau = x1 x2
// log-uniform, rapidity y uniform, RAMBO in the parton frame, a random
// ordering sigma and random linear polarisations, jet cuts in the lab frame,
// the PDFs and alpha_s, and the weight in pb. Everything an event draws comes
// from EventRng(seed, event index), so every backend generates the same event.
#include "tessera/gluon/gluon_pdf.hpp"
#include "tessera/gluon/gluon_physics.hpp"

namespace tessera::gluon {

// pb per GeV^-2.
inline constexpr double gev2_to_pb = 0.3893794e9;

enum class ScaleChoice : int { fixed = 0, ht = 1 };

// The run's physics settings, in the kernel's precision.
template <class T>
struct EventConfig {
  int n = 4;             // gluons, 2 -> n-2
  T sqrt_s = T(14000);   // hadronic centre-of-mass energy (GeV)
  T pt_min = T(20);      // jet cuts
  T eta_max = T(2.5);
  T dr_min = T(0.4);
  ScaleChoice scale = ScaleChoice::fixed;
  T mu_fixed = T(91.188);  // muR = muF for ScaleChoice::fixed
  bool flat_x = false;     // sample x1, x2 flat instead of log-tau, y
  bool skip_failed = false;  // skip the matrix element of events that fail the cuts
  // Filled by finalize(): tau_min and the constant factors of the weight.
  T tau_min = T(0);
  T ln_inv_tau_min = T(0);
  T ln_mu2_fixed = T(0);  // ln mu_fixed^2
  T constant = T(0);  // pb * (n-1) N^(n-2)/(N^2-1) (4 pi)^(n-2) Phi_RAMBO(s = 1)
};

// Fills the derived fields; throws std::invalid_argument on bad settings.
template <class T>
void finalize(EventConfig<T>& c) {
  if (c.n < 4 || c.n > max_gluons)
    throw std::invalid_argument("gluon: n must be in [4, " + std::to_string(max_gluons) + "], got " +
                                std::to_string(c.n));
  if (!(c.sqrt_s > 0)) throw std::invalid_argument("gluon: sqrt(s) must be positive");
  if (!(c.pt_min > 0)) throw std::invalid_argument("gluon: the pT cut must be positive");
  if (!(c.eta_max > 0) || !(c.dr_min >= 0)) throw std::invalid_argument("gluon: eta and Delta R cuts must be positive");
  if (c.scale == ScaleChoice::fixed && !(c.mu_fixed > 0)) throw std::invalid_argument("gluon: the scale must be positive");
  const double tmin = std::pow((c.n - 2) * double(c.pt_min), 2) / (double(c.sqrt_s) * double(c.sqrt_s));
  if (!(tmin < 1)) throw std::invalid_argument("gluon: (n-2) pT_min exceeds sqrt(s): no phase space");
  c.tau_min = T(tmin);
  c.ln_inv_tau_min = T(-std::log(tmin));
  c.ln_mu2_fixed = c.scale == ScaleChoice::fixed ? T(2 * std::log(double(c.mu_fixed))) : T(0);
  const int np = c.n - 2;
  // Phi_RAMBO(s) = rambo_volume(np, 1) s^(np-2): the s-dependence is applied per event.
  double k = rambo_volume(np, 1.0) * gev2_to_pb * (c.n - 1);
  const double N = 3;
  for (int i = 0; i < c.n - 2; ++i) k *= N * 4 * 3.14159265358979323846;
  k /= (N * N - 1);
  c.constant = T(k);
}

// What one event gives: its weight (pb; 0 when it fails the cuts), whether it
// passed, and two observables (HT, min Delta R).
template <class T>
struct EventResult {
  T weight;
  T ht;
  T min_dr;
  bool accepted;
};

// Lab-frame cuts on the np parton-frame momenta p (in units of `scale` GeV)
// boosted by rapidity y: pT is boost-invariant, eta shifts by y. The momenta
// are massless, so eta = asinh(pz/pT) = sign(pz) ln((|pz| + E)/pT) without a
// square root; min Delta R is the root of the smallest Delta R^2 (the same
// number: a correctly rounded root is monotone), one root instead of one a pair.
template <class T>
KOKKOS_INLINE_FUNCTION bool pass_cuts(const EventConfig<T>& c, int np, const Vec4<T>* p, T scale, T y, T& ht,
                                       T& min_dr) {
  bool ok = true;
  ht = T(0);
  T min_dr2 = T(1e30);
  T eta[max_gluons], phi[max_gluons];
  for (int i = 0; i < np; ++i) {
    const T pt = math::sqrt(p[i][1] * p[i][1] + p[i][2] * p[i][2]);
    ht += pt * scale;
    if (!(pt * scale > c.pt_min)) ok = false;
    const T pz = p[i][3], az = math::fabs(pz);
    const T e = math::log((az + p[i][0]) / (pt > T(0) ? pt : T(1e-30)));
    eta[i] = (pz < T(0) ? -e : e) + y;
    phi[i] = math::atan2(p[i][2], p[i][1]);
    if (!(math::fabs(eta[i]) < c.eta_max)) ok = false;
  }
  for (int i = 0; i < np; ++i)
    for (int j = i + 1; j < np; ++j) {
      const T de = eta[i] - eta[j];
      T dp = math::fabs(phi[i] - phi[j]);
      if (dp > math::pi<T>()) dp = T(2) * math::pi<T>() - dp;
      const T dr2 = de * de + dp * dp;
      if (dr2 < min_dr2) min_dr2 = dr2;
    }
  min_dr = math::sqrt(min_dr2);
  if (!(min_dr > c.dr_min)) ok = false;
  return ok;
}

// Draws the event with index `event` of the stream `seed`: the momenta k
// (in units of sqrt(s_hat)), polarisations eps, the ordering ord, and `pre`,
// the weight (pb) without |m|^2. The result's weight is not set.
template <class T, class PdfG>
KOKKOS_INLINE_FUNCTION EventResult<T> prepare_event(const EventConfig<T>& c, const PdfG& pdf, std::uint64_t seed,
                                                    std::uint64_t event, Vec4<T>* k, Vec4<T>* eps, int* ord,
                                                    T& pre) {
  EventRng rng(seed, event);
  const int n = c.n, np = n - 2;
  // Momentum fractions.
  // (their logarithms too, which the PDFs and the boost take)
  T x1, x2, lx1, lx2, y, jac;
  if (!c.flat_x) {
    const T r1 = rng.template uniform<T>(), r2 = rng.template uniform<T>();
    const T ltau = -c.ln_inv_tau_min * r1;  // ln tau in (ln tau_min, 0)
    y = ltau * (T(0.5) - r2);               // uniform in (ln sqrt(tau), -ln sqrt(tau))
    lx1 = T(0.5) * ltau + y;
    lx2 = T(0.5) * ltau - y;
    x1 = math::exp(lx1);
    x2 = math::exp(lx2);
    jac = x1 * x2 * c.ln_inv_tau_min * (-ltau);  // tau ln(1/tau_min) |ln tau|
  } else {
    x1 = rng.template uniform<T>();
    x2 = rng.template uniform<T>();
    lx1 = math::log(x1);
    lx2 = math::log(x2);
    y = T(0.5) * (lx1 - lx2);
    jac = (x1 * x2 > c.tau_min) ? T(1) : T(0);
  }
  const T s = x1 * x2 * c.sqrt_s * c.sqrt_s;
  const T rs = math::sqrt(s);
  // The matrix element is evaluated at sqrt(s_hat) = 1 (dimensionless, no
  // overflow in float): |m|^2 = |m_1|^2 s^(4-n), and with RAMBO's s^(n-4) and
  // the flux 1/(2s) the weight carries 1/(2s).
  k[0] = {{T(-0.5), T(0), T(0), T(-0.5)}};
  k[1] = {{T(-0.5), T(0), T(0), T(0.5)}};
  rambo(np, T(1), rng, k + 2);
  random_ordering<T>(n, rng, ord);
  for (int i = 0; i < n; ++i) eps[i] = linear_polarisation_turns(k[i], rng.template uniform<T>());

  EventResult<T> r;
  r.weight = T(0);
  r.accepted = pass_cuts(c, np, k + 2, rs, y, r.ht, r.min_dr) && jac > T(0);
  const T lmu2 = c.scale == ScaleChoice::fixed ? c.ln_mu2_fixed : T(2) * math::log(r.ht);
  const T as = pdf.alphas_ln(lmu2);
  const T f1 = pdf.xfx_ln(lx1, lmu2) / x1, f2 = pdf.xfx_ln(lx2, lmu2) / x2;
  T ap = T(1);
  for (int i = 0; i < n - 2; ++i) ap *= as;
  pre = c.constant * jac * f1 * f2 * ap / (T(2) * s);
  return r;
}

// Whether the matrix element of a drawn event is evaluated.
template <class T>
KOKKOS_INLINE_FUNCTION bool needs_matrix_element(const EventConfig<T>& c, const EventResult<T>& r) {
  return r.accepted || !c.skip_failed;
}

// The event with index `event` of the stream `seed`, weight included.
template <class T, class PdfG, int NMAX = max_gluons>
KOKKOS_INLINE_FUNCTION EventResult<T> generate_event(const EventConfig<T>& c, const PdfG& pdf, std::uint64_t seed,
                                                     std::uint64_t event, BergsScratch<T, T, NMAX>& scratch) {
  Vec4<T> k[NMAX], eps_own[NMAX];
  int ord[NMAX];
  T pre;
  // The polarisations are drawn into the currents' last n slots (levels the
  // recursion writes last; bg_amplitude reads what it needs from them first)
  // where those lie above the one-leg currents (n >= 5): a smaller footprint
  // per event in the one-event-per-thread kernel, whose scratch is cached.
  const int nl = c.n - 1, nJ = nl * (nl + 1) / 2;
  Vec4<T>* eps = c.n + nl <= nJ ? scratch.J + (nJ - c.n) : eps_own;
  EventResult<T> r = prepare_event(c, pdf, seed, event, k, eps, ord, pre);
  if (!needs_matrix_element(c, r)) return r;
  const T m = bg_amplitude<T, T, NMAX>(c.n, ord, k, eps, scratch);
  // In timing mode a failed event's matrix element is computed, its weight is 0.
  r.weight = r.accepted ? pre * (m * m) : T(0);
  return r;
}

}  // namespace tessera::gluon
