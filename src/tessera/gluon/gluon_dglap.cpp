#include "tessera/gluon/gluon_dglap.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace tessera::gluon {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kCF = 4.0 / 3.0, kCA = 3.0, kTR = 0.5;
constexpr int kGauss = 8;

// Gauss-Legendre nodes and weights on [0, 1].
struct Gauss {
  double t[kGauss], w[kGauss];
  Gauss() {
    for (int i = 0; i < kGauss; ++i) {
      double r = std::cos(kPi * (i + 0.75) / (kGauss + 0.5)), dp = 1;
      for (int it = 0; it < 100; ++it) {
        double p0 = 1, p1 = r;
        for (int k = 2; k <= kGauss; ++k) {
          const double p2 = ((2 * k - 1) * r * p1 - (k - 1) * p0) / k;
          p0 = p1;
          p1 = p2;
        }
        dp = kGauss * (r * p1 - p0) / (r * r - 1);
        const double dr = p1 / dp;
        r -= dr;
        if (std::abs(dr) < 1e-16) break;
      }
      t[i] = 0.5 * (1 - r);
      w[i] = 1.0 / ((1 - r * r) * dp * dp);
    }
  }
};
const Gauss& gauss() {
  static const Gauss g;
  return g;
}

// Lagrange basis polynomial m of the nodes 0..p at t.
double lagrange(int p, int m, double t) {
  double v = 1;
  for (int n = 0; n <= p; ++n)
    if (n != m) v *= (t - n) / (m - n);
  return v;
}

// Kernels in u = ln(1/z): z P(z) (the convolution of x*f), without the
// plus-prescription subtractions and delta terms.
double k_qq(double u) {  // C_F (1 + z^2)/(1 - z), plus-prescribed
  const double z = std::exp(-u);
  return kCF * z * (1 + z * z) / -std::expm1(-u);
}
double k_gg_plus(double u) {  // 2 C_A z/(1 - z), plus-prescribed
  const double z = std::exp(-u);
  return 2 * kCA * z * z / -std::expm1(-u);
}
double k_gg_reg(double u) {  // 2 C_A ((1 - z)/z + z(1 - z))
  const double z = std::exp(-u);
  return 2 * kCA * (1 - z) * (1 + z * z);
}
double k_qg(double u) {  // T_R (z^2 + (1 - z)^2), per quark or antiquark
  const double z = std::exp(-u);
  return z * kTR * (z * z + (1 - z) * (1 - z));
}
double k_gq(double u) {  // C_F (1 + (1 - z)^2)/z
  const double z = std::exp(-u);
  return kCF * (1 + (1 - z) * (1 - z));
}

double beta0(int nf) { return (33.0 - 2.0 * nf) / (12.0 * kPi); }

// Active flavours strictly between two scales (Q^2).
int flavours_between(const LhToySettings& s, double q2a, double q2b) {
  const double mid = std::sqrt(q2a * q2b);
  return 3 + (s.mc * s.mc < mid) + (s.mb * s.mb < mid) + (s.mt * s.mt < mid);
}

// The thresholds (Q^2) strictly between q2a and q2b, in the order met.
std::vector<double> thresholds_between(const LhToySettings& s, double q2a, double q2b) {
  std::vector<double> t;
  for (double m : {s.mc, s.mb, s.mt})
    if (m * m > std::min(q2a, q2b) && m * m < std::max(q2a, q2b)) t.push_back(m * m);
  std::sort(t.begin(), t.end());
  if (q2b < q2a) std::reverse(t.begin(), t.end());
  return t;
}

}  // namespace

double lo_alphas(const LhToySettings& s, double q) {
  if (!(q > 0) || !std::isfinite(q)) throw std::invalid_argument("lo_alphas: Q must be positive and finite");
  double as = s.alphas_q0, cur = s.q0 * s.q0;
  auto stops = thresholds_between(s, cur, q * q);
  stops.push_back(q * q);
  for (double next : stops) {
    as = as / (1 + as * beta0(flavours_between(s, cur, next)) * std::log(next / cur));
    if (!(as > 0)) throw std::invalid_argument("lo_alphas: Q = " + std::to_string(q) + " GeV is below the Landau pole");
    cur = next;
  }
  return as;
}

int lo_flavours(const LhToySettings& s, double q) { return 3 + (q > s.mc) + (q > s.mb) + (q > s.mt); }

LhToyEvolution::LhToyEvolution(const LhToySettings& s) : s_(s) {
  if (s_.per_decade < 4 || s_.per_decade > 1000 || s_.decades < 1 || s_.decades > 12 || s_.order < 2 || s_.order > 8 ||
      s_.fine_factor < 1 || s_.fine_factor > 16 || !(s_.max_step > 0) || !(s_.q0 > 0) || !(s_.alphas_q0 > 0) ||
      !(s_.mc > 0 && s_.mb > s_.mc && s_.mt > s_.mb))
    throw std::invalid_argument("LhToyEvolution: invalid settings");
  build(grid_[0], s_.per_decade, s_.decades);
  build(grid_[1], s_.per_decade * s_.fine_factor, 1);
}

// Row i (y_i = i dy) of a convolution: the intervals [y_k, y_k+1], k < i,
// at distance l = i - k; x*f on interval k is the Lagrange polynomial of the
// nodes s..s+p (s = k - c, clamped to the grid), so the weights of an
// unclamped interval depend on l only. Plus-prescribed kernels: the integrand
// is K(u)(f(y_i - u) - f(y_i)); the subtracted integrals and the
// prescription's ln(1 - x) combine to a constant diagonal term (`diag`).
LhToyEvolution::Matrix LhToyEvolution::kernel_matrix(const Grid& gr, double (*kernel)(double), bool plus,
                                                     double diag) const {
  const int p = s_.order, n = gr.n, c = gr.c;
  const double dy = gr.dy;
  const Gauss& g = gauss();
  auto weights = [&](int l, int d, double* w) {
    for (int m = 0; m <= p; ++m) w[m] = 0;
    for (int q = 0; q < kGauss; ++q) {
      const double u = (l - 1 + g.t[q]) * dy, t = d - u / dy;
      const double k = kernel(u) * g.w[q] * dy;
      for (int m = 0; m <= p; ++m) w[m] += k * (lagrange(p, m, t) - (plus && l == 1 && m == d ? 1.0 : 0.0));
    }
  };
  const std::size_t w1 = std::size_t(p + 1), nn = std::size_t(n);
  std::vector<double> cached(nn * w1);
  for (int l = 1; l < n; ++l) weights(l, l + c, &cached[std::size_t(l) * w1]);
  Matrix mat;
  mat.a.assign(nn * nn, 0.0);
  std::vector<double> w(w1);
  for (int i = 1; i < n; ++i) {  // row 0 (x = 1) stays 0
    for (int l = 1; l <= i; ++l) {
      const int s = std::clamp(i - l - c, 0, n - 1 - p), d = i - s;
      const double* wl = &cached[std::size_t(l) * w1];
      if (d != l + c) {
        weights(l, d, w.data());
        wl = w.data();
      }
      for (int m = 0; m <= p; ++m) mat.a[std::size_t(s + m) * nn + std::size_t(i)] += wl[m];
    }
    mat.a[std::size_t(i) * nn + std::size_t(i)] += diag;
  }
  mat.lo.assign(nn, n);
  for (std::size_t j = 0; j < nn; ++j)
    for (std::size_t i = 0; i < nn; ++i)
      if (mat.a[j * nn + i] != 0) {
        mat.lo[j] = int(i);
        break;
      }
  return mat;
}

void LhToyEvolution::build(Grid& gr, int per_decade, int decades) const {
  gr.n = per_decade * decades + 1;
  if (gr.n < s_.order + 2) throw std::invalid_argument("LhToyEvolution: too few nodes for the interpolation order");
  gr.dy = std::log(10.0) / per_decade;
  gr.c = (s_.order - 1) / 2;
  gr.x.resize(std::size_t(gr.n));
  for (int i = 0; i < gr.n; ++i) gr.x[std::size_t(i)] = std::pow(10.0, -double(i) / per_decade);
  const double omz1 = -std::expm1(-gr.dy);  // 1 - z at the end of the first interval
  const double z1 = 1 - omz1;
  // P_qq = C_F [(1 + z^2)/(1 - z)]_+: the diagonal of the subtractions, the
  // ln(1 - x) of the prescription and 3/2 delta(1 - z).
  gr.qq = kernel_matrix(gr, k_qq, true, kCF * (2 * std::log(omz1) - omz1 - (1 - z1 * z1) / 2 + 1.5));
  // P_gg without its delta term (11 C_A - 4 nf T_R)/6, added per nf.
  gr.gg = kernel_matrix(gr, k_gg_plus, true, 2 * kCA * (std::log(omz1) - omz1));
  const Matrix reg = kernel_matrix(gr, k_gg_reg, false, 0.0);
  for (std::size_t i = 0; i < gr.gg.a.size(); ++i) gr.gg.a[i] += reg.a[i];
  for (std::size_t j = 0; j < gr.gg.lo.size(); ++j) gr.gg.lo[j] = std::min(gr.gg.lo[j], reg.lo[j]);
  gr.qg = kernel_matrix(gr, k_qg, false, 0.0);
  gr.gq = kernel_matrix(gr, k_gq, false, 0.0);
}

void LhToyEvolution::apply(const Grid& gr, const Matrix& m, const std::vector<const double*>& in,
                           const std::vector<double*>& out) {
  const std::size_t n = std::size_t(gr.n);
  for (std::size_t v = 0; v < in.size(); ++v) {
    double* o = out[v];
    std::fill(o, o + n, 0.0);
    for (std::size_t j = 0; j < n; ++j) {
      const double f = in[v][j];
      if (f == 0) continue;
      const double* col = &m.a[j * n];
      for (std::size_t i = std::size_t(m.lo[j]); i < n; ++i) o[i] += f * col[i];
    }
  }
}

LhToyPdfs LhToyEvolution::input() const {
  LhToyPdfs r;
  r.q = s_.q0;
  r.alphas = s_.alphas_q0;
  r.nf = lo_flavours(s_, s_.q0);
  for (int gi = 0; gi < 2; ++gi) {
    const auto& xs = grid_[gi].x;
    for (auto& f : r.xf) f[std::size_t(gi)].assign(xs.size(), 0.0);
    auto v = [&](LhFlavour f) -> std::vector<double>& { return r.xf[int(f)][std::size_t(gi)]; };
    for (std::size_t i = 1; i < xs.size(); ++i) {  // x*f = 0 at x = 1
      const double x = xs[i];
      const double dbar = 0.1939875 * std::pow(x, -0.1) * std::pow(1 - x, 6), ubar = (1 - x) * dbar;
      v(LhFlavour::uv)[i] = 5.1072 * std::pow(x, 0.8) * std::pow(1 - x, 3);
      v(LhFlavour::dv)[i] = 3.06432 * std::pow(x, 0.8) * std::pow(1 - x, 4);
      v(LhFlavour::g)[i] = 1.7 * std::pow(x, -0.1) * std::pow(1 - x, 5);
      v(LhFlavour::lminus)[i] = dbar - ubar;
      v(LhFlavour::dplus)[i] = v(LhFlavour::dv)[i] + 2 * dbar;
      v(LhFlavour::uplus)[i] = v(LhFlavour::uv)[i] + 2 * ubar;
      v(LhFlavour::splus)[i] = 0.4 * (ubar + dbar);  // s = sbar = 0.2 (ubar + dbar)
      v(LhFlavour::sigma)[i] = v(LhFlavour::dplus)[i] + v(LhFlavour::uplus)[i] + v(LhFlavour::splus)[i];
    }
  }
  return r;
}

std::vector<LhToyPdfs> LhToyEvolution::evolve(const std::vector<double>& qs, bool all_flavours) const {
  for (std::size_t i = 0; i < qs.size(); ++i)
    if (!std::isfinite(qs[i]) || qs[i] < s_.q0 * (1 - 1e-12) || (i && qs[i] < qs[i - 1]))
      throw std::invalid_argument("LhToyEvolution: scales must be finite, >= Q0 and non-decreasing");
  const int nv = all_flavours ? kLhFlavours : 2;  // g and Sigma come first
  const int first_heavy = int(LhFlavour::dplus);
  LhToyPdfs st = input();
  // Per grid: the state y, the stage derivative k, the RK4 sum and the stage argument.
  struct Work {
    std::vector<std::vector<double>> y, k, acc, tmp;
    std::vector<double> qg, gq;
  } work[2];
  for (int gi = 0; gi < 2; ++gi) {
    const std::size_t n = std::size_t(grid_[gi].n);
    Work& w = work[gi];
    for (int v = 0; v < nv; ++v) w.y.push_back(st.xf[v][std::size_t(gi)]);
    w.k.assign(std::size_t(nv), std::vector<double>(n));
    w.acc = w.tmp = w.k;
    w.qg.resize(n);
    w.gq.resize(n);
  }
  // dF/dxi = P(nf) (x) F; q+ of a flavour not yet active stays 0.
  auto rhs = [&](const Grid& gr, Work& w, const std::vector<std::vector<double>>& f,
                 std::vector<std::vector<double>>& d, int nf) {
    const std::size_t n = std::size_t(gr.n);
    apply(gr, gr.qg, {f[0].data()}, {w.qg.data()});
    apply(gr, gr.gq, {f[1].data()}, {w.gq.data()});
    apply(gr, gr.gg, {f[0].data()}, {d[0].data()});
    std::vector<const double*> in;
    std::vector<double*> out;
    for (int v = 1; v < nv; ++v) {
      if (v >= first_heavy && v - first_heavy >= nf) {
        std::fill(d[std::size_t(v)].begin(), d[std::size_t(v)].end(), 0.0);
        continue;
      }
      in.push_back(f[std::size_t(v)].data());
      out.push_back(d[std::size_t(v)].data());
    }
    apply(gr, gr.qq, in, out);
    const double dgg = (11 * kCA - 4 * nf * kTR) / 6;
    for (std::size_t i = 0; i < n; ++i) {
      d[0][i] += w.gq[i] + dgg * f[0][i];
      d[1][i] += 2 * nf * w.qg[i];
    }
    for (int v = first_heavy; v < nv; ++v)
      if (v - first_heavy < nf)
        for (std::size_t i = 0; i < n; ++i) d[std::size_t(v)][i] += 2 * w.qg[i];
  };
  auto rk4 = [&](double h, int nf) {
    for (int gi = 0; gi < 2; ++gi) {
      const Grid& gr = grid_[gi];
      Work& w = work[gi];
      const std::size_t n = std::size_t(gr.n);
      auto stage = [&](bool first, double b) {  // acc = k (first) or acc += 2 k; tmp = y + b k
        for (std::size_t v = 0; v < std::size_t(nv); ++v)
          for (std::size_t i = 0; i < n; ++i) {
            w.acc[v][i] = first ? w.k[v][i] : w.acc[v][i] + 2 * w.k[v][i];
            w.tmp[v][i] = w.y[v][i] + b * w.k[v][i];
          }
      };
      rhs(gr, w, w.y, w.k, nf);
      stage(true, 0.5 * h);
      rhs(gr, w, w.tmp, w.k, nf);
      stage(false, 0.5 * h);
      rhs(gr, w, w.tmp, w.k, nf);
      stage(false, h);
      rhs(gr, w, w.tmp, w.k, nf);
      for (int v = 0; v < nv; ++v)
        for (std::size_t i = 0; i < n; ++i)
          w.y[std::size_t(v)][i] += h / 6 * (w.acc[std::size_t(v)][i] + w.k[std::size_t(v)][i]);
    }
  };
  std::vector<LhToyPdfs> out;
  double cur = s_.q0 * s_.q0, as = s_.alphas_q0;
  for (double qt : qs) {
    const double target = std::max(qt * qt, cur);
    auto stops = thresholds_between(s_, cur, target);
    stops.push_back(target);
    for (double next : stops) {
      if (next <= cur) continue;
      const int nf = flavours_between(s_, cur, next);
      const double as_next = as / (1 + as * beta0(nf) * std::log(next / cur));
      const double dxi = std::log(as / as_next) / (2 * kPi * beta0(nf));  // int alpha_s/(2 pi) dln mu^2
      const int steps = std::max(1, int(std::ceil(dxi / s_.max_step - 1e-9)));
      for (int i = 0; i < steps; ++i) rk4(dxi / steps, nf);
      cur = next;
      as = as_next;
    }
    LhToyPdfs r;
    r.q = qt;
    r.alphas = as;
    r.nf = lo_flavours(s_, qt);
    for (int v = 0; v < nv; ++v)
      for (int gi = 0; gi < 2; ++gi) r.xf[v][std::size_t(gi)] = work[gi].y[std::size_t(v)];
    out.push_back(std::move(r));
  }
  return out;
}

double LhToyEvolution::at(const Grid& gr, const std::vector<double>& f, double x) const {
  const double t = -std::log(x) / gr.dy;
  const int p = s_.order;
  const int s = std::clamp(int(std::floor(t)) - gr.c, 0, gr.n - 1 - p);
  double v = 0;
  for (int m = 0; m <= p; ++m) v += lagrange(p, m, t - s) * f[std::size_t(s + m)];
  return v;
}

double LhToyEvolution::xf(const LhToyPdfs& p, LhFlavour fl, double x) const {
  if (!(x >= xmin() * (1 - 1e-12) && x <= 1)) throw std::invalid_argument("LhToyEvolution: x outside the grid");
  const int gi = x >= 0.2 ? 1 : 0;
  const auto& f = p.xf[int(fl)][std::size_t(gi)];
  if (f.size() != grid_[gi].x.size()) throw std::invalid_argument("LhToyEvolution: flavour not evolved");
  return at(grid_[gi], f, x);
}

double LhToyEvolution::integral(const LhToyPdfs& p, LhFlavour fl, int power) const {
  // Gauss-Legendre on each coarse interval: int dx x^(power-1) (xf) =
  // int dy e^(-power y) (xf)(y).
  const Gauss& g = gauss();
  const Grid& gr = grid_[0];
  double sum = 0;
  for (int k = 0; k + 1 < gr.n; ++k)
    for (int q = 0; q < kGauss; ++q) {
      const double y = (k + g.t[q]) * gr.dy;
      sum += g.w[q] * gr.dy * std::exp(-power * y) * xf(p, fl, std::exp(-y));
    }
  return sum;
}

PdfGridHost lh_lo_toy_set() {
  const LhToySettings s;
  const LhToyEvolution ev(s);
  PdfGridHost h;
  h.name = "lh-lo-toy";
  for (int i = 0; i < 6 * 30; ++i) h.x.push_back(std::pow(10.0, -7.0 + i / 30.0));
  for (int i = 0; i <= 90; ++i) h.x.push_back(0.1 + 0.01 * i);
  h.x.back() = 1.0;
  // Q knots: log-spaced in each flavour region (at most 0.35 in ln Q^2
  // apart), the thresholds among them.
  const double qmax = 1e5;
  h.q.push_back(s.q0);
  for (double end : {s.mb, s.mt, qmax}) {
    const double a = h.q.back(), span = 2 * std::log(end / a);
    const int steps = int(std::ceil(span / 0.35));
    for (int i = 1; i <= steps; ++i) h.q.push_back(i == steps ? end : a * std::exp(0.5 * span * i / steps));
  }
  const auto pdfs = ev.evolve(h.q, false);
  h.xg.resize(h.x.size() * h.q.size());
  for (std::size_t j = 0; j < h.q.size(); ++j)
    for (std::size_t i = 0; i < h.x.size(); ++i) h.xg[i * h.q.size() + j] = ev.xf(pdfs[j], LhFlavour::g, h.x[i]);
  h.as_q = h.q;
  for (const auto& p : pdfs) h.as_val.push_back(p.alphas);
  h.validate();
  return h;
}

}  // namespace tessera::gluon
