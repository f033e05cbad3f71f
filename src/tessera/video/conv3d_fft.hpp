#pragma once
// conv3d by Fourier transforms on the host (FFTW, float), the paper's two
// Fourier methods, with the same conventions as conv3d.hpp (Views indexed
// (t, y, x), true convolution, valid in t, same or valid in x and y):
//
//   3-D FOURIER: one real-to-complex 3-D transform of the whole volume, a
//     product with the kernel's spectrum, one inverse.
//   HYBRID FOURIER: a 2-D transform per frame, a complex k-tap convolution
//     along t per frequency, inverse transforms of the output frames only.
//
// Transform sizes are the smallest 2-3-5-smooth sizes that hold the linear
// convolution's needed part (W + k/2 in x for same-size output, W for valid;
// T in t for the 3-D method). Planning happens in the constructor and the
// kernel spectrum in set_kernel(), both apart from execute(), which may be
// called many times. Defined only when the library was built with FFTW
// (TESSERA_VIDEO_HAS_FFTW); not thread-safe (one plan per thread).
#include "tessera/video/conv3d.hpp"

#include <cstddef>
#include <memory>

namespace tessera::video {

// Smallest n' >= n with no prime factor above 5.
inline long long fft_smooth_size(long long n) {
  for (long long m = n < 1 ? 1 : n;; ++m) {
    long long r = m;
    for (long long p : {2, 3, 5})
      while (r % p == 0) r /= p;
    if (r == 1) return m;
  }
}

enum class Conv3dFourierMethod { fourier3d, hybrid };

#if defined(TESSERA_VIDEO_HAS_FFTW)
class Conv3dFftw {
 public:
  // threads: FFTW's threads (0: as many as OpenMP has); measure: FFTW_MEASURE
  // planning (slow, faster transforms) instead of FFTW_ESTIMATE.
  Conv3dFftw(Conv3dFourierMethod method, int T, int H, int W, int k, Conv3dPadding padding = Conv3dPadding::same,
             int threads = 0, bool measure = false);
  ~Conv3dFftw();
  Conv3dFftw(const Conv3dFftw&) = delete;
  Conv3dFftw& operator=(const Conv3dFftw&) = delete;

  // K: k^3 floats, row-major (l, n, m) = K[m, n, l] (unflipped).
  void set_kernel(const float* K);
  // V: T*H*W floats row-major (t, y, x); out: To*Ho*Wo floats.
  void execute(const float* V, float* out);

  const impl::Conv3dGeometry& geometry() const { return g_; }
  // Transform sizes (t, y, x); t is 1 for the hybrid method.
  long long nt() const;
  long long ny() const;
  long long nx() const;
  std::size_t workspace_bytes() const;  // buffers and the kernel spectrum
  // Whether FFTW_MEASURE's plans run (with measure, they are timed against
  // FFTW_ESTIMATE's on all, half and a quarter of the threads and the
  // fastest pair is kept), and on how many threads the kept plans run.
  bool measured_plan() const;
  int threads() const;
  // Median seconds of the forward and inverse transforms alone (FFTW's own
  // share of execute()), over `repeats` runs after one warm-up.
  double transforms_seconds(int repeats);

 private:
  struct State;
  impl::Conv3dGeometry g_;
  std::unique_ptr<State> s_;
};

// Host Views (LayoutRight, contiguous) through the plan.
template <class VView, class OView>
void conv3d_fftw(Conv3dFftw& plan, const VView& V, const OView& out) {
  static_assert(Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename VView::memory_space>::accessible &&
                    Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename OView::memory_space>::accessible,
                "tessera::video::conv3d_fftw: host Views only");
  const auto& g = plan.geometry();
  if (V.extent(0) != std::size_t(g.T) || V.extent(1) != std::size_t(g.H) || V.extent(2) != std::size_t(g.W) ||
      out.extent(0) != std::size_t(g.To) || out.extent(1) != std::size_t(g.Ho) || out.extent(2) != std::size_t(g.Wo))
    throw std::invalid_argument("tessera::video::conv3d_fftw: View sizes differ from the plan's");
  if (!V.span_is_contiguous() || !out.span_is_contiguous() ||
      !std::is_same_v<typename VView::array_layout, Kokkos::LayoutRight> ||
      !std::is_same_v<typename OView::array_layout, Kokkos::LayoutRight>)
    throw std::invalid_argument("tessera::video::conv3d_fftw: Views must be contiguous LayoutRight");
  plan.execute(V.data(), out.data());
}
#endif

}  // namespace tessera::video
