// Native CUDA depth-colour bilateral filter: a 32x8 block stages its tile of
// (depth, luma) pairs with the K/2 halo and the range table in shared
// memory. K = 11 (the default): three pixels a thread, the range table once
// per lane (bilateral_lanes_kernel); other K and an earlier K = 11 form
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

// The parts of bilateral_lanes_kernel (perf/experiments/bilateral_probe
// builds its candidate forms from them too). The table: kLaneEntries x 8
// float4, four lanes' copies of an entry each; the luma staged as
// kLumaScale I.
constexpr int kLaneEntries = 257, kLumaScale = 128;  // kLumaScale: bytes between entries
constexpr int kUnknownLuma = kLumaScale * 4096;      // |L_A - it| >= 256 kLumaScale for every I_A

__device__ inline void fill_lane_table(float4* table, const video::BilateralTables& tab, int tid, int nt) {
  for (int j = tid; j < kLaneEntries * 8; j += nt) {
    const float g = j / 8 < 256 ? tab.range[j / 8] : 0.0f;
    table[j] = make_float4(g, g, g, g);
  }
}

// The range weight of a neighbour staged as lb for a pixel staged as la, read
// by lane c (lane4 = 4 c) from its own copy.
__device__ inline float lane_weight(const float4* table, int lb, int la, int lane4) {
  constexpr int lim = (kLaneEntries - 1) * kLumaScale;
  return *reinterpret_cast<const float*>(reinterpret_cast<const char*>(table) +
                                         min(int(__sad(lb, la, unsigned(lane4))), lim + lane4));
}

// An SY x SX tile of (bits of the depth, 0 when unknown; kLumaScale I, or
// kUnknownLuma when unknown) with its corner at (ys, xs), possibly outside
// the plane, staged by NT threads: load() issues every global load, store()
// writes them to shared memory (one memory latency, not one a row of loads).
template <int SX, int SY, int NT>
struct LaneTile {
  static constexpr int NS = (SX * SY + NT - 1) / NT;
  float v[NS];
  int l[NS];
  __device__ void load(const float* __restrict__ depth, std::int64_t ldd, const std::uint8_t* __restrict__ luma,
                       std::int64_t ldl, int h, int w, int ys, int xs, int tid) {
#pragma unroll
    for (int k = 0; k < NS; ++k) {
      const int i = tid + k * NT, yy = ys + i / SX, xx = xs + i % SX;
      const bool in = i < SX * SY && yy >= 0 && yy < h && xx >= 0 && xx < w;
      v[k] = in ? __ldg(depth + std::int64_t(yy) * ldd + xx) : 0.0f;
      l[k] = in ? __ldg(luma + std::int64_t(yy) * ldl + xx) : 0;
    }
  }
  __device__ void store(int2* tile, int tid) const {
#pragma unroll
    for (int k = 0; k < NS; ++k) {
      const int i = tid + k * NT;
      const bool known = v[k] > 0.0f;  // also false for NaN
      if (i < SX * SY)
        tile[i] = make_int2(__float_as_int(known ? v[k] : 0.0f), known ? kLumaScale * l[k] : kUnknownLuma);
    }
  }
};

// The default K = 11 (R = 5): P = 3 vertically adjacent pixels a thread
// (13 staged rows feed 3 x 11 rows of taps; 800 x 600 frames split into whole
// 32 x 24 tiles). The range weight is one shared load from a table held once
// per lane: entry e (|I_A - I_B| = 0..255, a zero entry at 256 for unknown
// neighbours) of lane c's copy at word 32 e + c, so each lane reads its own
// bank whatever the luma (a single table made the lanes' loads conflict ~3-way
// on textured luma). The luma is staged as 128 I (the entry's byte offset;
// an unknown neighbour's far off), and a tap's offset is min(|L_A - L_B| +
// 4 c, lim): one absolute-difference-and-add and one min. The spatial weight
// is a constant factor shared by the taps dx and -dx of a row (one
// distance): per tap pair two lookups, a multiply, three FMAs and an add.
// H100, 800 x 600 (perf/experiments/bilateral_probe, a launch of ~6 us
// included): 0.024-0.026 ms with the pairs, 0.025-0.027 taps one by one (the
// probe's lane_abs_p3_ty8_unrolled), on smooth and random luma alike (one
// table of the weight products for all lanes: 0.030-0.032 smooth,
// 0.034-0.036 random).
template <int R, int P, int TY>
__global__ void __launch_bounds__(32 * TY)
    bilateral_lanes_kernel(const float* __restrict__ depth, std::int64_t ldd, const std::uint8_t* __restrict__ luma,
                           std::int64_t ldl, float* __restrict__ out, std::int64_t ldo, int h, int w,
                           const video::BilateralTables tab) {
  constexpr int SX = 32 + 2 * R, SY = P * TY + 2 * R, NT = 32 * TY;
  __shared__ float4 table[kLaneEntries * 8];
  __shared__ int2 tile[SY * SX];
  const int x0 = blockIdx.x * 32, y0 = blockIdx.y * P * TY;
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 32 + tx;
  const int x = x0 + tx, y = y0 + P * ty;
  // Every global load (the pixels' own luma, the tile) issued before the first store.
  int la[P];
#pragma unroll
  for (int p = 0; p < P; ++p)
    la[p] = x < w && y + p < h ? kLumaScale * int(__ldg(luma + std::int64_t(y + p) * ldl + x)) : 0;
  LaneTile<SX, SY, NT> staged;
  staged.load(depth, ldd, luma, ldl, h, w, y0 - R, x0 - R, tid);
  fill_lane_table(table, tab, tid, NT);
  staged.store(tile, tid);
  __syncthreads();
  if (x >= w || y >= h) return;
  const int lane = 4 * tx;
  auto weight = [&](int lb, int p) { return lane_weight(table, lb, la[p], lane); };
  const int c = (P * ty + R) * SX + tx + R;
  float s[P], ws[P];
#pragma unroll
  for (int p = 0; p < P; ++p) s[p] = ws[p] = 0.0f;
#pragma unroll
  for (int dy = -R; dy <= R + P - 1; ++dy)
#pragma unroll
    for (int p = 0; p < P; ++p) {
      const int e = dy - p;  // the row offset of these taps for pixel p
      if (e < -R || e > R) continue;
      const int2* const row = tile + c + dy * SX;
      {
        const int2 b = row[0];
        const float wt = __fmul_rn(tab.spatial[e * e], weight(b.y, p));
        s[p] = fmaf(wt, __int_as_float(b.x), s[p]);
        ws[p] += wt;
      }
#pragma unroll
      for (int dx = 1; dx <= R; ++dx) {
        const int2 b0 = row[-dx], b1 = row[dx];
        const float g0 = weight(b0.y, p), g1 = weight(b1.y, p), gs = tab.spatial[e * e + dx * dx];
        s[p] = fmaf(gs, fmaf(g1, __int_as_float(b1.x), g0 * __int_as_float(b0.x)), s[p]);
        ws[p] = fmaf(gs, g0 + g1, ws[p]);
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
  constexpr int P = 3, TY = 8;
  const dim3 grid((w + 31) / 32, (h + P * TY - 1) / (P * TY));
  bilateral_lanes_kernel<5, P, TY><<<grid, dim3(32, TY), 0, stream>>>(depth, ldd, luma, ldl, out, ldo, h, w, tab);
  check(cudaGetLastError(), "bilateral launch");
}

}  // namespace tessera::native_cuda
