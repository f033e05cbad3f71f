// The whole-video sliding window (Conv3dWindow) on every built backend: a
// seeded 8-bit clip pushed frame by frame gives its F - k + 1 output frames,
// each equal to eq. (1) in double on its own window (k in {3, 5}, same and
// valid padding, the automatic, register-blocked and streaming algorithms).
#include "conv3d_reference.hpp"
#include "exec_spaces.hpp"
#include "tessera/core/validate.hpp"
#include "tessera/video/conv3d_window.hpp"

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace tessera::video;
using tessera::test::ExecSpaces;

template <class E>
class Conv3dWindowTest : public ::testing::Test {};
TYPED_TEST_SUITE(Conv3dWindowTest, ExecSpaces);

TYPED_TEST(Conv3dWindowTest, EveryOutputFrameMatchesItsWindow) {
  using E = TypeParam;
  using Mem = typename E::memory_space;
  E exec;
  const int F = 10, H = 13, W = 19;  // sizes that are multiples of no tile
  const auto seed = tessera::test::fresh_seed();
  SCOPED_TRACE(std::string(E::name()) + ", seed = " + std::to_string(seed));
  std::vector<std::uint8_t> clip(std::size_t(F) * H * W);
  for (std::size_t i = 0; i < clip.size(); ++i) clip[i] = std::uint8_t(tessera::random_uniform(seed, i, 0.0, 256.0));
  const std::vector<float> clipf(clip.begin(), clip.end());
  for (int k : {3, 5})
    for (bool valid : {false, true})
      for (auto a : {Conv3dAlgorithm::automatic, Conv3dAlgorithm::register_blocked, Conv3dAlgorithm::streaming}) {
        SCOPED_TRACE("k = " + std::to_string(k) + (valid ? ", valid" : ", same") + ", algorithm " +
                     std::to_string(int(a)));
        const auto hk = tessera::test::random_vector(std::size_t(k) * k * k, seed + 1);
        const auto ref = tessera::test::conv3d_reference(clipf, hk, F, H, W, k, valid);
        Kokkos::View<float***, Kokkos::LayoutRight, Mem> K("K", k, k, k);
        Kokkos::deep_copy(K, Kokkos::View<const float***, Kokkos::LayoutRight, Kokkos::HostSpace>(hk.data(), k, k, k));
        Conv3dOptions opt;
        opt.padding = valid ? Conv3dPadding::valid : Conv3dPadding::same;
        opt.algorithm = a;
        Conv3dWindow<E> window(H, W, make_conv3d_filter(exec, K), opt);
        const int Ho = window.output_height(), Wo = window.output_width();
        ASSERT_EQ(Ho, valid ? H - k + 1 : H);
        Kokkos::View<std::uint8_t**, Kokkos::LayoutRight, Mem> frame("frame", H, W);
        Kokkos::View<float**, Kokkos::LayoutRight, Mem> out("out", Ho, Wo);
        const std::size_t n = std::size_t(Ho) * Wo;
        int outputs = 0;
        for (int t = 0; t < F; ++t) {
          Kokkos::deep_copy(frame, Kokkos::View<const std::uint8_t**, Kokkos::LayoutRight, Kokkos::HostSpace>(
                                       clip.data() + std::size_t(t) * H * W, H, W));
          window.push(exec, frame);
          ASSERT_EQ(window.ready(), t >= k - 1);
          if (!window.ready()) continue;
          Kokkos::deep_copy(out, std::numeric_limits<float>::quiet_NaN());
          window.compute(exec, out);
          exec.fence();
          const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
          const double* want = ref.data() + std::size_t(t - k + 1) * n;
          EXPECT_LE(tessera::max_relative_error(h.data(), want, n), 1e-5) << "output frame " << t - k + 1;
          ++outputs;
        }
        EXPECT_EQ(outputs, F - k + 1);
      }
}

TYPED_TEST(Conv3dWindowTest, MisuseThrows) {
  using E = TypeParam;
  using Mem = typename E::memory_space;
  E exec;
  Kokkos::View<float***, Kokkos::LayoutRight, Mem> K("K", 3, 3, 3);
  Conv3dWindow<E> window(8, 6, make_conv3d_filter(exec, K));
  Kokkos::View<float**, Kokkos::LayoutRight, Mem> frame("f", 8, 6), wrong("w", 6, 8), out("o", 8, 6);
  EXPECT_THROW(window.compute(exec, out), std::invalid_argument);  // no window yet
  EXPECT_THROW(window.push(exec, wrong), std::invalid_argument);
  for (int i = 0; i < 3; ++i) window.push(exec, frame);
  EXPECT_THROW(window.compute(exec, wrong), std::invalid_argument);
  EXPECT_NO_THROW(window.compute(exec, out));
  exec.fence();
  EXPECT_THROW(Conv3dWindow<E>(2, 2, make_conv3d_filter(exec, K), {Conv3dPadding::valid}), std::invalid_argument);
}

}  // namespace
