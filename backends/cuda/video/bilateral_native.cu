// Native CUDA depth-colour bilateral filter: a 32x8 block stages its tile of
// depth and luma with the K/2 halo, and both look-up tables, in shared
// memory; each thread filters one pixel. Luma is kept as float in shared
// memory so the range index is one subtraction and conversion.
#include "tessera/video/bilateral_native_cuda.hpp"

#include "common/reduce_workspace.cuh"

namespace tessera::native_cuda {
namespace {

constexpr int kTx = 32, kTy = 8;
constexpr int kMaxR = video::kMaxBilateralK / 2;
constexpr int kMaxS = (kTx + 2 * kMaxR) * (kTy + 2 * kMaxR);

__global__ void __launch_bounds__(kTx* kTy)
    bilateral_kernel(const float* __restrict__ depth, std::int64_t ldd, const std::uint8_t* __restrict__ luma,
                     std::int64_t ldl, float* __restrict__ out, std::int64_t ldo, int h, int w,
                     const video::BilateralTables tab) {
  __shared__ float d[kMaxS];
  __shared__ short lum[kMaxS];
  __shared__ float gs[video::kBilateralSpatialSize];
  __shared__ float gr[256];
  const int r = tab.radius, sx = kTx + 2 * r, sy = kTy + 2 * r;
  const int x0 = blockIdx.x * kTx, y0 = blockIdx.y * kTy;
  const int tid = threadIdx.y * kTx + threadIdx.x;
  for (int i = tid; i < sx * sy; i += kTx * kTy) {
    const int y = y0 - r + i / sx, x = x0 - r + i % sx;
    const bool in = y >= 0 && y < h && x >= 0 && x < w;
    const float v = in ? __ldg(depth + std::int64_t(y) * ldd + x) : 0.0f;
    d[i] = v > 0.0f ? v : 0.0f;
    lum[i] = in ? short(__ldg(luma + std::int64_t(y) * ldl + x)) : short(0);
  }
  for (int i = tid; i < 2 * r * r + 1; i += kTx * kTy) gs[i] = tab.spatial[i];
  for (int i = tid; i < 256; i += kTx * kTy) gr[i] = tab.range[i];
  __syncthreads();
  const int x = x0 + threadIdx.x, y = y0 + threadIdx.y;
  if (x >= w || y >= h) return;
  const int ia = lum[(threadIdx.y + r) * sx + threadIdx.x + r];
  float sum = 0.0f, wsum = 0.0f;
  for (int dy = -r; dy <= r; ++dy) {
    const int row = (threadIdx.y + r + dy) * sx + threadIdx.x + r;
    for (int dx = -r; dx <= r; ++dx) {
      const float db = d[row + dx];
      const int di = abs(ia - int(lum[row + dx]));
      // Unknown neighbours have db = 0: their weight is masked, not branched on.
      const float wt = db > 0.0f ? gs[dy * dy + dx * dx] * gr[di] : 0.0f;
      sum = fmaf(wt, db, sum);
      wsum += wt;
    }
  }
  out[std::int64_t(y) * ldo + x] = wsum > 0.0f ? sum / wsum : 0.0f;
}

}  // namespace

void bilateral(cudaStream_t stream, const float* depth, std::int64_t ldd, const std::uint8_t* luma, std::int64_t ldl,
               float* out, std::int64_t ldo, int h, int w, const video::BilateralTables& tab) {
  if (h <= 0 || w <= 0) return;
  const dim3 grid((w + kTx - 1) / kTx, (h + kTy - 1) / kTy);
  bilateral_kernel<<<grid, dim3(kTx, kTy), 0, stream>>>(depth, ldd, luma, ldl, out, ldo, h, w, tab);
  check(cudaGetLastError(), "bilateral launch");
}

}  // namespace tessera::native_cuda
