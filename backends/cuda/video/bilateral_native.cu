// Native CUDA depth-colour bilateral filter: a 32x8 block stages its tile of
// (depth, luma) pairs with the K/2 halo and the range table in shared
// memory. K = 11 (the default): three pixels a thread, one table of the
// weight products (bilateral_rows_kernel); other K and the previous K = 11 form
// (bilateral_one_per_thread, kept for comparison): one pixel a thread, per
// tap one 8-byte shared load, one range-table load, the spatial weight a
// constant for K = 11.
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

// The default K = 11 (R = 5), P vertically adjacent pixels a thread (3: 13
// staged rows loaded for 3 x 11 rows of taps; 800 x 600 frames split into
// whole 32 x 24 tiles). The weight of a tap is one table load: the block builds
// G_s(d) G_r(dI) for each of the window's distinct squared distances d (20 at
// K = 11) and dI = 0..255, plus a zero entry at dI = 256; the luma is staged
// as 4 I (the byte offset of its entry) and an unknown neighbour as a luma
// far off, so min(|4 I_A - 4 I_B|, 1024) picks the zero entry and no mask is
// applied. Per tap: a third of an 8-byte load, |difference|, min, a table
// load, an FMA and an add (the one-pixel kernel: ~15 instructions). H100,
// 800 x 600 (perf/experiments/bilateral_probe): one pixel a thread 0.042 ms,
// two 0.036 (0.038 with the range table alone), three 0.031 (0.035 with
// random luma: the lanes' table loads then conflict).
template <int R>
struct WeightClasses {  // class of each squared distance 0..2 R^2 (-1: none in the window)
  int of[2 * R * R + 1] = {};
  int count = 0;
  constexpr WeightClasses() {
    for (int d2 = 0; d2 <= 2 * R * R; ++d2) of[d2] = -1;
    for (int d2 = 0; d2 <= 2 * R * R; ++d2)
      for (int a = 0; a <= R; ++a)
        for (int b = 0; b <= R; ++b)
          if (a * a + b * b == d2 && of[d2] < 0) of[d2] = count++;
  }
};

template <int R, int P>
__global__ void __launch_bounds__(kTx* kTy)
    bilateral_rows_kernel(const float* __restrict__ depth, std::int64_t ldd, const std::uint8_t* __restrict__ luma,
                           std::int64_t ldl, float* __restrict__ out, std::int64_t ldo, int h, int w,
                           const video::BilateralTables tab) {
  constexpr WeightClasses<R> cls{};
  constexpr int SX = kTx + 2 * R, SY = P * kTy + 2 * R, NE = 257;  // NE: entries a class
  constexpr int kUnknownLuma4 = 4 * 1000;                            // |4 I_A - it| >= 1024 for every I_A
  __shared__ int2 tile[SY * SX];  // (bits of the depth, 0 when unknown; 4 x luma)
  __shared__ float lut[cls.count * NE];
  __shared__ float gr[256];
  const int x0 = blockIdx.x * kTx, y0 = blockIdx.y * P * kTy;
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * kTx + tx;
  for (int i = tid; i < SX * SY; i += kTx * kTy) {
    const int y = y0 - R + i / SX, x = x0 - R + i % SX;
    const bool in = y >= 0 && y < h && x >= 0 && x < w;
    const float v = in ? __ldg(depth + std::int64_t(y) * ldd + x) : 0.0f;
    const bool known = v > 0.0f;  // also false for NaN
    tile[i] = make_int2(__float_as_int(known ? v : 0.0f),
                        known ? 4 * int(__ldg(luma + std::int64_t(y) * ldl + x)) : kUnknownLuma4);
  }
  // The range table through shared memory first: lanes reading different
  // entries of the parameter (constant) bank are served one address at a time.
  for (int i = tid; i < 256; i += kTx * kTy) gr[i] = tab.range[i];
  __syncthreads();
#pragma unroll
  for (int d2 = 0; d2 <= 2 * R * R; ++d2)
    if (cls.of[d2] >= 0)
      for (int di = tid; di < NE; di += kTx * kTy)
        lut[cls.of[d2] * NE + di] = di < 256 ? tab.spatial[d2] * gr[di] : 0.0f;
  __syncthreads();
  const int x = x0 + tx, y = y0 + P * ty;
  if (x >= w || y >= h) return;
  const int c = (P * ty + R) * SX + tx + R;
  // The pixels' own luma (an unknown pixel's own depth does not matter, its luma does).
  int ia[P];
  float s[P], ws[P];
#pragma unroll
  for (int p = 0; p < P; ++p) {
    ia[p] = y + p < h ? 4 * int(__ldg(luma + std::int64_t(y + p) * ldl + x)) : 0;
    s[p] = ws[p] = 0.0f;
  }
  const char* const lb = reinterpret_cast<const char*>(lut);
#pragma unroll
  for (int dy = -R; dy <= R + P - 1; ++dy)
#pragma unroll
    for (int dx = -R; dx <= R; ++dx) {
      const int2 b = tile[c + dy * SX + dx];
      const float d = __int_as_float(b.x);
#pragma unroll
      for (int p = 0; p < P; ++p) {
        const int e = dy - p;  // the row offset of this tap for pixel p
        if (e < -R || e > R) continue;
        const int off = cls.of[e * e + dx * dx] * NE * 4;
        const float wt = *reinterpret_cast<const float*>(lb + off + min(abs(ia[p] - b.y), 1024));
        s[p] = fmaf(wt, d, s[p]);
        ws[p] += wt;
      }
    }
#pragma unroll
  for (int p = 0; p < P; ++p)
    if (y + p < h) out[std::int64_t(y + p) * ldo + x] = ws[p] > 0.0f ? s[p] / ws[p] : 0.0f;
}

}  // namespace

void bilateral_one_per_thread(cudaStream_t stream, const float* depth, std::int64_t ldd, const std::uint8_t* luma,
                              std::int64_t ldl, float* out, std::int64_t ldo, int h, int w,
                              const video::BilateralTables& tab) {
  if (h <= 0 || w <= 0) return;
  const dim3 grid((w + kTx - 1) / kTx, (h + kTy - 1) / kTy);
  if (tab.radius == 5)
    bilateral_kernel<5><<<grid, dim3(kTx, kTy), 0, stream>>>(depth, ldd, luma, ldl, out, ldo, h, w, tab);
  else
    bilateral_kernel<-1><<<grid, dim3(kTx, kTy), 0, stream>>>(depth, ldd, luma, ldl, out, ldo, h, w, tab);
  check(cudaGetLastError(), "bilateral launch");
}

void bilateral(cudaStream_t stream, const float* depth, std::int64_t ldd, const std::uint8_t* luma, std::int64_t ldl,
               float* out, std::int64_t ldo, int h, int w, const video::BilateralTables& tab) {
  if (tab.radius != 5) return bilateral_one_per_thread(stream, depth, ldd, luma, ldl, out, ldo, h, w, tab);
  if (h <= 0 || w <= 0) return;
  constexpr int P = 3;
  const dim3 grid((w + kTx - 1) / kTx, (h + P * kTy - 1) / (P * kTy));
  bilateral_rows_kernel<5, P><<<grid, dim3(kTx, kTy), 0, stream>>>(depth, ldd, luma, ldl, out, ldo, h, w, tab);
  check(cudaGetLastError(), "bilateral launch");
}

}  // namespace tessera::native_cuda
