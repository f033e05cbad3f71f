// Cubic B-spline upscaling against an independent reference (the mirror
// interpolation condition solved as a dense linear system in double, then
// sum_kl c_kl beta3(x - k) beta3(y - l) evaluated directly), plus its
// defining properties: interpolation at the samples (corner alignment,
// borders included), cubic polynomials reproduced away from the borders,
// constants kept. Every built backend, public API and portable kernels.
#include "exec_spaces.hpp"
#include "tessera/core/random.hpp"
#include "tessera/video/bspline.hpp"

#include <cmath>
#include <cstdint>
#include <vector>

namespace {

using tessera::test::ExecSpaces;
using tessera::video::Alignment;

template <class ExecSpace>
class Bspline : public ::testing::Test {};
TYPED_TEST_SUITE(Bspline, ExecSpaces);

struct PublicApi {
  template <class E, class In, class C, class Out>
  static void run(const E& e, const In& in, const C& c, const Out& out, int u, Alignment a) {
    tessera::video::bspline_upscale(e, in, c, out, u, a);
  }
};
struct Portable {
  template <class E, class In, class C, class Out>
  static void run(const E& e, const In& in, const C& c, const Out& out, int u, Alignment a) {
    tessera::video::impl::bspline_prefilter_kokkos(e, in, c);
    tessera::video::impl::bspline_interpolate_kokkos(e, c, out, tessera::video::make_bspline_phases(u, a));
  }
};

// Runs the upscaler on a host plane and returns the output plane (row-major).
template <class E, class Api, class TIn, class TOut>
std::vector<TOut> upscale(const std::vector<TIn>& host, int h, int w, int u, Alignment a) {
  using M = typename E::memory_space;
  Kokkos::View<TIn**, Kokkos::LayoutRight, M> in("in", h, w);
  auto hin = Kokkos::create_mirror_view(in);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) hin(y, x) = host[std::size_t(y) * w + x];
  Kokkos::deep_copy(in, hin);
  Kokkos::View<float**, Kokkos::LayoutRight, M> coef("coef", h, w);
  Kokkos::View<TOut**, Kokkos::LayoutRight, M> out("out", h * u, w * u);
  Api::run(E(), in, coef, out, u, a);
  auto hout = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  std::vector<TOut> r(std::size_t(h) * u * w * u);
  for (int y = 0; y < h * u; ++y)
    for (int x = 0; x < w * u; ++x) r[std::size_t(y) * w * u + x] = hout(y, x);
  return r;
}

double beta3(double t) {
  t = std::fabs(t);
  return t < 1 ? (4 - 6 * t * t + 3 * t * t * t) / 6 : t < 2 ? (2 - t) * (2 - t) * (2 - t) / 6 : 0.0;
}
int mirror(int k, int n) {
  if (n == 1) return 0;
  while (k < 0 || k >= n) k = k < 0 ? -k : 2 * (n - 1) - k;
  return k;
}

// Coefficients c with s[k] = sum_j c[mirror(j)] beta3(k - j): dense Gauss elimination.
std::vector<double> solve_line(const std::vector<double>& s) {
  const int n = int(s.size());
  std::vector<double> a(std::size_t(n) * n, 0.0), b = s;
  for (int k = 0; k < n; ++k)
    for (int j = k - 1; j <= k + 1; ++j) a[std::size_t(k) * n + mirror(j, n)] += beta3(k - j);
  for (int p = 0; p < n; ++p)
    for (int r = p + 1; r < n; ++r) {
      const double f = a[std::size_t(r) * n + p] / a[std::size_t(p) * n + p];
      for (int c = p; c < n; ++c) a[std::size_t(r) * n + c] -= f * a[std::size_t(p) * n + c];
      b[r] -= f * b[p];
    }
  std::vector<double> x(n);
  for (int r = n - 1; r >= 0; --r) {
    double v = b[r];
    for (int c = r + 1; c < n; ++c) v -= a[std::size_t(r) * n + c] * x[c];
    x[r] = v / a[std::size_t(r) * n + r];
  }
  return x;
}

std::vector<double> reference(const std::vector<double>& img, int h, int w, int u, Alignment a) {
  std::vector<double> c(img);
  for (int y = 0; y < h; ++y) {
    auto r = solve_line(std::vector<double>(c.begin() + std::size_t(y) * w, c.begin() + std::size_t(y + 1) * w));
    std::copy(r.begin(), r.end(), c.begin() + std::size_t(y) * w);
  }
  for (int x = 0; x < w; ++x) {
    std::vector<double> col(h);
    for (int y = 0; y < h; ++y) col[y] = c[std::size_t(y) * w + x];
    col = solve_line(col);
    for (int y = 0; y < h; ++y) c[std::size_t(y) * w + x] = col[y];
  }
  std::vector<double> out(std::size_t(h) * u * w * u);
  auto pos = [&](int X) { return a == Alignment::centre ? (X + 0.5) / u - 0.5 : double(X) / u; };
  for (int Y = 0; Y < h * u; ++Y)
    for (int X = 0; X < w * u; ++X) {
      const double x = pos(X), y = pos(Y);
      double s = 0;
      for (int l = int(std::floor(y)) - 2; l <= int(std::floor(y)) + 3; ++l)
        for (int k = int(std::floor(x)) - 2; k <= int(std::floor(x)) + 3; ++k)
          s += c[std::size_t(mirror(l, h)) * w + mirror(k, w)] * beta3(x - k) * beta3(y - l);
      out[std::size_t(Y) * w * u + X] = s;
    }
  return out;
}

template <class E, class Api>
void check_reference(std::uint64_t seed) {
  SCOPED_TRACE("seed " + std::to_string(seed));
  // 45 x 50: lines past the mirror sum's truncation (42) and not whole chunks.
  for (auto [h, w, u] : {std::tuple{9, 13, 3}, std::tuple{5, 2, 4}, std::tuple{1, 6, 2}, std::tuple{7, 7, 7},
                         std::tuple{45, 50, 2}}) {
    for (Alignment a : {Alignment::centre, Alignment::corner}) {
      SCOPED_TRACE(std::to_string(h) + "x" + std::to_string(w) + " u=" + std::to_string(u) +
                   (a == Alignment::centre ? " centre" : " corner"));
      std::vector<std::uint8_t> img(std::size_t(h) * w);
      std::vector<double> dimg(img.size());
      for (std::size_t i = 0; i < img.size(); ++i) {
        img[i] = std::uint8_t(tessera::random_uniform(seed, i, 0, 256));
        dimg[i] = img[i];
      }
      const auto ref = reference(dimg, h, w, u, a);
      const auto f = upscale<E, Api, std::uint8_t, float>(img, h, w, u, a);
      const auto b = upscale<E, Api, std::uint8_t, std::uint8_t>(img, h, w, u, a);
      for (std::size_t i = 0; i < ref.size(); ++i) {
        ASSERT_NEAR(f[i], ref[i], 2e-3) << "pixel " << i;
        const double r = std::min(255.0, std::max(0.0, std::floor(ref[i] + 0.5)));
        const double d = ref[i] + 0.5 - std::floor(ref[i] + 0.5);  // near a rounding tie: either neighbour
        ASSERT_LE(std::fabs(double(b[i]) - r), (d < 1e-3 || d > 1 - 1e-3) ? 1.0 : 0.0)
            << "pixel " << i << " ref " << ref[i];
      }
    }
  }
}

TYPED_TEST(Bspline, MatchesIndependentReference) {
  const auto seed = tessera::test::fresh_seed();
  check_reference<TypeParam, PublicApi>(seed);
  check_reference<TypeParam, Portable>(seed);
}

TYPED_TEST(Bspline, InterpolatesAtSamplesIncludingBorders) {
  const auto seed = tessera::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  // Short lines (the mirror sum's far terms count), and a plane too large for
  // one block's shared memory on any GPU (the native prefilter hands it to the
  // portable kernels) with lines past the mirror sum's truncation.
  for (auto [h, w, u] : {std::tuple{23, 31, 5}, std::tuple{251, 243, 2}}) {
    SCOPED_TRACE(std::to_string(h) + "x" + std::to_string(w));
    std::vector<float> img(std::size_t(h) * w);
    for (std::size_t i = 0; i < img.size(); ++i) img[i] = float(tessera::random_uniform(seed, i, -50, 300));
    const auto out = upscale<TypeParam, PublicApi, float, float>(img, h, w, u, Alignment::corner);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        ASSERT_NEAR(out[std::size_t(y * u) * w * u + x * u], img[std::size_t(y) * w + x], 2e-3) << y << "," << x;
  }
}

TYPED_TEST(Bspline, ReproducesCubicsAwayFromBorders) {
  const auto seed = tessera::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const int h = 40, w = 48, u = 4;
  double c[8];
  for (int i = 0; i < 8; ++i) c[i] = tessera::random_uniform(seed, i, -1, 1);
  auto f = [&](double x, double y) {
    x /= 10;
    y /= 10;
    return 100 * (c[0] + c[1] * x + c[2] * x * x + c[3] * x * x * x) * (c[4] + c[5] * y + c[6] * y * y + c[7] * y * y * y);
  };
  std::vector<float> img(std::size_t(h) * w);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) img[std::size_t(y) * w + x] = float(f(x, y));
  const auto out = upscale<TypeParam, PublicApi, float, float>(img, h, w, u, Alignment::centre);
  double scale = 0;
  for (float v : img) scale = std::max(scale, double(std::fabs(v)));
  for (int Y = 16 * u; Y < (h - 16) * u; ++Y)
    for (int X = 16 * u; X < (w - 16) * u; ++X)
      ASSERT_NEAR(out[std::size_t(Y) * w * u + X], f((X + 0.5) / u - 0.5, (Y + 0.5) / u - 0.5), 1e-5 * scale + 1e-4)
          << Y << "," << X;
}

TYPED_TEST(Bspline, ConstantStaysConstant) {
  for (Alignment a : {Alignment::centre, Alignment::corner}) {
    const std::vector<std::uint8_t> img(17 * 11, 77);
    const auto out = upscale<TypeParam, PublicApi, std::uint8_t, std::uint8_t>(img, 17, 11, 7, a);
    for (auto v : out) ASSERT_EQ(v, 77);
    const std::vector<std::uint8_t> white(6 * 5, 255);
    for (auto v : upscale<TypeParam, Portable, std::uint8_t, std::uint8_t>(white, 6, 5, 3, a)) ASSERT_EQ(v, 255);
  }
}

TYPED_TEST(Bspline, RejectsBadArguments) {
  using M = typename TypeParam::memory_space;
  Kokkos::View<float**, Kokkos::LayoutRight, M> in("in", 4, 5), coef("c", 4, 5), out("o", 12, 15), bad("b", 12, 14);
  EXPECT_THROW(tessera::video::bspline_upscale(TypeParam(), in, coef, bad, 3), std::invalid_argument);
  EXPECT_THROW(tessera::video::bspline_upscale(TypeParam(), in, coef, out, 0), std::invalid_argument);
  EXPECT_THROW(tessera::video::bspline_upscale(TypeParam(), in, coef, out, 17), std::invalid_argument);
  Kokkos::View<float**, Kokkos::LayoutRight, M> coef2("c2", 4, 6);
  EXPECT_THROW(tessera::video::bspline_prefilter(TypeParam(), in, coef2), std::invalid_argument);
  EXPECT_NO_THROW(tessera::video::bspline_upscale(TypeParam(), in, coef, out, 3));
}

}  // namespace
