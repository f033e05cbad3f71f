// Depth propagation on hand-computed camera rigs: a horizontal baseline
// (pixel (x, y) at depth d lands on (x + f b / d, y): with f = 100, b = 1 and
// d in {20, 25, 50, 100} shifts of 5, 4, 2, 1 pixels, so collisions happen
// and the nearest must win), and a 90-degree roll about the optical axis
// ((x, y) -> (c - (y - c), c + (x - c))). The expected map is built from
// those integer rules alone. Every variant (atomic z-buffer, sort + segmented
// min; the public API, which takes the native CUDA kernels on Cuda, and the
// portable kernels), on every backend, twice: identical bits every time.
#include "exec_spaces.hpp"
#include "tessera/core/random.hpp"
#include "tessera/video/dibr.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace {

using tessera::test::ExecSpaces;
using tessera::video::CameraRig;

template <class ExecSpace>
class Dibr : public ::testing::Test {};
TYPED_TEST_SUITE(Dibr, ExecSpaces);

enum class Method { atomic, sorted, portable_atomic, portable_sorted };
const char* name(Method m) {
  switch (m) {
    case Method::atomic: return "atomic";
    case Method::sorted: return "sorted";
    case Method::portable_atomic: return "portable atomic";
    default: return "portable sorted";
  }
}
constexpr Method kMethods[] = {Method::atomic, Method::sorted, Method::portable_atomic, Method::portable_sorted};

template <class E>
std::vector<float> run(const std::vector<float>& src, int h, int w, int th, int tw, const CameraRig& rig, Method m) {
  using M = typename E::memory_space;
  Kokkos::View<float**, Kokkos::LayoutRight, M> d("d", h, w), out("o", th, tw);
  auto hd = Kokkos::create_mirror_view(d);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) hd(y, x) = src[std::size_t(y) * w + x];
  Kokkos::deep_copy(d, hd);
  Kokkos::deep_copy(out, std::numeric_limits<float>::quiet_NaN());
  if (m == Method::sorted || m == Method::portable_sorted) {
    Kokkos::View<std::uint64_t*, M> keys("k", std::size_t(h) * w);
    if (m == Method::sorted)
      tessera::video::propagate_depth_sorted(E(), d, keys, out, rig);
    else
      tessera::video::impl::dibr_sorted_kokkos(E(), d, keys, out, rig);
  } else {
    Kokkos::View<std::uint32_t**, Kokkos::LayoutRight, M> z("z", th, tw);
    if (m == Method::atomic)
      tessera::video::propagate_depth_atomic(E(), d, z, out, rig);
    else
      tessera::video::impl::dibr_atomic_kokkos(E(), d, z, out, rig);
  }
  Kokkos::fence();
  auto ho = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  std::vector<float> r(std::size_t(th) * tw);
  for (int y = 0; y < th; ++y)
    for (int x = 0; x < tw; ++x) r[std::size_t(y) * tw + x] = ho(y, x);
  return r;
}

void expect_same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0);
}

template <class E>
void check_rig(const std::vector<float>& src, int h, int w, const CameraRig& rig, const std::vector<float>& expected) {
  std::vector<float> first;
  for (Method m : kMethods)
    for (int rep = 0; rep < 2; ++rep) {
      SCOPED_TRACE(std::string(name(m)) + " run " + std::to_string(rep));
      const auto got = run<E>(src, h, w, h, w, rig, m);
      for (std::size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], expected[i]) << "pixel " << i;
      if (first.empty()) first = got;
      expect_same_bits(got, first);
    }
}

std::vector<float> random_depths(std::uint64_t seed, int h, int w) {
  const float levels[] = {20, 25, 50, 100};
  std::vector<float> d(std::size_t(h) * w);
  for (std::size_t i = 0; i < d.size(); ++i) {
    const double u = tessera::random_uniform(seed, i);
    d[i] = u < 0.1 ? 0.0f : u < 0.12 ? -3.0f : u < 0.13 ? std::numeric_limits<float>::quiet_NaN() : levels[int(u * 1000) % 4];
  }
  return d;
}

// The documented geometry as a plain loop (same-size target); counts the
// pixels that land and those that end up behind the target camera.
std::vector<float> plain_loop(const std::vector<float>& src, int h, int w, const CameraRig& rig, int& landed,
                              int& behind) {
  std::vector<float> expected(src.size(), 0.0f);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const float d = src[std::size_t(y) * w + x];
      if (!(d > 0)) continue;
      const double X = (x - rig.source.cx) / rig.source.fx * d, Y = (y - rig.source.cy) / rig.source.fy * d, Z = d;
      const double xt = rig.R[0] * X + rig.R[1] * Y + rig.R[2] * Z + rig.t[0];
      const double yt = rig.R[3] * X + rig.R[4] * Y + rig.R[5] * Z + rig.t[1];
      const double zt = rig.R[6] * X + rig.R[7] * Y + rig.R[8] * Z + rig.t[2];
      const float z = float(zt);
      if (!(z > 0)) {
        ++behind;
        continue;
      }
      const double u = rig.target.fx * xt / zt + rig.target.cx + 0.5, v = rig.target.fy * yt / zt + rig.target.cy + 0.5;
      if (!(u >= 0) || !(v >= 0) || !(u < w) || !(v < h)) continue;
      float& e = expected[std::size_t(int(v)) * w + int(u)];
      if (e == 0.0f || z < e) e = z;
      ++landed;
    }
  return expected;
}

TYPED_TEST(Dibr, BaselineShiftNearestWins) {
  const auto seed = tessera::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const int h = 37, w = 61;
  const auto src = random_depths(seed, h, w);
  CameraRig rig;
  rig.source = rig.target = {100.0, 100.0, 30.0, 18.0};
  rig.t[0] = 1.0;  // baseline 1 along x
  std::vector<float> expected(src.size(), 0.0f);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const float d = src[std::size_t(y) * w + x];
      if (!(d > 0)) continue;
      const int tx = x + int(100 / d);
      if (tx >= w) continue;
      float& e = expected[std::size_t(y) * w + tx];
      if (e == 0.0f || d < e) e = d;
    }
  check_rig<TypeParam>(src, h, w, rig, expected);
}

TYPED_TEST(Dibr, RollAboutTheAxis) {
  const auto seed = tessera::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const int n = 33, c = 16;
  const auto src = random_depths(seed, n, n);
  CameraRig rig;
  rig.source = rig.target = {80.0, 80.0, double(c), double(c)};
  const double R[9] = {0, -1, 0, 1, 0, 0, 0, 0, 1};  // (X, Y, Z) -> (-Y, X, Z)
  std::copy(R, R + 9, rig.R);
  std::vector<float> expected(src.size(), 0.0f);
  for (int y = 0; y < n; ++y)
    for (int x = 0; x < n; ++x) {
      const float d = src[std::size_t(y) * n + x];
      if (d > 0) expected[std::size_t(c + (x - c)) * n + (c - (y - c))] = d;
    }
  check_rig<TypeParam>(src, n, n, rig, expected);
}

TYPED_TEST(Dibr, BehindTheCameraAndOutsideAreDropped) {
  const int h = 8, w = 8;
  std::vector<float> src(std::size_t(h) * w, 10.0f);
  CameraRig rig;
  rig.source = rig.target = {50.0, 50.0, 3.5, 3.5};
  rig.t[2] = -10.0;  // everything at depth 10 lands on z = 0: dropped
  for (Method m : kMethods)
    for (float v : run<TypeParam>(src, h, w, h, w, rig, m)) ASSERT_EQ(v, 0.0f);
  rig.t[2] = -20.0;  // behind the camera at z = -10, though the mirror image would land inside
  for (Method m : kMethods)
    for (float v : run<TypeParam>(src, h, w, h, w, rig, m)) ASSERT_EQ(v, 0.0f);
  rig.t[2] = 0.0;
  rig.t[0] = 100.0;  // shifted far outside the target
  for (Method m : kMethods)
    for (float v : run<TypeParam>(src, h, w, h, w, rig, m)) ASSERT_EQ(v, 0.0f);
}

// A general rig (rotation about every axis, a translation that puts the
// nearest points behind the target camera, intrinsics that land pixels at
// fractional positions) against a plain loop of the documented geometry in
// double, operation for operation: every method and backend, every bit.
TYPED_TEST(Dibr, GeneralRigMatchesPlainLoop) {
  const auto seed = tessera::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const int h = 29, w = 67;
  std::vector<float> src(std::size_t(h) * w);
  for (std::size_t i = 0; i < src.size(); ++i) {
    const double u = tessera::random_uniform(seed, i);
    src[i] = u < 0.08   ? 0.0f
             : u < 0.1  ? -2.0f
             : u < 0.11 ? std::numeric_limits<float>::quiet_NaN()
             : u < 0.16 ? float(tessera::random_uniform(seed, 7919 + i, 0.5, 3.9))  // behind the target camera
                        : float(tessera::random_uniform(seed, 7919 + i, 6.0, 40.0));
  }
  auto r = [&](int k, double lo, double hi) { return tessera::random_uniform(seed, 100000 + k, lo, hi); };
  CameraRig rig;
  rig.source = {r(0, 60, 120), r(1, 60, 120), r(2, 28, 38), r(3, 10, 18)};
  rig.target = {rig.source.fx * r(4, 0.9, 1.1), rig.source.fy * r(5, 0.9, 1.1), rig.source.cx + r(6, -2, 2),
                rig.source.cy + r(7, -2, 2)};
  const double a = r(8, -0.05, 0.05), b = r(9, -0.05, 0.05), c = r(10, -0.05, 0.05);
  const double Rx[9] = {1, 0, 0, 0, std::cos(a), -std::sin(a), 0, std::sin(a), std::cos(a)};
  const double Ry[9] = {std::cos(b), 0, std::sin(b), 0, 1, 0, -std::sin(b), 0, std::cos(b)};
  const double Rz[9] = {std::cos(c), -std::sin(c), 0, std::sin(c), std::cos(c), 0, 0, 0, 1};
  // C = A B, row-major 3 x 3.
  auto mul3 = [](const double* A, const double* B, double* C) {
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        C[3 * i + j] = 0;
        for (int k = 0; k < 3; ++k) C[3 * i + j] += A[3 * i + k] * B[3 * k + j];
      }
  };
  double Ryx[9];
  mul3(Ry, Rx, Ryx);
  mul3(Rz, Ryx, rig.R);
  rig.t[0] = r(11, -0.2, 0.2);
  rig.t[1] = r(12, -0.2, 0.2);
  rig.t[2] = -4.0;  // sources nearer than ~4 end up behind the camera
  int landed = 0, behind = 0;
  const auto expected = plain_loop(src, h, w, rig, landed, behind);
  ASSERT_GT(landed, h * w / 4);
  ASSERT_GT(behind, 10);
  check_rig<TypeParam>(src, h, w, rig, expected);
}

// A vertical baseline moves pixels 1-3 rows down: on host spaces the pixels
// crossing into the next band of target rows are applied by that band's
// owner (few of them on a few threads) or by atomics (many threads).
TYPED_TEST(Dibr, VerticalBaselineCrossesBandEdges) {
  const auto seed = tessera::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const int h = 160, w = 41;
  const auto src = random_depths(seed, h, w);
  CameraRig rig;
  rig.source = rig.target = {50.0, 50.0, 20.0, 80.0};
  rig.t[1] = 1.0;
  int landed = 0, behind = 0;
  const auto expected = plain_loop(src, h, w, rig, landed, behind);
  ASSERT_GT(landed, h * w / 2);
  check_rig<TypeParam>(src, h, w, rig, expected);
}

TYPED_TEST(Dibr, RejectsBadArguments) {
  using M = typename TypeParam::memory_space;
  Kokkos::View<float**, Kokkos::LayoutRight, M> d("d", 4, 5), o("o", 4, 5);
  Kokkos::View<std::uint32_t**, Kokkos::LayoutRight, M> z("z", 4, 6);
  Kokkos::View<std::uint64_t*, M> k("k", 19);
  CameraRig rig;
  EXPECT_THROW(tessera::video::propagate_depth_atomic(TypeParam(), d, z, o, rig), std::invalid_argument);
  EXPECT_THROW(tessera::video::propagate_depth_sorted(TypeParam(), d, k, o, rig), std::invalid_argument);
  Kokkos::View<std::uint32_t**, Kokkos::LayoutRight, M> z2("z2", 4, 5);
  rig.target.fx = 0;
  EXPECT_THROW(tessera::video::propagate_depth_atomic(TypeParam(), d, z2, o, rig), std::invalid_argument);
}

}  // namespace
