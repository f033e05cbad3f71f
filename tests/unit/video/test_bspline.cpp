// Cubic B-spline upscaling against an independent reference (the mirror
// interpolation condition solved as a dense linear system in double, then
// sum_kl c_kl beta3(x - k) beta3(y - l) evaluated directly), plus its
// defining properties: interpolation at the samples (corner alignment,
// borders included), cubic polynomials reproduced away from the borders,
// constants kept. Every built backend: bspline_upscale (the fused native
// kernel on Cuda), the prefilter and evaluation called apart (the native IIR
// kernels on Cuda), the portable kernels, and the frame call. The truncated
// FIR of the fused kernel is checked against the exact prefilter on the host;
// on a GPU the fused kernel is also called directly.
#include "exec_spaces.hpp"
#include "tessera/core/random.hpp"
#include "tessera/video/bspline.hpp"
#if TESSERA_HAS_CUDA_NATIVE
#include "tessera/video/bspline_native_cuda.hpp"
#endif

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

using tessera::test::ExecSpaces;
using tessera::video::Alignment;

template <class ExecSpace>
class Bspline : public ::testing::Test {};
TYPED_TEST_SUITE(Bspline, ExecSpaces);

// bspline_upscale: the fused native kernel on Cuda.
struct PublicApi {
  template <class E, class In, class C, class Out>
  static void run(const E& e, const In& in, const C& c, const Out& out, int u, Alignment a) {
    tessera::video::bspline_upscale(e, in, c, out, u, a);
  }
};
// The two public stages: the native IIR prefilter and evaluation on Cuda.
struct TwoStage {
  template <class E, class In, class C, class Out>
  static void run(const E& e, const In& in, const C& c, const Out& out, int u, Alignment a) {
    tessera::video::bspline_prefilter(e, in, c);
    tessera::video::bspline_interpolate(e, c, out, u, a);
  }
};
// The frame call with a single plane.
struct FrameApi {
  template <class E, class In, class C, class Out>
  static void run(const E& e, const In& in, const C& c, const Out& out, int u, Alignment a) {
    tessera::video::bspline_upscale_planes(e, std::array<In, 1>{in}, std::array<C, 1>{c}, std::array<Out, 1>{out}, u,
                                           a);
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

// The exact B-spline coefficients of a plane (rows, then columns).
std::vector<double> coefficients(const std::vector<double>& img, int h, int w) {
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
  return c;
}

// sum_kl c_kl beta3(x - k) beta3(y - l) at every output pixel.
std::vector<double> evaluate(const std::vector<double>& c, int h, int w, int u, Alignment a) {
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

std::vector<double> reference(const std::vector<double>& img, int h, int w, int u, Alignment a) {
  return evaluate(coefficients(img, h, w), h, w, u, a);
}

// Float output within 2e-3 of the double reference; 8-bit output its rounding,
// either neighbour when the reference lies within 1e-3 of a tie.
template <class T>
void expect_matches(const std::vector<double>& ref, const std::vector<T>& got) {
  ASSERT_EQ(ref.size(), got.size());
  for (std::size_t i = 0; i < ref.size(); ++i) {
    if constexpr (std::is_same_v<T, float>) {
      ASSERT_NEAR(got[i], ref[i], 2e-3) << "pixel " << i;
    } else {
      const double r = std::min(255.0, std::max(0.0, std::floor(ref[i] + 0.5)));
      const double d = ref[i] + 0.5 - std::floor(ref[i] + 0.5);
      ASSERT_LE(std::fabs(double(got[i]) - r), (d < 1e-3 || d > 1 - 1e-3) ? 1.0 : 0.0)
          << "pixel " << i << " ref " << ref[i];
    }
  }
}

// Sizes for the reference checks: odd ones; 45 x 50 has lines past the IIR's
// mirror-sum truncation (42) and not whole chunks; planes of 1..3 samples a
// side, where the fused kernel's FIR folds the mirror extension many times;
// 13 x 11 x7 and 37 x 70 x1 span several of its output tiles, u = 1 and 16
// its largest and smallest windows.
const std::tuple<int, int, int> kReferenceSizes[] = {
    {9, 13, 3}, {5, 2, 4}, {1, 6, 2}, {7, 7, 7}, {45, 50, 2}, {1, 1, 3}, {2, 3, 5},
    {3, 2, 4},  {1, 2, 7}, {3, 1, 2}, {2, 2, 1}, {13, 11, 7}, {37, 70, 1}, {5, 9, 16}};

template <class E, class Api>
void check_reference(std::uint64_t seed) {
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (auto [h, w, u] : kReferenceSizes) {
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
      expect_matches(ref, upscale<E, Api, std::uint8_t, float>(img, h, w, u, a));
      expect_matches(ref, upscale<E, Api, std::uint8_t, std::uint8_t>(img, h, w, u, a));
    }
  }
}

TYPED_TEST(Bspline, MatchesIndependentReference) {
  const auto seed = tessera::test::fresh_seed();
  check_reference<TypeParam, PublicApi>(seed);
  check_reference<TypeParam, TwoStage>(seed);
  check_reference<TypeParam, Portable>(seed);
}

TYPED_TEST(Bspline, FrameCallMatchesIndependentReference) {
  check_reference<TypeParam, FrameApi>(tessera::test::fresh_seed());
}

TYPED_TEST(Bspline, InterpolatesAtSamplesIncludingBorders) {
  const auto seed = tessera::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  // Short lines (the mirror sum's far terms count; the FIR's window folds),
  // and a plane too large for one block's shared memory on any GPU (the
  // native IIR prefilter hands it to the portable kernels) with lines past
  // the mirror sum's truncation.
  for (auto [h, w, u] : {std::tuple{23, 31, 5}, std::tuple{251, 243, 2}, std::tuple{1, 1, 4}, std::tuple{2, 3, 3},
                         std::tuple{3, 2, 7}, std::tuple{1, 5, 2}}) {
    SCOPED_TRACE(std::to_string(h) + "x" + std::to_string(w));
    std::vector<float> img(std::size_t(h) * w);
    for (std::size_t i = 0; i < img.size(); ++i) img[i] = float(tessera::random_uniform(seed, i, -50, 300));
    for (int api = 0; api < 2; ++api) {
      SCOPED_TRACE(api == 0 ? "bspline_upscale" : "prefilter, interpolate");
      const auto out = api == 0 ? upscale<TypeParam, PublicApi, float, float>(img, h, w, u, Alignment::corner)
                                : upscale<TypeParam, TwoStage, float, float>(img, h, w, u, Alignment::corner);
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
          ASSERT_NEAR(out[std::size_t(y * u) * w * u + x * u], img[std::size_t(y) * w + x], 2e-3) << y << "," << x;
    }
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
  double scale = 0;
  for (float v : img) scale = std::max(scale, double(std::fabs(v)));
  for (int api = 0; api < 2; ++api) {
    SCOPED_TRACE(api == 0 ? "bspline_upscale" : "prefilter, interpolate");
    const auto out = api == 0 ? upscale<TypeParam, PublicApi, float, float>(img, h, w, u, Alignment::centre)
                              : upscale<TypeParam, TwoStage, float, float>(img, h, w, u, Alignment::centre);
    for (int Y = 16 * u; Y < (h - 16) * u; ++Y)
      for (int X = 16 * u; X < (w - 16) * u; ++X)
        ASSERT_NEAR(out[std::size_t(Y) * w * u + X], f((X + 0.5) / u - 0.5, (Y + 0.5) / u - 0.5),
                    1e-5 * scale + 1e-4)
            << Y << "," << X;
  }
}

TYPED_TEST(Bspline, ConstantStaysConstant) {
  for (Alignment a : {Alignment::centre, Alignment::corner}) {
    const std::vector<std::uint8_t> img(17 * 11, 77);
    for (auto v : upscale<TypeParam, PublicApi, std::uint8_t, std::uint8_t>(img, 17, 11, 7, a)) ASSERT_EQ(v, 77);
    for (auto v : upscale<TypeParam, TwoStage, std::uint8_t, std::uint8_t>(img, 17, 11, 7, a)) ASSERT_EQ(v, 77);
    const std::vector<std::uint8_t> white(6 * 5, 255);
    for (auto v : upscale<TypeParam, Portable, std::uint8_t, std::uint8_t>(white, 6, 5, 3, a)) ASSERT_EQ(v, 255);
    for (auto v : upscale<TypeParam, PublicApi, std::uint8_t, std::uint8_t>(white, 6, 5, 3, a)) ASSERT_EQ(v, 255);
  }
}

// Planes of a frame in one call: different sizes, rows a pitch apart or
// stored column-major (on Cuda the fused kernel takes the row-contiguous
// ones, more than one launch's worth, and the two stages the other).
TYPED_TEST(Bspline, FramePlanesInOneCall) {
  using M = typename TypeParam::memory_space;
  using In = Kokkos::View<std::uint8_t**, Kokkos::LayoutStride, M>;
  using Coef = Kokkos::View<float**, Kokkos::LayoutRight, M>;
  using Out = Kokkos::View<float**, Kokkos::LayoutRight, M>;
  const auto seed = tessera::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const int u = 3;
  const std::tuple<int, int, bool> planes[] = {
      {13, 17, false}, {7, 9, false}, {7, 9, true}, {1, 2, false}, {2, 1, false}, {70, 5, false}};
  std::vector<Kokkos::View<std::uint8_t*, M>> storage;
  std::vector<In> in;
  std::vector<Coef> coef;
  std::vector<Out> out;
  std::vector<std::vector<double>> refs;
  std::uint64_t offset = 0;
  for (auto [h, w, column_major] : planes) {
    // Row pitch w + 3, or column pitch h + 2.
    const std::size_t s0 = column_major ? 1 : w + 3, s1 = column_major ? h + 2 : 1;
    Kokkos::View<std::uint8_t*, M> buf("buf", column_major ? s1 * w : s0 * h);
    auto hb = Kokkos::create_mirror_view(buf);
    Kokkos::deep_copy(hb, std::uint8_t(0));
    std::vector<double> img(std::size_t(h) * w);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const auto v = std::uint8_t(tessera::random_uniform(seed, offset++, 0, 256));
        hb(y * s0 + x * s1) = v;
        img[std::size_t(y) * w + x] = v;
      }
    Kokkos::deep_copy(buf, hb);
    storage.push_back(buf);
    in.emplace_back(buf.data(), Kokkos::LayoutStride(h, s0, w, s1));
    coef.emplace_back("coef", h, w);
    out.emplace_back("out", h * u, w * u);
    refs.push_back(reference(img, h, w, u, Alignment::centre));
  }
  tessera::video::bspline_upscale_planes(TypeParam(), in, coef, out, u);
  for (std::size_t p = 0; p < out.size(); ++p) {
    SCOPED_TRACE("plane " + std::to_string(p));
    auto ho = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out[p]);
    std::vector<float> got(ho.data(), ho.data() + ho.size());
    expect_matches(refs[p], got);
  }
  std::vector<Coef> fewer(coef.begin(), coef.end() - 1);
  EXPECT_THROW(tessera::video::bspline_upscale_planes(TypeParam(), in, fewer, out, u), std::invalid_argument);
}

TYPED_TEST(Bspline, RejectsBadArguments) {
  using M = typename TypeParam::memory_space;
  Kokkos::View<float**, Kokkos::LayoutRight, M> in("in", 4, 5), coef("c", 4, 5), out("o", 12, 15), bad("b", 12, 14);
  EXPECT_THROW(tessera::video::bspline_upscale(TypeParam(), in, coef, bad, 3), std::invalid_argument);
  EXPECT_THROW(tessera::video::bspline_upscale(TypeParam(), in, coef, out, 0), std::invalid_argument);
  EXPECT_THROW(tessera::video::bspline_upscale(TypeParam(), in, coef, out, 17), std::invalid_argument);
  Kokkos::View<float**, Kokkos::LayoutRight, M> coef2("c2", 4, 6);
  EXPECT_THROW(tessera::video::bspline_prefilter(TypeParam(), in, coef2), std::invalid_argument);
  EXPECT_THROW(tessera::video::bspline_upscale(TypeParam(), in, coef2, out, 3), std::invalid_argument);
  EXPECT_NO_THROW(tessera::video::bspline_upscale(TypeParam(), in, coef, out, 3));
}

// The portable prefilter against bspline_iir_line run line by line (rows,
// then columns): the host path's blocks of lines, its 4 x 4 transposes, its
// causal steps run as the samples arrive and the anti-causal ones as they
// leave must give each line's own arithmetic. Bit for bit on host builds
// without FMA contraction; elsewhere within float rounding. Sizes around the
// block of 64 samples, the mirror sum's 42 and the transposes' 4 and 16;
// 8-bit rows contiguous or a pitch apart, float input; the row pass's
// coefficients stored through the caches or streamed past them.
// The prefilter of the h x w plane ref in place, bspline_iir_line along
// every row, then every column (the gains applied first).
void line_by_line_prefilter(std::vector<float>& ref, int h, int w) {
  const float gr = w > 1 ? 6.0f : 1.0f, gc = h > 1 ? 6.0f : 1.0f;
  for (int y = 0; y < h; ++y) {
    float* line = ref.data() + std::size_t(y) * w;
    for (int x = 0; x < w; ++x) line[x] = gr * line[x];
    tessera::video::bspline_iir_line(line, 1, w);
  }
  for (int x = 0; x < w; ++x) {
    for (int y = 0; y < h; ++y) ref[std::size_t(y) * w + x] = gc * ref[std::size_t(y) * w + x];
    tessera::video::bspline_iir_line(ref.data() + x, w, h);
  }
}

// The two-pass path (on host spaces the one-pass prefilter is set aside).
TYPED_TEST(Bspline, PortablePrefilterMatchesLineByLineIir) {
  using M = typename TypeParam::memory_space;
  using Stores = tessera::video::impl::BsplineHostStores;
  using Path = tessera::video::impl::BsplineHostPath;
  const auto seed = tessera::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
#if defined(__FMA__)
  constexpr bool exact = false;
#else
  constexpr bool exact = !tessera::is_device_space_v<TypeParam>;
#endif
  const std::pair<int, int> sizes[] = {{1, 1},  {1, 70},  {70, 1},  {3, 5},   {41, 43},  {42, 65},
                                       {67, 131}, {130, 17}, {19, 200}, {5, 64}, {64, 5},  {66, 66}};
  std::uint64_t offset = 0;
  for (auto [h, w] : sizes)
    for (int form = 0; form < 6; ++form) {  // uint8 rows contiguous, a pitch apart, float; cached or streaming
      SCOPED_TRACE(std::to_string(h) + "x" + std::to_string(w) + " form " + std::to_string(form));
      const auto stores = form < 3 ? Stores::cached : Stores::streaming;
      std::vector<float> ref(std::size_t(h) * w);
      for (auto& v : ref) v = float(int(tessera::random_uniform(seed, offset++, 0, 256)));
      Kokkos::View<float**, Kokkos::LayoutRight, M> coef("coef", h, w);
      if (form % 3 < 2) {
        const std::size_t pitch = form % 3 == 0 ? w : w + 5;
        Kokkos::View<std::uint8_t*, M> buf("buf", pitch * h);
        auto hb = Kokkos::create_mirror_view(buf);
        for (int y = 0; y < h; ++y)
          for (int x = 0; x < w; ++x) hb(y * pitch + x) = std::uint8_t(ref[std::size_t(y) * w + x]);
        Kokkos::deep_copy(buf, hb);
        Kokkos::View<std::uint8_t**, Kokkos::LayoutStride, M> in(buf.data(), Kokkos::LayoutStride(h, pitch, w, 1));
        tessera::video::impl::bspline_prefilter_kokkos(TypeParam(), in, coef, stores, Path::two_pass);
      } else {
        Kokkos::View<float**, Kokkos::LayoutRight, M> in("in", h, w);
        auto hi = Kokkos::create_mirror_view(in);
        for (int y = 0; y < h; ++y)
          for (int x = 0; x < w; ++x) hi(y, x) = ref[std::size_t(y) * w + x];
        Kokkos::deep_copy(in, hi);
        tessera::video::impl::bspline_prefilter_kokkos(TypeParam(), in, coef, stores, Path::two_pass);
      }
      line_by_line_prefilter(ref, h, w);
      auto hc = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), coef);
      float scale = 0.0f;
      for (float v : ref) scale = std::max(scale, std::fabs(v));
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
          const float r = ref[std::size_t(y) * w + x];
          if (exact)
            ASSERT_EQ(hc(y, x), r) << "(" << y << ", " << x << ")";
          else
            ASSERT_NEAR(hc(y, x), r, 4e-6f * scale) << "(" << y << ", " << x << ")";
        }
    }
}

// The host one-pass prefilter (rows and columns together, truncated
// recursions between bands, blocks and column strips) against the
// line-by-line IIR to float rounding: band counts from 1 to 5 (every band
// edge, block edge and plane end in reach of another), widths with and
// without whole vectors, column strips from 48 samples (a last strip that
// joins the one before, a tail that is not whole vectors; strips of 1024 on
// a plane of three), rows a pitch apart, cached and streaming stores. Planes
// it does not take are refused, nothing written.
TYPED_TEST(Bspline, HostOnePassPrefilterMatchesLineByLineIir) {
  namespace impl = tessera::video::impl;
  if constexpr (tessera::is_device_space_v<TypeParam>) {
    GTEST_SKIP() << "host path";
  } else {
    if (!tessera::host_avx2_fma()) GTEST_SKIP() << "CPU without AVX2 and FMA";
    using Stores = impl::BsplineHostStores;
    const auto seed = tessera::test::fresh_seed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::uint64_t offset = 0;
    // Widths from impl::kRowSplitMin = 256 run the row filter as two
    // interleaved halves (256, 263: halves of whole blocks or a tail; 1000).
    // Last: the widest column strip (0: whole rows, the default).
    const std::tuple<int, int, int, int> cases[] = {
        {48, 42, 1, 0},    {48, 131, 1, 0},   {49, 64, 1, 0},    {97, 200, 1, 0},   {130, 67, 2, 0},
        {200, 75, 3, 0},   {333, 45, 5, 0},   {321, 136, 5, 0},  {131, 47, 2, 0},   {64, 256, 1, 0},
        {49, 263, 1, 0},   {130, 1000, 2, 0}, {97, 517, 1, 0},   {97, 517, 1, 64},  {130, 1000, 2, 128},
        {200, 263, 3, 48}, {64, 136, 1, 56},  {49, 200, 1, 96},  {64, 2100, 2, 1024}};
    for (auto [h, w, bands, strip] : cases)
      for (int form = 0; form < 4; ++form) {  // rows contiguous or a pitch apart; cached or streaming
        SCOPED_TRACE(std::to_string(h) + "x" + std::to_string(w) + " bands " + std::to_string(bands) + " strip " +
                     std::to_string(strip) + " form " + std::to_string(form));
        const std::size_t pitch = form % 2 == 0 ? w : w + 5;
        std::vector<float> ref(std::size_t(h) * w);
        for (auto& v : ref) v = float(int(tessera::random_uniform(seed, offset++, 0, 256)));
        Kokkos::View<std::uint8_t*, Kokkos::HostSpace> buf("buf", pitch * h);
        for (int y = 0; y < h; ++y)
          for (int x = 0; x < w; ++x) buf(y * pitch + x) = std::uint8_t(ref[std::size_t(y) * w + x]);
        Kokkos::View<std::uint8_t**, Kokkos::LayoutStride, Kokkos::HostSpace> in(
            buf.data(), Kokkos::LayoutStride(h, pitch, w, 1));
        Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::HostSpace> coef("coef", h, w);
        ASSERT_TRUE(impl::bspline_prefilter_fused_host(TypeParam(), in, coef, form < 2 ? Stores::cached : Stores::streaming,
                                                       bands, strip));
        TypeParam().fence();
        line_by_line_prefilter(ref, h, w);
        float scale = 0.0f;
        for (float v : ref) scale = std::max(scale, std::fabs(v));
        for (int y = 0; y < h; ++y)
          for (int x = 0; x < w; ++x)
            ASSERT_NEAR(coef(y, x), ref[std::size_t(y) * w + x], 4e-6f * scale) << "(" << y << ", " << x << ")";
      }
    // Too narrow or too short: refused, the plane untouched.
    for (auto [h, w] : {std::pair{47, 200}, std::pair{200, 41}}) {
      Kokkos::View<std::uint8_t**, Kokkos::LayoutRight, Kokkos::HostSpace> in("in", h, w);
      Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::HostSpace> coef("coef", h, w);
      Kokkos::deep_copy(coef, -1.0f);
      EXPECT_FALSE(impl::bspline_prefilter_fused_host(TypeParam(), in, coef, Stores::automatic));
      EXPECT_EQ(coef(h / 2, w / 2), -1.0f);
    }
  }
}

// The host evaluation on given coefficients, its vector loops (AVX2: interior
// column blocks, 8-bit rows) and its plain loops, against the direct double
// sum: every scale and both alignments (their phases read 4 or 5 columns),
// rows with no, some and many interior blocks, coefficient rows a pitch
// apart, and an output whose rows are not contiguous.
TYPED_TEST(Bspline, HostEvaluationMatchesDirectSum) {
  namespace impl = tessera::video::impl;
  if constexpr (tessera::is_device_space_v<TypeParam>) {
    GTEST_SKIP() << "host path";
  } else {
    const auto seed = tessera::test::fresh_seed();
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::uint64_t offset = 0;
    for (auto [h, w] : {std::pair{3, 1}, std::pair{4, 5}, std::pair{5, 6}, std::pair{6, 9}, std::pair{5, 40},
                        std::pair{3, 67}})
      for (int u = 1; u <= 16; ++u)
        for (Alignment a : {Alignment::centre, Alignment::corner}) {
          SCOPED_TRACE(std::to_string(h) + "x" + std::to_string(w) + " u=" + std::to_string(u) +
                       (a == Alignment::centre ? " centre" : " corner"));
          const int pitch = w + 3, oh = h * u, ow = w * u;
          Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::HostSpace> wide("wide", h, pitch);
          std::vector<double> c(std::size_t(h) * w);
          for (int y = 0; y < h; ++y)
            for (int x = 0; x < pitch; ++x) {
              const float v = float(tessera::random_uniform(seed, offset++, -40, 300));
              wide(y, x) = v;
              if (x < w) c[std::size_t(y) * w + x] = v;
            }
          const auto coef = Kokkos::subview(wide, Kokkos::ALL, std::pair<int, int>(0, w));
          const auto ref = evaluate(c, h, w, u, a);
          double scale = 0;
          for (double v : ref) scale = std::max(scale, std::fabs(v));
          const auto ph = tessera::video::make_bspline_phases(u, a);
          for (bool simd : {true, false}) {
            SCOPED_TRACE(simd ? "vector loops" : "plain loops");
            Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::HostSpace> of("of", oh, ow);
            Kokkos::View<std::uint8_t**, Kokkos::LayoutRight, Kokkos::HostSpace> o8("o8", oh, ow);
            Kokkos::View<std::uint8_t**, Kokkos::LayoutLeft, Kokkos::HostSpace> o8l("o8l", oh, ow);
            impl::bspline_interpolate_host(TypeParam(), coef, of, ph, simd);
            impl::bspline_interpolate_host(TypeParam(), coef, o8, ph, simd);
            impl::bspline_interpolate_host(TypeParam(), coef, o8l, ph, simd);
            std::vector<float> gf(ref.size());
            std::vector<std::uint8_t> g8(ref.size()), g8l(ref.size());
            for (int y = 0; y < oh; ++y)
              for (int x = 0; x < ow; ++x) {
                const std::size_t i = std::size_t(y) * ow + x;
                ASSERT_NEAR(of(y, x), ref[i], 1e-5 * scale) << "(" << y << ", " << x << ")";
                g8[i] = o8(y, x);
                g8l[i] = o8l(y, x);
              }
            expect_matches(ref, g8);
            expect_matches(ref, g8l);
          }
        }
  }
}

// The fused kernel's prefilter: h[n] = sqrt(3) z^|n|, |n| <= kBsplineFirRadius,
// applied along rows then columns to the mirror-extended plane, against the
// exact coefficients. In double, so only the truncation shows: it must stay
// below float rounding (2^-24 of max |input|) for every plane size, the
// tiny ones (the extension folds many times) included, and for the
// alternating plane that maximises the dropped tail.
TEST(BsplineFir, TruncatedFirOnMirrorExtensionMatchesExactPrefilter) {
  constexpr int R = tessera::video::kBsplineFirRadius;
  const double z = std::sqrt(3.0) - 2;
  double h[R + 1];
  for (int n = 0; n <= R; ++n) h[n] = std::sqrt(3.0) * std::pow(z, n);
  // The library's float taps are these, rounded.
  const auto taps = tessera::video::make_bspline_fir_taps();
  for (int n = 0; n <= R; ++n) EXPECT_EQ(taps.h[n], float(h[n])) << n;
  // Sample k of the line s[0], s[stride], ..., s[(n - 1) stride], filtered.
  auto fir = [&](const double* s, int n, int k, int stride) {
    double v = 0;
    for (int j = -R; j <= R; ++j) v += h[j < 0 ? -j : j] * s[std::size_t(mirror(k + j, n)) * stride];
    return v;
  };
  const auto seed = tessera::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  for (int rows : {1, 2, 3, 4, 7, 16, 33})
    for (int cols : {1, 2, 3, 5, 31, 64})
      for (int kind = 0; kind < 2; ++kind) {
        SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols) + (kind ? " alternating" : " random"));
        std::vector<double> img(std::size_t(rows) * cols);
        for (int y = 0; y < rows; ++y)
          for (int x = 0; x < cols; ++x)
            img[std::size_t(y) * cols + x] =
                kind ? ((x + y) % 2 ? 255.0 : 0.0)
                     : std::floor(tessera::random_uniform(seed, std::size_t(y) * cols + x, 0, 256));
        const auto exact = coefficients(img, rows, cols);
        std::vector<double> r(img.size()), c(img.size());
        for (int y = 0; y < rows; ++y)
          for (int x = 0; x < cols; ++x) r[std::size_t(y) * cols + x] = fir(&img[std::size_t(y) * cols], cols, x, 1);
        for (int y = 0; y < rows; ++y)
          for (int x = 0; x < cols; ++x) c[std::size_t(y) * cols + x] = fir(&r[x], rows, y, cols);
        double err = 0;
        for (std::size_t i = 0; i < c.size(); ++i) err = std::max(err, std::fabs(c[i] - exact[i]));
        EXPECT_LE(err, 255.0 * std::ldexp(1.0, -24));
      }
}

#if TESSERA_HAS_CUDA_NATIVE
// The fused kernel called directly: one call for planes of every awkward
// size (more than one launch's worth), each type pair, both alignments,
// scales from 1 to 16, against the independent reference; at corner
// alignment the samples come back.
template <class TIn, class TOut>
void check_fused_native(std::uint64_t seed) {
  using M = Kokkos::CudaSpace;
  Kokkos::Cuda exec;
  const std::pair<int, int> sizes[] = {{1, 1}, {1, 2}, {2, 1}, {3, 3}, {2, 5}, {19, 23}, {45, 50}};
  for (int u : {1, 2, 7, 16})
    for (Alignment a : {Alignment::centre, Alignment::corner}) {
      SCOPED_TRACE("u=" + std::to_string(u) + (a == Alignment::centre ? " centre" : " corner"));
      std::vector<Kokkos::View<TIn**, Kokkos::LayoutRight, M>> in;
      std::vector<Kokkos::View<TOut**, Kokkos::LayoutRight, M>> out;
      std::vector<tessera::native_cuda::BsplinePlane<TIn, TOut>> planes;
      std::vector<std::vector<double>> imgs;
      std::uint64_t offset = 0;
      for (auto [h, w] : sizes) {
        in.emplace_back("in", h, w);
        out.emplace_back("out", h * u, w * u);
        auto hin = Kokkos::create_mirror_view(in.back());
        std::vector<double> img(std::size_t(h) * w);
        for (int y = 0; y < h; ++y)
          for (int x = 0; x < w; ++x) {
            const double v = std::is_same_v<TIn, float> ? tessera::random_uniform(seed, offset++, -50, 300)
                                                        : std::floor(tessera::random_uniform(seed, offset++, 0, 256));
            hin(y, x) = TIn(v);
            img[std::size_t(y) * w + x] = double(hin(y, x));
          }
        Kokkos::deep_copy(in.back(), hin);
        imgs.push_back(img);
        planes.push_back({in.back().data(), w, out.back().data(), std::int64_t(w) * u, h, w});
      }
      exec.fence();
      tessera::native_cuda::bspline_upscale_fused(exec.cuda_stream(), planes.data(), int(planes.size()),
                                                  tessera::video::make_bspline_phases(u, a));
      exec.fence();
      for (std::size_t p = 0; p < planes.size(); ++p) {
        const int h = planes[p].h, w = planes[p].w;
        SCOPED_TRACE(std::to_string(h) + "x" + std::to_string(w));
        auto ho = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out[p]);
        const std::vector<TOut> got(ho.data(), ho.data() + ho.size());
        expect_matches(reference(imgs[p], h, w, u, a), got);
        if constexpr (std::is_same_v<TOut, float>) {
          if (a == Alignment::corner)
            for (int y = 0; y < h; ++y)
              for (int x = 0; x < w; ++x)
                ASSERT_NEAR(got[std::size_t(y * u) * w * u + x * u], imgs[p][std::size_t(y) * w + x], 2e-3)
                    << y << "," << x;
        }
      }
    }
}

TEST(BsplineNativeCuda, FusedMatchesIndependentReference) {
  if (tessera::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  const auto seed = tessera::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  check_fused_native<std::uint8_t, std::uint8_t>(seed);
  check_fused_native<std::uint8_t, float>(seed);
  check_fused_native<float, float>(seed);
  check_fused_native<float, std::uint8_t>(seed);
}

// At the benchmark's size (QCIF x7, 4:2:0) the fused kernel and the native
// IIR path agree to float rounding.
TEST(BsplineNativeCuda, FusedMatchesIirPathAtQcifTimesSeven) {
  if (tessera::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  using M = Kokkos::CudaSpace;
  const auto seed = tessera::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  Kokkos::Cuda exec;
  const int u = 7;
  for (auto [h, w] : {std::pair{144, 176}, std::pair{72, 88}}) {
    Kokkos::View<std::uint8_t**, Kokkos::LayoutRight, M> in("in", h, w);
    Kokkos::View<float**, Kokkos::LayoutRight, M> coef("coef", h, w), fused("fused", h * u, w * u),
        iir("iir", h * u, w * u);
    auto hin = Kokkos::create_mirror_view(in);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        hin(y, x) = std::uint8_t(tessera::random_uniform(seed, std::size_t(y) * w + x, 0, 256));
    Kokkos::deep_copy(in, hin);
    for (Alignment a : {Alignment::centre, Alignment::corner}) {
      tessera::video::bspline_upscale(exec, in, coef, fused, u, a);
      tessera::video::bspline_prefilter(exec, in, coef);
      tessera::video::bspline_interpolate(exec, coef, iir, u, a);
      auto hf = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), fused);
      auto hi = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), iir);
      double err = 0;
      for (std::size_t i = 0; i < hf.size(); ++i) err = std::max(err, double(std::fabs(hf.data()[i] - hi.data()[i])));
      EXPECT_LE(err, 1e-3) << h << "x" << w;
    }
  }
}
#endif

}  // namespace
