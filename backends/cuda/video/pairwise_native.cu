// Native CUDA pairwise squared distances, register-blocked as an SGEMM: a
// block of 16 x 16 threads owns a 128 x 128 tile of P and each thread 8 x 8
// outputs (rows 4 ty + {0..3} and 64 + 4 ty + {0..3}, columns likewise with
// tx), so each step over a feature takes four 16-byte shared loads for 64
// outputs (the 4 x 4 version took eight 4-byte loads for 16, and shared
// loads bounded it at 46% of the FP32 FMA rate). Features come in chunks of
// 16, stored feature-major; the next chunk's global loads are in flight while
// the current one is computed.
//   Direct form: t = f - d, acc += t t (two FP instructions per term, exact
//   differences: near-equal rows keep their small distances).
//   GEMM form: acc += f d (one FFMA per term), P = max(0, |f|^2 + |d|^2 - 2 acc);
//   the norms are summed from the values each thread stages, so no second pass.
#include "tessera/video/pairwise_native_cuda.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>

namespace tessera::native_cuda {
namespace {

constexpr int kTile = 128, kChunk = 16, kSide = 16, kThreads = kSide * kSide;
constexpr int kStride = kTile + 4;  // 16-byte rows; the transposing stores are at most 2-way conflicted

// Two blocks per SM for the direct form (128 registers, a few bytes spilled
// outside the feature loop); the GEMM form spills more at 128 and runs one
// block of eight warps with its whole state in registers.
template <bool GemmForm>
__global__ void __launch_bounds__(kThreads, GemmForm ? 1 : 2)
    pairwise_kernel(const float* __restrict__ F, const float* __restrict__ D, float* __restrict__ P, int m, int n,
                    int l, bool vec_load, bool vec_store) {
  __shared__ __align__(16) float fs[kChunk * kStride];
  __shared__ __align__(16) float ds[kChunk * kStride];
  __shared__ float fnorm[GemmForm ? kTile : 1], dnorm[GemmForm ? kTile : 1];
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * kSide + tx;
  const int i0 = blockIdx.y * kTile, j0 = blockIdx.x * kTile;
  // Staging map: features 4 sq .. 4 sq + 3 of rows sr and sr + 64 (four
  // threads read 64 contiguous bytes of a row).
  const int sq = tid % 4, sr = tid / 4;
  const float* fr[2] = {F + std::size_t(i0 + sr) * l, F + std::size_t(i0 + sr + 64) * l};
  const float* dr[2] = {D + std::size_t(j0 + sr) * l, D + std::size_t(j0 + sr + 64) * l};
  const bool fin[2] = {i0 + sr < m, i0 + sr + 64 < m}, din[2] = {j0 + sr < n, j0 + sr + 64 < n};
  float4 nf[2], nd[2];
  auto get = [&](const float* row, bool in, int c) {
    // Missing rows and features read 0 on both sides: they add nothing.
    if (vec_load && in && c < l) return __ldg(reinterpret_cast<const float4*>(row + c));
    float4 v;
    v.x = in && c < l ? __ldg(row + c) : 0.f;
    v.y = in && c + 1 < l ? __ldg(row + c + 1) : 0.f;
    v.z = in && c + 2 < l ? __ldg(row + c + 2) : 0.f;
    v.w = in && c + 3 < l ? __ldg(row + c + 3) : 0.f;
    return v;
  };
  auto fetch = [&](int c0) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      nf[h] = get(fr[h], fin[h], c0 + 4 * sq);
      nd[h] = get(dr[h], din[h], c0 + 4 * sq);
    }
  };
  float fq[2] = {0.f, 0.f}, dq[2] = {0.f, 0.f};
  float acc[8][8];
#pragma unroll
  for (int a = 0; a < 8; ++a)
#pragma unroll
    for (int b = 0; b < 8; ++b) acc[a][b] = 0.f;
  fetch(0);
  for (int c0 = 0; c0 < l; c0 += kChunk) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int r = sr + 64 * h;
      float* f = fs + 4 * sq * kStride + r;
      float* d = ds + 4 * sq * kStride + r;
      f[0] = nf[h].x, f[kStride] = nf[h].y, f[2 * kStride] = nf[h].z, f[3 * kStride] = nf[h].w;
      d[0] = nd[h].x, d[kStride] = nd[h].y, d[2 * kStride] = nd[h].z, d[3 * kStride] = nd[h].w;
      if constexpr (GemmForm) {
        fq[h] += nf[h].x * nf[h].x + nf[h].y * nf[h].y + nf[h].z * nf[h].z + nf[h].w * nf[h].w;
        dq[h] += nd[h].x * nd[h].x + nd[h].y * nd[h].y + nd[h].z * nd[h].z + nd[h].w * nd[h].w;
      }
    }
    __syncthreads();
    if (c0 + kChunk < l) fetch(c0 + kChunk);  // in flight during this chunk's arithmetic
#pragma unroll
    for (int c = 0; c < kChunk; ++c) {
      float f[8], d[8];
      const float4 f0 = *reinterpret_cast<const float4*>(fs + c * kStride + 4 * ty);
      const float4 f1 = *reinterpret_cast<const float4*>(fs + c * kStride + 64 + 4 * ty);
      const float4 d0 = *reinterpret_cast<const float4*>(ds + c * kStride + 4 * tx);
      const float4 d1 = *reinterpret_cast<const float4*>(ds + c * kStride + 64 + 4 * tx);
      f[0] = f0.x, f[1] = f0.y, f[2] = f0.z, f[3] = f0.w, f[4] = f1.x, f[5] = f1.y, f[6] = f1.z, f[7] = f1.w;
      d[0] = d0.x, d[1] = d0.y, d[2] = d0.z, d[3] = d0.w, d[4] = d1.x, d[5] = d1.y, d[6] = d1.z, d[7] = d1.w;
#pragma unroll
      for (int a = 0; a < 8; ++a)
#pragma unroll
        for (int b = 0; b < 8; ++b) {
          if constexpr (GemmForm) {
            acc[a][b] = fmaf(f[a], d[b], acc[a][b]);
          } else {
            const float t = f[a] - d[b];
            acc[a][b] = fmaf(t, t, acc[a][b]);
          }
        }
    }
    __syncthreads();
  }
  if constexpr (GemmForm) {
    // The four threads with the same sr staged the 16 features of a chunk of the same rows: sum them.
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
      for (int o = 1; o < 4; o *= 2) {
        fq[h] += __shfl_xor_sync(0xffffffffu, fq[h], o);
        dq[h] += __shfl_xor_sync(0xffffffffu, dq[h], o);
      }
    if (sq == 0)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        fnorm[sr + 64 * h] = fq[h];
        dnorm[sr + 64 * h] = dq[h];
      }
    __syncthreads();
  }
#pragma unroll
  for (int a = 0; a < 8; ++a) {
    const int ri = 4 * ty + (a & 3) + 64 * (a >> 2);
    const int i = i0 + ri;
    if (i >= m) continue;
    float* prow = P + std::size_t(i) * n;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int cj = 4 * tx + 64 * h, j = j0 + cj;
      float v[4];
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        v[e] = acc[a][4 * h + e];
        if constexpr (GemmForm) v[e] = fmaxf(0.f, fnorm[ri] + dnorm[cj + e] - 2.f * v[e]);
      }
      if (vec_store && j + 3 < n) {
        *reinterpret_cast<float4*>(prow + j) = make_float4(v[0], v[1], v[2], v[3]);
      } else {
#pragma unroll
        for (int e = 0; e < 4; ++e)
          if (j + e < n) prow[j + e] = v[e];
      }
    }
  }
}

template <bool GemmForm>
void launch(cudaStream_t stream, const float* F, const float* D, float* P, int m, int n, int l) {
  if (m <= 0 || n <= 0) return;
  if ((m + kTile - 1) / kTile > 65535)
    throw std::invalid_argument("pairwise native: m = " + std::to_string(m) + " is over 128 * 65535 rows");
  const dim3 grid(unsigned((n + kTile - 1) / kTile), unsigned((m + kTile - 1) / kTile));
  const auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; };
  const bool vec_load = l % 4 == 0 && aligned(F) && aligned(D);
  const bool vec_store = n % 4 == 0 && aligned(P);
  pairwise_kernel<GemmForm><<<grid, dim3(kSide, kSide), 0, stream>>>(F, D, P, m, n, l, vec_load, vec_store);
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) throw std::runtime_error(std::string("pairwise native: launch: ") + cudaGetErrorString(e));
}

}  // namespace

void pairwise_tiled(cudaStream_t stream, const float* F, const float* D, float* P, int m, int n, int l) {
  launch<false>(stream, F, D, P, m, n, l);
}

void pairwise_gemm_fused(cudaStream_t stream, const float* F, const float* D, float* P, int m, int n, int l) {
  launch<true>(stream, F, D, P, m, n, l);
}

}  // namespace tessera::native_cuda
