// The Berends-Giele amplitudes and RAMBO against independent results: the
// exact gg -> gg and gg -> ggg polarisation/colour sums, Parke-Taylor MHV
// amplitudes, U(1) decoupling and reflection identities, gauge invariance,
// the random-polarisation mean, RAMBO's conservation and phase-space volume.
// Fresh random phase-space points each run (the seed is in the trace).
#include "exec_spaces.hpp"
#include "tessera/gluon/gluon_output.hpp"
#include "tessera/gluon/gluon_presets.hpp"
#include "tessera/gluon/gluon_physics.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace {

using namespace tessera::gluon;
using V4 = Vec4<double>;
using tessera::test::ExecSpaces;

// A random massless n-point configuration: incoming along z with negative
// energies (sqrt(s) = E), RAMBO outgoing.
template <class T>
KOKKOS_INLINE_FUNCTION void random_point(int n, std::uint64_t seed, std::uint64_t idx, T E, Vec4<T>* k) {
  EventRng rng(seed, idx);
  k[0] = {{T(-0.5) * E, T(0), T(0), T(-0.5) * E}};
  k[1] = {{T(-0.5) * E, T(0), T(0), T(0.5) * E}};
  rambo(n - 2, E, rng, k + 2);
}

// The k-th permutation (Lehmer code) of legs 1..n-1 after leg 0.
KOKKOS_INLINE_FUNCTION void nth_ordering(int n, int idx, int* ord) {
  int avail[max_gluons];
  for (int i = 1; i < n; ++i) avail[i - 1] = i;
  int m = n - 1;
  ord[0] = 0;
  for (int pos = 1; pos < n; ++pos) {
    int f = 1;
    for (int i = 2; i < m; ++i) f *= i;
    const int q = idx / f;
    idx %= f;
    ord[pos] = avail[q];
    for (int i = q; i < m - 1; ++i) avail[i] = avail[i + 1];
    --m;
  }
}

// Sum over the orderings of leg 0 .. n-1 (leg 0 first) and over the 2^n
// linear polarisations of |m|^2, at point k.
template <class T>
KOKKOS_INLINE_FUNCTION T ordered_pol_sum(int n, const Vec4<T>* k) {
  Vec4<T> e1[max_gluons], e2[max_gluons], eps[max_gluons];
  for (int i = 0; i < n; ++i) pol_basis(k[i], e1[i], e2[i]);
  int nperm = 1;
  for (int i = 2; i < n; ++i) nperm *= i;
  BergsScratch<T, T> s;
  T tot = 0;
  for (int p = 0; p < nperm; ++p) {
    int ord[max_gluons];
    nth_ordering(n, p, ord);
    for (int mask = 0; mask < (1 << n); ++mask) {
      for (int i = 0; i < n; ++i) eps[i] = (mask >> i & 1) ? e2[i] : e1[i];
      const T m = bg_amplitude<T, T>(n, ord, k, eps, s);
      tot += m * m;
    }
  }
  return tot;
}

double sij(const V4* k, int i, int j) { return 2 * dot(k[i], k[j]); }

// The exact sums hold on shell only. Momenta rounded to double are off shell
// and out of balance by ~1e-16 relative, which near collinear configurations
// moves the sums by up to a few 1e-9 (measured on 200,000 points, in double
// and long double recursions alike), so the physics is checked on points
// exact to long-double rounding, with the recursion and the references in
// long double. RAMBO here is the test's own, in long double.
using L4 = Vec4<long double>;
void physical_point(int n, std::uint64_t seed, std::uint64_t idx, long double E, L4* k) {
  EventRng rng(seed, idx);
  const long double two_pi = 2 * std::acos(-1.0L);
  k[0] = {{-E / 2, 0, 0, -E / 2}};
  k[1] = {{-E / 2, 0, 0, E / 2}};
  L4* q = k + 2;
  L4 Q = {{0, 0, 0, 0}};
  for (int i = 0; i < n - 2; ++i) {
    const long double c = 2 * (long double)rng.uniform<double>() - 1, st = std::sqrt(1 - c * c);
    const long double phi = two_pi * rng.uniform<double>();
    const long double e = -std::log((long double)rng.uniform<double>() * rng.uniform<double>());
    q[i] = {{e, e * st * std::cos(phi), e * st * std::sin(phi), e * c}};
    for (int mu = 0; mu < 4; ++mu) Q[mu] += q[i][mu];
  }
  const long double m = std::sqrt(Q[0] * Q[0] - Q[1] * Q[1] - Q[2] * Q[2] - Q[3] * Q[3]);
  const long double b[3] = {-Q[1] / m, -Q[2] / m, -Q[3] / m};
  const long double x = E / m, g = Q[0] / m, a = 1 / (1 + g);
  for (int i = 0; i < n - 2; ++i) {
    const long double bq = b[0] * q[i][1] + b[1] * q[i][2] + b[2] * q[i][3], q0 = q[i][0];
    q[i][0] = x * (g * q0 + bq);
    for (int j = 0; j < 3; ++j) q[i][j + 1] = x * (q[i][j + 1] + b[j] * q0 + a * bq * b[j]);
  }
}

long double sijl(const L4* k, int i, int j) {
  return 2 * (k[i][0] * k[j][0] - k[i][1] * k[j][1] - k[i][2] * k[j][2] - k[i][3] * k[j][3]);
}

// (9/2)(3 - tu/s^2 - su/t^2 - st/u^2): the spin- and colour-averaged gg -> gg
// |M|^2 / g^4.
long double gggg_avg(const L4* k) {
  const long double s = sijl(k, 0, 1), t = sijl(k, 0, 2), u = sijl(k, 0, 3);
  return 4.5L * (3 - t * u / (s * s) - s * u / (t * t) - s * t / (u * u));
}

// Exact gg -> ggg (leading colour is exact at n = 5): sum over helicities and
// colours / g^6 = N^3 (N^2-1) sum_{i<j} s_ij^4 sum_{orderings} 1/(s12 s23 s34 s45 s51)
// times 2 (MHV and anti-MHV), here without the colour factor.
long double ggggg_helicity_ordering_sum(const L4* k) {
  long double num = 0;
  for (int i = 0; i < 5; ++i)
    for (int j = i + 1; j < 5; ++j) num += std::pow(sijl(k, i, j), 4);
  std::vector<int> p = {1, 2, 3, 4};
  long double den = 0;
  do {
    const int o[5] = {0, p[0], p[1], p[2], p[3]};
    long double d = 1;
    for (int i = 0; i < 5; ++i) d *= sijl(k, o[i], o[(i + 1) % 5]);
    den += 1 / d;
  } while (std::next_permutation(p.begin(), p.end()));
  return 2 * num * den;
}

// Kernels live in free functions: nvcc refuses device lambdas in the private
// member functions GoogleTest generates.
// The sums on the backend at the given points (npts x n x 4 momenta).
template <class E>
std::vector<double> exact_sums_on(int n, const std::vector<double>& mom, int npts) {
  Kokkos::View<double*, typename E::memory_space> kv("k", mom.size());
  Kokkos::deep_copy(kv, Kokkos::View<const double*, Kokkos::HostSpace>(mom.data(), mom.size()));
  Kokkos::View<double*, typename E::memory_space> out("out", npts);
  Kokkos::parallel_for(
      "sums", Kokkos::RangePolicy<E>(0, npts), KOKKOS_LAMBDA(int p) {
        Vec4<double> k[max_gluons];
        for (int i = 0; i < n; ++i)
          for (int mu = 0; mu < 4; ++mu) k[i][mu] = kv((p * n + i) * 4 + mu);
        out(p) = ordered_pol_sum(n, k);
      });
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  return std::vector<double>(h.data(), h.data() + npts);
}

template <class E>
std::vector<double> rambo_check_on(std::uint64_t seed, int npts) {
  Kokkos::View<double**, Kokkos::LayoutRight, typename E::memory_space> out("out", npts, 2);
  Kokkos::parallel_for(
      "rambo", Kokkos::RangePolicy<E>(0, npts), KOKKOS_LAMBDA(int p) {
        const int np = 2 + p % (max_gluons - 3);
        Vec4<double> q[max_gluons];
        EventRng rng(seed, std::uint64_t(p));
        rambo(np, 1000.0, rng, q);
        double sum[4] = {0, 0, 0, 0}, mass = 0;
        for (int i = 0; i < np; ++i) {
          for (int mu = 0; mu < 4; ++mu) sum[mu] += q[i][mu];
          const double m2 = dot(q[i], q[i]) / (q[i][0] * q[i][0]);
          mass = m2 < 0 ? (mass > -m2 ? mass : -m2) : (mass > m2 ? mass : m2);
        }
        out(p, 0) = (sum[0] - 1000.0) * (sum[0] - 1000.0) + sum[1] * sum[1] + sum[2] * sum[2] + sum[3] * sum[3];
        out(p, 1) = mass;
      });
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  return std::vector<double>(h.data(), h.data() + 2 * npts);
}

template <class ExecSpace>
class GluonAmplitude : public ::testing::Test {};
TYPED_TEST_SUITE(GluonAmplitude, ExecSpaces);

// The linear-polarisation sum of |m|^2 is 2^(n-2) times the helicity sum of
// the colour-ordered amplitudes (docs/gluon.md): checked against gg -> gg and
// gg -> ggg in two steps. Physics: the recursion in long double on points on
// shell to long-double rounding against the exact sums (measured: < 1e-15 at
// most points, a few 1e-13 near collinear ones). Rounding: the backend's
// double recursion against the same recursion in long double on the same
// double momenta (measured: ~1e-15 at most points, up to ~4e-11 near
// collinear ones, where currents cancel).
TYPED_TEST(GluonAmplitude, ExactSumsN4N5) {
  using E = TypeParam;
  const std::uint64_t seed = tessera::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const int npts = 32;
  for (int n = 4; n <= 5; ++n) {
    std::vector<L4> kl(std::size_t(npts) * n);
    std::vector<double> kd(kl.size() * 4);
    for (int p = 0; p < npts; ++p) {
      EventRng rng(seed, std::uint64_t(p));
      physical_point(n, seed, 1000 + p, 10 + 1000 * (long double)rng.uniform<double>(), &kl[std::size_t(p) * n]);
    }
    for (std::size_t i = 0; i < kl.size(); ++i)
      for (int mu = 0; mu < 4; ++mu) kd[i * 4 + mu] = double(kl[i][mu]);
    const auto h = exact_sums_on<E>(n, kd, npts);
    std::vector<double> phys, round;
    for (int p = 0; p < npts; ++p) {
      const L4* k = &kl[std::size_t(p) * n];
      L4 kr[max_gluons];  // the backend's inputs, in long double
      for (int i = 0; i < n; ++i)
        for (int mu = 0; mu < 4; ++mu) kr[i][mu] = kd[(std::size_t(p) * n + i) * 4 + mu];
      const long double norm = std::pow(2.0L, n - 2);
      // (1/256) N^2 (N^2-1) sum_orderings sum_hel |A|^2 = gggg_avg.
      const long double col = n == 4 ? 9 * 8 / 256.0L : 1;
      const long double ref = n == 4 ? gggg_avg(k) : ggggg_helicity_ordering_sum(k);
      phys.push_back(double(std::abs(ordered_pol_sum(n, k) / norm * col / ref - 1)));
      round.push_back(double(std::abs(h[p] / ordered_pol_sum(n, kr) - 1)));
      EXPECT_LT(phys.back(), 1e-11) << "physics, n = " << n << " point " << p;
      EXPECT_LT(round.back(), 1e-9) << "rounding, n = " << n << " point " << p;
    }
    std::sort(phys.begin(), phys.end());
    std::sort(round.begin(), round.end());
    EXPECT_LT(phys[npts / 2], 1e-14) << "physics median, n = " << n;
    EXPECT_LT(round[npts / 2], 1e-13) << "rounding median, n = " << n;
    EXPECT_LT(round[npts - 2], 1e-10) << "rounding second-worst point, n = " << n;
  }
}

// Single MHV amplitudes with complex helicity vectors: |m|^2 = 2^(n-2) s_ij^4 /
// prod |s_{k,k+1}| (Parke-Taylor, |<ij>|^2 = |s_ij|); all-plus and one-minus vanish.
// The recursion's rounding error is relative to the event's largest MHV
// amplitude, not to this one: with i, j near collinear s_ij^4 is small and the
// cancellation inside the currents leaves a relative error of 1e-9 and more on
// |m|^2 (2000 random points: up to 4e-8 on |m| against this amplitude, below
// 4e-12 against the largest), so amplitudes are compared on that scale.
TEST(GluonAmplitudeHost, ParkeTaylor) {
  const std::uint64_t seed = tessera::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  using C = Kokkos::complex<double>;
  for (int n = 5; n <= 8; ++n) {
    for (int trial = 0; trial < 5; ++trial) {
      V4 k[max_gluons];
      random_point(n, seed, std::uint64_t(n * 100 + trial), 500.0, k);
      EventRng rng(seed ^ 0x55, std::uint64_t(n * 100 + trial));
      const int i = int(rng.uniform<double>() * n) % n;
      int j = int(rng.uniform<double>() * (n - 1)) % (n - 1);
      if (j >= i) ++j;
      int ord[max_gluons];
      for (int a = 0; a < n; ++a) ord[a] = a;
      BergsScratch<C, double> s;
      Vec4<C> eps[max_gluons];
      // Physical helicity h of an outgoing leg is h; of a negative-energy leg -h.
      auto set = [&](int a, int h) { eps[a] = helicity_polarisation(k[a], k[a][0] > 0 ? h : -h); };
      for (int a = 0; a < n; ++a) set(a, (a == i || a == j) ? -1 : +1);
      const double amp = Kokkos::abs(bg_amplitude<C, double>(n, ord, k, eps, s));
      double den = 1;
      for (int a = 0; a < n; ++a) den *= std::abs(sij(k, a, (a + 1) % n));
      double s4max = 0;
      for (int a = 0; a < n; ++a)
        for (int b = a + 1; b < n; ++b) s4max = std::max(s4max, std::pow(sij(k, a, b), 4));
      const double ref = std::sqrt(std::pow(2.0, n - 2) * std::pow(sij(k, i, j), 4) / den);
      const double scale = std::sqrt(std::pow(2.0, n - 2) * s4max / den);
      EXPECT_NEAR(amp / scale, ref / scale, 1e-9) << "n = " << n << " minus legs " << i << ", " << j
                                                   << ", |m| / ref - 1 = " << amp / ref - 1;
      // All plus and a single minus vanish (amplitude ratio 1e-8: rounding only).
      for (int a = 0; a < n; ++a) set(a, +1);
      const double zero_all = Kokkos::abs(bg_amplitude<C, double>(n, ord, k, eps, s));
      set(i, -1);
      const double zero_one = Kokkos::abs(bg_amplitude<C, double>(n, ord, k, eps, s));
      EXPECT_LT(zero_all / scale, 1e-8) << "n = " << n;
      EXPECT_LT(zero_one / scale, 1e-8) << "n = " << n;
    }
  }
}

// Colour-ordered identities with random real polarisations, n = 4..14:
// cyclicity, reflection A(n..1) = (-1)^n A(1..n), U(1) decoupling
// sum over the insertions of leg 0 into (1..n-1) = 0.
TEST(GluonAmplitudeHost, DecouplingReflectionCyclicity) {
  const std::uint64_t seed = tessera::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (int n = 4; n <= max_gluons; ++n) {
    V4 k[max_gluons], eps[max_gluons];
    random_point(n, seed, std::uint64_t(n), 1000.0, k);
    EventRng rng(seed ^ 0x77, std::uint64_t(n));
    for (int a = 0; a < n; ++a) eps[a] = linear_polarisation(k[a], 6.283185307179586 * rng.uniform<double>());
    BergsScratch<double, double> s;
    int ord[max_gluons], rev[max_gluons], cyc[max_gluons];
    for (int a = 0; a < n; ++a) {
      ord[a] = a;
      rev[a] = n - 1 - a;
      cyc[a] = (a + 1) % n;
    }
    const double A = bg_amplitude<double, double>(n, ord, k, eps, s);
    const double Ar = bg_amplitude<double, double>(n, rev, k, eps, s);
    const double Ac = bg_amplitude<double, double>(n, cyc, k, eps, s);
    EXPECT_NEAR(Ar / A, (n % 2) ? -1.0 : 1.0, 1e-9) << "reflection, n = " << n;
    EXPECT_NEAR(Ac / A, 1.0, 1e-9) << "cyclicity, n = " << n;
    // Decoupling: leg 0 inserted at every position of the cycle (1, ..., n-1).
    double sum = 0, scale = 0;
    for (int pos = 0; pos < n - 1; ++pos) {
      int o[max_gluons];
      int c = 0;
      for (int a = 1; a < n; ++a) {
        o[c++] = a;
        if (a - 1 == pos) o[c++] = 0;
      }
      const double Ai = bg_amplitude<double, double>(n, o, k, eps, s);
      sum += Ai;
      scale = std::max(scale, std::abs(Ai));
    }
    EXPECT_LT(std::abs(sum) / scale, 1e-9) << "U(1) decoupling, n = " << n;
  }
}

// The lanes' parts of a vertex sum (zigzag split of the i loops) add up to
// the whole sum, for every current of a random point and 2, 3, 4, 8 lanes:
// each term is taken by exactly one lane (double, 1e-10 of the largest component).
TEST(GluonAmplitudeHost, LaneSplitCoversEveryTerm) {
  const std::uint64_t seed = tessera::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (int n : {4, 7, 12, max_gluons}) {
    Vec4<double> k[max_gluons], eps[max_gluons];
    random_point<double>(n, seed, std::uint64_t(n), 1.0, k);
    EventRng rng(seed ^ 0x77, std::uint64_t(n));
    int ord[max_gluons];
    random_ordering<double>(n, rng, ord);
    for (int a = 0; a < n; ++a) eps[a] = linear_polarisation(k[a], 6.283185307179586 * rng.uniform<double>());
    BergsScratch<double, double> s;
    bg_amplitude<double, double>(n, ord, k, eps, s);  // fills the currents
    const int nl = n - 1;
    for (int lanes : {2, 3, 4, 8})
      for (int len = 2; len <= nl; ++len)
        for (int a = 0; a + len <= nl; ++a) {
          const int b = a + len - 1;
          const Vec4<double> whole = bg_vertices(s.J, s.P, nl, a, b);
          Vec4<double> parts = zero4<double>();
          for (int v = 0; v < lanes; ++v) parts = add(parts, bg_vertices(s.J, s.P, nl, a, b, v, lanes));
          double scale = 0;
          for (int mu = 0; mu < 4; ++mu) scale = std::max(scale, std::abs(whole[mu]));
          for (int mu = 0; mu < 4; ++mu)
            ASSERT_NEAR(parts[mu], whole[mu], 1e-10 * scale)
                << "n = " << n << ", lanes " << lanes << ", current [" << a << ".." << b << "], mu " << mu;
        }
  }
}

// Gauge invariance: eps_0 -> k_0/E_0 makes m vanish. |m'|/|m| over random
// points: double median < 1e-13, 99th percentile < 1e-10; float median < 1e-4.
template <class T>
std::vector<double> gauge_ratios(int n, std::uint64_t seed, int npts) {
  std::vector<double> r;
  for (int p = 0; p < npts; ++p) {
    Vec4<T> k[max_gluons], eps[max_gluons];
    random_point<T>(n, seed, std::uint64_t(n * 1000 + p), T(1), k);
    EventRng rng(seed ^ 0x99, std::uint64_t(n * 1000 + p));
    int ord[max_gluons];
    random_ordering<T>(n, rng, ord);
    for (int a = 0; a < n; ++a) eps[a] = linear_polarisation(k[a], T(6.283185307179586) * rng.uniform<T>());
    BergsScratch<T, T> s;
    const GaugeCheck<T> g = gauge_check<T>(n, ord, k, eps, s);
    const double m = g.m, mg = g.m_gauge;
    if (m != 0) r.push_back(std::abs(mg / m));
  }
  std::sort(r.begin(), r.end());
  return r;
}

TEST(GluonAmplitudeHost, GaugeInvariance) {
  const std::uint64_t seed = tessera::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (int n = 4; n <= max_gluons; ++n) {
    const auto d = gauge_ratios<double>(n, seed, 200);
    ASSERT_GT(d.size(), 150u);
    EXPECT_LT(d[d.size() / 2], 1e-13) << "double median, n = " << n;
    EXPECT_LT(d[d.size() * 99 / 100], 1e-10) << "double 99th percentile, n = " << n;
    const auto f = gauge_ratios<float>(n, seed, 200);
    EXPECT_LT(f[f.size() / 2], 1e-4) << "float median, n = " << n;
  }
}

// The run's gauge profile (events of the stream, not random points): every
// sampled event lands in the histogram or the outside count, the profile's
// bins hold every event, and the cancellation is as deep as above.
TEST(GluonAmplitudeHost, GaugeProfileOfRunEvents) {
  const std::uint64_t seed = tessera::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const auto pdf = make_pdf_grid<double, Kokkos::HostSpace>(toy_gluon_set());
  const auto pdf_f = make_pdf_grid<float, Kokkos::HostSpace>(toy_gluon_set());
  const GaugeProfile d = gauge_profile(preset<double>("table3", 7), pdf, seed, 100, 300);
  const GaugeProfile f = gauge_profile(preset<float>("table3", 7), pdf_f, seed, 100, 300);
  for (const GaugeProfile* p : {&d, &f}) {
    ASSERT_GT(p->sampled, 250u);
    double in = 0, prof = 0;
    for (double c : p->ratio_count) in += c;
    for (double c : p->weight_count) prof += c;
    EXPECT_EQ(in + p->ratio_outside, double(p->sampled));
    EXPECT_EQ(prof, double(p->sampled));
    for (std::size_t b = 0; b < p->mean_ratio2.size(); ++b)
      if (p->weight_count[b] > 0) EXPECT_GE(p->mean_ratio2[b], 0.0);
  }
  EXPECT_LT(d.median_log10, -13);
  EXPECT_LT(d.p99_log10, -10);
  EXPECT_LT(f.median_log10, -4);
  EXPECT_GT(f.median_log10, d.median_log10);
}

// The mean of |m|^2 over random polarisation angles is 2^-n times the exact
// linear-polarisation sum (within 5 standard errors).
TEST(GluonAmplitudeHost, RandomPolarisationMean) {
  const std::uint64_t seed = tessera::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const int n = 6;
  V4 k[max_gluons], e1[max_gluons], e2[max_gluons], eps[max_gluons];
  random_point(n, seed, 7, 300.0, k);
  int ord[max_gluons];
  for (int a = 0; a < n; ++a) {
    ord[a] = a;
    pol_basis(k[a], e1[a], e2[a]);
  }
  BergsScratch<double, double> s;
  double exact = 0;
  for (int mask = 0; mask < (1 << n); ++mask) {
    for (int a = 0; a < n; ++a) eps[a] = (mask >> a & 1) ? e2[a] : e1[a];
    const double m = bg_amplitude<double, double>(n, ord, k, eps, s);
    exact += m * m;
  }
  exact /= (1 << n);
  const int N = 20000;
  double sum = 0, sum2 = 0;
  EventRng rng(seed, 12345);
  for (int i = 0; i < N; ++i) {
    for (int a = 0; a < n; ++a) eps[a] = linear_polarisation(k[a], 6.283185307179586 * rng.uniform<double>());
    const double m = bg_amplitude<double, double>(n, ord, k, eps, s);
    sum += m * m;
    sum2 += m * m * m * m;
  }
  const double mean = sum / N, err = std::sqrt((sum2 / N - mean * mean) / (N - 1));
  EXPECT_LT(std::abs(mean - exact), 5 * err) << "mean " << mean << " exact " << exact;
  EXPECT_GT(err, 0.0);
}

// RAMBO on the backend: momentum conservation and masslessness.
TYPED_TEST(GluonAmplitude, RamboConservation) {
  using E = TypeParam;
  const std::uint64_t seed = tessera::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const int npts = 256;
  const auto h = rambo_check_on<E>(seed, npts);
  // RAMBO's boost amplifies rounding when the random momenta's invariant mass
  // is small (38,400 points: median 2e-16, worst 1.4e-12 of the energy), so
  // the median must be at rounding level and no point may pass 1e-10.
  std::vector<double> imbalance;
  for (int p = 0; p < npts; ++p) {
    imbalance.push_back(std::sqrt(h[2 * p]) / 1000.0);
    EXPECT_LT(imbalance.back(), 1e-10) << p;
    EXPECT_LT(h[2 * p + 1], 1e-10) << p;  // m^2/E^2: a soft momentum after the boost keeps fewer digits
  }
  std::sort(imbalance.begin(), imbalance.end());
  EXPECT_LT(imbalance[npts / 2], 1e-14);
}

// The flat RAMBO weight against the analytic two- and three-body volumes,
// 1/(8 pi) and s/(256 pi^3).
TEST(GluonAmplitudeHost, RamboVolume) {
  const double pi = 3.14159265358979323846;
  EXPECT_NEAR(rambo_volume(2, 123.0) * 8 * pi, 1.0, 1e-14);
  EXPECT_NEAR(rambo_volume(3, 123.0) * 256 * pi * pi * pi / 123.0, 1.0, 1e-14);
  // Recursive factorisation: Phi_n(s) = int ds' /(2 pi) Phi_2(s; s', 0) Phi_{n-1}(s'), checked numerically
  // for n = 4 (s' from 0 to s, two-body with one massive leg: (1 - s'/s) / (8 pi)).
  const double s = 1.0;
  double integral = 0;
  const int N = 200000;
  for (int i = 0; i < N; ++i) {
    const double sp = (i + 0.5) / N * s;
    integral += (1 - sp / s) / (8 * pi) * rambo_volume(3, sp) / (2 * pi) * (s / N);
  }
  EXPECT_NEAR(integral / rambo_volume(4, s), 1.0, 1e-8);
}

}  // namespace
