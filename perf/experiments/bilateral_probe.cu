// Probe: the depth-colour bilateral filter's native forms side by side at
// the paper's 800 x 600, K = 11 (issue 21: <= 0.03 ms): one pixel a thread,
// two, three or four pixels a thread with one table of the weight products;
// luma smooth (neighbours close: table loads mostly broadcasts) and random
// (worst case for bank conflicts). Each form is checked against the library's
// default kernel's output (max |difference|).
// By hand: nvcc -O3 -arch=sm_90 -std=c++17 -Isrc -Ibackends/cuda
// perf/experiments/bilateral_probe.cu -o probe.
#include "probe_common.cuh"

#include "../../backends/cuda/video/bilateral_native.cu"

#include <cmath>
#include <cstdint>

namespace {
std::uint32_t mix(std::uint32_t x) {
  x ^= x >> 16, x *= 0x7feb352du, x ^= x >> 15, x *= 0x846ca68bu, x ^= x >> 16;
  return x;
}
}  // namespace

int main() {
  const int h = 600, w = 800;
  const std::size_t n = std::size_t(h) * w;
  const auto tab = tessera::video::make_bilateral_tables(tessera::video::BilateralParams{});
  std::vector<float> d(n);
  std::vector<std::uint8_t> smooth(n), rnd(n);
  for (std::size_t i = 0; i < n; ++i) {
    const int x = int(i % w), y = int(i / w);
    smooth[i] = std::uint8_t((x + y) / 6 % 200 + mix(std::uint32_t(i)) % 16);
    rnd[i] = std::uint8_t(mix(std::uint32_t(i) + 77u));
    d[i] = mix(std::uint32_t(i) + 5u) % 10 < 4 ? 1.0f + float(smooth[i]) / 64.0f : 0.0f;
  }
  float *dd, *o, *o2;
  std::uint8_t* ld;
  CK(cudaMalloc(&dd, n * 4));
  CK(cudaMalloc(&o, n * 4));
  CK(cudaMalloc(&o2, n * 4));
  CK(cudaMalloc(&ld, n));
  CK(cudaMemcpy(dd, d.data(), n * 4, cudaMemcpyHostToDevice));
  using namespace tessera::native_cuda;
  const dim3 g1((w + kTx - 1) / kTx, (h + kTy - 1) / kTy), g2((w + kTx - 1) / kTx, (h + 2 * kTy - 1) / (2 * kTy));
  const dim3 b(kTx, kTy);
  std::printf("luma,kernel,ms,max_diff\n");
  for (int which = 0; which < 2; ++which) {
    CK(cudaMemcpy(ld, which ? rnd.data() : smooth.data(), n, cudaMemcpyHostToDevice));
    const char* lname = which ? "random" : "smooth";
    bilateral_kernel<5><<<g1, b>>>(dd, w, ld, w, o, w, h, w, tab);
    CK(cudaDeviceSynchronize());
    std::vector<float> ref(n), got(n);
    CK(cudaMemcpy(ref.data(), o, n * 4, cudaMemcpyDeviceToHost));
    auto row = [&](const char* name, auto&& launch) {
      CK(cudaMemset(o2, 0xff, n * 4));
      const float ms = median_ms(launch, 31);
      CK(cudaGetLastError());
      CK(cudaMemcpy(got.data(), o2, n * 4, cudaMemcpyDeviceToHost));
      double md = 0;
      for (std::size_t i = 0; i < n; ++i) md = std::fmax(md, std::isfinite(got[i]) ? std::fabs(got[i] - ref[i]) : 1e30);
      std::printf("%s,%s,%.4f,%.2e\n", lname, name, ms, md);
    };
    row("one_per_thread", [&] { bilateral_kernel<5><<<g1, b>>>(dd, w, ld, w, o2, w, h, w, tab); });
    row("pairs_weight_table", [&] { bilateral_rows_kernel<5, 2><<<g2, b>>>(dd, w, ld, w, o2, w, h, w, tab); });
    const dim3 g4((w + kTx - 1) / kTx, (h + 4 * kTy - 1) / (4 * kTy)), g3((w + kTx - 1) / kTx, (h + 3 * kTy - 1) / (3 * kTy));
    row("quads_weight_table", [&] { bilateral_rows_kernel<5, 4><<<g4, b>>>(dd, w, ld, w, o2, w, h, w, tab); });
    row("triples_weight_table", [&] { bilateral_rows_kernel<5, 3><<<g3, b>>>(dd, w, ld, w, o2, w, h, w, tab); });
  }
  return 0;
}
