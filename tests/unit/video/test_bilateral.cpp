// Depth-colour bilateral filter against a double loop that evaluates the
// Gaussians with exp (no tables), on random depth with a random share of
// unknown pixels (0, negative, NaN) and random luma, including a region with
// no known depth at all (it must stay unknown). Every built backend, public
// API (native CUDA on Cuda) and the portable kernel; several K and sizes that
// are not multiples of the tile.
#include "exec_spaces.hpp"
#include "tessera/core/random.hpp"
#include "tessera/video/bilateral.hpp"
#if TESSERA_HAS_CUDA_NATIVE
#include "tessera/video/bilateral_native_cuda.hpp"
#endif

#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

namespace {

using tessera::test::ExecSpaces;
using tessera::video::BilateralParams;

template <class ExecSpace>
class Bilateral : public ::testing::Test {};
TYPED_TEST_SUITE(Bilateral, ExecSpaces);

// Also returns W_A: where the weights reach float's subnormal range
// (W_A < 1e-25: all known neighbours far off in luma with a small sigma_r)
// the float kernels lose their precision or see W_A = 0 (unknown); there the
// output need only be 0 or within the depths' range.
std::vector<double> reference(const std::vector<float>& d, const std::vector<std::uint8_t>& l, int h, int w,
                              const BilateralParams& p, std::vector<double>& wa) {
  std::vector<double> out(d.size());
  wa.assign(d.size(), 0.0);
  const int r = p.k / 2;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      long double s = 0, ws = 0;
      for (int yy = std::max(0, y - r); yy <= std::min(h - 1, y + r); ++yy)
        for (int xx = std::max(0, x - r); xx <= std::min(w - 1, x + r); ++xx) {
          const double db = d[std::size_t(yy) * w + xx];
          if (!(db > 0)) continue;
          const double dist2 = double(yy - y) * (yy - y) + double(xx - x) * (xx - x);
          const double di = double(l[std::size_t(y) * w + x]) - l[std::size_t(yy) * w + xx];
          const double wt = std::exp(-dist2 / (2 * p.sigma_s * p.sigma_s)) * std::exp(-di * di / (2 * p.sigma_r * p.sigma_r));
          s += wt * db;
          ws += wt;
        }
      out[std::size_t(y) * w + x] = ws > 0 ? double(s / ws) : 0.0;
      wa[std::size_t(y) * w + x] = double(ws);
    }
  return out;
}

// How check runs the filter: the public API, the portable kernel, or (Cuda
// only) the native one-pixel-a-thread kernel kept beside the default.
enum class Path { public_api, portable, portable_plain, one_per_thread };

template <class E, Path path>
void check(std::uint64_t seed, int h, int w, const BilateralParams& p) {
  SCOPED_TRACE(std::to_string(h) + "x" + std::to_string(w) + " K=" + std::to_string(p.k) +
               (path == Path::portable         ? " portable"
                : path == Path::portable_plain ? " portable, no host vector kernel"
                : path == Path::public_api     ? " public"
                                               : " one per thread"));
  using M = typename E::memory_space;
  std::vector<float> d(std::size_t(h) * w);
  std::vector<std::uint8_t> l(d.size());
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const std::size_t i = std::size_t(y) * w + x;
      const double u = tessera::random_uniform(seed, 3 * i);
      d[i] = u < 0.3 ? 0.0f : u < 0.35 ? -1.0f : u < 0.37 ? std::numeric_limits<float>::quiet_NaN()
                                                          : float(tessera::random_uniform(seed, 3 * i + 1, 0.5, 20.0));
      if (y < 12 && x < 12) d[i] = 0.0f;  // a hole wider than the window: its corner stays unknown
      l[i] = std::uint8_t(tessera::random_uniform(seed, 3 * i + 2, 0, 256));
    }
  Kokkos::View<float**, Kokkos::LayoutRight, M> dv("d", h, w), ov("o", h, w);
  Kokkos::View<std::uint8_t**, Kokkos::LayoutRight, M> lv("l", h, w);
  auto hd = Kokkos::create_mirror_view(dv);
  auto hl = Kokkos::create_mirror_view(lv);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      hd(y, x) = d[std::size_t(y) * w + x];
      hl(y, x) = l[std::size_t(y) * w + x];
    }
  Kokkos::deep_copy(dv, hd);
  Kokkos::deep_copy(lv, hl);
  Kokkos::deep_copy(ov, std::numeric_limits<float>::quiet_NaN());
  if constexpr (path == Path::portable || path == Path::portable_plain)
    tessera::video::impl::bilateral_kokkos(E(), dv, lv, ov, tessera::video::make_bilateral_tables(p),
                                           path == Path::portable);
  else if constexpr (path == Path::public_api)
    tessera::video::bilateral_filter(E(), dv, lv, ov, p);
#if TESSERA_HAS_CUDA_NATIVE
  else
    tessera::native_cuda::bilateral_one_per_thread(E().cuda_stream(), dv.data(), w, lv.data(), w, ov.data(), w, h, w,
                                                   tessera::video::make_bilateral_tables(p));
#endif
  auto ho = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), ov);
  std::vector<double> wa;
  const auto ref = reference(d, l, h, w, p, wa);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const double r = ref[std::size_t(y) * w + x];
      if (wa[std::size_t(y) * w + x] < 1e-25) {
        ASSERT_TRUE(ho(y, x) >= 0.0f && ho(y, x) <= 20.0f) << y << "," << x;
        continue;
      }
      ASSERT_NEAR(ho(y, x), r, 2e-5 * 20) << y << "," << x;
      if (r == 0.0) ASSERT_EQ(ho(y, x), 0.0f) << "unknown stays unknown at " << y << "," << x;
    }
  EXPECT_EQ(ho(0, 0), 0.0f);
}

TYPED_TEST(Bilateral, MatchesDoubleLoop) {
  const auto seed = tessera::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  check<TypeParam, Path::public_api>(seed, 45, 77, BilateralParams{});
  check<TypeParam, Path::public_api>(seed, 46, 77, BilateralParams{});  // the three-pixel kernel's last rows: 21 of 24, then 22
  check<TypeParam, Path::portable>(seed, 45, 77, BilateralParams{});
  check<TypeParam, Path::portable_plain>(seed, 45, 77, BilateralParams{});
  check<TypeParam, Path::public_api>(seed, 13, 8, BilateralParams{});  // one vector a row, no tail
  check<TypeParam, Path::public_api>(seed, 19, 40, BilateralParams{3, 1.5, 25.0});
  check<TypeParam, Path::portable>(seed, 9, 33, BilateralParams{15, 4.0, 5.0});
  check<TypeParam, Path::public_api>(seed, 9, 33, BilateralParams{15, 4.0, 5.0});
  check<TypeParam, Path::public_api>(seed, 1, 1, BilateralParams{1, 3.0, 10.0});
#if TESSERA_HAS_CUDA_NATIVE
  if constexpr (std::is_same_v<TypeParam, Kokkos::Cuda>) {
    check<TypeParam, Path::one_per_thread>(seed, 45, 77, BilateralParams{});
    check<TypeParam, Path::one_per_thread>(seed, 19, 40, BilateralParams{3, 1.5, 25.0});
  }
#endif
}

// The cached tables follow the parameters (a change of any one rebuilds
// them) and a rejected set leaves them as they were.
TEST(BilateralTables, CacheFollowsTheParameters) {
  using tessera::video::bilateral_tables_cached;
  using tessera::video::make_bilateral_tables;
  auto same = [](const tessera::video::BilateralTables& a, const tessera::video::BilateralTables& b) {
    if (a.radius != b.radius) return false;
    for (int i = 0; i < tessera::video::kBilateralSpatialSize; ++i)
      if (a.spatial[i] != b.spatial[i]) return false;
    for (int i = 0; i < 256; ++i)
      if (a.range[i] != b.range[i]) return false;
    return true;
  };
  const BilateralParams sets[] = {{}, {7, 3.0, 10.0}, {7, 2.0, 10.0}, {7, 2.0, 15.0}, {}};
  for (const auto& p : sets) EXPECT_TRUE(same(bilateral_tables_cached(p), make_bilateral_tables(p)));
  EXPECT_THROW(bilateral_tables_cached(BilateralParams{4, 3.0, 10.0}), std::invalid_argument);
  EXPECT_TRUE(same(bilateral_tables_cached(BilateralParams{}), make_bilateral_tables(BilateralParams{})));
}

TYPED_TEST(Bilateral, RejectsBadArguments) {
  using M = typename TypeParam::memory_space;
  Kokkos::View<float**, Kokkos::LayoutRight, M> d("d", 4, 5), o("o", 4, 5), o2("o2", 4, 6);
  Kokkos::View<std::uint8_t**, Kokkos::LayoutRight, M> l("l", 4, 5);
  EXPECT_THROW(tessera::video::bilateral_filter(TypeParam(), d, l, o2), std::invalid_argument);
  EXPECT_THROW(tessera::video::bilateral_filter(TypeParam(), d, l, o, BilateralParams{4, 3, 10}), std::invalid_argument);
  EXPECT_THROW(tessera::video::bilateral_filter(TypeParam(), d, l, o, BilateralParams{17, 3, 10}), std::invalid_argument);
  EXPECT_THROW(tessera::video::bilateral_filter(TypeParam(), d, l, o, BilateralParams{5, 0, 10}), std::invalid_argument);
  EXPECT_THROW(tessera::video::bilateral_filter(TypeParam(), d, l, d), std::invalid_argument);
}

}  // namespace
