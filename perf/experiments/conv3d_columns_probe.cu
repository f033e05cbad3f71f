// Probe: conv3d at small k, the register kernel with the taps as kernel
// parameters and the frames staged by the copy engine (conv3d_taps_kernel of
// backends/cuda/video/conv3d_native.cu, included here so that the probe
// times the library's own kernels) in the library's shape and others, beside
// the register kernel with the taps in shared memory (conv3d_frames_kernel),
// an empty launch (the fixed cost in every event-timed number) and the SM
// clock as a kernel sees it, cold and after 0.1 s of load. Paper size: k + 3
// frames of 720 x 560 -> 4 output frames (or the count given), same padding;
// outputs poisoned with NaN, then checked against a one-thread-per-output
// kernel (conv3d_reference); median of 15 event-timed launches after 3
// warm-ups.
// Arguments: k (3 or 5; default 5), output frames (default 4).
// nvcc -O3 -arch=sm_90 -std=c++17 -Isrc -Ibackends/cuda
// perf/experiments/conv3d_columns_probe.cu -o probe.
#include "probe_common.cuh"
#include "video/conv3d_native.cu"

#include <cmath>
#include <cstdint>
#include <cstring>

namespace nc = tessera::native_cuda;

// A shape of conv3d_taps_kernel (the fields of TapsShape): output frames a
// block, rows a thread, thread rows, stage buffers, blocks an SM asked of the
// register allocator.
template <int FO_, int R_, int TY_, int NB_, int MB_>
struct Shape {
  static constexpr int FO = FO_, R = R_, TY = TY_, NB = NB_, MB = MB_;
};

__global__ void empty_kernel() {}

// The SM clock as one thread sees it: clock64 cycles over globaltimer ns
// across a spin of `cycles`.
__global__ void clock_kernel(long long cycles, double* mhz) {
  long long t0, t1;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  const long long c0 = clock64();
  while (clock64() - c0 < cycles) {
  }
  const long long c1 = clock64();
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
  *mhz = double(c1 - c0) * 1e3 / double(t1 - t0);
}

double sm_mhz(long long cycles) {
  double* d;
  double h = 0;
  CK(cudaMalloc(&d, sizeof h));
  clock_kernel<<<1, 1>>>(cycles, d);
  CK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
  CK(cudaFree(d));
  return h;
}

// Every SM busy for `cycles` clocks (the clock ramps up under load).
__global__ void busy_kernel(long long cycles) {
  const long long c0 = clock64();
  while (clock64() - c0 < cycles) {
  }
}

template <int K>
void probe(int To) {
  const Conv3dProbeCase c(K, To);
  const int H = c.H, W = c.W, T = To + K - 1, shift = c.shift;
  const std::size_t nout = c.nout;
  float *v = c.v, *out = c.out, *kf = c.kf;
  nc::Conv3dTaps<K> taps;
  CK(cudaMemcpy(taps.w, kf, sizeof taps.w, cudaMemcpyDeviceToHost));
  auto run = [&](const char* name, auto launch) {
    double err = 0;
    const float ms = checked_median_ms(launch, out, c.ref, err);
    std::printf("k = %2d To = %d  %-34s %8.4f ms  %5.1f TFLOP/s  rel. error %.1e%s\n", K, To, name, ms,
                2.0 * nout * K * K * K / (ms * 1e9), err, err < 1e-5 ? "" : "  WRONG");
  };

  tessera::video::impl::Conv3dGeometry g{};
  g.k = K, g.T = T, g.H = H, g.W = W, g.Ho = H, g.Wo = W, g.To = To, g.shift = shift;
  auto shape = [&](const char* name, auto sh) {
    using S = decltype(sh);
    run(name, [&] {
      if (!nc::launch_taps<K, S>(nullptr, v, taps.w, out, g)) std::fprintf(stderr, "%s: no tensor map\n", name);
    });
  };
  for (int pass = 0; pass < 2; ++pass) {
    if (pass == 1) {
      busy_kernel<<<1056, 128>>>(200000000LL);  // ~0.1 s of every SM busy
      CK(cudaDeviceSynchronize());
    }
    std::printf("pass %d (%s): SM clock %.0f MHz\n", pass, pass ? "after 0.1 s busy" : "cold", sm_mhz(2000000));
    std::printf("k = %2d To = %d  %-34s %8.4f ms\n", K, To, "empty launch, 644 blocks",
                median_ms([&] { empty_kernel<<<644, 128>>>(); }));
    std::printf("k = %2d To = %d  %-34s %8.4f ms\n", K, To, "empty launch, 1 block",
                median_ms([&] { empty_kernel<<<1, 32>>>(); }));
    run("taps in shared memory", [&] { nc::launch_frames<K>(nullptr, v, kf, out, g); });
    shape("parameters (library)", nc::TapsShape<K>{});
    shape("parameters, 3 buf", Shape<4, 5, 4, 3, 5>{});
    shape("parameters, 3 buf, 6/SM", Shape<4, 5, 4, 3, 6>{});
    shape("parameters, 6/SM", Shape<4, 5, 4, 2, 6>{});
    shape("parameters, 2 fr, 8/SM", Shape<2, 5, 4, 2, 8>{});
    shape("parameters, 64 thr, 10/SM", Shape<4, 5, 2, 2, 10>{});
    std::printf("pass %d: SM clock after %.0f MHz\n", pass, sm_mhz(2000000));
  }
}

int main(int argc, char** argv) {
  const int k = argc > 1 ? std::atoi(argv[1]) : 5;
  const int To = argc > 2 ? std::atoi(argv[2]) : 4;
  if (To < 1 || To > 64) {
    std::fprintf(stderr, "usage: %s [k = 3 | 5] [output frames, 1..64]\n", argv[0]);
    return 2;
  }
  if (k == 3)
    probe<3>(To);
  else if (k == 5)
    probe<5>(To);
  else {
    std::fprintf(stderr, "usage: %s [k = 3 | 5] [output frames, 1..64]\n", argv[0]);
    return 2;
  }
  return 0;
}
