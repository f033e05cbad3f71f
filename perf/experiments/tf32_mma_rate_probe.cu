// Probe: how fast does the warp-level tensor-core instruction run in TF32 on
// this GPU, against the FP32 FMA pipe? The question behind it: can a
// direct 3-D convolution as an implicit GEMM with the 3xTF32 split (FP32-level
// error, three TF32 products per product) beat the FP32 FMA ceiling that caps
// the register-blocked conv3d kernel (docs/perf/video.md, "Next")?
// Every warp issues chains of eight independent mma.sync.m16n8k8 (TF32 in,
// FP32 accumulate) with operands in registers; the FMA rows use eight
// independent FMA chains a thread. TFLOP/s, median of 15 launches.
// Built with the cuda flavour and -DTESSERA_BUILD_EXPERIMENTS=ON:
// build/cuda/perf/experiments/tf32_mma_rate_probe; by hand:
// nvcc -O3 -arch=sm_90 -std=c++17 perf/experiments/tf32_mma_rate_probe.cu -o probe.
#include "probe_common.cuh"

namespace {

__device__ __forceinline__ void mma_tf32(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2]) {
#if __CUDA_ARCH__ >= 800
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
}

template <bool Mma>
__global__ void __launch_bounds__(256) rate(int iters, float* out) {
  const float x = 1.0f + threadIdx.x * 1e-7f;
  unsigned a[4], b[2];
  for (int i = 0; i < 4; ++i) a[i] = __float_as_uint(x + i);
  for (int i = 0; i < 2; ++i) b[i] = __float_as_uint(1e-7f * (x - i));
  float d[8][4] = {};
  for (int it = 0; it < iters; ++it)
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      if constexpr (Mma) {
        mma_tf32(d[j], a, b);
      } else {
#pragma unroll
        for (int q = 0; q < 4; ++q) d[j][q] = fmaf(__uint_as_float(a[q]), d[j][q], __uint_as_float(b[q & 1]));
      }
    }
  float s = 0;
  for (int j = 0; j < 8; ++j)
    for (int q = 0; q < 4; ++q) s += d[j][q];
  if (s == 1234.5f) out[0] = s;  // keeps the chains alive
}

}  // namespace

int main() {
  int dev = 0, sms = 0;
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  cudaDeviceProp p{};
  CK(cudaGetDeviceProperties(&p, dev));
  float* out;
  CK(cudaMalloc(&out, sizeof(float)));
  const int iters = 4096, grid = sms * 8;
  const double warps = double(grid) * 256 / 32;
  // Per iteration a warp does 8 MMAs of 2 x 16 x 8 x 8 flops, or 32 threads x 32 FMAs of 2 flops.
  const double mma_flop = warps * iters * 8 * 2.0 * 16 * 8 * 8, fma_flop = warps * iters * 32 * 32 * 2.0;
  const float mma_ms = median_ms([&] { rate<true><<<grid, 256>>>(iters, out); });
  const float fma_ms = median_ms([&] { rate<false><<<grid, 256>>>(iters, out); });
  CK(cudaDeviceSynchronize());
  std::printf("# %s, %d SMs\n", p.name, sms);
  std::printf("instruction,ms,TFLOPs\n");
  std::printf("mma.sync.m16n8k8.tf32,%.4f,%.1f\n", mma_ms, mma_flop / mma_ms * 1e-9);
  std::printf("fma.f32,%.4f,%.1f\n", fma_ms, fma_flop / fma_ms * 1e-9);
  std::printf("3xtf32 (a third of the TF32 rate),,%.1f\n", mma_flop / mma_ms * 1e-9 / 3);
  CK(cudaFree(out));
  return 0;
}
