// Native CUDA cubic B-spline kernels. Prefilter: one block holds the whole
// plane in shared memory (QCIF luma: 101 KB) and runs the recursions of
// impl/bspline_math.hpp there, one thread per row, then one per column, in a
// single launch; the dependent steps wait on shared memory, and global memory
// is read and written once, coalesced. Evaluation: the 4x4 sum with four
// adjacent output pixels per thread (one vector store), the phase weights in
// shared memory, the coefficients through the read-only cache.
//
// Fused upscale: one launch for every plane of a frame, a block per 64 x 32
// output tile. The block loads the input window its tile depends on (mirror
// indices, so any plane size works), filters it along rows then columns with
// the truncated impulse response of the prefilter, all in shared memory, and
// evaluates the tile from there: the IIR's serial recursions become short
// independent FIRs, and nothing but the input and the output touches global
// memory.
#include "tessera/video/bspline_native_cuda.hpp"

#include "common/reduce_workspace.cuh"

#include <stdexcept>

namespace tessera::native_cuda {
namespace {

using video::BsplinePhases;

constexpr int kPrefilterThreads = 1024;

// Row stride of the plane in shared memory: odd, so the rows (and the
// columns) a warp walks fall in distinct banks.
__host__ __device__ inline int plane_ld(int w) { return w | 1; }

template <class T>
__global__ void __launch_bounds__(kPrefilterThreads)
    prefilter_plane(const T* __restrict__ in, std::int64_t ld, float* __restrict__ coef, int h, int w) {
  extern __shared__ float plane[];
  const int ldp = plane_ld(w);
  const float gain = (w > 1 ? 6.0f : 1.0f) * (h > 1 ? 6.0f : 1.0f);  // both passes' gains at once
  const int t = threadIdx.x, nt = blockDim.x;
  // Loads in batches issued together: one block reads the whole plane, so a
  // load per loop trip would wait out the memory latency ~h w / nt times.
  constexpr int kBatch = 8;
  for (int base = t; base < h * w; base += kBatch * nt) {
    float v[kBatch];
#pragma unroll
    for (int j = 0; j < kBatch; ++j) {
      const int i = base + j * nt, y = i / w;
      v[j] = i < h * w ? float(in[std::int64_t(y) * ld + (i - y * w)]) : 0.0f;
    }
#pragma unroll
    for (int j = 0; j < kBatch; ++j) {
      const int i = base + j * nt, y = i / w;
      if (i < h * w) plane[y * ldp + (i - y * w)] = gain * v[j];
    }
  }
  __syncthreads();
  for (int y = t; y < h; y += nt) video::bspline_iir_line(plane + y * ldp, 1, w);
  __syncthreads();
  for (int x = t; x < w; x += nt) video::bspline_iir_line(plane + x, ldp, h);
  __syncthreads();
  for (int i = t; i < h * w; i += nt) {
    const int y = i / w;
    coef[i] = plane[y * ldp + (i - y * w)];
  }
}

constexpr int kBx = 32, kBy = 8, kPx = 4;

template <class T>
struct Vec4;
template <>
struct Vec4<std::uint8_t> {
  using type = uchar4;
};
template <>
struct Vec4<float> {
  using type = float4;
};

template <class T>
__global__ void __launch_bounds__(kBx* kBy)
    interpolate(const float* __restrict__ coef, int h, int w, T* __restrict__ out, std::int64_t ld, int oh, int ow,
                const BsplinePhases ph) {
  // The phase tables in shared memory: a warp's lanes read up to u different
  // phases, which the constant bank would serialise.
  __shared__ float wts[video::kMaxBsplineScale][4];
  __shared__ int offs[video::kMaxBsplineScale];
  const int tid = threadIdx.y * kBx + threadIdx.x;
  if (tid < 4 * ph.u) wts[tid / 4][tid % 4] = ph.w[tid / 4][tid % 4];
  if (tid < ph.u) offs[tid] = ph.offset[tid];
  __syncthreads();
  const int ox0 = (blockIdx.x * kBx + threadIdx.x) * kPx, oy = blockIdx.y * kBy + threadIdx.y;
  if (ox0 >= ow || oy >= oh) return;
  const int ry = oy % ph.u, iy = oy / ph.u + offs[ry];
  const float* rows[4];
#pragma unroll
  for (int j = 0; j < 4; ++j) rows[j] = coef + std::int64_t(video::mirror_index(iy - 1 + j, h)) * w;
  // Phase and cell of ox0, then stepped: one division per thread.
  int qx = ox0 / ph.u, rx = ox0 - qx * ph.u;
  T v[kPx];
#pragma unroll
  for (int p = 0; p < kPx; ++p) {
    const int ix = qx + offs[rx];
    int cx[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) cx[k] = video::mirror_index(ix - 1 + k, w);
    float s = 0.0f;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      float t = 0.0f;
#pragma unroll
      for (int k = 0; k < 4; ++k) t = fmaf(wts[rx][k], __ldg(rows[j] + cx[k]), t);
      s = fmaf(wts[ry][j], t, s);
    }
    v[p] = video::bspline_store<T>(s);
    if (++rx == ph.u) rx = 0, ++qx;
  }
  T* o = out + std::int64_t(oy) * ld + ox0;
  using V = typename Vec4<T>::type;
  if (ox0 + kPx <= ow && reinterpret_cast<std::uintptr_t>(o) % sizeof(V) == 0) {
    *reinterpret_cast<V*>(o) = V{v[0], v[1], v[2], v[3]};
  } else {
#pragma unroll
    for (int p = 0; p < kPx; ++p)
      if (ox0 + p < ow) o[p] = v[p];
  }
}

// Largest dynamic shared memory a block may opt into on the current device.
int max_plane_bytes() {
  int dev = 0, bytes = 0;
  check(cudaGetDevice(&dev), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev), "shared memory limit");
  return bytes;
}

template <class T>
bool prefilter_impl(cudaStream_t stream, const T* in, std::int64_t ld, float* coef, int h, int w) {
  if (h <= 0 || w <= 0) return true;
  const long long bytes = 4LL * h * plane_ld(w);
  static const int limit = max_plane_bytes();
  if (bytes > limit) return false;
  static const bool opted_in = [&] {  // once: every plane that passed the test above fits
    check(cudaFuncSetAttribute(prefilter_plane<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, limit),
          "bspline_prefilter shared memory");
    return true;
  }();
  (void)opted_in;
  prefilter_plane<T><<<1, kPrefilterThreads, std::size_t(bytes), stream>>>(in, ld, coef, h, w);
  check(cudaGetLastError(), "bspline_prefilter launch");
  return true;
}

template <class T>
void interpolate_impl(cudaStream_t stream, const float* coef, int h, int w, T* out, std::int64_t ld,
                      const BsplinePhases& ph) {
  const int oh = h * ph.u, ow = w * ph.u;
  if (oh <= 0 || ow <= 0) return;
  const dim3 grid((ow + kBx * kPx - 1) / (kBx * kPx), (oh + kBy - 1) / kBy);
  interpolate<T><<<grid, dim3(kBx, kBy), 0, stream>>>(coef, h, w, out, ld, oh, ow, ph);
  check(cudaGetLastError(), "bspline_interpolate launch");
}

// ---- Fused upscale ----

// A 64 x 32 output tile per block of 256 threads (4 groups of 8 output rows):
// QCIF x7 luma (1232 x 1008) makes 20 x 32 = 640 blocks, its 4:2:0 frame 960,
// several per SM of a 132-SM H100 and all resident at once.
constexpr int kTileX = 64, kTileY = 32, kFusedThreads = 256;
constexpr int kRowsPerThread = kTileY / (kFusedThreads / kTileX);
constexpr int kR = video::kBsplineFirRadius;
// FIR outputs per thread: kRun + 2 kR shared loads feed kRun (2 kR + 1) FMAs.
constexpr int kRun = 4;
// Window rows loaded per batch and warp: 8 warps x 8 cover the window's rows
// (42 at u = 7) in one round trip per 32 columns.
constexpr int kLoadBatch = 8;
static_assert(kFusedThreads % kTileX == 0 && kTileX % 32 == 0 && kTileY % (kFusedThreads / kTileX) == 0,
              "a warp's lanes share one output row");

__constant__ video::BsplineFirTaps c_fir = video::make_bspline_fir_taps();

__host__ __device__ constexpr int round_up(int a, int b) { return (a + b - 1) / b * b; }

// Coefficients along an axis that n consecutive output pixels read: their
// cells span at most ceil((n - 1) / u) + 1, each with taps -1 .. +2.
__host__ __device__ constexpr int tile_coefs(int n, int u) { return (n + u - 2) / u + 4; }

// Shared-memory layout of a tile needing cx x cy coefficients: the input
// window (cyp + 2 kR) x (cxp + 2 kR), then the window filtered along rows
// (cxp columns); the coefficients (cyp x cxp) overwrite the spent window.
// Odd strides keep the rows (and the columns) a warp walks in distinct banks.
struct FusedLayout {
  int cx, cy, cxp, cyp, wx, wy, ldw, ldr;
  __host__ __device__ constexpr int floats() const { return wy * (ldw + ldr); }
};
__host__ __device__ constexpr FusedLayout fused_layout(int cx, int cy) {
  FusedLayout l{};
  l.cx = cx;
  l.cy = cy;
  l.cxp = round_up(cx, kRun);
  l.cyp = round_up(cy, kRun);
  l.wx = l.cxp + 2 * kR;
  l.wy = l.cyp + 2 * kR;
  l.ldw = l.wx | 1;
  l.ldr = l.cxp | 1;
  return l;
}
// Largest at u = 1 (43 KB); QCIF x7: 10 KB.
constexpr std::size_t fused_smem_bytes(int u) {
  return sizeof(float) * std::size_t(fused_layout(tile_coefs(kTileX, u), tile_coefs(kTileY, u)).floats());
}
static_assert(fused_smem_bytes(1) + sizeof(float) * 5 * video::kMaxBsplineScale <= 48 * 1024,
              "every scale fits the default shared memory per block");

// kRun consecutive outputs of the truncated FIR along a line:
// dst[q ds] = sum_{|j| <= kR} h[|j|] src[(q + kR + j) ss]. The loads stream
// through one register; the taps are compile-time indices into constant memory.
__device__ __forceinline__ void fir_run(const float* src, int ss, float* dst, int ds) {
  float acc[kRun] = {};
#pragma unroll
  for (int m = 0; m < kRun + 2 * kR; ++m) {
    const float v = src[m * ss];
#pragma unroll
    for (int q = 0; q < kRun; ++q) {
      const int j = m - q - kR;
      if (j >= -kR && j <= kR) acc[q] = fmaf(c_fir.h[j < 0 ? -j : j], v, acc[q]);
    }
  }
#pragma unroll
  for (int q = 0; q < kRun; ++q) dst[q * ds] = acc[q];
}

template <class TIn, class TOut>
struct FusedFrame {
  BsplinePlane<TIn, TOut> plane[kBsplineFusedMaxPlanes];
  int tiles_x[kBsplineFusedMaxPlanes];
  int first[kBsplineFusedMaxPlanes + 1];  // each plane's first block; first[n]: all blocks
  int n;
};

// 32 registers at most (ptxas spills a word or two): 8 blocks (64 warps) per
// SM, so a 4:2:0 QCIF x7 frame (960 blocks) is resident in one wave on 132 SMs.
template <class TIn, class TOut>
__global__ void __launch_bounds__(kFusedThreads, 8)
    upscale_fused(const FusedFrame<TIn, TOut> f, const BsplinePhases ph) {
  extern __shared__ float smem[];
  __shared__ float wts[video::kMaxBsplineScale][4];
  __shared__ int offs[video::kMaxBsplineScale];
  const int tid = threadIdx.x, u = ph.u;
  if (tid < 4 * u) wts[tid / 4][tid % 4] = ph.w[tid / 4][tid % 4];
  if (tid < u) offs[tid] = ph.offset[tid];

  int p = 0;
  while (p + 1 < f.n && int(blockIdx.x) >= f.first[p + 1]) ++p;
  const BsplinePlane<TIn, TOut> pl = f.plane[p];
  const int h = pl.h, w = pl.w, oh = h * u, ow = w * u;
  const int tile = int(blockIdx.x) - f.first[p], ty = tile / f.tiles_x[p], tx = tile - ty * f.tiles_x[p];
  const int X0 = tx * kTileX, Y0 = ty * kTileY;
  // Cell i of output coordinate X (it reads taps i - 1 .. i + 2); block-uniform here.
  auto cell = [&](int X) {
    const int q = X / u;
    return q + ph.offset[X - q * u];
  };
  // Coefficients kx0 .. kx0 + cx - 1, ky0 .. ky0 + cy - 1 at unfolded indices:
  // the FIR of the mirrored input is mirror-symmetric itself, so the
  // coefficient at k is the one the evaluation's mirror_index(k) would read.
  const int kx0 = cell(X0) - 1, ky0 = cell(Y0) - 1;
  const FusedLayout l =
      fused_layout(cell(min(X0 + kTileX, ow) - 1) + 3 - kx0, cell(min(Y0 + kTileY, oh) - 1) + 3 - ky0);
  float* win = smem;
  float* rowf = smem + l.wy * l.ldw;
  float* coef = smem;

  // Input window, mirror-extended: lanes along a row (coalesced, and the
  // column's mirror index computed once), warps down the rows, the loads of
  // kLoadBatch rows issued together.
  {
    constexpr int kWarps = kFusedThreads / 32;
    const int lane = tid % 32, warp = tid / 32;
    for (int c = lane; c < l.wx; c += 32) {
      const TIn* col = pl.in + video::mirror_index(kx0 - kR + c, w);
      for (int r0 = warp; r0 < l.wy; r0 += kLoadBatch * kWarps) {
        float v[kLoadBatch];
#pragma unroll
        for (int j = 0; j < kLoadBatch; ++j) {
          const int r = r0 + j * kWarps;
          v[j] = r < l.wy ? float(__ldg(col + std::int64_t(video::mirror_index(ky0 - kR + r, h)) * pl.ld_in)) : 0.0f;
        }
#pragma unroll
        for (int j = 0; j < kLoadBatch; ++j)
          if (r0 + j * kWarps < l.wy) win[(r0 + j * kWarps) * l.ldw + c] = v[j];
      }
    }
  }
  __syncthreads();
  // Rows: every window row, cxp columns; consecutive threads take consecutive rows.
  for (int t = tid; t < l.wy * (l.cxp / kRun); t += kFusedThreads) {
    const int g = t / l.wy, r = t - g * l.wy;
    fir_run(win + r * l.ldw + g * kRun, 1, rowf + r * l.ldr + g * kRun, 1);
  }
  __syncthreads();
  // Columns: cyp coefficient rows of the cx columns; consecutive threads take consecutive columns.
  for (int t = tid; t < (l.cyp / kRun) * l.cx; t += kFusedThreads) {
    const int g = t / l.cx, c = t - g * l.cx;
    fir_run(rowf + g * kRun * l.ldr + c, l.ldr, coef + g * kRun * l.ldr + c, l.ldr);
  }
  __syncthreads();

  // Evaluation, the same sums in the same order as interpolate(): a thread
  // owns one column of 8 output rows, keeps the horizontal 4-tap sums of the
  // 4 coefficient rows in use and adds one row when the cell advances (at
  // most one per output row). A warp's lanes share the row: its weights are
  // a broadcast, and the store covers 32 consecutive pixels.
  const int X = X0 + tid % kTileX, Ya = Y0 + (tid / kTileX) * kRowsPerThread;
  const int Yb = min(Ya + kRowsPerThread, oh);
  if (X >= ow || Ya >= Yb) return;
  const int qx = X / u, rx = X - qx * u;
  const float w0 = wts[rx][0], w1 = wts[rx][1], w2 = wts[rx][2], w3 = wts[rx][3];
  const float* cp = coef + (qx + offs[rx] - 1 - kx0);
  auto hsum = [&](int row) {
    const float* c = cp + row * l.ldr;
    float t = 0.0f;
    t = fmaf(w0, c[0], t);
    t = fmaf(w1, c[1], t);
    t = fmaf(w2, c[2], t);
    t = fmaf(w3, c[3], t);
    return t;
  };
  int qy = Ya / u, ry = Ya - qy * u;
  int row = qy + offs[ry] - 1 - ky0;
  float t0 = hsum(row), t1 = hsum(row + 1), t2 = hsum(row + 2), t3 = hsum(row + 3);
  TOut* o = pl.out + std::int64_t(Ya) * pl.ld_out + X;
  for (int Y = Ya; Y < Yb; ++Y) {
    const int r = qy + offs[ry] - 1 - ky0;
    if (r != row) {
      t0 = t1;
      t1 = t2;
      t2 = t3;
      t3 = hsum(r + 3);
      row = r;
    }
    float s = 0.0f;
    s = fmaf(wts[ry][0], t0, s);
    s = fmaf(wts[ry][1], t1, s);
    s = fmaf(wts[ry][2], t2, s);
    s = fmaf(wts[ry][3], t3, s);
    *o = video::bspline_store<TOut>(s);
    o += pl.ld_out;
    if (++ry == u) ry = 0, ++qy;
  }
}

template <class TIn, class TOut>
void upscale_fused_impl(cudaStream_t stream, const BsplinePlane<TIn, TOut>* planes, int n, const BsplinePhases& ph) {
  const std::size_t smem = fused_smem_bytes(ph.u);
  for (int i = 0; i < n;) {
    FusedFrame<TIn, TOut> f{};
    long long blocks = 0;
    for (; i < n && f.n < kBsplineFusedMaxPlanes; ++i) {
      const BsplinePlane<TIn, TOut>& pl = planes[i];
      if (pl.h <= 0 || pl.w <= 0) continue;
      const long long tx = (std::int64_t(pl.w) * ph.u + kTileX - 1) / kTileX;
      const long long ty = (std::int64_t(pl.h) * ph.u + kTileY - 1) / kTileY;
      f.plane[f.n] = pl;
      f.tiles_x[f.n] = int(tx);
      f.first[f.n] = int(blocks);
      blocks += tx * ty;
      if (blocks > 0x7fffffffLL)
        throw std::invalid_argument("tessera::native_cuda::bspline_upscale_fused: planes too large");
      ++f.n;
    }
    if (f.n == 0) continue;
    f.first[f.n] = int(blocks);
    upscale_fused<TIn, TOut><<<unsigned(blocks), kFusedThreads, smem, stream>>>(f, ph);
    check(cudaGetLastError(), "bspline_upscale_fused launch");
  }
}

}  // namespace

void bspline_upscale_fused(cudaStream_t s, const BsplinePlane<std::uint8_t, std::uint8_t>* planes, int n,
                           const BsplinePhases& ph) {
  upscale_fused_impl(s, planes, n, ph);
}
void bspline_upscale_fused(cudaStream_t s, const BsplinePlane<std::uint8_t, float>* planes, int n,
                           const BsplinePhases& ph) {
  upscale_fused_impl(s, planes, n, ph);
}
void bspline_upscale_fused(cudaStream_t s, const BsplinePlane<float, std::uint8_t>* planes, int n,
                           const BsplinePhases& ph) {
  upscale_fused_impl(s, planes, n, ph);
}
void bspline_upscale_fused(cudaStream_t s, const BsplinePlane<float, float>* planes, int n, const BsplinePhases& ph) {
  upscale_fused_impl(s, planes, n, ph);
}

bool bspline_prefilter(cudaStream_t s, const std::uint8_t* in, std::int64_t ld, float* coef, int h, int w) {
  return prefilter_impl(s, in, ld, coef, h, w);
}
bool bspline_prefilter(cudaStream_t s, const float* in, std::int64_t ld, float* coef, int h, int w) {
  return prefilter_impl(s, in, ld, coef, h, w);
}
void bspline_interpolate(cudaStream_t s, const float* coef, int h, int w, std::uint8_t* out, std::int64_t ld,
                         const BsplinePhases& ph) {
  interpolate_impl(s, coef, h, w, out, ld, ph);
}
void bspline_interpolate(cudaStream_t s, const float* coef, int h, int w, float* out, std::int64_t ld,
                         const BsplinePhases& ph) {
  interpolate_impl(s, coef, h, w, out, ld, ph);
}

}  // namespace tessera::native_cuda
