// Probe: conv3d's small-k direct kernel with four output frames a block
// against the one-frame register kernel it replaces up to k = 9 (both from
// backends/cuda/video/conv3d_native.cu, included here so that the probe times
// the library's own kernels), at the paper's size: k + 3 frames of 720 x 560
// -> 4 output frames, same padding in x, y. Each kernel's output is poisoned
// with NaN, then checked against a one-thread-per-output kernel (relative
// error, NaN fails); time = median of 15 event-timed launches after 3 warm-ups.
// Built with the cuda flavour and -DTESSERA_BUILD_EXPERIMENTS=ON
// (perf/README.md): build/cuda/perf/experiments/conv3d_frames_probe; by hand:
// nvcc -O3 -arch=sm_90 -std=c++17 -Isrc -Ibackends/cuda
// perf/experiments/conv3d_frames_probe.cu -o probe.
#include "probe_common.cuh"
#include "video/conv3d_native.cu"

#include <cmath>
#include <cstdint>

namespace nc = tessera::native_cuda;

__global__ void reference(const float* v, float* out, int K, int H, int W, int shift) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, t = blockIdx.z;
  if (x >= W) return;
  float s = 0.f;
  for (int l = 0; l < K; ++l)
    for (int j = 0; j < K; ++j)
      for (int m = 0; m < K; ++m) {
        const int yy = y + shift + j, xx = x + shift + m;
        if (yy >= 0 && yy < H && xx >= 0 && xx < W)
          s = fmaf(nc::c_conv3d_kf[(l * K + j) * K + m], v[(std::size_t(t + l) * H + yy) * W + xx], s);
      }
  out[(std::size_t(t) * H + y) * W + x] = s;
}

template <int K>
void probe() {
  const int H = 560, W = 720, To = 4, T = To + K - 1, shift = -(K / 2);
  const std::size_t nin = std::size_t(T) * H * W, nout = std::size_t(To) * H * W;
  float *v, *ref, *out, *taps;
  CK(cudaMalloc(&v, nin * 4));
  CK(cudaMalloc(&ref, nout * 4));
  CK(cudaMalloc(&out, nout * 4));
  CK(cudaMalloc(&taps, K * K * K * 4));
  fill<<<unsigned((nin + 255) / 256), 256>>>(v, (long long)nin, 1u);
  fill<<<1, K * K * K>>>(taps, K * K * K, 2u);
  CK(cudaMemcpyToSymbol(nc::c_conv3d_kf, taps, K * K * K * 4, 0, cudaMemcpyDeviceToDevice));
  reference<<<dim3((W + 127) / 128, H, To), 128>>>(v, ref, K, H, W, shift);
  CK(cudaDeviceSynchronize());
  std::vector<float> r(nout), o(nout);
  CK(cudaMemcpy(r.data(), ref, nout * 4, cudaMemcpyDeviceToHost));
  auto run = [&](const char* name, auto launch) {
    CK(cudaMemset(out, 0xff, nout * 4));  // NaN
    launch();
    CK(cudaGetLastError());
    CK(cudaMemcpy(o.data(), out, nout * 4, cudaMemcpyDeviceToHost));
    double err = 0, scale = 0;
    for (std::size_t i = 0; i < nout; ++i) {
      const double d = std::fabs(double(o[i]) - r[i]);
      err = (d == d && err == err) ? std::max(err, d) : NAN;
      scale = std::max(scale, std::fabs(double(r[i])));
    }
    const float ms = median_ms(launch);
    std::printf("k = %2d  %-16s %8.4f ms  %5.1f TFLOP/s  rel. error %.1e%s\n", K, name, ms,
                2.0 * nout * K * K * K / (ms * 1e9), err / scale, err / scale < 1e-5 ? "" : "  WRONG");
  };
  const int nx = (W + nc::kTileX - 1) / nc::kTileX;
  run("one frame", [&] {
    const int ny = (H + nc::kTileY - 1) / nc::kTileY;
    nc::conv3d_register_kernel<K><<<unsigned(To * nx * ny), dim3(nc::kTileX, nc::kThreadsY)>>>(v, out, H, W, H, W,
                                                                                                shift, nx, ny);
  });
  run("four frames", [&] {
    const int ny = (H + nc::kFramesTileY - 1) / nc::kFramesTileY;
    const int nt = (To + nc::kFramesOut - 1) / nc::kFramesOut;
    nc::conv3d_frames_kernel<K><<<unsigned(nt * nx * ny), dim3(nc::kTileX, nc::kFramesTy)>>>(v, out, H, W, H, W, To,
                                                                                             shift, nx, ny);
  });
  CK(cudaFree(v));
  CK(cudaFree(ref));
  CK(cudaFree(out));
  CK(cudaFree(taps));
}

int main() {
  probe<3>();
  probe<5>();
  probe<7>();
  probe<9>();
  return 0;
}
