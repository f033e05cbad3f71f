// conv3d against a double-precision loop of eq. (1) on fresh random data, on
// every built backend: every direct algorithm, k in {3, 5, 7}, same and valid
// padding, frame sizes that are multiples of no tile; a one-tap asymmetric
// kernel proves convolution (not correlation); bad sizes throw.
#include "conv3d_reference.hpp"
#include "exec_spaces.hpp"
#include "tessera/core/random.hpp"
#include "tessera/core/validate.hpp"
#include "tessera/video/conv3d.hpp"
#if TESSERA_HAS_CUDA_NATIVE
#include "tessera/video/conv3d_native_cuda.hpp"
#endif

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using tessera::test::ExecSpaces;
using namespace tessera::video;

template <class E>
using Vol = Kokkos::View<float***, Kokkos::LayoutRight, typename E::memory_space>;

template <class E>
Vol<E> upload(const std::vector<float>& h, int a, int b, int c) {
  Vol<E> v("v", a, b, c);
  Kokkos::deep_copy(v, Kokkos::View<const float***, Kokkos::LayoutRight, Kokkos::HostSpace,
                                    Kokkos::MemoryTraits<Kokkos::Unmanaged>>(h.data(), a, b, c));
  return v;
}

template <class View>
std::vector<float> download(const View& v) {
  auto m = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  return std::vector<float>(m.data(), m.data() + m.size());
}

using tessera::test::conv3d_reference;
using tessera::test::random_vector;

// A fresh random video and kernel on E's memory, with the double loop's
// output on them.
template <class E>
struct RandomCase {
  std::vector<double> ref;
  Vol<E> V;
  Conv3dFilter<typename E::memory_space> filter;
};
template <class E>
RandomCase<E> random_case(const E& exec, int T, int H, int W, int k, bool valid, std::uint64_t seed) {
  const auto hv = random_vector(std::size_t(T) * H * W, seed);
  const auto hk = random_vector(std::size_t(k) * k * k, seed + 1);
  auto K = upload<E>(hk, k, k, k);
  return {conv3d_reference(hv, hk, T, H, W, k, valid), upload<E>(hv, T, H, W), make_conv3d_filter(exec, K)};
}

const char* name(Conv3dAlgorithm a) {
  switch (a) {
    case Conv3dAlgorithm::baseline: return "baseline";
    case Conv3dAlgorithm::shared: return "shared";
    case Conv3dAlgorithm::streaming: return "streaming";
    case Conv3dAlgorithm::register_blocked: return "register";
    default: return "automatic";
  }
}

template <class E>
class Conv3d : public ::testing::Test {};
TYPED_TEST_SUITE(Conv3d, ExecSpaces);

TYPED_TEST(Conv3d, EveryDirectAlgorithmMatchesTheDoubleLoop) {
  using E = TypeParam;
  E exec;
  for (int k : {3, 5, 7})
    for (bool valid : {false, true}) {
      const int T = k + 2, H = valid ? 19 + k : 21, W = valid ? 35 + k : 37;
      const auto seed = tessera::test::fresh_seed();
      SCOPED_TRACE(std::string(E::name()) + " k = " + std::to_string(k) + (valid ? " valid" : " same") +
                   ", seed = " + std::to_string(seed));
      const auto [ref, V, filter] = random_case(exec, T, H, W, k, valid, seed);
      const int To = T - k + 1, Ho = valid ? H - k + 1 : H, Wo = valid ? W - k + 1 : W;
      Vol<E> out("out", To, Ho, Wo);
      for (auto a : {Conv3dAlgorithm::baseline, Conv3dAlgorithm::shared, Conv3dAlgorithm::streaming,
                     Conv3dAlgorithm::register_blocked, Conv3dAlgorithm::automatic}) {
        SCOPED_TRACE(name(a));
        Kokkos::deep_copy(out, std::numeric_limits<float>::quiet_NaN());
        Conv3dOptions opt;
        opt.padding = valid ? Conv3dPadding::valid : Conv3dPadding::same;
        opt.algorithm = a;
        conv3d(exec, V, filter, out, opt);
        exec.fence();
        const auto h = download(out);
        ASSERT_EQ(h.size(), ref.size());
        EXPECT_LE(tessera::max_relative_error(h.data(), ref.data(), h.size()), 1e-5);
      }
      if constexpr (!tessera::is_device_space_v<E>) {
        // The host register kernel's SSE2 block, which CPUs with AVX2 and FMA
        // skip for their own.
        SCOPED_TRACE("register, the build's SSE2 block");
        Kokkos::deep_copy(out, std::numeric_limits<float>::quiet_NaN());
        const auto g = conv3d_geometry(T, H, W, k, valid ? Conv3dPadding::valid : Conv3dPadding::same);
        impl::conv3d_register_kokkos(exec, V, filter.flipped, out, g, false);
        exec.fence();
        const auto h = download(out);
        EXPECT_LE(tessera::max_relative_error(h.data(), ref.data(), h.size()), 1e-5);
      }
    }
}

// Conv3dOptions::integer_samples on 8-bit video (the tensor-core kernel on
// Cuda, the FP32 kernels elsewhere): the same 1e-5 on every backend.
TYPED_TEST(Conv3d, IntegerSamplesOptionMatchesTheDoubleLoop) {
  using E = TypeParam;
  E exec;
  for (int k : {5, 9}) {
    const int T = k + 4, H = 27, W = 150;
    const auto seed = tessera::test::fresh_seed();
    SCOPED_TRACE(std::string(E::name()) + " k = " + std::to_string(k) + ", seed = " + std::to_string(seed));
    auto hv = random_vector(std::size_t(T) * H * W, seed);
    for (auto& x : hv) x = float(int(128.f * (x + 1.f)) % 256);  // 0..255
    const auto hk = random_vector(std::size_t(k) * k * k, seed + 1);
    const auto ref = conv3d_reference(hv, hk, T, H, W, k, false);
    const auto V = upload<E>(hv, T, H, W);
    const auto filter = make_conv3d_filter(exec, upload<E>(hk, k, k, k));
    Vol<E> out("out", T - k + 1, H, W);
    Kokkos::deep_copy(out, std::numeric_limits<float>::quiet_NaN());
    Conv3dOptions opt;
    opt.integer_samples = true;
    conv3d(exec, V, filter, out, opt);
    exec.fence();
    const auto h = download(out);
    EXPECT_LE(tessera::max_relative_error(h.data(), ref.data(), h.size()), 1e-5);
  }
}

// One tap at K[m = k-1, n = 0, l = 0]: a convolution gives
// out(t, y, x) = V(t + k - 1, y + c, x - c) (c = k/2); a correlation would read
// V(t, y - c, x + c). Exact in float.
TYPED_TEST(Conv3d, AsymmetricKernelIsAConvolution) {
  using E = TypeParam;
  E exec;
  const int k = 5, c = 2, T = 7, H = 13, W = 11;
  const auto seed = tessera::test::fresh_seed();
  SCOPED_TRACE(std::string(E::name()) + ", seed = " + std::to_string(seed));
  const auto hv = random_vector(std::size_t(T) * H * W, seed);
  std::vector<float> hk(std::size_t(k) * k * k, 0.f);
  hk[(0 * k + 0) * k + (k - 1)] = 1.f;  // K(l = 0, n = 0, m = k - 1)
  auto V = upload<E>(hv, T, H, W);
  auto K = upload<E>(hk, k, k, k);
  Vol<E> out("out", T - k + 1, H, W);
  for (auto a : {Conv3dAlgorithm::baseline, Conv3dAlgorithm::shared, Conv3dAlgorithm::streaming,
                 Conv3dAlgorithm::register_blocked, Conv3dAlgorithm::automatic}) {
    SCOPED_TRACE(name(a));
    Conv3dOptions opt;
    opt.algorithm = a;
    conv3d(exec, V, K, out, opt);
    exec.fence();
    const auto h = download(out);
    int bad = 0;
    for (int t = 0; t < T - k + 1; ++t)
      for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
          const int yy = y + c, xx = x - c;
          const float want = (yy < H && xx >= 0) ? hv[(std::size_t(t + k - 1) * H + yy) * W + xx] : 0.f;
          bad += h[(std::size_t(t) * H + y) * W + x] != want;
        }
    EXPECT_EQ(bad, 0);
  }
}

TYPED_TEST(Conv3d, BadSizesThrow) {
  using E = TypeParam;
  E exec;
  Vol<E> V("V", 6, 8, 8), K4("K", 4, 4, 4), K3("K", 3, 3, 3), K17("K", 17, 17, 17);
  Vol<E> out("out", 4, 8, 8), wrong("w", 4, 8, 7);
  EXPECT_THROW(conv3d(exec, V, K4, out), std::invalid_argument);
  EXPECT_THROW(conv3d(exec, V, K17, out), std::invalid_argument);
  EXPECT_THROW(conv3d(exec, V, K3, wrong), std::invalid_argument);
  Vol<E> few("few", 2, 8, 8);
  EXPECT_THROW(conv3d(exec, few, K3, out), std::invalid_argument);
  Conv3dOptions valid;
  valid.padding = Conv3dPadding::valid;
  Vol<E> tiny("tiny", 6, 2, 8), outv("o", 4, 0, 6);
  EXPECT_THROW(conv3d(exec, tiny, K3, outv, valid), std::invalid_argument);
  EXPECT_NO_THROW(conv3d(exec, V, K3, out));
}

#if TESSERA_HAS_CUDA_NATIVE
// Both native direct kernels, called directly (the public API picks one).
TEST(Conv3dNativeCuda, StreamingAndRegisterMatchTheDoubleLoop) {
  if (tessera::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  using E = Kokkos::Cuda;
  E exec;
  for (int k : {3, 5, 7, 9, 11, 13, 15})
    for (bool valid : {false, true})
      for (bool wide : {false, true})
        for (int To : {1, 4, 5}) {
          // H spans two 64-row segments of the streaming kernel, W two or three
          // 32-column tiles; 1, 4 or 5 output frames (the register kernel takes
          // 4 or 2 a block: whole and partial blocks; one frame, the sliding
          // window's call, a shape of its own); wide rows (W % 4 == 0) take the
          // register kernel's 16-byte copies, the others its 4-byte copies; the
          // register kernel once with the device taps only and once with the
          // host copy too (at k <= 5, wide, two or more frames: the taps as
          // launch parameters, conv3d_taps_kernel).
          const int T = To + k - 1, H = valid ? 70 + k : 83, W = wide ? 72 : (valid ? 40 + k : 45);
          const auto seed = tessera::test::fresh_seed();
          SCOPED_TRACE("k = " + std::to_string(k) + (valid ? " valid" : " same") + ", W = " + std::to_string(W) +
                       ", " + std::to_string(To) + " output frames, seed = " + std::to_string(seed));
          const auto [ref, V, filter] = random_case(exec, T, H, W, k, valid, seed);
          const auto g = conv3d_geometry(T, H, W, k, valid ? Conv3dPadding::valid : Conv3dPadding::same);
          Vol<E> out("out", g.To, g.Ho, g.Wo);
          for (int which = 0; which < 3; ++which) {
            SCOPED_TRACE(which == 0 ? "streaming" : which == 1 ? "register" : "register, host taps");
            Kokkos::deep_copy(out, std::numeric_limits<float>::quiet_NaN());
            exec.fence();
            const float* kf = filter.flipped.data();
            if (which == 0)
              tessera::native_cuda::conv3d_streaming(exec.cuda_stream(), V.data(), kf, out.data(), g);
            else
              tessera::native_cuda::conv3d_register(exec.cuda_stream(), V.data(), kf, out.data(), g,
                                                    which == 2 ? filter.flipped_host.data() : nullptr);
            exec.fence();
            const auto h = download(out);
            EXPECT_LE(tessera::max_relative_error(h.data(), ref.data(), h.size()), 1e-5);
          }
        }
}

// The tensor-core kernel on 8-bit video (its precondition): every k it takes,
// whole and partial blocks in x (144 columns), y (8 rows) and t (4 frames),
// 16- and 4-byte copies, same and valid padding; taps of mixed sign and
// magnitude (the fp16 split's scale); to the FP32 kernels' 1e-5; k = 17 throws.
TEST(Conv3dNativeCuda, TensorKernelOnEightBitVideoMatchesTheDoubleLoop) {
  if (tessera::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  using E = Kokkos::Cuda;
  E exec;
  for (int k : {3, 5, 7, 9, 11, 13, 15})  // k <= 7: several kernel rows a tensor-core step
    for (bool valid : {false, true})
      for (bool wide : {false, true})
        for (int To : {1, 4, 6}) {
          const int T = To + k - 1, H = valid ? 20 + k : 21, W = wide ? 292 : (valid ? 150 + k : 149);
          const auto seed = tessera::test::fresh_seed();
          SCOPED_TRACE("k = " + std::to_string(k) + (valid ? " valid" : " same") + ", W = " + std::to_string(W) +
                       ", " + std::to_string(To) + " output frames, seed = " + std::to_string(seed));
          auto hv = random_vector(std::size_t(T) * H * W, seed);
          for (auto& x : hv) x = float(int(128.f * (x + 1.f)) % 256);  // 0..255
          auto hk = random_vector(std::size_t(k) * k * k, seed + 1);
          for (std::size_t i = 0; i < hk.size(); i += 7) hk[i] *= 1e-3f;
          const auto ref = conv3d_reference(hv, hk, T, H, W, k, valid);
          const auto V = upload<E>(hv, T, H, W);
          const auto filter = make_conv3d_filter(exec, upload<E>(hk, k, k, k));
          const auto g = conv3d_geometry(T, H, W, k, valid ? Conv3dPadding::valid : Conv3dPadding::same);
          Vol<E> out("out", g.To, g.Ho, g.Wo);
          Kokkos::deep_copy(out, std::numeric_limits<float>::quiet_NaN());
          exec.fence();
          ASSERT_TRUE(tessera::native_cuda::conv3d_tensor_supports(k));
          tessera::native_cuda::conv3d_tensor(exec.cuda_stream(), V.data(), filter.flipped.data(), out.data(), g);
          exec.fence();
          const auto h = download(out);
          EXPECT_LE(tessera::max_relative_error(h.data(), ref.data(), h.size()), 1e-5);
        }
  auto g17 = conv3d_geometry(8, 16, 16, 5, Conv3dPadding::same);
  g17.k = 17;
  EXPECT_FALSE(tessera::native_cuda::conv3d_tensor_supports(17));
  EXPECT_THROW(tessera::native_cuda::conv3d_tensor(exec.cuda_stream(), nullptr, nullptr, nullptr, g17),
               std::invalid_argument);
}
#endif

}  // namespace
