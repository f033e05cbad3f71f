// The host Fourier methods of conv3d (FFTW) against a double-precision loop of
// eq. (1): k in {3, 5, 7}, same and valid padding, sizes that are not
// 2-3-5-smooth; the plan reused with a second kernel and a second video.
// The cuFFT versions (native CUDA builds) the same way on the GPU, and cuDNN's
// convolution where the build found cuDNN.
#include "tessera/config.hpp"
#include "tessera/core/random.hpp"
#include "tessera/core/validate.hpp"
#include "tessera/video/conv3d_fft.hpp"
#include "conv3d_reference.hpp"
#include "exec_spaces.hpp"

#include <cmath>
#include <string>
#include <vector>

#if TESSERA_HAS_CUDA_NATIVE
#include "tessera/video/conv3d_native_cuda.hpp"
#endif

namespace {

using namespace tessera::video;

using tessera::test::conv3d_reference;
using tessera::test::random_vector;

#if defined(TESSERA_VIDEO_HAS_FFTW)
TEST(Conv3dFftw, BothMethodsMatchTheDoubleLoop) {
  for (auto method : {Conv3dFourierMethod::fourier3d, Conv3dFourierMethod::hybrid})
    for (int k : {3, 5, 7})
      for (bool valid : {false, true}) {
        const int T = k + 3, H = 23, W = 31;  // 23 + k/2 and 31 + k/2 are not all smooth
        const auto seed = tessera::test::fresh_seed();
        SCOPED_TRACE(std::string(method == Conv3dFourierMethod::hybrid ? "hybrid" : "3-D") + " k = " +
                     std::to_string(k) + (valid ? " valid" : " same") + ", seed = " + std::to_string(seed));
        Conv3dFftw plan(method, T, H, W, k, valid ? Conv3dPadding::valid : Conv3dPadding::same, 2);
        const auto& g = plan.geometry();
        for (int round = 0; round < 2; ++round) {
          const auto hv = random_vector(std::size_t(T) * H * W, seed + 2 * round);
          const auto hk = random_vector(std::size_t(k) * k * k, seed + 2 * round + 1);
          plan.set_kernel(hk.data());
          std::vector<float> out(std::size_t(g.To) * g.Ho * g.Wo, -1e30f);
          plan.execute(hv.data(), out.data());
          const auto ref = conv3d_reference(hv, hk, T, H, W, k, valid);
          EXPECT_LE(tessera::max_relative_error(out.data(), ref.data(), out.size()), 1e-4);
        }
      }
}

TEST(Conv3dFftw, SmoothSizes) {
  EXPECT_EQ(fft_smooth_size(1), 1);
  EXPECT_EQ(fft_smooth_size(7), 8);
  EXPECT_EQ(fft_smooth_size(567), 576);
  EXPECT_EQ(fft_smooth_size(727), 729);
  EXPECT_THROW(Conv3dFftw(Conv3dFourierMethod::hybrid, 4, 8, 8, 5), std::invalid_argument);
}

#endif

#if TESSERA_HAS_CUDA_NATIVE
// One case's video and kernel on the device, and its output (NaN until written).
struct DeviceCase {
  using Dev = Kokkos::View<float*, Kokkos::CudaSpace>;
  using Host = Kokkos::View<float*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  Dev v, K, out;
  DeviceCase(std::vector<float>& hv, std::vector<float>& hk, const impl::Conv3dGeometry& g)
      : v("v", hv.size()), K("K", hk.size()), out("out", std::size_t(g.To) * g.Ho * g.Wo) {
    Kokkos::deep_copy(v, Host(hv.data(), hv.size()));
    Kokkos::deep_copy(K, Host(hk.data(), hk.size()));
    Kokkos::deep_copy(out, std::nanf(""));
  }
  std::vector<float> output() const {
    Kokkos::fence();
    std::vector<float> h(out.size());
    Kokkos::deep_copy(Host(h.data(), h.size()), out);
    return h;
  }
};

TEST(Conv3dCufft, BothMethodsMatchTheDoubleLoop) {
  if (tessera::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  Kokkos::Cuda exec;
  for (bool hybrid : {false, true})
    for (int k : {3, 5, 7})
      for (bool valid : {false, true}) {
        const int T = k + 3, H = 23, W = 31;
        const auto seed = tessera::test::fresh_seed();
        SCOPED_TRACE(std::string(hybrid ? "hybrid" : "3-D") + " k = " + std::to_string(k) +
                     (valid ? " valid" : " same") + ", seed = " + std::to_string(seed));
        const auto g = conv3d_geometry(T, H, W, k, valid ? Conv3dPadding::valid : Conv3dPadding::same);
        tessera::native_cuda::Conv3dCufft plan(hybrid, g, exec.cuda_stream());
        for (int round = 0; round < 2; ++round) {
          auto hv = random_vector(std::size_t(T) * H * W, seed + 2 * round);
          auto hk = random_vector(std::size_t(k) * k * k, seed + 2 * round + 1);
          DeviceCase d(hv, hk, g);
          plan.set_kernel(d.K.data());
          plan.execute(d.v.data(), d.out.data());
          const auto h = d.output();
          const auto ref = conv3d_reference(hv, hk, T, H, W, k, valid);
          EXPECT_LE(tessera::max_relative_error(h.data(), ref.data(), h.size()), 1e-4);
        }
      }
}
#endif

#if TESSERA_HAS_CUDA_NATIVE && defined(TESSERA_VIDEO_HAS_CUDNN)
TEST(Conv3dCudnn, MatchesTheDoubleLoop) {
  if (tessera::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  Kokkos::Cuda exec;
  for (bool tf32 : {false, true})
    for (int k : {3, 5, 7})
      for (bool valid : {false, true}) {
        const int T = k + 3, H = 23, W = 31;
        const auto seed = tessera::test::fresh_seed();
        SCOPED_TRACE(std::string(tf32 ? "TF32 " : "FMA ") + "k = " + std::to_string(k) + (valid ? " valid" : " same") +
                     ", seed = " + std::to_string(seed));
        const auto g = conv3d_geometry(T, H, W, k, valid ? Conv3dPadding::valid : Conv3dPadding::same);
        auto hv = random_vector(std::size_t(T) * H * W, seed);
        auto hk = random_vector(std::size_t(k) * k * k, seed + 1);
        DeviceCase d(hv, hk, g);
        tessera::native_cuda::Conv3dCudnn plan(g, exec.cuda_stream(), d.v.data(), d.out.data(), tf32);
        Kokkos::deep_copy(d.out, std::nanf(""));  // the algorithm search wrote it: the result must come from execute
        plan.set_kernel(d.K.data());
        plan.execute(d.v.data(), d.out.data());
        const auto h = d.output();
        const auto ref = conv3d_reference(hv, hk, T, H, W, k, valid);
        // TF32 rounds each operand to a 10-bit mantissa.
        EXPECT_LE(tessera::max_relative_error(h.data(), ref.data(), h.size()), tf32 ? 5e-3 : 1e-4) << plan.algorithm();
      }
}
#endif

}  // namespace
