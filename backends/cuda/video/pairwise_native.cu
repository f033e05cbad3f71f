// Native CUDA pairwise squared distances: a block of 16 x 16 threads owns a
// 64 x 64 tile of P and each thread 4 x 4 outputs (rows ty + 16a, columns
// tx + 16b), so each shared-memory value feeds 4 outputs (the portable
// kernel's 16 x 16 tile feeds 1). Features come in chunks of 16, stored
// feature-major with a padded stride (conflict-free stores and reads).
#include "tessera/video/pairwise_native_cuda.hpp"

#include <stdexcept>
#include <string>

namespace tessera::native_cuda {
namespace {

constexpr int kTile = 64, kChunk = 16, kSide = 16, kPer = kTile / kSide, kStride = kTile + 1;

__global__ void __launch_bounds__(kSide * kSide)
    pairwise_tiled_kernel(const float* __restrict__ F, const float* __restrict__ D, float* __restrict__ P, int m,
                          int n, int l) {
  __shared__ float fs[kChunk * kStride];
  __shared__ float ds[kChunk * kStride];
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * kSide + tx;
  const int i0 = blockIdx.y * kTile, j0 = blockIdx.x * kTile;
  float acc[kPer][kPer];
#pragma unroll
  for (int a = 0; a < kPer; ++a)
#pragma unroll
    for (int b = 0; b < kPer; ++b) acc[a][b] = 0.f;
  for (int c0 = 0; c0 < l; c0 += kChunk) {
#pragma unroll
    for (int q = 0; q < kTile * kChunk / (kSide * kSide); ++q) {
      const int e = tid + q * kSide * kSide;
      const int r = e / kChunk, c = e % kChunk;
      const bool inc = c0 + c < l;
      // Missing rows and features read 0 on both sides: they add nothing.
      fs[c * kStride + r] = (inc && i0 + r < m) ? __ldg(F + std::size_t(i0 + r) * l + c0 + c) : 0.f;
      ds[c * kStride + r] = (inc && j0 + r < n) ? __ldg(D + std::size_t(j0 + r) * l + c0 + c) : 0.f;
    }
    __syncthreads();
#pragma unroll
    for (int c = 0; c < kChunk; ++c) {
      float f[kPer], d[kPer];
#pragma unroll
      for (int a = 0; a < kPer; ++a) f[a] = fs[c * kStride + ty + kSide * a];
#pragma unroll
      for (int b = 0; b < kPer; ++b) d[b] = ds[c * kStride + tx + kSide * b];
#pragma unroll
      for (int a = 0; a < kPer; ++a)
#pragma unroll
        for (int b = 0; b < kPer; ++b) {
          const float t = f[a] - d[b];
          acc[a][b] = fmaf(t, t, acc[a][b]);
        }
    }
    __syncthreads();
  }
#pragma unroll
  for (int a = 0; a < kPer; ++a) {
    const int i = i0 + ty + kSide * a;
    if (i >= m) continue;
#pragma unroll
    for (int b = 0; b < kPer; ++b) {
      const int j = j0 + tx + kSide * b;
      if (j < n) P[std::size_t(i) * n + j] = acc[a][b];
    }
  }
}

}  // namespace

void pairwise_tiled(cudaStream_t stream, const float* F, const float* D, float* P, int m, int n, int l) {
  if (m <= 0 || n <= 0) return;
  if ((m + kTile - 1) / kTile > 65535)
    throw std::invalid_argument("pairwise native: m = " + std::to_string(m) + " is over 64 * 65535 rows");
  const dim3 grid(unsigned((n + kTile - 1) / kTile), unsigned((m + kTile - 1) / kTile));
  pairwise_tiled_kernel<<<grid, dim3(kSide, kSide), 0, stream>>>(F, D, P, m, n, l);
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) throw std::runtime_error(std::string("pairwise native: launch: ") + cudaGetErrorString(e));
}

}  // namespace tessera::native_cuda
