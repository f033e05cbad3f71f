#pragma once
// Whole-video sliding-window conv3d: frames go in one at a time and, from the
// k-th on, each one completes a window of the last k frames, whose output
// frame is computed once (a clip of F frames gives its F - k + 1 valid
// frames; a long clip never has to fit in memory).
//
//   tessera::video::Conv3dWindow<Kokkos::Cuda> w(H, W, filter, options);
//   for each frame f (a 2-D View of any arithmetic type, (H, W)):
//     w.push(exec, f);                             // into the ring, as float
//     if (w.ready()) w.compute(exec, out);         // out (Ho, Wo): window [t - k + 1, t]
//
// The last k frames stay resident in a ring of 2k float frames where frame t
// is written to slots t mod k and t mod k + k: the window then always is k
// consecutive slots (from (t + 1) mod k), a contiguous LayoutRight subview,
// so every conv3d algorithm runs on it unchanged (the native CUDA kernel on
// Kokkos::Cuda through the automatic algorithm). The second copy costs one
// frame write per push instead of a k-frame gather per output.
#include "tessera/video/conv3d.hpp"

#include <Kokkos_Core.hpp>

#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace tessera::video {

template <class ExecSpace>
class Conv3dWindow {
 public:
  using memory_space = typename ExecSpace::memory_space;
  using Ring = Kokkos::View<float***, Kokkos::LayoutRight, memory_space>;

  Conv3dWindow(int H, int W, const Conv3dFilter<memory_space>& filter, const Conv3dOptions& options = {})
      : filter_(filter), options_(options) {
    g_ = conv3d_geometry(filter.k, H, W, filter.k, options.padding);  // checks k and the frame size
    ring_ = Ring(Kokkos::view_alloc(Kokkos::WithoutInitializing, "tessera::video::conv3d_window_ring"), 2 * filter.k,
                 H, W);
  }

  int k() const { return filter_.k; }
  int height() const { return g_.H; }
  int width() const { return g_.W; }
  int output_height() const { return g_.Ho; }
  int output_width() const { return g_.Wo; }
  long long frames_pushed() const { return pushed_; }
  // True once k frames are in: compute() gives the window ending at the last push.
  bool ready() const { return pushed_ >= filter_.k; }
  // Starts a new clip (the ring's frames are forgotten).
  void reset() { pushed_ = 0; }

  // Converts frame (H, W) to float into both of its ring slots, queued on exec.
  template <class FrameView>
  void push(const ExecSpace& exec, const FrameView& frame) {
    static_assert(Kokkos::is_view<FrameView>::value && FrameView::rank == 2, "tessera::video: a frame is a rank-2 View");
    static_assert(can_access_v<ExecSpace, FrameView>, "tessera::video: the execution space cannot access the frame");
    if (frame.extent(0) != std::size_t(g_.H) || frame.extent(1) != std::size_t(g_.W))
      throw std::invalid_argument("tessera::video::Conv3dWindow: frame is " + std::to_string(frame.extent(1)) + "x" +
                                  std::to_string(frame.extent(0)) + ", expected " + std::to_string(g_.W) + "x" +
                                  std::to_string(g_.H));
    const int k = filter_.k, W = g_.W;
    const int s = int(pushed_ % k);
    auto ring = ring_;
    Kokkos::parallel_for(
        "tessera::video::conv3d_window_push",
        Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, std::int64_t(g_.H) * W),
        KOKKOS_LAMBDA(const std::int64_t i) {
          const int y = int(i / W), x = int(i % W);
          const float v = float(frame(y, x));
          ring(s, y, x) = v;
          ring(s + k, y, x) = v;
        });
    ++pushed_;
  }

  // The output frame of the window ending at the last push, queued on exec.
  // out (Ho, Wo) float, contiguous row-major.
  template <class OutView>
  void compute(const ExecSpace& exec, const OutView& out) const {
    static_assert(Kokkos::is_view<OutView>::value && OutView::rank == 2, "tessera::video: out must be a rank-2 View");
    static_assert(std::is_same_v<typename OutView::value_type, float>, "tessera::video: out must hold float");
    static_assert(std::is_same_v<typename OutView::memory_space, memory_space>,
                  "tessera::video: out must be in the execution space's memory");
    if (!ready())
      throw std::invalid_argument("tessera::video::Conv3dWindow: " + std::to_string(pushed_) +
                                  " frames pushed, a window needs k = " + std::to_string(filter_.k));
    if (out.extent(0) != std::size_t(g_.Ho) || out.extent(1) != std::size_t(g_.Wo) || !out.span_is_contiguous())
      throw std::invalid_argument("tessera::video::Conv3dWindow: out must be a contiguous " + std::to_string(g_.Wo) +
                                  "x" + std::to_string(g_.Ho) + " frame");
    const int k = filter_.k;
    const int first = int(pushed_ % k);  // slot of frame t - k + 1 (t the last push)
    const auto window = Kokkos::subview(ring_, std::make_pair(first, first + k), Kokkos::ALL, Kokkos::ALL);
    // Kept LayoutRight: the native kernels' dispatch takes it.
    static_assert(std::is_same_v<typename decltype(window)::array_layout, Kokkos::LayoutRight>);
    const Kokkos::View<float***, Kokkos::LayoutRight, memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>> out3(
        out.data(), 1, g_.Ho, g_.Wo);
    conv3d(exec, window, filter_, out3, options_);
  }

 private:
  Conv3dFilter<memory_space> filter_;
  Conv3dOptions options_;
  impl::Conv3dGeometry g_;
  Ring ring_;
  long long pushed_ = 0;
};

}  // namespace tessera::video
