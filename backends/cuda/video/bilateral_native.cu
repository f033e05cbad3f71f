// Native CUDA depth-colour bilateral filter: a 32x8 block stages its tile of
// (depth, luma) pairs with the K/2 halo and the range table in shared
// memory; each thread filters one pixel. Per tap: one 8-byte shared load,
// one table load, the spatial weight a constant for K = 11.
#include "tessera/video/bilateral_native_cuda.hpp"

#include "common/reduce_workspace.cuh"

namespace tessera::native_cuda {
namespace {

constexpr int kTx = 32, kTy = 8;
constexpr int kMaxR = video::kMaxBilateralK / 2;
constexpr int kMaxS = (kTx + 2 * kMaxR) * (kTy + 2 * kMaxR);

// R >= 0: the radius at compile time (the default K = 11): the window is
// unrolled, so the spatial weights are constant-bank operands of the FMAs;
// R < 0: any radius at run time, spatial weights from shared memory.
template <int R>
__global__ void __launch_bounds__(kTx* kTy)
    bilateral_kernel(const float* __restrict__ depth, std::int64_t ldd, const std::uint8_t* __restrict__ luma,
                     std::int64_t ldl, float* __restrict__ out, std::int64_t ldo, int h, int w,
                     const video::BilateralTables tab) {
  __shared__ float2 tile[kMaxS];  // (depth or 0 when unknown, luma): one 8-byte load per tap
  __shared__ float gs[video::kBilateralSpatialSize];
  __shared__ float gr[256];
  const int r = R >= 0 ? R : tab.radius, sx = kTx + 2 * r, sy = kTy + 2 * r;
  const int x0 = blockIdx.x * kTx, y0 = blockIdx.y * kTy;
  const int tid = threadIdx.y * kTx + threadIdx.x;
  for (int i = tid; i < sx * sy; i += kTx * kTy) {
    const int y = y0 - r + i / sx, x = x0 - r + i % sx;
    const bool in = y >= 0 && y < h && x >= 0 && x < w;
    const float v = in ? __ldg(depth + std::int64_t(y) * ldd + x) : 0.0f;
    tile[i] = make_float2(v > 0.0f ? v : 0.0f, in ? float(__ldg(luma + std::int64_t(y) * ldl + x)) : 0.0f);
  }
  if (R < 0)
    for (int i = tid; i < 2 * r * r + 1; i += kTx * kTy) gs[i] = tab.spatial[i];
  for (int i = tid; i < 256; i += kTx * kTy) gr[i] = tab.range[i];
  __syncthreads();
  const int x = x0 + threadIdx.x, y = y0 + threadIdx.y;
  if (x >= w || y >= h) return;
  const float ia = tile[(threadIdx.y + r) * sx + threadIdx.x + r].y;
  float sum = 0.0f, wsum = 0.0f;
  auto tap = [&](int row, int dx, float g) {
    const float2 b = tile[row + dx];
    // Unknown neighbours have depth 0: their weight is masked, not branched on.
    const float wt = b.x > 0.0f ? g * gr[int(fabsf(ia - b.y))] : 0.0f;
    sum = fmaf(wt, b.x, sum);
    wsum += wt;
  };
  if constexpr (R >= 0) {
#pragma unroll
    for (int dy = -R; dy <= R; ++dy) {
      const int row = (threadIdx.y + R + dy) * sx + threadIdx.x + R;
#pragma unroll
      for (int dx = -R; dx <= R; ++dx) tap(row, dx, tab.spatial[dy * dy + dx * dx]);
    }
  } else {
    for (int dy = -r; dy <= r; ++dy) {
      const int row = (threadIdx.y + r + dy) * sx + threadIdx.x + r;
      for (int dx = -r; dx <= r; ++dx) tap(row, dx, gs[dy * dy + dx * dx]);
    }
  }
  out[std::int64_t(y) * ldo + x] = wsum > 0.0f ? sum / wsum : 0.0f;
}

}  // namespace

void bilateral(cudaStream_t stream, const float* depth, std::int64_t ldd, const std::uint8_t* luma, std::int64_t ldl,
               float* out, std::int64_t ldo, int h, int w, const video::BilateralTables& tab) {
  if (h <= 0 || w <= 0) return;
  const dim3 grid((w + kTx - 1) / kTx, (h + kTy - 1) / kTy);
  if (tab.radius == 5)
    bilateral_kernel<5><<<grid, dim3(kTx, kTy), 0, stream>>>(depth, ldd, luma, ldl, out, ldo, h, w, tab);
  else
    bilateral_kernel<-1><<<grid, dim3(kTx, kTy), 0, stream>>>(depth, ldd, luma, ldl, out, ldo, h, w, tab);
  check(cudaGetLastError(), "bilateral launch");
}

}  // namespace tessera::native_cuda
