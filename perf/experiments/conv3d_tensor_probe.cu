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
// By hand: nvcc -O3 -arch=sm_90 -std=c++17 -Isrc
// perf/experiments/conv3d_tensor_probe.cu -o probe (cuda flavour with
// -DTESSERA_BUILD_EXPERIMENTS=ON: build/cuda/perf/experiments/conv3d_tensor_probe).
#include "probe_common.cuh"
// The library's kernel, measured beside the probe's forms in the same run.
#include "../../backends/cuda/video/conv3d_tensor.cu"

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
  asm(
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

// Second form: the staged frame arrives by 16-byte cp.async into an fp32
// buffer while the tensor cores work on the previous one (no prefetch
// registers: 3 blocks an SM instead of 2), converted to the two fp16 copies
// at the frame's end; 9 column chunks (144 outputs) split 720 into whole
// blocks; each frame's products summed in fresh accumulators and added to
// the totals in FP32 (shorter tensor-core accumulation chains).
namespace v2 {
constexpr int XC = 9, BX = 16 * XC, SX = BX + 16, SF = SX + 4;  // SF: fp32 row, origin x0 - 8
constexpr int CH = SF / 4;                                         // 16-byte chunks a row
constexpr int CS = (SR * SX / 64 * 64) + 32 + 64 * (SR * SX % 64 != 0);  // halves from copy 0 to copy 1, = 32 mod 64
static_assert(SF % 4 == 0 && BX % 4 == 0 && W % 4 == 0, "16-byte staging");

__device__ __forceinline__ void cp16(void* dst, const void* src, bool ok) {
  const unsigned d = unsigned(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d), "l"(src), "r"(ok ? 16 : 0));
}

__device__ __forceinline__ unsigned lds(const unsigned* p) {  // not merged with an equal load
  unsigned x;
  asm volatile("ld.shared.u32 %0, [%1];\n" : "=r"(x) : "r"(unsigned(__cvta_generic_to_shared(p))));
  return x;
}

template <int MINB, bool BRANCHLESS = false, bool QUADS = false>
__global__ void __launch_bounds__(NT, MINB) conv3d_tensor(const float* __restrict__ v, const __half* __restrict__ taps,
                                                          float inv_s, float* __restrict__ out) {
  extern __shared__ __align__(16) unsigned char smem[];
  auto th = reinterpret_cast<__half(*)[K][K][16]>(smem);                              // [2][K][K][16]
  // The two copies [SR][SX] apart by CS halves: same-word offsets of the copies fall in banks 16 apart.
  __half* const st0 = reinterpret_cast<__half*>(smem + 2 * K * K * 16 * 2);
  auto st = [&](int c, int r, int i) -> __half& { return st0[c * CS + r * SX + i]; };
  auto sf = reinterpret_cast<float(*)[SF]>(smem + 2 * K * K * 16 * 2 + 2 * CS * 2);  // [SR][SF]
  const int tid = threadIdx.x, lane = tid & 31, w = tid >> 5, g = lane >> 2, t = lane & 3;
  const int x0 = blockIdx.x * BX, y0 = blockIdx.y * BY;
  for (int i = tid; i < 2 * K * K * 16; i += NT) (&th[0][0][0][0])[i] = taps[i];
  auto issue = [&](int f) {
    for (int e = tid; e < SR * CH; e += NT) {
      const int r = e / CH, c = e % CH, y = y0 - HALO + r, x = x0 - 8 + 4 * c;
      const bool ok = y >= 0 && y < H && x >= 0 && x < W;
      cp16(&sf[r][4 * c], ok ? v + (std::size_t(f) * H + y) * W + x : v, ok);
    }
    asm volatile("cp.async.commit_group;\n");
  };
  // copy 0 [i] = V[x0 - 7 + i] = sf[i + 1]; copy 1 [i] = sf[i + 2]; two pairs of each a task.
  auto convert = [&] {
    for (int e = tid; e < SR * (SX / 4); e += NT) {
      const int r = e / (SX / 4), q = e % (SX / 4);
      const float4 a = *reinterpret_cast<const float4*>(&sf[r][4 * q]);
      const float2 b = *reinterpret_cast<const float2*>(&sf[r][4 * q + 4]);
      const __half2 c0 = __floats2half2_rn(a.y, a.z), c1 = __floats2half2_rn(a.w, b.x);
      const __half2 d0 = __floats2half2_rn(a.z, a.w), d1 = __floats2half2_rn(b.x, b.y);
      *reinterpret_cast<uint2*>(&st(0, r, 4 * q)) = make_uint2(*reinterpret_cast<const unsigned*>(&c0),
                                                              *reinterpret_cast<const unsigned*>(&c1));
      *reinterpret_cast<uint2*>(&st(1, r, 4 * q)) = make_uint2(*reinterpret_cast<const unsigned*>(&d0),
                                                              *reinterpret_cast<const unsigned*>(&d1));
    }
  };
  float acc[XC][4];
#pragma unroll
  for (int c = 0; c < XC; ++c) acc[c][0] = acc[c][1] = acc[c][2] = acc[c][3] = 0.f;
  const int tt = g >> 1, yr = g & 1, par = g & 1;
  issue(0);
  asm volatile("cp.async.wait_all;\n");
  __syncthreads();
  convert();
  __syncthreads();
  if (NF > 1) issue(1);
  for (int f = 0; f < NF; ++f) {
    const int l = f - tt;
    float part[XC][4];
#pragma unroll
    for (int c = 0; c < XC; ++c) part[c][0] = part[c][1] = part[c][2] = part[c][3] = 0.f;
    for (int r = w * YW; r < w * YW + YW + K - 1; ++r) {
      const int n = r - w * YW - yr;
      const bool ok = l >= 0 && l < K && n >= 0 && n < K;
      unsigned bh0 = 0, bh1 = 0, bl0 = 0, bl1 = 0;
      if (BRANCHLESS) {  // loads from a clamped index, zeros selected
        const int li = ok ? l : 0, ni = ok ? n : 0;
        bh0 = *reinterpret_cast<const unsigned*>(&th[0][li][ni][2 * t]);
        bh1 = *reinterpret_cast<const unsigned*>(&th[0][li][ni][2 * t + 8]);
        bl0 = *reinterpret_cast<const unsigned*>(&th[1][li][ni][2 * t]);
        bl1 = *reinterpret_cast<const unsigned*>(&th[1][li][ni][2 * t + 8]);
        bh0 = ok ? bh0 : 0u, bh1 = ok ? bh1 : 0u, bl0 = ok ? bl0 : 0u, bl1 = ok ? bl1 : 0u;
      } else if (ok) {
        bh0 = *reinterpret_cast<const unsigned*>(&th[0][l][n][2 * t]);
        bh1 = *reinterpret_cast<const unsigned*>(&th[0][l][n][2 * t + 8]);
        bl0 = *reinterpret_cast<const unsigned*>(&th[1][l][n][2 * t]);
        bl1 = *reinterpret_cast<const unsigned*>(&th[1][l][n][2 * t + 8]);
      }
      const unsigned* row = reinterpret_cast<const unsigned*>(&st(par, r, 0)) + (g - par + 2 * t) / 2;
      if (QUADS) {  // each chunk's fragment loaded into its own registers: no moves into quads
#pragma unroll
        for (int c = 0; c < XC; ++c) {
          const unsigned a[4] = {lds(row + 8 * c), lds(row + 8 * c + 4), lds(row + 8 * c + 4), lds(row + 8 * c + 8)};
          mma16816(part[c], a, bh0, bh1);
          mma16816(part[c], a, bl0, bl1);
        }
      } else {
      unsigned p[2 * XC + 1];
#pragma unroll
      for (int s = 0; s <= 2 * XC; ++s) p[s] = row[4 * s];
      // All high parts, then all low ones: a chunk's two products are 9 MMAs apart.
#pragma unroll
      for (int c = 0; c < XC; ++c) {
        const unsigned a[4] = {p[2 * c], p[2 * c + 1], p[2 * c + 1], p[2 * c + 2]};
        mma16816(part[c], a, bh0, bh1);
      }
#pragma unroll
      for (int c = 0; c < XC; ++c) {
        const unsigned a[4] = {p[2 * c], p[2 * c + 1], p[2 * c + 1], p[2 * c + 2]};
        mma16816(part[c], a, bl0, bl1);
      }
      }
    }
#pragma unroll
    for (int c = 0; c < XC; ++c)
#pragma unroll
      for (int q = 0; q < 4; ++q) acc[c][q] += part[c][q];
    if (f + 1 < NF) {
      asm volatile("cp.async.wait_all;\n");
      __syncthreads();
      convert();
      __syncthreads();
      if (f + 2 < NF) issue(f + 2);
    }
  }
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
constexpr int SMEM = 2 * K * K * 16 * 2 + 2 * CS * 2 + SR * SF * 4;
}  // namespace v2

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
  reference<<<dim3((W + 127) / 128, H, TO), 128>>>(v, kf_d, ref);
  CK(cudaDeviceSynchronize());
  std::vector<double> rr(no);
  CK(cudaMemcpy(rr.data(), ref, no * sizeof(double), cudaMemcpyDeviceToHost));
  const double flop = 2.0 * K * K * K * double(no);
  cudaDeviceProp p{};
  CK(cudaGetDeviceProperties(&p, 0));
  std::printf("# %s; k = %d, %d frames of %d x %d -> %d; fp16 taps split in two, 8-bit samples\n", p.name, K, NF, W,
              H, TO);
  std::printf("kernel,ms,useful TFLOPs,max_err_rel,nonfinite\n");
  int fails = nbad;
  auto check = [&](const char* name, auto&& run) {
    CK(cudaMemset(out, 0xff, no * sizeof(float)));
    const float ms = median_ms(run);
    CK(cudaGetLastError());
    std::vector<float> o(no);
    CK(cudaMemcpy(o.data(), out, no * sizeof(float), cudaMemcpyDeviceToHost));
    double maxref = 0, maxerr = 0;
    long long nan = 0;
    for (long long i = 0; i < no; ++i) {
      maxref = std::fmax(maxref, std::fabs(rr[i]));
      if (!std::isfinite(o[i])) ++nan;
      else maxerr = std::fmax(maxerr, std::fabs(o[i] - rr[i]));
    }
    std::printf("%s,%.4f,%.1f,%.2e,%lld\n", name, ms, flop / ms * 1e-9, maxerr / maxref, nan);
    fails += nan || maxerr / maxref > 1e-5;
  };
  check("regs_prefetch_8chunks", [&] { conv3d_tensor<<<grid, NT>>>(v, taps_d, 1.0f / S, out); });
  CK(cudaFuncSetAttribute(v2::conv3d_tensor<3>, cudaFuncAttributeMaxDynamicSharedMemorySize, v2::SMEM));
  const dim3 grid2((W + v2::BX - 1) / v2::BX, (H + BY - 1) / BY);
  check("cpasync_9chunks_framesums_3blocks",
        [&] { v2::conv3d_tensor<3><<<grid2, NT, v2::SMEM>>>(v, taps_d, 1.0f / S, out); });
  CK(cudaFuncSetAttribute(v2::conv3d_tensor<3, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, v2::SMEM));
  check("cpasync_9chunks_framesums_3blocks_branchless_taps",
        [&] { v2::conv3d_tensor<3, true><<<grid2, NT, v2::SMEM>>>(v, taps_d, 1.0f / S, out); });
  tessera::video::impl::Conv3dGeometry geo;
  geo.T = NF, geo.H = H, geo.W = W, geo.k = K, geo.To = TO, geo.Ho = H, geo.Wo = W, geo.shift = -HALO;
  CK(cudaFuncSetAttribute(v2::conv3d_tensor<3, true, true>, cudaFuncAttributeMaxDynamicSharedMemorySize, v2::SMEM));
  check("cpasync_9chunks_framesums_3blocks_branchless_quads",
        [&] { v2::conv3d_tensor<3, true, true><<<grid2, NT, v2::SMEM>>>(v, taps_d, 1.0f / S, out); });
  check("library_conv3d_tensor", [&] { tessera::native_cuda::conv3d_tensor(0, v, kf_d, out, geo); });
  // The library kernel's other shapes: chunks a warp, blocks an SM.
  check("library_5chunks_5blocks", [&] { tessera::native_cuda::launch_tensor<K, 5, 5>(0, v, kf_d, out, geo); });
  check("library_5chunks_4blocks", [&] { tessera::native_cuda::launch_tensor<K, 5, 4>(0, v, kf_d, out, geo); });
  check("library_3chunks_6blocks", [&] { tessera::native_cuda::launch_tensor<K, 3, 6>(0, v, kf_d, out, geo); });
  check("library_9chunks_4blocks", [&] { tessera::native_cuda::launch_tensor<K, 9, 4>(0, v, kf_d, out, geo); });
  return fails ? 1 : 0;
}
