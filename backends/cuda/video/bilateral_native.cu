// Native CUDA depth-colour bilateral filter: a block of 32x8 threads stages
// its tile of (depth, luma) pairs with the K/2 halo and the range table in
// shared memory. The kernel is bound by shared-memory wavefronts, so for the
// compile-time radius (the default K = 11) each thread filters two pixels of
// one column, whose windows share all but one row (each staged pair feeds
// two taps); the spatial weights are constant-bank operands of the unrolled
// window. (A copy of the range table per bank, to keep the lanes' lookups
// free of conflicts, cost more to fill, 32 KB per block, than it saved.)
#include "tessera/video/bilateral_native_cuda.hpp"

#include "common/reduce_workspace.cuh"

namespace tessera::native_cuda {
namespace {

constexpr int kTx = 32, kTy = 8;
constexpr int kMaxR = video::kMaxBilateralK / 2;

// R >= 0: the radius at compile time, two rows per thread; R < 0: any radius
// at run time, one pixel per thread.
template <int R>
__global__ void __launch_bounds__(kTx* kTy)
    bilateral_kernel(const float* __restrict__ depth, std::int64_t ldd, const std::uint8_t* __restrict__ luma,
                     std::int64_t ldl, float* __restrict__ out, std::int64_t ldo, int h, int w,
                     const video::BilateralTables tab) {
  constexpr int P = R >= 0 ? 2 : 1;  // output rows per thread
  constexpr int kS = R >= 0 ? (kTx + 2 * R) * (kTy * P + 2 * R) : (kTx + 2 * kMaxR) * (kTy + 2 * kMaxR);
  __shared__ float2 tile[kS];  // (depth or 0 when unknown, luma): one 8-byte load per tap
  __shared__ float gs[R >= 0 ? 1 : video::kBilateralSpatialSize];
  __shared__ float gr[256];
  const int r = R >= 0 ? R : tab.radius, sx = kTx + 2 * r, sy = kTy * P + 2 * r;
  const int x0 = blockIdx.x * kTx, y0 = blockIdx.y * kTy * P;
  const int tid = threadIdx.y * kTx + threadIdx.x;
  for (int i = tid; i < sx * sy; i += kTx * kTy) {
    const int y = y0 - r + i / sx, x = x0 - r + i % sx;
    const bool in = y >= 0 && y < h && x >= 0 && x < w;
    const float v = in ? __ldg(depth + std::int64_t(y) * ldd + x) : 0.0f;
    tile[i] = make_float2(v > 0.0f ? v : 0.0f, in ? float(__ldg(luma + std::int64_t(y) * ldl + x)) : 0.0f);
  }
  if constexpr (R < 0)
    for (int i = tid; i < 2 * r * r + 1; i += kTx * kTy) gs[i] = tab.spatial[i];
  for (int i = tid; i < 256; i += kTx * kTy) gr[i] = tab.range[i];
  __syncthreads();
  const int x = x0 + threadIdx.x, yt = threadIdx.y * P;
  if (x >= w || y0 + yt >= h) return;
  float ia[P], sum[P], wsum[P];
#pragma unroll
  for (int p = 0; p < P; ++p) {
    ia[p] = tile[(yt + p + r) * sx + threadIdx.x + r].y;
    sum[p] = wsum[p] = 0.0f;
  }
  // Unknown neighbours have depth 0: their weight is masked, not branched on.
  if constexpr (R >= 0) {
#pragma unroll
    for (int q = 0; q < 2 * R + P; ++q) {  // tile row yt + q: row dy = q - p - R of pixel p
      const int row = (yt + q) * sx + threadIdx.x;
#pragma unroll
      for (int dx = 0; dx <= 2 * R; ++dx) {
        const float2 b = tile[row + dx];
#pragma unroll
        for (int p = 0; p < P; ++p) {
          const int dy = q - p - R;
          if (dy < -R || dy > R) continue;
          const float g = tab.spatial[dy * dy + (dx - R) * (dx - R)];
          const float wt = b.x > 0.0f ? g * gr[int(fabsf(ia[p] - b.y))] : 0.0f;
          sum[p] = fmaf(wt, b.x, sum[p]);
          wsum[p] += wt;
        }
      }
    }
  } else {
    for (int dy = -r; dy <= r; ++dy) {
      const int row = (yt + r + dy) * sx + threadIdx.x + r;
      for (int dx = -r; dx <= r; ++dx) {
        const float2 b = tile[row + dx];
        const float wt = b.x > 0.0f ? gs[dy * dy + dx * dx] * gr[int(fabsf(ia[0] - b.y))] : 0.0f;
        sum[0] = fmaf(wt, b.x, sum[0]);
        wsum[0] += wt;
      }
    }
  }
#pragma unroll
  for (int p = 0; p < P; ++p)
    if (y0 + yt + p < h) out[std::int64_t(y0 + yt + p) * ldo + x] = wsum[p] > 0.0f ? sum[p] / wsum[p] : 0.0f;
}

}  // namespace

void bilateral(cudaStream_t stream, const float* depth, std::int64_t ldd, const std::uint8_t* luma, std::int64_t ldl,
               float* out, std::int64_t ldo, int h, int w, const video::BilateralTables& tab) {
  if (h <= 0 || w <= 0) return;
  if (tab.radius == 5) {
    const dim3 grid((w + kTx - 1) / kTx, (h + 2 * kTy - 1) / (2 * kTy));
    bilateral_kernel<5><<<grid, dim3(kTx, kTy), 0, stream>>>(depth, ldd, luma, ldl, out, ldo, h, w, tab);
  } else {
    const dim3 grid((w + kTx - 1) / kTx, (h + kTy - 1) / kTy);
    bilateral_kernel<-1><<<grid, dim3(kTx, kTy), 0, stream>>>(depth, ldd, luma, ldl, out, ldo, h, w, tab);
  }
  check(cudaGetLastError(), "bilateral launch");
}

}  // namespace tessera::native_cuda
