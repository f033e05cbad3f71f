#pragma once
// LO DGLAP evolution of the Les Houches benchmark toy input (Giele et al.,
// hep-ph/0204316, the Les Houches benchmarks: Q0^2 = 2 GeV^2, alpha_s(Q0^2) =
// 0.35, mu_R = mu_F, variable flavour number with mc = Q0, mb = 4.5 GeV,
// mt = 175 GeV) and the built-in PDF set made from it.
//
// Method: x*f on a uniform grid in y = ln(1/x); convolutions x(P (x) f) =
// int_0^y du z P(z) (xf)(y - u), z = e^-u, with (order)-th degree Lagrange
// interpolation of x*f between the nodes, weights integrated once (Gauss-
// Legendre per interval; the plus-prescriptions handled analytically), so a
// convolution is a matrix-vector product. Evolution variable
// xi = int alpha_s/(2 pi) d ln mu^2 (the LO system is autonomous in xi between
// thresholds), fourth-order Runge-Kutta steps that land on every requested
// scale and threshold; alpha_s is the exact one-loop solution, continuous at
// the thresholds; heavy quarks start from zero at their threshold.
#include "tessera/gluon/gluon_pdf.hpp"

#include <array>
#include <vector>

namespace tessera::gluon {

struct LhToySettings {
  double q0 = 1.4142135623730951;  // GeV: the input scale, sqrt(2)
  double alphas_q0 = 0.35;         // alpha_s(Q0^2)
  double mc = 1.4142135623730951, mb = 4.5, mt = 175.0;  // GeV: flavour thresholds
  int per_decade = 60;     // nodes per decade of x (the decades 10^-k are nodes)
  int decades = 7;         // x from 10^-decades to 1
  int order = 5;           // Lagrange interpolation degree between the nodes
  int fine_factor = 4;     // the fine grid at x >= 0.1: fine_factor * per_decade a decade
  double max_step = 0.01;  // largest Runge-Kutta step in xi
};

// LO alpha_s(Q^2) (Q in GeV) and the active flavours at Q (a scale on a
// threshold counts the flavours below it).
double lo_alphas(const LhToySettings& s, double q);
int lo_flavours(const LhToySettings& s, double q);

// The evolved distributions (x times f): the gluon, the singlet Sigma, the
// valence uv, dv, lminus = dbar - ubar and q + qbar per flavour.
enum class LhFlavour { g, sigma, uv, dv, lminus, dplus, uplus, splus, cplus, bplus, tplus };
constexpr int kLhFlavours = 11;

// The distributions at one scale on the evolution's grids (x*f at the nodes;
// flavours not evolved are empty).
struct LhToyPdfs {
  double q = 0, alphas = 0;
  int nf = 0;
  std::array<std::vector<double>, 2> xf[kLhFlavours];  // [flavour][coarse, fine grid][node]
};

// Two grids: the coarse one on 10^-decades <= x <= 1 and a fine one
// (fine_factor times denser) on 0.1 <= x <= 1, where the distributions fall
// steeply; a convolution at y needs x*f on [0, y] only, so each grid evolves
// on its own. Values at x >= 0.2 come from the fine grid.
class LhToyEvolution {
 public:
  explicit LhToyEvolution(const LhToySettings& s = {});
  const LhToySettings& settings() const { return s_; }
  double xmin() const { return grid_[0].x.back(); }
  // The input at Q0 and the distributions at the scales q (GeV, >= Q0,
  // non-decreasing). all_flavours = false evolves Sigma and g only.
  LhToyPdfs input() const;
  std::vector<LhToyPdfs> evolve(const std::vector<double>& q, bool all_flavours) const;
  // x*f at x in [xmin, 1]: the Lagrange interpolation the evolution uses.
  double xf(const LhToyPdfs& p, LhFlavour f, double x) const;
  // int_{xmin}^1 dx x^(power - 1) (x f): power 0 counts quarks, 1 is the
  // momentum fraction.
  double integral(const LhToyPdfs& p, LhFlavour f, int power) const;

 private:
  struct Matrix {  // column-major, column j nonzero from row lo[j]
    std::vector<double> a;
    std::vector<int> lo;
  };
  struct Grid {
    int n = 0, c = 0;  // nodes; stencil nodes at or below an interval
    double dy = 0;
    std::vector<double> x;      // x[0] = 1, decreasing
    Matrix qq, qg, gq, gg;      // LO kernels without the nf-dependent delta term of P_gg
  };
  void build(Grid& g, int per_decade, int decades) const;
  Matrix kernel_matrix(const Grid& g, double (*k)(double), bool plus, double diag) const;
  static void apply(const Grid& g, const Matrix& m, const std::vector<const double*>& in, const std::vector<double*>& out);
  double at(const Grid& g, const std::vector<double>& xf, double x) const;

  LhToySettings s_;
  Grid grid_[2];
};

// The built-in set "lh-lo-toy": x*g of the evolution on x knots 10^-7 .. 1
// (30 a decade below 0.1, step 0.01 above) and Q knots sqrt(2) .. 10^5 GeV
// (thresholds among them), alpha_s at the Q knots. Built on each call (~0.1 s);
// load_pdf caches it.
PdfGridHost lh_lo_toy_set();

}  // namespace tessera::gluon
