// Probe: can the direct 3-D convolution of 8-bit video run on the tensor
// cores at FP32-level accuracy, fast enough for issue 21's k = 15 goals
// (best <= 0.12 ms, direct <= 0.30 ms; the FP32 FMA kernel is capped at
// 0.176 ms by the FMA ceiling)? Paper case: k + 3 = 18 frames of 720 x 560
// -> 4 output frames, same size in x, y (zero padding), valid in t.
//
// Formulation (one k16 step covers a kernel row's 15 taps): for an input row
// (frame f, row yy) a warp computes D += A B with
//   A[j][m] = V[f][yy][x0 + j + m - 7]   (16 x 16 Hankel block of the row; fp16,
//                                          exact: the samples are 0..255)
//   B[m][c] = Kf[f - t_c][yy - y_c + 7][m] (16 x 8: the taps that join this row
//                                          to 8 outputs, 4 frames x 2 rows;
//                                          zero where out of range, m = 15 zero)
//   D[j][c] = out[t_c][y_c][x0 + j]      (fp32 accumulators)
// with mma.sync.m16n8k16 (fp16 in, fp32 accumulate). The taps are split,
// S Kf = hi + lo in fp16 (S a power of two), and each product is taken twice
// (hi, lo): ~22 bits of every tap, products exact, sums in fp32. A lane's A
// fragments are pairs of consecutive samples at offsets g + 2t + 8s of the
// staged row (g = lane / 4, t = lane % 4), all of one parity, so a second
// copy of the row shifted by one sample makes every pair one aligned 32-bit
// shared load; 8 column chunks of 16 share 17 such loads.
// The result is checked against a double-precision one-thread-per-output
// kernel (max |error| / max |out|); a single-MMA test checks the fragment
// layouts first. Written, not yet run on a GPU (docs/perf/video.md, "Next").
// By hand: nvcc -O3 -arch=sm_90 -std=c++17
// perf/experiments/conv3d_tensor_probe.cu -o probe (cuda flavour with
// -DTESSERA_BUILD_EXPERIMENTS=ON: build/cuda/perf/experiments/conv3d_tensor_probe).
#include "probe_common.cuh"

#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>
#include <cstring>

namespace {

constexpr int K = 15, HALO = K / 2, W = 720, H = 560, NF = K + 3, TO = 4;
constexpr int XC = 8;                    // 16-column chunks a warp
constexpr int BX = 16 * XC;              // 128 output columns a block
constexpr int WARPS = 4, YW = 2;         // warps a block, output rows a warp
constexpr int BY = WARPS * YW;           // 8 output rows a block
constexpr int SR = BY + K - 1;           // 22 staged input rows
constexpr int SX = BX + 16;              // 144 staged samples a row (>= BX + K - 1 + 1)
constexpr int NT = 32 * WARPS;
constexpr int PER = (SR * SX + NT - 1) / NT;  // staged samples a thread

__device__ __forceinline__ void mma16816(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__host__ __device__ inline float hash01(std::uint32_t i, std::uint32_t s) {
  std::uint32_t x = i * 2654435761u ^ (s * 0x9E3779B9u);
  x ^= x >> 16, x *= 0x7feb352du, x ^= x >> 15, x *= 0x846ca68bu, x ^= x >> 16;
  return float(x >> 8) * (1.0f / 16777216.0f);
}

__global__ void fill_video(float* v, long long n) {
  for (long long i = blockIdx.x * 256ll + threadIdx.x; i < n; i += gridDim.x * 256ll)
    v[i] = std::floor(256.0f * hash01(std::uint32_t(i), 11u));  // 8-bit samples
}

// The fragment layouts on one known product (A[i][k] = i + 2k mod 7, B[k][n] = k - n mod 5).
__global__ void layout_check(int* bad) {
  const int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
  auto av = [](int i, int k) { return __float2half(float((i + 2 * k) % 7)); };
  auto bv = [](int k, int n) { return __float2half(float(((k - n) % 5 + 5) % 5)); };
  auto pack = [](__half lo, __half hi) {
    return unsigned(__half_as_ushort(lo)) | (unsigned(__half_as_ushort(hi)) << 16);
  };
  unsigned a[4] = {pack(av(g, 2 * t), av(g, 2 * t + 1)), pack(av(g + 8, 2 * t), av(g + 8, 2 * t + 1)),
                   pack(av(g, 2 * t + 8), av(g, 2 * t + 9)), pack(av(g + 8, 2 * t + 8), av(g + 8, 2 * t + 9))};
  const unsigned b0 = pack(bv(2 * t, g), bv(2 * t + 1, g)), b1 = pack(bv(2 * t + 8, g), bv(2 * t + 9, g));
  float d[4] = {0, 0, 0, 0};
  mma16816(d, a, b0, b1);
  const int rows[4] = {g, g, g + 8, g + 8}, cols[4] = {2 * t, 2 * t + 1, 2 * t, 2 * t + 1};
  for (int q = 0; q < 4; ++q) {
    float ref = 0;
    for (int k = 0; k < 16; ++k) ref += __half2float(av(rows[q], k)) * __half2float(bv(k, cols[q]));
    if (ref != d[q]) atomicAdd(bad, 1);
  }
}

// taps: hi[l][n][16], lo[l][n][16] (m = 15 zero), fp16 of S * Kf.
__global__ void __launch_bounds__(NT) conv3d_tensor(const float* __restrict__ v, const __half* __restrict__ taps,
                                                     float inv_s, float* __restrict__ out) {
  __shared__ __align__(16) __half th[2][K][K][16];
  __shared__ __align__(16) __half st[2][2][SR][SX];  // [buffer][copy][row][sample]; copy 1 is shifted by one
  const int tid = threadIdx.x, lane = tid & 31, w = tid >> 5, g = lane >> 2, t = lane & 3;
  const int x0 = blockIdx.x * BX, y0 = blockIdx.y * BY;
  for (int i = tid; i < 2 * K * K * 16; i += NT) (&th[0][0][0][0])[i] = taps[i];
  float nxt[PER];
  auto load = [&](int f) {
#pragma unroll
    for (int q = 0; q < PER; ++q) {
      const int e = tid + q * NT, r = e / SX, i = e % SX;
      const int y = y0 - HALO + r, x = x0 - HALO + i;
      nxt[q] = (e < SR * SX && y >= 0 && y < H && x >= 0 && x < W) ? __ldg(v + (std::size_t(f) * H + y) * W + x) : 0.f;
    }
  };
  auto put = [&](int buf) {
#pragma unroll
    for (int q = 0; q < PER; ++q) {
      const int e = tid + q * NT, r = e / SX, i = e % SX;
      if (e >= SR * SX) continue;
      const __half h = __float2half(nxt[q]);
      st[buf][0][r][i] = h;
      if (i > 0) st[buf][1][r][i - 1] = h;
    }
  };
  float acc[XC][4];
#pragma unroll
  for (int c = 0; c < XC; ++c) acc[c][0] = acc[c][1] = acc[c][2] = acc[c][3] = 0.f;
  const int tt = g >> 1, yr = g & 1, par = g & 1;  // this lane's B column: output frame, row
  load(0);
  put(0);
  __syncthreads();
  for (int f = 0; f < NF; ++f) {
    const int buf = f & 1;
    if (f + 1 < NF) load(f + 1);  // in flight during this frame's MMAs
    const int l = f - tt;
    for (int r = w * YW; r < w * YW + YW + K - 1; ++r) {
      const int n = r - w * YW - yr;  // kernel row joining input row r to output row y0 + w YW + yr
      const bool ok = l >= 0 && l < K && n >= 0 && n < K;
      unsigned bh0 = 0, bh1 = 0, bl0 = 0, bl1 = 0;
      if (ok) {
        bh0 = *reinterpret_cast<const unsigned*>(&th[0][l][n][2 * t]);
        bh1 = *reinterpret_cast<const unsigned*>(&th[0][l][n][2 * t + 8]);
        bl0 = *reinterpret_cast<const unsigned*>(&th[1][l][n][2 * t]);
        bl1 = *reinterpret_cast<const unsigned*>(&th[1][l][n][2 * t + 8]);
      }
      // Pairs (i, i + 1), i = g + 2t + 8s, from the copy where i - par is even.
      const unsigned* row = reinterpret_cast<const unsigned*>(&st[buf][par][r][0]) + (g - par + 2 * t) / 2;
      unsigned p[2 * XC + 1];
#pragma unroll
      for (int s = 0; s <= 2 * XC; ++s) p[s] = row[4 * s];
#pragma unroll
      for (int c = 0; c < XC; ++c) {
        const unsigned a[4] = {p[2 * c], p[2 * c + 1], p[2 * c + 1], p[2 * c + 2]};
        mma16816(acc[c], a, bh0, bh1);
        mma16816(acc[c], a, bl0, bl1);
      }
    }
    if (f + 1 < NF) {
      put(buf ^ 1);
    }
    __syncthreads();
  }
  // D[j][c]: c0, c1 row j = g, columns 2t, 2t + 1; c2, c3 row g + 8.
  const int y = y0 + w * YW;
#pragma unroll
  for (int c = 0; c < XC; ++c)
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const int x = x0 + 16 * c + g + (q >> 1) * 8, col = 2 * t + (q & 1);
      const int to = col >> 1, yo = y + (col & 1);
      if (x < W && yo < H) out[(std::size_t(to) * H + yo) * W + x] = acc[c][q] * inv_s;
    }
}

__global__ void reference(const float* __restrict__ v, const float* __restrict__ kf, double* __restrict__ out) {
  const int x = blockIdx.x * 128 + threadIdx.x, y = blockIdx.y, t = blockIdx.z;
  if (x >= W) return;
  double s = 0;
  for (int l = 0; l < K; ++l)
    for (int n = 0; n < K; ++n) {
      const int yy = y + n - HALO;
      if (yy < 0 || yy >= H) continue;
      for (int m = 0; m < K; ++m) {
        const int xx = x + m - HALO;
        if (xx >= 0 && xx < W) s += double(v[(std::size_t(t + l) * H + yy) * W + xx]) * double(kf[(l * K + n) * K + m]);
      }
    }
  out[(std::size_t(t) * H + y) * W + x] = s;
}

}  // namespace

int main() {
  int* bad;
  CK(cudaMalloc(&bad, sizeof(int)));
  CK(cudaMemset(bad, 0, sizeof(int)));
  layout_check<<<1, 32>>>(bad);
  int nbad = 0;
  CK(cudaMemcpy(&nbad, bad, sizeof(int), cudaMemcpyDeviceToHost));
  std::printf("fragment layout check: %s (%d wrong)\n", nbad ? "FAILED" : "ok", nbad);

  const long long nv = (long long)NF * H * W, no = (long long)TO * H * W;
  float *v, *out, *kf_d;
  double* ref;
  __half* taps_d;
  CK(cudaMalloc(&v, nv * sizeof(float)));
  CK(cudaMalloc(&out, no * sizeof(float)));
  CK(cudaMalloc(&ref, no * sizeof(double)));
  CK(cudaMalloc(&kf_d, K * K * K * sizeof(float)));
  CK(cudaMalloc(&taps_d, 2 * K * K * 16 * sizeof(__half)));
  fill_video<<<1024, 256>>>(v, nv);
  // Taps in (-1, 1), split S Kf = hi + lo with S = 2^10 (|S Kf| < 1024: hi exact to 11 bits).
  std::vector<float> kf(K * K * K);
  for (int i = 0; i < K * K * K; ++i) kf[i] = 2.0f * hash01(std::uint32_t(i), 5u) - 1.0f;
  const float S = 1024.0f;
  std::vector<__half> taps(2 * K * K * 16, __float2half(0.0f));
  for (int l = 0; l < K; ++l)
    for (int n = 0; n < K; ++n)
      for (int m = 0; m < K; ++m) {
        const float x = S * kf[(l * K + n) * K + m];
        const __half hi = __float2half_rn(x);
        const __half lo = __float2half_rn(x - __half2float(hi));
        taps[((0 * K + l) * K + n) * 16 + m] = hi;
        taps[((1 * K + l) * K + n) * 16 + m] = lo;
      }
  CK(cudaMemcpy(kf_d, kf.data(), kf.size() * sizeof(float), cudaMemcpyHostToDevice));
  CK(cudaMemcpy(taps_d, taps.data(), taps.size() * sizeof(__half), cudaMemcpyHostToDevice));
  CK(cudaMemset(out, 0xff, no * sizeof(float)));
  const dim3 grid((W + BX - 1) / BX, (H + BY - 1) / BY);
  auto run = [&] { conv3d_tensor<<<grid, NT>>>(v, taps_d, 1.0f / S, out); };
  const float ms = median_ms(run);
  CK(cudaGetLastError());
  reference<<<dim3((W + 127) / 128, H, TO), 128>>>(v, kf_d, ref);
  CK(cudaDeviceSynchronize());
  std::vector<float> o(no);
  std::vector<double> rr(no);
  CK(cudaMemcpy(o.data(), out, no * sizeof(float), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(rr.data(), ref, no * sizeof(double), cudaMemcpyDeviceToHost));
  double maxref = 0, maxerr = 0;
  long long nan = 0;
  for (long long i = 0; i < no; ++i) {
    maxref = std::fmax(maxref, std::fabs(rr[i]));
    if (!std::isfinite(o[i])) ++nan;
    else maxerr = std::fmax(maxerr, std::fabs(o[i] - rr[i]));
  }
  const double flop = 2.0 * K * K * K * double(no);
  cudaDeviceProp p{};
  CK(cudaGetDeviceProperties(&p, 0));
  std::printf("# %s; k = %d, %d frames of %d x %d -> %d; fp16 taps split in two, 8-bit samples\n", p.name, K, NF, W,
              H, TO);
  std::printf("kernel,ms,useful TFLOPs,max_err_rel,nonfinite\n");
  std::printf("conv3d_tensor_2xfp16,%.4f,%.1f,%.2e,%lld\n", ms, flop / ms * 1e-9, maxerr / maxref, nan);
  return nbad || nan || maxerr / maxref > 1e-5 ? 1 : 0;
}
