// Native CUDA Himeno sweeps against a plain double loop of the benchmark's
// listing, on random coefficient fields (not only the benchmark's constants).
#include "tessera/core/random.hpp"
#include "tessera/himeno/himeno_native_cuda.hpp"

#include "exec_spaces.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace {

using tessera::native_cuda::HimenoFields;
using tessera::native_cuda::HimenoKernel;

template <class T>
struct Grid {
  int ni, nj, nk;
  long long n() const { return (long long)ni * nj * nk; }
  std::vector<std::vector<T>> host;  // a0..a3 b0..b2 c0..c2 wrk1 bnd p
  std::vector<Kokkos::View<T*, Kokkos::CudaSpace>> dev;
  Kokkos::View<T*, Kokkos::CudaSpace> wrk2;
};

enum { A0, A1, A2, A3, B0, B1, B2, C0, C1, C2, WRK1, BND, P, NFIELDS };

template <class T>
Grid<T> random_grid(int ni, int nj, int nk, std::uint64_t seed) {
  Grid<T> g{ni, nj, nk, {}, {}, {}};
  for (int f = 0; f < NFIELDS; ++f) {
    std::vector<T> h(g.n());
    for (long long x = 0; x < g.n(); ++x) {
      double v = tessera::random_uniform(seed + f, x, -1.0, 1.0);
      if (f == A3) v = 1.0 / 6.0 + 0.05 * v;
      if (f == BND) v = v < -0.8 ? 0.0 : 1.0;  // some fixed points, as boundaries are
      h[x] = T(v);
    }
    Kokkos::View<T*, Kokkos::CudaSpace> d("field", g.n());
    Kokkos::deep_copy(d, Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                             h.data(), h.size()));
    g.host.push_back(std::move(h));
    g.dev.push_back(d);
  }
  g.wrk2 = Kokkos::View<T*, Kokkos::CudaSpace>("wrk2", g.n());
  return g;
}

template <class T>
HimenoFields<T> fields(const Grid<T>& g) {
  auto d = [&](int f) { return static_cast<const T*>(g.dev[f].data()); };
  return {d(A0), d(A1), d(A2), d(A3), d(B0), d(B1), d(B2), d(C0), d(C1), d(C2), d(WRK1), d(BND), d(P),
          g.wrk2.data(), (long long)g.nj * g.nk, g.nk, g.ni, g.nj, g.nk};
}

// The benchmark's listing in double on pressure p: wrk2 on the interior (NaN
// elsewhere), returns gosa.
template <class T, class PT>
double reference(const Grid<T>& g, const std::vector<PT>& p, double omega, std::vector<double>& wrk2) {
  wrk2.assign(g.n(), std::numeric_limits<double>::quiet_NaN());
  const auto& h = g.host;
  auto P_ = [&](int i, int j, int k) { return double(p[((long long)i * g.nj + j) * g.nk + k]); };
  double gosa = 0;
  for (int i = 1; i < g.ni - 1; ++i)
    for (int j = 1; j < g.nj - 1; ++j)
      for (int k = 1; k < g.nk - 1; ++k) {
        const long long c = ((long long)i * g.nj + j) * g.nk + k;
        auto F = [&](int f) { return double(h[f][c]); };
        const double s0 = F(A0) * P_(i + 1, j, k) + F(A1) * P_(i, j + 1, k) + F(A2) * P_(i, j, k + 1) +
                          F(B0) * (P_(i + 1, j + 1, k) - P_(i + 1, j - 1, k) - P_(i - 1, j + 1, k) + P_(i - 1, j - 1, k)) +
                          F(B1) * (P_(i, j + 1, k + 1) - P_(i, j - 1, k + 1) - P_(i, j + 1, k - 1) + P_(i, j - 1, k - 1)) +
                          F(B2) * (P_(i + 1, j, k + 1) - P_(i - 1, j, k + 1) - P_(i + 1, j, k - 1) + P_(i - 1, j, k - 1)) +
                          F(C0) * P_(i - 1, j, k) + F(C1) * P_(i, j - 1, k) + F(C2) * P_(i, j, k - 1) + F(WRK1);
        const double ss = (s0 * F(A3) - P_(i, j, k)) * F(BND);
        gosa += ss * ss;
        wrk2[c] = P_(i, j, k) + omega * ss;
      }
  return gosa;
}

template <class T>
double reference(const Grid<T>& g, double omega, std::vector<double>& wrk2) {
  return reference(g, g.host[P], omega, wrk2);
}

template <class T>
void check_sweep(int ni, int nj, int nk, HimenoKernel kernel) {
  const auto seed = tessera::test::fresh_seed();
  SCOPED_TRACE(std::to_string(ni) + "x" + std::to_string(nj) + "x" + std::to_string(nk) + " seed " +
               std::to_string(seed) + " kernel " + std::to_string(int(kernel)));
  auto g = random_grid<T>(ni, nj, nk, seed);
  const T omega = T(0.8);
  std::vector<double> ref;
  const double gosa_ref = reference(g, double(omega), ref);
  Kokkos::deep_copy(g.wrk2, std::numeric_limits<T>::quiet_NaN());
  Kokkos::Cuda exec;
  const double gosa = tessera::native_cuda::himeno_sweep(exec.cuda_stream(), fields(g), omega, kernel);
  auto w = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.wrk2);
  // Terms are O(1) with up to 19 products: a few ulp of T per term.
  const double tol = 64 * std::numeric_limits<T>::epsilon();
  double err = 0;
  long long untouched_boundary = 0, boundary = 0;
  for (long long c = 0; c < g.n(); ++c) {
    if (std::isnan(ref[c])) {  // boundary: never written
      ++boundary;
      untouched_boundary += std::isnan(double(w(c)));
    } else {
      err = std::max(err, std::abs(double(w(c)) - ref[c]));
      if (std::isnan(double(w(c)))) err = INFINITY;
    }
  }
  EXPECT_LE(err, tol);
  EXPECT_EQ(untouched_boundary, boundary);
  // gosa: the points' own error, plus the reference's: a sequential double
  // sum of n terms (~sqrt(n) ulp in practice; 3.4 M points drifted 6e-14 of
  // the sum from the kernel's tree order). One point missed shifts it by
  // ~1/n, far more.
  const double sum_tol = 4 * tol + 16 * std::sqrt(double(g.n())) * std::numeric_limits<double>::epsilon();
  EXPECT_NEAR(gosa, gosa_ref, sum_tol * gosa_ref + 1e-300);
}

TEST(HimenoNative, SweepsMatchTheListingOnRandomFields) {
  for (auto kernel : {HimenoKernel::naive, HimenoKernel::march, HimenoKernel::aligned, HimenoKernel::vector}) {
    check_sweep<double>(9, 10, 11, kernel);
    check_sweep<double>(17, 13, 40, kernel);
    check_sweep<double>(33, 33, 65, kernel);
    check_sweep<float>(9, 10, 11, kernel);
    check_sweep<float>(17, 13, 40, kernel);
    check_sweep<float>(20, 37, 3, kernel);
  }
  // More than 16 k blocks: partials summed in two passes.
  check_sweep<double>(2050, 42, 40, HimenoKernel::aligned);
}

// The vector kernel runs where rows are whole 16-byte vectors (k extents a
// multiple of 4): rows shorter than a warp, a warp's edges fetched from
// memory (several warps a row), a last warp with one vector.
TEST(HimenoNative, VectorSweepOnWholeVectorRows) {
  for (int nk : {4, 8, 132, 260}) {
    check_sweep<double>(7, 11, nk, HimenoKernel::vector);
    check_sweep<float>(7, 11, nk, HimenoKernel::vector);
  }
  check_sweep<float>(13, 19, 516, HimenoKernel::vector);
  // Blocks in chunks of j-tiles (9 tiles of 8 rows for 516 doubles a row),
  // the last chunk partial.
  check_sweep<double>(5, 90, 516, HimenoKernel::vector);
}

TEST(HimenoNative, AsyncSweepsLeaveTheGosaHistoryOnTheDevice) {
  auto g = random_grid<double>(12, 11, 35, tessera::test::fresh_seed());
  std::vector<double> ref;
  const double gosa_ref = reference(g, 0.8, ref);
  Kokkos::View<double*, Kokkos::CudaSpace> history("gosa", 3);
  Kokkos::Cuda exec;
  for (int it = 0; it < 3; ++it)
    tessera::native_cuda::himeno_sweep_async(exec.cuda_stream(), fields(g), 0.8, HimenoKernel::march,
                                             history.data() + it);
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), history);
  for (int it = 0; it < 3; ++it) EXPECT_NEAR(h(it), gosa_ref, 1e-12 * gosa_ref);  // p unchanged: same gosa
}

// Two fused sweeps equal two plain sweeps (to rounding), both gosas included,
// across tile and segment edges (interior 68 planes: two i segments).
using tessera::native_cuda::Fused2Schedule;
template <class T>
void check_fused2(int ni, int nj, int nk, Fused2Schedule schedule = Fused2Schedule::automatic) {
  const auto seed = tessera::test::fresh_seed();
  SCOPED_TRACE(std::to_string(ni) + "x" + std::to_string(nj) + "x" + std::to_string(nk) + " schedule " +
               std::to_string(int(schedule)) + " seed " + std::to_string(seed));
  auto g = random_grid<T>(ni, nj, nk, seed);
  std::vector<double> w1, w2;
  const double g1 = reference(g, 0.8, w1);
  for (long long c = 0; c < g.n(); ++c)
    if (std::isnan(w1[c])) w1[c] = double(g.host[P][c]);  // p1 = p on the boundary
  const double g2 = reference(g, w1, 0.8, w2);
  Kokkos::deep_copy(g.wrk2, std::numeric_limits<T>::quiet_NaN());
  Kokkos::View<double*, Kokkos::CudaSpace> gosa("gosa", 2);
  Kokkos::Cuda exec;
  tessera::native_cuda::himeno_sweeps_fused2_async(exec.cuda_stream(), fields(g), T(0.8), gosa.data(), schedule);
  auto w = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), g.wrk2);
  auto hg = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), gosa);
  const double tol = 256 * std::numeric_limits<T>::epsilon();
  double err = 0;
  long long wrong_boundary = 0;
  for (long long c = 0; c < g.n(); ++c) {
    if (std::isnan(w2[c])) wrong_boundary += !std::isnan(double(w(c)));
    else err = std::max(err, std::isnan(double(w(c))) ? INFINITY : std::abs(double(w(c)) - w2[c]));
  }
  EXPECT_LE(err, tol);
  EXPECT_EQ(wrong_boundary, 0);
  // gosa: a sum of ~n positive terms in double, in another order than the
  // reference's (grids of 10^6 points differ by ~1e-13 relative in double).
  const double n = double(ni - 2) * (nj - 2) * (nk - 2);
  const double gtol = std::max(tol, n * std::numeric_limits<double>::epsilon());
  EXPECT_NEAR(hg(0), g1, gtol * g1);
  EXPECT_NEAR(hg(1), g2, gtol * g2);
}

TEST(HimenoNative, FusedTwoSweepsEqualTwoSweeps) {
  check_fused2<double>(70, 33, 65);
  check_fused2<double>(5, 4, 3);
  check_fused2<float>(70, 33, 65);   // odd nk: the one-point kernel
  check_fused2<float>(131, 17, 31);
  check_fused2<float>(70, 33, 130);  // even nk: two k points per thread, a partial last k tile
  check_fused2<float>(9, 20, 64);    // one whole k tile (62 outputs)
  check_fused2<float>(131, 17, 190);
  check_fused2<float>(5, 4, 4);
}

// The persistent kernel in waves, which the library picks only for grids of
// many waves (XL): forced here on grids of several waves of blocks on an
// H100 (100 x 130 x 260: 630 tile-segments in double on 132 SMs), twice in a
// row (its wave counter goes back to zero), and on a grid of one partial wave.
TEST(HimenoNative, FusedTwoSweepsInWavesEqualTwoSweeps) {
  for (int run = 0; run < 2; ++run) {
    check_fused2<double>(100, 130, 260, Fused2Schedule::waves);
    check_fused2<float>(100, 130, 260, Fused2Schedule::waves);  // two k points per thread
    check_fused2<float>(100, 130, 259, Fused2Schedule::waves);  // one point per thread
  }
  check_fused2<double>(70, 33, 65, Fused2Schedule::waves);
  check_fused2<float>(70, 33, 130, Fused2Schedule::tiles);
}

}  // namespace
