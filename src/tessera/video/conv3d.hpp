#pragma once
// 3-D convolution of a video with a k x k x k kernel, eq. (1) of Lin et al.:
//
//   (V * K)[x, y, t] = sum_{m,n,l} V[x - m, y - n, t - l] K[m, n, l]
//
// a true convolution (correlation libraries need K flipped). Views are
// indexed (t, y, x): V(T, H, W) float, K(k, k, k) with K(l, n, m) = K[m, n, l],
// out(To, Ho, Wo). Output is valid in t (To = T - k + 1 frames: output frame
// t uses input frames t .. t + k - 1) and, by default, same-size in x and y
// with zero padding (Ho = H, Wo = W, kernel centred); Conv3dPadding::valid
// gives Ho = H - k + 1, Wo = W - k + 1. k is odd, 3..15.
//
//   auto f = tessera::video::make_conv3d_filter(exec, K);   // flip + upload, once per kernel
//   tessera::video::conv3d(exec, V, f, out);                // queued on exec
//
// Algorithms (Conv3dOptions::algorithm): the paper's BASELINE, SHARED MEMORY
// (o = 4) and STREAMING (16 x 1 columns marching down y), and a
// register-blocked kernel. automatic picks the native CUDA register-blocked
// kernel on Kokkos::Cuda (when built; the tensor-core kernel with
// Conv3dOptions::integer_samples) and the portable register-blocked kernel
// elsewhere.
// The Fourier methods are in conv3d_fft.hpp (FFTW, host) and the native CUDA
// header (cuFFT).
#include "tessera/video/conv3d_spec.hpp"

#include <stdexcept>
#include <type_traits>
#include <string>
#include <vector>

namespace tessera::video {

enum class Conv3dPadding { same, valid };
enum class Conv3dAlgorithm { automatic, baseline, shared, streaming, register_blocked };

struct Conv3dOptions {
  Conv3dPadding padding = Conv3dPadding::same;
  Conv3dAlgorithm algorithm = Conv3dAlgorithm::automatic;
  // The caller's promise that every sample of V is an integer of magnitude
  // <= 2048 (8-bit video): automatic then takes the tensor-core kernel on
  // Kokkos::Cuda (native_cuda::conv3d_tensor, as accurate as the FP32
  // kernels for such input, 2-3x faster at k >= 11). Not checked: other
  // samples would be rounded to fp16 there. No effect elsewhere.
  bool integer_samples = false;
};

inline constexpr int conv3d_min_k = 3;
inline constexpr int conv3d_max_k = 15;

// Checks the sizes and gives the output's; throws std::invalid_argument (one line).
inline impl::Conv3dGeometry conv3d_geometry(long long T, long long H, long long W, long long k,
                                            Conv3dPadding padding) {
  auto fail = [](const std::string& why) { throw std::invalid_argument("tessera::video::conv3d: " + why); };
  if (k < conv3d_min_k || k > conv3d_max_k || k % 2 == 0)
    fail("kernel size k = " + std::to_string(k) + " must be odd, 3..15");
  if (T < k) fail(std::to_string(T) + " frames are fewer than k = " + std::to_string(k));
  const long long lo = padding == Conv3dPadding::valid ? k : 1;
  if (H < lo || W < lo)
    fail("frame " + std::to_string(W) + "x" + std::to_string(H) + " is smaller than " + std::to_string(lo) +
         "x" + std::to_string(lo));
  if (T * H * W > (1LL << 31)) fail("video of " + std::to_string(T * H * W) + " pixels is over 2^31");
  impl::Conv3dGeometry g;
  g.T = int(T), g.H = int(H), g.W = int(W), g.k = int(k);
  g.To = int(T - k + 1);
  g.Ho = padding == Conv3dPadding::valid ? int(H - k + 1) : int(H);
  g.Wo = padding == Conv3dPadding::valid ? int(W - k + 1) : int(W);
  g.shift = padding == Conv3dPadding::valid ? 0 : -int(k / 2);
  return g;
}

// The kernel as the correlation kernels use it: kf(l, j, m) = K(k-1-l, k-1-j, k-1-m),
// in the execution space's memory and, for kernels that take their taps as
// launch parameters, in host memory.
template <class MemorySpace>
struct Conv3dFilter {
  Kokkos::View<float***, Kokkos::LayoutRight, MemorySpace> flipped;
  std::vector<float> flipped_host;  // flipped, k^3 floats
  int k = 0;
};

template <class ExecSpace, class KView>
Conv3dFilter<typename ExecSpace::memory_space> make_conv3d_filter(const ExecSpace& exec, const KView& K) {
  static_assert(Kokkos::is_view<KView>::value && KView::rank == 3, "tessera::video: K must be a rank-3 View");
  static_assert(can_access_v<ExecSpace, KView>, "tessera::video: the execution space cannot access K");
  const auto k = K.extent(0);
  if (K.extent(1) != k || K.extent(2) != k)
    throw std::invalid_argument("tessera::video::conv3d: the kernel is not k x k x k");
  if (k < conv3d_min_k || k > conv3d_max_k || k % 2 == 0)
    throw std::invalid_argument("tessera::video::conv3d: kernel size k = " + std::to_string(k) + " must be odd, 3..15");
  Conv3dFilter<typename ExecSpace::memory_space> f;
  f.k = int(k);
  f.flipped = decltype(f.flipped)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::video::conv3d_kernel"),
                                  k, k, k);
  impl::conv3d_flip_kokkos(exec, K, f.flipped);
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), f.flipped);
  f.flipped_host.assign(h.data(), h.data() + h.size());
  return f;
}

namespace detail {
template <class ExecSpace, class VView, class OView>
impl::Conv3dGeometry conv3d_check(const VView& V, int k, const OView& out, Conv3dPadding padding) {
  static_assert(Kokkos::is_view<VView>::value && VView::rank == 3, "tessera::video: V must be a rank-3 View");
  static_assert(Kokkos::is_view<OView>::value && OView::rank == 3, "tessera::video: out must be a rank-3 View");
  static_assert(std::is_same_v<typename OView::value_type, float>, "tessera::video: out must hold float");
  static_assert(can_access_v<ExecSpace, VView> && can_access_v<ExecSpace, OView>,
                "tessera::video: the execution space cannot access V or out");
  const auto g = conv3d_geometry(V.extent(0), V.extent(1), V.extent(2), k, padding);
  if (out.extent(0) != std::size_t(g.To) || out.extent(1) != std::size_t(g.Ho) || out.extent(2) != std::size_t(g.Wo))
    throw std::invalid_argument("tessera::video::conv3d: out is " + std::to_string(out.extent(0)) + "x" +
                                std::to_string(out.extent(1)) + "x" + std::to_string(out.extent(2)) + ", expected " +
                                std::to_string(g.To) + "x" + std::to_string(g.Ho) + "x" + std::to_string(g.Wo));
  return g;
}
}  // namespace detail

template <class ExecSpace, class VView, class OView>
void conv3d(const ExecSpace& exec, const VView& V, const Conv3dFilter<typename ExecSpace::memory_space>& filter,
            const OView& out, const Conv3dOptions& options = {}) {
  const auto g = detail::conv3d_check<ExecSpace>(V, filter.k, out, options.padding);
  const auto& kf = filter.flipped;
  switch (options.algorithm) {
    case Conv3dAlgorithm::baseline: impl::conv3d_baseline_kokkos(exec, V, kf, out, g); break;
    case Conv3dAlgorithm::shared: impl::conv3d_shared_kokkos(exec, V, kf, out, g); break;
    case Conv3dAlgorithm::streaming: impl::conv3d_streaming_kokkos(exec, V, kf, out, g); break;
    case Conv3dAlgorithm::register_blocked: impl::conv3d_register_kokkos(exec, V, kf, out, g); break;
    case Conv3dAlgorithm::automatic:
      impl::Conv3dSpec<ExecSpace, VView, OView>::apply(exec, V, kf, filter.flipped_host.data(), out, g,
                                                       options.integer_samples);
      break;
  }
}

// One call with an unflipped kernel (flips it into a temporary each call).
template <class ExecSpace, class VView, class KView, class OView,
          class = std::enable_if_t<Kokkos::is_view<KView>::value>>
void conv3d(const ExecSpace& exec, const VView& V, const KView& K, const OView& out, const Conv3dOptions& options = {}) {
  conv3d(exec, V, make_conv3d_filter(exec, K), out, options);
}

}  // namespace tessera::video
