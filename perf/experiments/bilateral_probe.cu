// Probe: the depth-colour bilateral filter's native forms side by side at
// the paper's 800 x 600, K = 11 (issue 21: <= 0.03 ms): one pixel a thread;
// two, three or four pixels a thread with one table of the weight products
// (the library's form before the per-lane table); the library's kernel (the
// range table once per lane, taps dx / -dx in pairs); the per-lane
// candidates not kept (taps one by one: lane_abs_p3_ty8_unrolled;
// signed-difference table, persistent blocks, other tiles, two columns a
// thread); an empty launch (the launch and timer
// cost every row includes). Luma smooth (neighbours close: table loads mostly
// broadcasts) and random (worst case for bank conflicts). Each form is
// checked against the one-pixel kernel's output (max |difference|).
// By hand: nvcc -O3 -arch=sm_90 -std=c++17 -Isrc -Ibackends/cuda
// perf/experiments/bilateral_probe.cu -o probe.
#include "probe_common.cuh"

#include "../../backends/cuda/video/bilateral_native.cu"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace tessera::native_cuda {
namespace {
// The library's K = 11 kernel before the per-lane table (kept here to be
// measured beside it): P vertically adjacent pixels a thread (3: 13
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
  constexpr int kUnknownLuma4 = 4 * 1000;                          // |4 I_A - it| >= 1024 for every I_A
  __shared__ int2 tile[SY * SX];                                   // (bits of the depth, 0 when unknown; 4 x luma)
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

// Candidate: the range table once per lane (32 copies, entry e of copy c at
// word 32 e + c): every lane reads its own bank whatever the luma, no
// conflicts. Signed form (kAbs false): entries e = I_B - I_A + 255 (0..510)
// and a zero entry at 511 for unknown neighbours; the luma is staged as
// 128 I, so a tap's byte offset is min(L_B + c_A, lim), one Hopper add-and-min
// (64 KB of table). Absolute form: entries |I_B - I_A| (0..255), zero at 256
// (33 KB): the offset is min(|L_B - L_A| + lane, lim). The spatial weight is
// a constant factor, the product rounded as the table of products rounds it
// (outputs equal to the bit). kPersistent: a grid of resident blocks walks
// the tiles, the table built once a block.
template <int R, int P, int TY, bool kAbs, bool kPersistent, bool kUnrollStage = false>
__global__ void __launch_bounds__(32 * TY)
    bilateral_lane_kernel(const float* __restrict__ depth, std::int64_t ldd, const std::uint8_t* __restrict__ luma,
                          std::int64_t ldl, float* __restrict__ out, std::int64_t ldo, int h, int w,
                          const video::BilateralTables tab) {
  constexpr int SX = 32 + 2 * R, SY = P * TY + 2 * R, S = kLumaScale, NE = kAbs ? 257 : 512;
  constexpr int kUnknown = kUnknownLuma;
  extern __shared__ float4 smem4[];
  float* rt = reinterpret_cast<float*>(smem4);
  int2* tile = reinterpret_cast<int2*>(rt + NE * 32);
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 32 + tx;
  for (int j = tid; j < NE * 8; j += 32 * TY) {
    const int e = j / 8;
    const float v = kAbs ? (e < 256 ? tab.range[e] : 0.0f) : (e < 511 ? tab.range[abs(e - 255)] : 0.0f);
    smem4[j] = make_float4(v, v, v, v);
  }
  const int lane = tx * 4, lim = lane + (NE - 1) * S;
  const char* const rb = reinterpret_cast<const char*>(rt);
  const int nx = (w + 31) / 32, ntile = nx * ((h + P * TY - 1) / (P * TY));
  for (int t = blockIdx.x; t < ntile; t += kPersistent ? gridDim.x : ntile) {
    const int x0 = t % nx * 32, y0 = t / nx * P * TY;
    if (kPersistent) __syncthreads();  // the previous tile's readers are done
    const int x = x0 + tx, y = y0 + P * ty;
    // The pixels' own luma first: its loads are in flight with the tile's.
    int ca[P];
#pragma unroll
    for (int p = 0; p < P; ++p) {
      const int la = x < w && y + p < h ? S * int(__ldg(luma + std::int64_t(y + p) * ldl + x)) : 0;
      ca[p] = kAbs ? la : lane + 255 * S - la;
    }
    if (kUnrollStage) {  // every load of the tile issued before the first store, as the library does
      LaneTile<SX, SY, 32 * TY> staged;
      staged.load(depth, ldd, luma, ldl, h, w, y0 - R, x0 - R, tid);
      staged.store(tile, tid);
    } else {
      for (int i = tid; i < SX * SY; i += 32 * TY) {
        const int yy = y0 - R + i / SX, xx = x0 - R + i % SX;
        const bool in = yy >= 0 && yy < h && xx >= 0 && xx < w;
        const float vv = in ? __ldg(depth + std::int64_t(yy) * ldd + xx) : 0.0f;
        const bool known = vv > 0.0f;
        tile[i] = make_int2(__float_as_int(known ? vv : 0.0f),
                            known ? S * int(__ldg(luma + std::int64_t(yy) * ldl + xx)) : kUnknown);
      }
    }
    __syncthreads();
    if (x < w && y < h) {
      const int cc = (P * ty + R) * SX + tx + R;
      float s[P], ws[P];
#pragma unroll
      for (int p = 0; p < P; ++p) s[p] = ws[p] = 0.0f;
#pragma unroll
      for (int dy = -R; dy <= R + P - 1; ++dy)
#pragma unroll
        for (int dx = -R; dx <= R; ++dx) {
          const int2 b = tile[cc + dy * SX + dx];
          const float d = __int_as_float(b.x);
#pragma unroll
          for (int p = 0; p < P; ++p) {
            const int e = dy - p;
            if (e < -R || e > R) continue;
            const int off = kAbs ? min(int(__sad(b.y, ca[p], unsigned(lane))), lim) : __viaddmin_s32(b.y, ca[p], lim);
            const float g = *reinterpret_cast<const float*>(rb + off);
            const float wt = __fmul_rn(tab.spatial[e * e + dx * dx], g);
            s[p] = fmaf(wt, d, s[p]);
            ws[p] += wt;
          }
        }
#pragma unroll
      for (int p = 0; p < P; ++p)
        if (y + p < h) out[std::int64_t(y + p) * ldo + x] = ws[p] > 0.0f ? s[p] / ws[p] : 0.0f;
    }
  }
}

// Candidate: the per-lane table kernel with two adjacent columns a thread
// (a warp covers 64 columns): a row's 12 staged neighbours of the pair are 6
// aligned 16-byte loads, half the tile traffic a tap of one column a thread.
template <int R, int P, int TY>
__global__ void __launch_bounds__(32 * TY)
    bilateral_lanes2_kernel(const float* __restrict__ depth, std::int64_t ldd, const std::uint8_t* __restrict__ luma,
                            std::int64_t ldl, float* __restrict__ out, std::int64_t ldo, int h, int w,
                            const video::BilateralTables tab) {
  constexpr int SX = 64 + 2 * R, SY = P * TY + 2 * R, NT = 32 * TY;  // SX even: rows start 16-byte aligned
  __shared__ float4 table[kLaneEntries * 8];
  __shared__ __align__(16) int2 tile[SY * SX];
  const int x0 = blockIdx.x * 64, y0 = blockIdx.y * P * TY;
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * 32 + tx;
  const int x = x0 + 2 * tx, y = y0 + P * ty;
  int la[P][2];
#pragma unroll
  for (int p = 0; p < P; ++p)
#pragma unroll
    for (int q = 0; q < 2; ++q)
      la[p][q] = x + q < w && y + p < h ? kLumaScale * int(__ldg(luma + std::int64_t(y + p) * ldl + x + q)) : 0;
  LaneTile<SX, SY, NT> staged;
  staged.load(depth, ldd, luma, ldl, h, w, y0 - R, x0 - R, tid);
  fill_lane_table(table, tab, tid, NT);
  staged.store(tile, tid);
  __syncthreads();
  if (x >= w || y >= h) return;
  const int lane = 4 * tx;
  float s[P][2], ws[P][2];
#pragma unroll
  for (int p = 0; p < P; ++p) s[p][0] = s[p][1] = ws[p][0] = ws[p][1] = 0.0f;
#pragma unroll
  for (int dy = -R; dy <= R + P - 1; ++dy) {
    // Staged columns 2 tx .. 2 tx + 2 R + 1: neighbours dx = -R .. R + 1 of column x.
    const int4* const row = reinterpret_cast<const int4*>(tile + (P * ty + R + dy) * SX + 2 * tx);
    int2 nb[2 * R + 2];
#pragma unroll
    for (int m = 0; m <= R; ++m) {
      const int4 q = row[m];
      nb[2 * m] = make_int2(q.x, q.y);
      nb[2 * m + 1] = make_int2(q.z, q.w);
    }
#pragma unroll
    for (int p = 0; p < P; ++p) {
      const int e = dy - p;
      if (e < -R || e > R) continue;
#pragma unroll
      for (int q = 0; q < 2; ++q) {
        auto g = [&](int lb) { return lane_weight(table, lb, la[p][q], lane); };
        const int2 c0 = nb[R + q];
        const float wt = __fmul_rn(tab.spatial[e * e], g(c0.y));
        s[p][q] = fmaf(wt, __int_as_float(c0.x), s[p][q]);
        ws[p][q] += wt;
#pragma unroll
        for (int dx = 1; dx <= R; ++dx) {
          const int2 b0 = nb[R + q - dx], b1 = nb[R + q + dx];
          const float g0 = g(b0.y), g1 = g(b1.y), gs = tab.spatial[e * e + dx * dx];
          s[p][q] = fmaf(gs, fmaf(g1, __int_as_float(b1.x), g0 * __int_as_float(b0.x)), s[p][q]);
          ws[p][q] = fmaf(gs, g0 + g1, ws[p][q]);
        }
      }
    }
  }
#pragma unroll
  for (int p = 0; p < P; ++p)
#pragma unroll
    for (int q = 0; q < 2; ++q)
      if (y + p < h && x + q < w) out[std::int64_t(y + p) * ldo + x + q] = ws[p][q] > 0.0f ? s[p][q] / ws[p][q] : 0.0f;
}

__global__ void empty_kernel() {}

template <int P, int TY, bool kAbs, bool kPersistent, bool kUnrollStage = false>
void launch_lane(const float* dd, const std::uint8_t* ld, float* o, int h, int w, const video::BilateralTables& tab) {
  constexpr int R = 5;
  auto k = bilateral_lane_kernel<R, P, TY, kAbs, kPersistent, kUnrollStage>;
  const std::size_t bytes = (kAbs ? 257 : 512) * 32 * 4 + std::size_t(P * TY + 2 * R) * (32 + 2 * R) * 8;
  static int resident = 0;
  if (!resident) {
    CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
    int per_sm = 0, sms = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, 32 * TY, bytes));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    resident = per_sm * sms;
    std::fprintf(stderr, "P %d TY %d abs %d persistent %d: %zu bytes, %d blocks an SM\n", P, TY, int(kAbs),
                 int(kPersistent), bytes, per_sm);
  }
  const int ntile = (w + 31) / 32 * ((h + P * TY - 1) / (P * TY));
  const int grid = kPersistent ? std::min(ntile, resident) : ntile;
  k<<<grid, dim3(32, TY), bytes>>>(dd, w, ld, w, o, w, h, w, tab);
}
}  // namespace
}  // namespace tessera::native_cuda


namespace {
std::uint32_t mix(std::uint32_t x) {
  x ^= x >> 16, x *= 0x7feb352du, x ^= x >> 15, x *= 0x846ca68bu, x ^= x >> 16;
  return x;
}
}  // namespace

int main() {
  const int h = 600, w = 800;
  const std::size_t n = std::size_t(h) * w;
  const auto tab = tessera::video::make_bilateral_tables(tessera::video::BilateralParams{});
  std::vector<float> d(n);
  std::vector<std::uint8_t> smooth(n), rnd(n);
  for (std::size_t i = 0; i < n; ++i) {
    const int x = int(i % w), y = int(i / w);
    smooth[i] = std::uint8_t((x + y) / 6 % 200 + mix(std::uint32_t(i)) % 16);
    rnd[i] = std::uint8_t(mix(std::uint32_t(i) + 77u));
    d[i] = mix(std::uint32_t(i) + 5u) % 10 < 4 ? 1.0f + float(smooth[i]) / 64.0f : 0.0f;
  }
  float *dd, *o, *o2;
  std::uint8_t* ld;
  CK(cudaMalloc(&dd, n * 4));
  CK(cudaMalloc(&o, n * 4));
  CK(cudaMalloc(&o2, n * 4));
  CK(cudaMalloc(&ld, n));
  CK(cudaMemcpy(dd, d.data(), n * 4, cudaMemcpyHostToDevice));
  using namespace tessera::native_cuda;
  const dim3 g1((w + kTx - 1) / kTx, (h + kTy - 1) / kTy), g2((w + kTx - 1) / kTx, (h + 2 * kTy - 1) / (2 * kTy));
  const dim3 b(kTx, kTy);
  std::printf("luma,kernel,ms,max_diff\n");
  for (int which = 0; which < 2; ++which) {
    CK(cudaMemcpy(ld, which ? rnd.data() : smooth.data(), n, cudaMemcpyHostToDevice));
    const char* lname = which ? "random" : "smooth";
    bilateral_kernel<5><<<g1, b>>>(dd, w, ld, w, o, w, h, w, tab);
    CK(cudaDeviceSynchronize());
    std::vector<float> ref(n), got(n);
    CK(cudaMemcpy(ref.data(), o, n * 4, cudaMemcpyDeviceToHost));
    auto row = [&](const char* name, auto&& launch) {
      CK(cudaMemset(o2, 0xff, n * 4));
      const float ms = median_ms(launch, 51);
      CK(cudaGetLastError());
      CK(cudaMemcpy(got.data(), o2, n * 4, cudaMemcpyDeviceToHost));
      double md = 0;
      for (std::size_t i = 0; i < n; ++i) md = std::fmax(md, std::isfinite(got[i]) ? std::fabs(got[i] - ref[i]) : 1e30);
      std::printf("%s,%s,%.4f,%.2e\n", lname, name, ms, md);
    };
    const dim3 g4((w + kTx - 1) / kTx, (h + 4 * kTy - 1) / (4 * kTy)),
        g3((w + kTx - 1) / kTx, (h + 3 * kTy - 1) / (3 * kTy));
    row("one_per_thread", [&] { bilateral_kernel<5><<<g1, b>>>(dd, w, ld, w, o2, w, h, w, tab); });
    row("pairs_weight_table", [&] { bilateral_rows_kernel<5, 2><<<g2, b>>>(dd, w, ld, w, o2, w, h, w, tab); });
    row("library", [&] { bilateral(nullptr, dd, w, ld, w, o2, w, h, w, tab); });
    row("lanes2_p3_ty4", [&] {
      bilateral_lanes2_kernel<5, 3, 4>
          <<<dim3((w + 63) / 64, (h + 11) / 12), dim3(32, 4)>>>(dd, w, ld, w, o2, w, h, w, tab);
    });
    row("lanes2_p2_ty8", [&] {
      bilateral_lanes2_kernel<5, 2, 8>
          <<<dim3((w + 63) / 64, (h + 15) / 16), dim3(32, 8)>>>(dd, w, ld, w, o2, w, h, w, tab);
    });
    row("lanes2_p4_ty4", [&] {
      bilateral_lanes2_kernel<5, 4, 4>
          <<<dim3((w + 63) / 64, (h + 15) / 16), dim3(32, 4)>>>(dd, w, ld, w, o2, w, h, w, tab);
    });
    row("lanes2_p2_ty4", [&] {
      bilateral_lanes2_kernel<5, 2, 4>
          <<<dim3((w + 63) / 64, (h + 7) / 8), dim3(32, 4)>>>(dd, w, ld, w, o2, w, h, w, tab);
    });
    row("quads_weight_table", [&] { bilateral_rows_kernel<5, 4><<<g4, b>>>(dd, w, ld, w, o2, w, h, w, tab); });
    row("triples_weight_table", [&] { bilateral_rows_kernel<5, 3><<<g3, b>>>(dd, w, ld, w, o2, w, h, w, tab); });
    row("empty_launch", [&] { empty_kernel<<<625, 256>>>(); });
    row("lane_signed_p3_ty24", [&] { launch_lane<3, 24, false, false>(dd, ld, o2, h, w, tab); });
    row("lane_signed_p3_ty24_unrolled", [&] { launch_lane<3, 24, false, false, true>(dd, ld, o2, h, w, tab); });
    row("lane_abs_p3_ty8", [&] { launch_lane<3, 8, true, false>(dd, ld, o2, h, w, tab); });
    row("lane_abs_p3_ty8_unrolled", [&] { launch_lane<3, 8, true, false, true>(dd, ld, o2, h, w, tab); });
    row("lane_abs_p4_ty8_unrolled", [&] { launch_lane<4, 8, true, false, true>(dd, ld, o2, h, w, tab); });
    row("lane_abs_p2_ty16_unrolled", [&] { launch_lane<2, 16, true, false, true>(dd, ld, o2, h, w, tab); });
    row("lane_abs_p3_ty4_unrolled", [&] { launch_lane<3, 4, true, false, true>(dd, ld, o2, h, w, tab); });
    row("lane_abs_p2_ty8_unrolled", [&] { launch_lane<2, 8, true, false, true>(dd, ld, o2, h, w, tab); });
  }
  return 0;
}
