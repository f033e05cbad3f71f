// Probe: conv3d's register-blocked direct kernel (from
// backends/cuda/video/conv3d_native.cu, included here so that the probe times
// the library's own kernel) in the shape the library picks for each k against
// other shapes (output frames a block, stage buffers, the register cap, copy
// width, unrolling), at the paper's size: k + 3 frames of 720 x 560 -> 4
// output frames, same padding in x, y. Each kernel's output is poisoned
// with NaN, then checked against a one-thread-per-output kernel (relative
// error, NaN fails); time = median of 15 event-timed launches after 3 warm-ups.
// Arguments: the k to run (default every odd k = 3..15).
// Built with the cuda flavour and -DTESSERA_BUILD_EXPERIMENTS=ON
// (perf/README.md): build/cuda/perf/experiments/conv3d_frames_probe; by hand:
// nvcc -O3 -arch=sm_90 -std=c++17 -Isrc -Ibackends/cuda
// perf/experiments/conv3d_frames_probe.cu -o probe.
#include "probe_common.cuh"
#include "video/conv3d_native.cu"

#include <cmath>
#include <cstdint>

namespace nc = tessera::native_cuda;

// A frames-kernel shape (the fields of FramesShape): output frames a block,
// rows a thread, thread rows, stage buffers, register cap, unrolled, 4-byte copies.
template <int FO_, int R_, int TY_, int NB_, int MB_ = 1, bool UNROLL_ = false, bool NO_VEC4_ = false>
struct Shape {
  static constexpr int FO = FO_, R = R_, TY = TY_, NB = NB_, MB = MB_;
  static constexpr bool UNROLL = UNROLL_, NO_VEC4 = NO_VEC4_;
};

template <int K>
void probe() {
  const Conv3dProbeCase c(K, 4);
  const int H = c.H, W = c.W, To = c.To, shift = c.shift;
  const std::size_t nout = c.nout;
  float *v = c.v, *out = c.out, *taps = c.kf;
  auto run = [&](const char* name, auto launch) {
    double err = 0;
    const float ms = checked_median_ms(launch, out, c.ref, err);
    std::printf("k = %2d  %-16s %8.4f ms  %5.1f TFLOP/s  rel. error %.1e%s\n", K, name, ms,
                2.0 * nout * K * K * K / (ms * 1e9), err, err < 1e-5 ? "" : "  WRONG");
  };

  tessera::video::impl::Conv3dGeometry g{};
  g.k = K, g.H = H, g.W = W, g.Ho = H, g.Wo = W, g.To = To, g.shift = shift;
  run("library shape", [&] { nc::launch_frames<K>(nullptr, v, taps, out, g); });
  run("4 fr, 4-byte copies",
      [&] { nc::launch_frames<K, Shape<4, 5, 4, 3, 1, false, true>>(nullptr, v, taps, out, g); });
  run("4 fr", [&] { nc::launch_frames<K, Shape<4, 5, 4, 3>>(nullptr, v, taps, out, g); });
  if constexpr (K <= 5) {
    run("4 fr, unrolled, 2 buf", [&] { nc::launch_frames<K, Shape<4, 5, 4, 2, 1, true>>(nullptr, v, taps, out, g); });
    // Registers capped so that 5 or 6 blocks fit an SM: 644 blocks in one wave.
    run("4 fr, unrolled, 2 buf, 5 an SM",
        [&] { nc::launch_frames<K, Shape<4, 5, 4, 2, 5, true>>(nullptr, v, taps, out, g); });
    run("4 fr, unrolled, 2 buf, 6 an SM",
        [&] { nc::launch_frames<K, Shape<4, 5, 4, 2, 6, true>>(nullptr, v, taps, out, g); });
    run("4 fr, unrolled, 3 buf, 5 an SM",
        [&] { nc::launch_frames<K, Shape<4, 5, 4, 3, 5, true>>(nullptr, v, taps, out, g); });
    run("4 fr, 2 buf, 5 an SM", [&] { nc::launch_frames<K, Shape<4, 5, 4, 2, 5>>(nullptr, v, taps, out, g); });
    run("4 fr, 7 rows, unrolled, 2 buf",
        [&] { nc::launch_frames<K, Shape<4, 7, 4, 2, 1, true>>(nullptr, v, taps, out, g); });
    run("4 fr, 4 rows, unrolled, 2 buf, 6 an SM",
        [&] { nc::launch_frames<K, Shape<4, 4, 4, 2, 6, true>>(nullptr, v, taps, out, g); });
    run("2 fr, unrolled, 2 buf, 8 an SM",
        [&] { nc::launch_frames<K, Shape<2, 5, 4, 2, 8, true>>(nullptr, v, taps, out, g); });
  }
  run("2 fr, 64 reg", [&] { nc::launch_frames<K, Shape<2, 5, 4, 3, 8>>(nullptr, v, taps, out, g); });
  run("2 fr, 64 reg, 4-byte copies",
      [&] { nc::launch_frames<K, Shape<2, 5, 4, 3, 8, false, true>>(nullptr, v, taps, out, g); });
}

// Every odd k = 3..15, or the ones named on the command line.
int main(int argc, char** argv) {
  auto want = [&](int k) {
    if (argc < 2) return true;
    for (int i = 1; i < argc; ++i)
      if (std::atoi(argv[i]) == k) return true;
    return false;
  };
  if (want(3)) probe<3>();
  if (want(5)) probe<5>();
  if (want(7)) probe<7>();
  if (want(9)) probe<9>();
  if (want(11)) probe<11>();
  if (want(13)) probe<13>();
  if (want(15)) probe<15>();
  return 0;
}
