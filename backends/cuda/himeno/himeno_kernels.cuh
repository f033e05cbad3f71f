#pragma once
// The native CUDA Himeno kernels (device code), launched by himeno_native.cu;
// a header so that the standalone probes in perf/ time candidate variants of
// the same kernels. The point update follows himenoBMTxps.c term by term
// (the same order as the portable kernels' point_ss); gosa is accumulated in
// double per thread and reduced in the same launch.
#include "tessera/himeno/himeno_chunk_order.hpp"
#include "tessera/himeno/himeno_native_cuda.hpp"

#include "common/block_reduce.cuh"

#include <algorithm>
#include <cstdint>

namespace tessera::native_cuda::kernels {

// The 12 coefficients of one point, loaded once (temporal blocking keeps them
// in registers from the first sweep to the second).
template <class T>
struct Coef {
  T a0, a1, a2, a3, b0, b1, b2, c0, c1, c2, wrk1, bnd;
};

template <class T>
__device__ __forceinline__ Coef<T> load_coef(const HimenoFields<T>& f, long long c) {
  return {__ldg(f.a0 + c), __ldg(f.a1 + c), __ldg(f.a2 + c), __ldg(f.a3 + c), __ldg(f.b0 + c), __ldg(f.b1 + c),
          __ldg(f.b2 + c), __ldg(f.c0 + c), __ldg(f.c1 + c), __ldg(f.c2 + c), __ldg(f.wrk1 + c), __ldg(f.bnd + c)};
}

// The residual ss, term by term as the listing; P(di, dj, dk) reads p at an
// offset from the point (global memory or a shared-memory plane ring).
template <class T, class PAt>
__device__ __forceinline__ T residual(const Coef<T>& q, PAt P) {
  const T s0 = q.a0 * P(1, 0, 0) + q.a1 * P(0, 1, 0) + q.a2 * P(0, 0, 1) +
               q.b0 * (P(1, 1, 0) - P(1, -1, 0) - P(-1, 1, 0) + P(-1, -1, 0)) +
               q.b1 * (P(0, 1, 1) - P(0, -1, 1) - P(0, 1, -1) + P(0, -1, -1)) +
               q.b2 * (P(1, 0, 1) - P(-1, 0, 1) - P(1, 0, -1) + P(-1, 0, -1)) + q.c0 * P(-1, 0, 0) +
               q.c1 * P(0, -1, 0) + q.c2 * P(0, 0, -1) + q.wrk1;
  return (s0 * q.a3 - P(0, 0, 0)) * q.bnd;
}

// Residual from global p, with p(i-1), p(i), p(i+1) of the column given.
template <class T>
__device__ __forceinline__ T residual(const HimenoFields<T>& f, long long c, T pm, T p0, T pp) {
  const long long si = f.stride_i, sj = f.stride_j;
  const T* __restrict__ p = f.p;
  return residual(load_coef(f, c), [&](int di, int dj, int dk) {
    if (dj == 0 && dk == 0) return di < 0 ? pm : (di > 0 ? pp : p0);
    return __ldg(p + c + di * si + dj * sj + dk);
  });
}

constexpr int kK = 32, kJ = 8, kThreads = kK * kJ;  // block: a warp along k, 8 rows of j
constexpr int kChunk = 8;                           // planes of i per march block

// kAligned: a warp covers k = 32 q .. 32 q + 31, one 128-byte line of float
// (the first and last k idle), instead of k = 1 + 32 q .., which straddles two.
template <class T, bool kAligned>
__global__ void __launch_bounds__(kThreads) jacobi_naive(HimenoFields<T> f, T omega, double* partial) {
  const int k = (kAligned ? 0 : 1) + blockIdx.x * kK + threadIdx.x;
  const int j = 1 + blockIdx.y * kJ + threadIdx.y;
  const int i = 1 + blockIdx.z;
  double acc = 0;
  if ((!kAligned || k >= 1) && k < f.nk - 1 && j < f.nj - 1) {
    const long long c = i * f.stride_i + j * f.stride_j + k;
    const T p0 = __ldg(f.p + c);
    const T ss = residual(f, c, __ldg(f.p + c - f.stride_i), p0, __ldg(f.p + c + f.stride_i));
    f.wrk2[c] = p0 + omega * ss;
    acc = double(ss) * double(ss);
  }
  block_partial<kThreads>(acc, partial);
}

// 16 bytes of consecutive k points (float4 / double2): one load instruction
// moves 512 bytes per warp. A plain copy on the H100 reaches 1.7 TB/s with 8
// bytes per thread and 3.0 TB/s with 16; the one-point kernels' 4-8 bytes
// per load keep too few bytes in flight at 32 registers.
template <class T>
struct Vec16 {
  static constexpr int n = 16 / sizeof(T);
  T v[n];
};
template <class T>
__device__ __forceinline__ Vec16<T> load16(const T* x) {
  Vec16<T> r;
  if constexpr (sizeof(T) == 4) {
    const float4 q = __ldg(reinterpret_cast<const float4*>(x));
    r.v[0] = q.x, r.v[1] = q.y, r.v[2] = q.z, r.v[3] = q.w;
  } else {
    const double2 q = __ldg(reinterpret_cast<const double2*>(x));
    r.v[0] = q.x, r.v[1] = q.y;
  }
  return r;
}
template <class T>
__device__ __forceinline__ void store16(T* x, const Vec16<T>& r) {
  if constexpr (sizeof(T) == 4)
    *reinterpret_cast<float4*>(x) = make_float4(r.v[0], r.v[1], r.v[2], r.v[3]);
  else
    *reinterpret_cast<double2*>(x) = make_double2(r.v[0], r.v[1]);
}

// A row of p at (di, dj) from the point, over the thread's V points and one
// more on each side (from the neighbouring lanes; at a warp's ends from memory).
template <class T>
struct RowHalo {
  Vec16<T> mid;
  T left, right;
  __device__ __forceinline__ T at(int e, int dk) const {
    constexpr int V = Vec16<T>::n;
    const int x = e + dk;
    return x < 0 ? left : (x >= V ? right : mid.v[x]);
  }
};
template <class T>
__device__ __forceinline__ RowHalo<T> load_row_halo(const T* x, int lane, bool has_left, bool has_right) {
  constexpr int V = Vec16<T>::n;
  RowHalo<T> r{load16(x), T(0), T(0)};
  r.left = __shfl_up_sync(0xffffffffu, r.mid.v[V - 1], 1);
  r.right = __shfl_down_sync(0xffffffffu, r.mid.v[0], 1);
  if (lane == 0 && has_left) r.left = __ldg(x - 1);
  if (lane == 31 && has_right) r.right = __ldg(x + V);
  return r;
}

// One thread per 16 bytes of a k row (V = 4 float or 2 double points),
// warps on 512-byte lines, rows of 8 j per block, blocks in chunk order
// (himeno_chunk_order.hpp: +7-14% at XL). Needs nk, the strides and
// every array 16-byte aligned (vector_fits); the boundary k = 0 and nk-1 are
// computed by nobody and stored by nobody (scalar stores on the edge vectors).
constexpr int kVecJ = 8, kVecThreads = 32 * kVecJ;
template <class T>
__global__ void __launch_bounds__(kVecThreads, 2)
    jacobi_vec(HimenoFields<T> f, T omega, tessera::himeno::ChunkOrder order, double* partial) {
  constexpr int V = Vec16<T>::n;
  const int lane = threadIdx.x;
  int kt, jt, i;
  order.tile(blockIdx.x, kt, jt, i);
  const int k0 = (kt * 32 + lane) * V;
  const int j = 1 + jt * kVecJ + threadIdx.y;
  ++i;
  double acc = 0;
  if (j < f.nj - 1) {  // the same for the whole warp (a warp is one row): shuffles stay converged
    const bool in_row = k0 < f.nk;
    const long long si = f.stride_i, sj = f.stride_j;
    const long long c = in_row ? i * si + j * sj + k0 : i * si + j * sj;  // idle lanes read a valid vector
    const bool has_left = k0 > 0, has_right = k0 + V < f.nk;
    const T* p = f.p + c;
    const RowHalo<T> p00 = load_row_halo(p, lane, has_left, has_right);
    const RowHalo<T> p10 = load_row_halo(p + si, lane, has_left, has_right);
    const RowHalo<T> pm0 = load_row_halo(p - si, lane, has_left, has_right);
    const RowHalo<T> p01 = load_row_halo(p + sj, lane, has_left, has_right);
    const RowHalo<T> p0m = load_row_halo(p - sj, lane, has_left, has_right);
    const Vec16<T> p11 = load16(p + si + sj), p1m = load16(p + si - sj);
    const Vec16<T> pm1 = load16(p - si + sj), pmm = load16(p - si - sj);
    const Vec16<T> a0 = load16(f.a0 + c), a1 = load16(f.a1 + c), a2 = load16(f.a2 + c), a3 = load16(f.a3 + c);
    const Vec16<T> b0 = load16(f.b0 + c), b1 = load16(f.b1 + c), b2 = load16(f.b2 + c);
    const Vec16<T> c0 = load16(f.c0 + c), c1 = load16(f.c1 + c), c2 = load16(f.c2 + c);
    const Vec16<T> w1 = load16(f.wrk1 + c), bn = load16(f.bnd + c);
    Vec16<T> out;
    bool all_interior = true;
#pragma unroll
    for (int e = 0; e < V; ++e) {
      const int k = k0 + e;
      const bool interior = in_row && k >= 1 && k < f.nk - 1;
      all_interior = all_interior && interior;
      const Coef<T> q{a0.v[e], a1.v[e], a2.v[e], a3.v[e], b0.v[e], b1.v[e], b2.v[e], c0.v[e], c1.v[e], c2.v[e], w1.v[e], bn.v[e]};
      const T ss = residual(q, [&](int di, int dj, int dk) -> T {
        if (di == 0 && dj == 0) return p00.at(e, dk);
        if (dj == 0) return di > 0 ? p10.at(e, dk) : pm0.at(e, dk);
        if (di == 0) return dj > 0 ? p01.at(e, dk) : p0m.at(e, dk);
        return di > 0 ? (dj > 0 ? p11.v[e] : p1m.v[e]) : (dj > 0 ? pm1.v[e] : pmm.v[e]);  // dk = 0 only
      });
      out.v[e] = p00.mid.v[e] + omega * ss;
      if (interior) acc += double(ss) * double(ss);
    }
    T* w = f.wrk2 + c;
    if (all_interior) {
      store16(w, out);
    } else if (in_row) {
#pragma unroll
      for (int e = 0; e < V; ++e)
        if (k0 + e >= 1 && k0 + e < f.nk - 1) w[e] = out.v[e];
    }
  }
  block_partial<kVecThreads>(acc, partial);
}

// Whether jacobi_vec may run on these fields: 16-byte vectors on every row.
template <class T>
bool vector_fits(const HimenoFields<T>& f) {
  constexpr int V = Vec16<T>::n;
  const void* arrays[] = {f.a0, f.a1, f.a2, f.a3, f.b0, f.b1, f.b2, f.c0, f.c1, f.c2, f.wrk1, f.bnd, f.p, f.wrk2};
  for (const void* a : arrays)
    if (reinterpret_cast<std::uintptr_t>(a) % 16) return false;
  return f.nk % V == 0 && f.stride_j % V == 0 && f.stride_i % V == 0;
}

template <class T>
__global__ void __launch_bounds__(kThreads) jacobi_march(HimenoFields<T> f, T omega, double* partial) {
  const int k = 1 + blockIdx.x * kK + threadIdx.x;
  const int j = 1 + blockIdx.y * kJ + threadIdx.y;
  const int i0 = 1 + blockIdx.z * kChunk;
  const int i1 = min(i0 + kChunk, f.ni - 1);
  double acc = 0;
  if (k < f.nk - 1 && j < f.nj - 1) {
    long long c = i0 * f.stride_i + j * f.stride_j + k;
    T pm = __ldg(f.p + c - f.stride_i), p0 = __ldg(f.p + c);
    for (int i = i0; i < i1; ++i, c += f.stride_i) {
      const T pp = __ldg(f.p + c + f.stride_i);
      const T ss = residual(f, c, pm, p0, pp);
      f.wrk2[c] = p0 + omega * ss;
      acc += double(ss) * double(ss);
      pm = p0;
      p0 = pp;
    }
  }
  block_partial<kThreads>(acc, partial);
}

// Two sweeps per pass over memory (temporal blocking). A block owns an output
// tile of (kTbJ-2) x (kTbK-2) points in (j, k) and a segment of planes in i
// (segment_planes), and marches in i. Each step computes sweep 1 on plane i for the tile
// and a one-point halo ring (the halo is recomputed by the neighbours too),
// keeps the result in a shared-memory ring of planes, and computes sweep 2 on
// plane i-1 from that ring with the coefficients it loaded for sweep 1 one
// step earlier, held in registers. So each coefficient is read from memory
// once for two sweeps (plus the halo's share), and p1 never leaves the chip.
constexpr int kTbK = 32, kTbJ = 16, kTbThreads = kTbK * kTbJ;

// Two blocks per SM cap a thread at 64 registers: enough in float, but the 12
// held double coefficients then spill (124 bytes per thread), so double runs
// one block per SM with up to 128 registers.
//
// The ring has 4 slots, so one barrier per plane suffices: the slot a step
// writes was last read two steps earlier, before the previous step's barrier
// (3 slots and a second barrier: 2-4% slower on the H100, 1 block per SM in
// float with 72 registers: 1-2% slower).
//
// Segments: the interior's planes cut into nz equal segments (gridDim.z in a
// launch; fused2_segments picks the count); segment z's sweep-2 planes are
// [is, ie).
__device__ __forceinline__ void segment_planes(int ni, int nz, int z, int& is, int& ie) {
  const int seg = (ni - 2 + nz - 1) / nz;
  is = 1 + z * seg;
  ie = min(is + seg, ni - 1);
}

// How many segments for a grid of `tiles` (j, k) tiles with `slots` resident
// blocks on the device. A block sweeps its segment plus a plane on each side
// and the blocks run in waves of `slots`, so the time goes as waves x
// (planes per segment + 2); this picks the count of least modelled time
// (ties: fewer), with segments of at most kMaxSegment planes. Fixed 64-plane
// segments left most SMs idle in the last wave at L float (684 blocks on 132
// SMs: 5.2 waves: 1.42x the single sweep against 1.52x with 3 or 6 segments);
// longer segments were slower at XL for no reason the model sees (H100,
// perf/experiments/himeno_fused_probe.cu, double, the register kernel: 510 planes 4227
// GB/s against 4415 for 64; the prefetching kernel: 256 planes 4176 against
// 4670 for 64).
constexpr int kMaxSegment = 64;
inline int fused2_segments(long long tiles, int planes, int slots) {
  int best = 0;
  long long best_cost = 0;
  const int first = (planes + kMaxSegment - 1) / kMaxSegment;
  const long long last = std::min<long long>({planes, first + 4LL * slots, 65535});  // grid.z's limit
  for (int n = first; n <= last; ++n) {
    const long long seg = (planes + n - 1) / n;
    if ((n - 1) * seg >= planes) continue;  // an empty last segment
    const long long cost = (tiles * n + slots - 1) / slots * (seg + 2);
    if (best == 0 || cost < best_cost) best = n, best_cost = cost;
  }
  return best ? best : int(last);  // more than 65535 x 64 planes: longer segments
}

// kPrefetch (what the library launches where the shared memory fits): with
// one block per SM, the register version's warps wait for their loads at the
// start of every plane step, and while they compute sweep 2 nothing is in
// flight (ncu: DRAM at 64% of peak). With kPrefetch the coefficients of plane
// i+1 are loaded before the barrier and are in flight during sweep 2, those of
// plane i wait for sweep 2 in shared memory (held_bytes: two slots, each
// thread its own column, so they need no barrier of their own) instead of
// registers, and the p plane that sweep 1 meets first next step is
// prefetched into L1. H100, against the register version (probe, GB/s
// effective): L float 4441 -> 4800, L double 4599 -> 5033, XL float 4386 ->
// 4652, XL double 4406 -> 4681 (+6-10%; the coefficients alone +1-5%).
// Tried on top and dropped: an L2 prefetch of the coefficients two planes
// ahead (-2-5%), a second p plane into L1, streaming (evict-first) stores of
// wrk2, the tiles in chunks of 2, 4 or 8 along k (-4-10% at L, +1-3% at XL;
// measured twice), coefficients two planes ahead in registers (128
// registers, -10%), p staged in shared memory as jacobi_fused2_k2's kPrefetch
// (double: +-0.5%), and the coefficients and p copied into shared memory by
// cp.async.cg (16 bytes, bypassing L1) two planes ahead with the coefficients
// of sweep 2 in registers (double, 120 registers: L 5034 -> 3910-4206, XL
// 4659 -> 3878-4035).
template <class Unit>
constexpr int held_bytes() {
  return 2 * 12 * kTbThreads * int(sizeof(Unit));
}
// The thread's column of the held slot of `plane` (12 entries kTbThreads apart).
template <class Unit>
__device__ __forceinline__ Unit* held_column(int plane) {
  extern __shared__ __align__(16) unsigned char held_smem[];
  return reinterpret_cast<Unit*>(held_smem) + (plane & 1) * 12 * kTbThreads + threadIdx.x + blockDim.x * threadIdx.y;
}
template <class T>
__device__ __forceinline__ Coef<T> load_held(const T* h) {
  return {h[0],              h[kTbThreads],     h[2 * kTbThreads], h[3 * kTbThreads],
          h[4 * kTbThreads], h[5 * kTbThreads], h[6 * kTbThreads], h[7 * kTbThreads],
          h[8 * kTbThreads], h[9 * kTbThreads], h[10 * kTbThreads], h[11 * kTbThreads]};
}
template <class T>
__device__ __forceinline__ void store_held(T* h, const Coef<T>& q) {
  const T v[12] = {q.a0, q.a1, q.a2, q.a3, q.b0, q.b1, q.b2, q.c0, q.c1, q.c2, q.wrk1, q.bnd};
#pragma unroll
  for (int m = 0; m < 12; ++m) h[m * kTbThreads] = v[m];
}

__device__ __forceinline__ void prefetch_l1(const void* a) { asm volatile("prefetch.global.L1 [%0];" ::"l"(a)); }

// The signature of every fused2 kernel (jacobi_fused2, jacobi_fused2_k2).
template <class T>
using Fused2Kernel = void (*)(HimenoFields<T>, T, double*, unsigned*, double*);

// Sets the attributes a fused2 kernel launches with (the library and the
// probe) and returns in `blocks` the blocks per SM it then gets; 0 when its
// `held` dynamic shared memory does not fit in a block on this device (~113
// KiB: Volta and later data-centre GPUs), and nothing is set. held > 0 (the
// prefetching kernels): that dynamic shared memory and the smallest carve-out
// that holds one block; held = 0: all L1. Either way the rest stays L1, where
// sweep 1 finds p's planes.
template <class Kernel>
cudaError_t fused2_configure(Kernel kernel, int held, int& blocks) {
  blocks = 0;
  int device = 0, sm_smem = 0, block_smem = 0;
  cudaFuncAttributes a{};
  cudaError_t e = cudaGetDevice(&device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sm_smem, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&block_smem, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  if (e == cudaSuccess) e = cudaFuncGetAttributes(&a, kernel);
  if (e != cudaSuccess || int(a.sharedSizeBytes) + held > block_smem) return e;
  const int need = int(a.sharedSizeBytes) + held + 1024;  // 1 KiB reserved per block
  if (held > 0) e = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, held);
  if (e == cudaSuccess)
    e = cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                             held > 0 ? std::min(100, (100 * need + sm_smem - 1) / sm_smem) : 0);
  if (e == cudaSuccess) e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, kTbThreads, held);
  return e;
}

// The grid of a fused2 launch: tiles of tile_k x (kTbJ - 2) outputs in
// (k, j), the planes cut into segments for `slots` resident blocks.
template <class T>
dim3 fused2_grid(const HimenoFields<T>& f, int tile_k, int slots) {
  dim3 grid((f.nk - 2 + tile_k - 1) / tile_k, (f.nj - 2 + kTbJ - 3) / (kTbJ - 2), 1);
  grid.z = fused2_segments((long long)grid.x * grid.y, f.ni - 2, slots);
  return grid;
}

// One block's share of jacobi_fused2: tile (bx, by) of the launch grid,
// segment bz of nz; adds its gosa terms to g1, g2 (sweeps 1 and 2). A
// function of its own so that a persistent kernel can take several tiles
// (perf/experiments/himeno_fused_probe.cu, fused2_waves).
template <class T, bool kPrefetch>
__device__ __forceinline__ void fused2_tile(const HimenoFields<T>& f, T omega, int bx, int by, int bz, int nz,
                                            double& g1, double& g2) {
  constexpr int kRing = 4;
  __shared__ T ring[kRing][kTbJ][kTbK];  // p after sweep 1 of planes i-3 .. i (slot = plane % 4)
  const int tk = threadIdx.x, tj = threadIdx.y;
  const int k = bx * (kTbK - 2) + tk;  // this thread's point; the tile starts at k = 1
  const int j = by * (kTbJ - 2) + tj;
  const bool in_array = k < f.nk && j < f.nj;
  const bool inner_jk = k >= 1 && k < f.nk - 1 && j >= 1 && j < f.nj - 1;
  const bool owner = inner_jk && tk >= 1 && tk < kTbK - 1 && tj >= 1 && tj < kTbJ - 1;
  int is, ie;  // sweep-2 planes [is, ie)
  segment_planes(f.ni, nz, bz, is, ie);
  const long long si = f.stride_i, sj = f.stride_j;
  const long long cjk = j * sj + k;
  // Whether sweep 1 computes on plane i (and so needs its coefficients).
  const auto computes = [&](int i) { return inner_jk && i >= 1 && i < f.ni - 1; };
  Coef<T> prev{};  // coefficients of plane i-1 (owners; registers version)
  Coef<T> next{};  // of plane i (prefetch: loaded one step early)
  if constexpr (kPrefetch) {
    if (computes(is - 1)) next = load_coef(f, (is - 1) * si + cjk);
  }
  for (int i = is - 1; i <= ie; ++i) {
    const int slot = i % kRing;
    const long long c = i * si + cjk;
    // Sweep 1 on plane i (tile and halo); p1 = p outside the interior.
    Coef<T> cur{};
    if (in_array) {
      T p1;
      if (computes(i)) {
        if constexpr (kPrefetch) cur = next;
        else cur = load_coef(f, c);
        const T* __restrict__ p = f.p;
        const T ss = residual(cur, [&](int di, int dj, int dk) { return __ldg(p + c + di * si + dj * sj + dk); });
        p1 = __ldg(p + c) + omega * ss;
        if (owner && i >= is && i < ie) g1 += double(ss) * double(ss);
        if constexpr (kPrefetch) {
          if (owner) store_held(held_column<T>(i), cur);
        }
      } else {
        p1 = __ldg(f.p + c);
      }
      ring[slot][tj][tk] = p1;
    }
    if constexpr (kPrefetch) {
      if (i < ie && computes(i + 1)) next = load_coef(f, c + si);  // in flight during sweep 2
      if (in_array && i + 2 < f.ni) prefetch_l1(f.p + c + 2 * si);  // the p plane sweep 1 meets next step
    }
    __syncthreads();
    // Sweep 2 on plane i-1 from the ring.
    const int i2 = i - 1;
    if (owner && i2 >= is) {
      const int s0 = i2 % kRing;
      const Coef<T> q = kPrefetch ? load_held(held_column<T>(i2)) : prev;
      const T ss = residual(q, [&](int di, int dj, int dk) { return ring[(s0 + kRing + di) % kRing][tj + dj][tk + dk]; });
      f.wrk2[i2 * si + cjk] = ring[s0][tj][tk] + omega * ss;
      g2 += double(ss) * double(ss);
    }
    if constexpr (!kPrefetch) prev = cur;
  }
}

template <class T, bool kPrefetch = false>
__global__ void __launch_bounds__(kTbThreads, (sizeof(T) == 4 && !kPrefetch) ? 2 : 1)
    jacobi_fused2(HimenoFields<T> f, T omega, double* partial, unsigned* done, double* gosa) {
  double g1 = 0, g2 = 0;
  fused2_tile<T, kPrefetch>(f, omega, blockIdx.x, blockIdx.y, blockIdx.z, gridDim.z, g1, g2);
  grid_sum2<kTbThreads>(g1, g2, partial, done, gosa);
}

// --- fused2, two k points per thread (float) -------------------------------
// The one-point fused kernel is bound by latency per plane step in float
// (57 G point-sweeps/s against 41 G in double, the same bytes). Two k points
// per thread halve the threads per point and double the bytes per load: a
// 64 x 16 tile (62 x 14 outputs, halo x1.18 instead of x1.22), 8-byte loads
// of the 12 coefficients and the 9 p rows, k neighbours from the neighbouring
// lanes, one 512-thread block per SM (114 registers, no spills; 115 with
// kPrefetch). On the H100 (perf/experiments/himeno_fused_probe.cu, register versions):
// 1.52x / 1.48x the single sweep at L / XL against 1.05x / 1.03x for the
// one-point kernel. Double spills at 128 registers and stays one point per
// thread.

// Two consecutive T of a row as one 8- or 16-byte access.
template <class T>
struct alignas(2 * sizeof(T)) V2 {
  T x, y;
};
template <class T>
__device__ __forceinline__ V2<T> ld2(const T* a) {
  if constexpr (sizeof(T) == 4) {
    const float2 v = __ldg(reinterpret_cast<const float2*>(a));
    return {v.x, v.y};
  } else {
    const double2 v = __ldg(reinterpret_cast<const double2*>(a));
    return {v.x, v.y};
  }
}
// A row's two points and their k-1, k+2 neighbours: from the neighbouring
// lanes (a warp is one row of the tile), at the warp's ends from `edge`.
template <class T>
struct Row2 {
  V2<T> v;
  T left, right;
  __device__ __forceinline__ T at(int e, int dk) const {
    const int x = e + dk;
    return x < 0 ? left : x == 0 ? v.x : x == 1 ? v.y : right;
  }
};
template <class T, class Edge>
__device__ __forceinline__ Row2<T> row2(V2<T> v, int lane, Edge edge) {
  Row2<T> r{v, __shfl_up_sync(0xffffffffu, v.y, 1), __shfl_down_sync(0xffffffffu, v.x, 1)};
  if (lane == 0) r.left = edge(-1);
  if (lane == 31) r.right = edge(2);
  return r;
}
// The 19 p values around a thread's two points: five rows with their k
// neighbours, the four (i, j) corners without.
template <class T>
struct Around2 {
  Row2<T> r00, r10, rm0, r01, r0m;
  V2<T> p11, p1m, pm1, pmm;
  __device__ __forceinline__ T at(int e, int di, int dj, int dk) const {
    if (di == 0 && dj == 0) return r00.at(e, dk);
    if (dj == 0) return di > 0 ? r10.at(e, dk) : rm0.at(e, dk);
    if (di == 0) return dj > 0 ? r01.at(e, dk) : r0m.at(e, dk);
    const V2<T> v = di > 0 ? (dj > 0 ? p11 : p1m) : (dj > 0 ? pm1 : pmm);
    return e ? v.y : v.x;
  }
};
// pair(di, dj): the thread's two points of row (di, dj); edge_of(di, dj):
// that row's loader of single values at k offsets (the warp's ends).
template <class T, class Pair, class EdgeOf>
__device__ __forceinline__ Around2<T> around2(Pair pair, int lane, EdgeOf edge_of) {
  return {row2(pair(0, 0), lane, edge_of(0, 0)),  row2(pair(1, 0), lane, edge_of(1, 0)),
          row2(pair(-1, 0), lane, edge_of(-1, 0)), row2(pair(0, 1), lane, edge_of(0, 1)),
          row2(pair(0, -1), lane, edge_of(0, -1)), pair(1, 1), pair(1, -1), pair(-1, 1), pair(-1, -1)};
}
template <class T>
__device__ __forceinline__ T residual2(const V2<T>* q, int e, const Around2<T>& a) {
  const auto at = [&](int m) { return e ? q[m].y : q[m].x; };
  const Coef<T> c{at(0), at(1), at(2), at(3), at(4), at(5), at(6), at(7), at(8), at(9), at(10), at(11)};
  return residual(c, [&](int di, int dj, int dk) { return a.at(e, di, dj, dk); });
}

constexpr int kK2 = 2 * kTbK, kK2Out = kK2 - 2;  // tile points along k (32 lanes x 2), outputs

// kPrefetch (what the library launches in float where the shared memory
// fits): the coefficients as jacobi_fused2's kPrefetch (pairs held in shared
// memory for sweep 2), and p staged in shared memory too: each step loads the
// tile's pair of p three planes ahead into registers (in flight during sweep
// 2; warps 0 and kTbJ-1 also the halo rows, lanes 0 and 31 the k edges) and
// stores it after sweep 2, so sweep 1 reads its 19 values from shared memory
// (kStage planes i-1 .. i+2) instead of through L1, where each step's nine
// pair loads and ten edge loads met the coefficients streaming past: ncu, XL
// float: L1 hit rate 36% -> 7% (p no longer goes through L1), 11.1 -> 9.8
// cycles per issued instruction, DRAM 78.5% -> 81.5% of peak (L2 at 94%).
// H100 (perf/experiments/himeno_fused_probe.cu, GB/s effective), against p through L1 with
// an L1 prefetch of the next plane: L float 4821-4850 -> 4995-5084, XL float
// 4626-4642 -> 4793-4865 (+3-5%). The same staging in the one-point double
// kernel changed nothing (L 5085 -> 5104, XL 4682 -> 4693): dropped there.
// Tried and dropped: the two edge loads of a row as one load of lanes 0 and 31
// (-20%), pair stores of wrk2 (+-0.5%).
constexpr int kStage = 4;          // staged p planes (i-1 .. i+2 while step i's sweep 1 reads i-1 .. i+1)
constexpr int kStageRow = kK2 + 4;  // [pad, k-1, the tile's 64 points, k+64, pad]: tile-local k at k + 2
// One block's share of jacobi_fused2_k2, as fused2_tile for jacobi_fused2.
template <class T, bool kPrefetch>
__device__ __forceinline__ void fused2_k2_tile(const HimenoFields<T>& f, T omega, int bx, int by, int bz, int nz,
                                               double& g1, double& g2) {
  constexpr int kRing = 4;  // one barrier per plane, as jacobi_fused2
  __shared__ __align__(16) T ring[kRing][kTbJ][kK2];
  // p staged (kPrefetch): rows j-1 .. j+16 of the tile (one row when unused).
  constexpr int kSlots = kPrefetch ? kStage : 1;
  __shared__ __align__(16) T staged[kSlots][kPrefetch ? kTbJ + 2 : 1][kPrefetch ? kStageRow : 2];
  const T* const coef[12] = {f.a0, f.a1, f.a2, f.a3, f.b0, f.b1, f.b2, f.c0, f.c1, f.c2, f.wrk1, f.bnd};
  const int lane = threadIdx.x, tj = threadIdx.y;
  const int kt = 2 * lane;                     // tile-local k of the thread's first point
  const int kb = bx * kK2Out;                  // the tile's first k
  const int k0 = kb + kt;                      // the thread's (even: the pair is aligned)
  const int jb = by * (kTbJ - 2);              // the tile's first j
  const int j = jb + tj;
  const bool row = j < f.nj;                   // warp-uniform
  const bool inner_j = j >= 1 && j < f.nj - 1;
  const bool in_k = k0 < f.nk;                 // both points (nk even)
  const long long si = f.stride_i, sj = f.stride_j;
  const long long cjk = j * sj + (in_k ? k0 : 0);  // idle lanes read a valid pair
  bool inner[2], own[2];
  for (int e = 0; e < 2; ++e) {
    const int k = k0 + e, t = kt + e;
    inner[e] = in_k && inner_j && k >= 1 && k < f.nk - 1;
    own[e] = inner[e] && t >= 1 && t < kK2 - 1 && tj >= 1 && tj < kTbJ - 1;
  }
  int is, ie;  // sweep-2 planes [is, ie)
  segment_planes(f.ni, nz, bz, is, ie);
  // Whether sweep 1 computes on plane i (warp-uniform); the rows sweep 2 updates.
  const auto computes = [&](int i) { return row && inner_j && i >= 1 && i < f.ni - 1; };
  const bool sweep2_row = row && inner_j && tj >= 1 && tj < kTbJ - 1;
  // Staging p (kPrefetch): the thread's pair, lanes 0 / 31 the row's k edge,
  // warps 0 / kTbJ-1 the same of the halo row above / below.
  const int ke = lane == 0 ? kb - 1 : kb + kK2;
  const bool edge_lane = lane == 0 || lane == 31;
  const bool edge_in = edge_lane && ke >= 0 && ke < f.nk;
  const int jh = tj == 0 ? jb - 1 : jb + kTbJ;
  const bool halo_warp = (tj == 0 || tj == kTbJ - 1) && jh >= 0 && jh < f.nj;  // warp-uniform
  const long long chk = jh * sj + (in_k ? k0 : 0);
  struct Stage {
    V2<T> v, hv;
    T e, he;
  };
  const auto stage_load = [&](int plane) {
    Stage st{{T(0), T(0)}, {T(0), T(0)}, T(0), T(0)};
    const T* p = f.p + plane * si;
    if (row) {
      st.v = ld2(p + cjk);
      if (edge_in) st.e = __ldg(p + j * sj + ke);
    }
    if (halo_warp) {
      st.hv = ld2(p + chk);
      if (edge_in) st.he = __ldg(p + jh * sj + ke);
    }
    return st;
  };
  const int edge_at = lane == 0 ? 1 : kK2 + 2;
  const auto stage_store = [&](int plane, const Stage& st) {
    auto& s = staged[plane % kSlots];
    if (row) {
      *reinterpret_cast<V2<T>*>(&s[tj + 1][kt + 2]) = st.v;
      if (edge_lane) s[tj + 1][edge_at] = st.e;
    }
    if (halo_warp) {
      const int r = tj == 0 ? 0 : kTbJ + 1;
      *reinterpret_cast<V2<T>*>(&s[r][kt + 2]) = st.hv;
      if (edge_lane) s[r][edge_at] = st.he;
    }
  };
  V2<T> prev[12], cur[12];
  if constexpr (kPrefetch) {
    for (int plane = is - 2; plane <= is + 1; ++plane)
      if (plane >= 0 && plane < f.ni) stage_store(plane, stage_load(plane));
    if (computes(is - 1)) {
#pragma unroll
      for (int m = 0; m < 12; ++m) cur[m] = ld2(coef[m] + (is - 1) * si + cjk);
    }
    __syncthreads();
  }
  for (int i = is - 1; i <= ie; ++i) {
    const long long c = i * si + cjk;
    // Sweep 1 on plane i (tile and halo); p1 = p outside the interior.
    if (row) {
      const T* p = f.p + c;
      const auto staged_at = [&](int di, int dj) -> const T* { return &staged[(i + di) % kSlots][tj + 1 + dj][kt + 2]; };
      const V2<T> pc = kPrefetch ? *reinterpret_cast<const V2<T>*>(staged_at(0, 0)) : ld2(p);
      V2<T> p1 = pc;
      if (computes(i)) {  // warp-uniform: the shuffles stay converged
        if constexpr (!kPrefetch) {  // (prefetch: loaded one step early)
#pragma unroll
          for (int m = 0; m < 12; ++m) cur[m] = ld2(coef[m] + c);
        }
        const Around2<T> a = around2<T>(
            [&](int di, int dj) {
              if constexpr (kPrefetch) return *reinterpret_cast<const V2<T>*>(staged_at(di, dj));
              else return ld2(p + di * si + dj * sj);
            },
            lane,
            [&](int di, int dj) {
              const T* q = kPrefetch ? staged_at(di, dj) : p + di * si + dj * sj;
              return [=](int dk) {
                if constexpr (kPrefetch) return q[dk];  // the staged row's edges (0 outside the array)
                else return k0 + dk >= 0 && k0 + dk < f.nk ? __ldg(q + dk) : T(0);
              };
            });
        T out[2];
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const T ss = residual2(cur, e, a);
          out[e] = (e ? pc.y : pc.x) + (inner[e] ? omega * ss : T(0));
          if (own[e] && i >= is && i < ie) g1 += double(ss) * double(ss);
        }
        p1 = {out[0], out[1]};
        if constexpr (kPrefetch) {
          if (sweep2_row) {
            V2<T>* h = held_column<V2<T>>(i);
#pragma unroll
            for (int m = 0; m < 12; ++m) h[m * kTbThreads] = cur[m];
          }
        }
      }
      *reinterpret_cast<V2<T>*>(&ring[i % kRing][tj][kt]) = p1;
    }
    // kPrefetch: plane i+1's coefficients and plane i+3's p, in flight during
    // sweep 2; p is stored after it, into the slot of plane i-1, which step i's
    // sweep 1 was the last to read (before the barrier), and read from step i+2.
    const bool stage = kPrefetch && i + 2 <= ie && i + 3 < f.ni;  // (the last segment's ie + 1 = ni: no plane)
    Stage st{};
    if constexpr (kPrefetch) {
      if (i < ie && computes(i + 1)) {
#pragma unroll
        for (int m = 0; m < 12; ++m) cur[m] = ld2(coef[m] + c + si);
      }
      if (stage) st = stage_load(i + 3);
    }
    __syncthreads();
    // Sweep 2 on plane i-1 from the ring.
    const int i2 = i - 1;
    if (sweep2_row && i2 >= is) {  // warp-uniform
      const int s0 = i2 % kRing;
      const Around2<T> a = around2<T>(
          [&](int di, int dj) {
            return *reinterpret_cast<const V2<T>*>(&ring[(s0 + kRing + di) % kRing][tj + dj][kt]);
          },
          lane, [](int, int) { return [](int) { return T(0); }; });  // lanes 0 and 31 own no point needing them
      if constexpr (kPrefetch) {
        const V2<T>* h = held_column<V2<T>>(i2);
#pragma unroll
        for (int m = 0; m < 12; ++m) prev[m] = h[m * kTbThreads];
      }
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        if (!own[e]) continue;
        const T ss = residual2(prev, e, a);
        f.wrk2[i2 * si + cjk + e] = a.r00.at(e, 0) + omega * ss;
        g2 += double(ss) * double(ss);
      }
    }
    if constexpr (kPrefetch) {
      if (stage) stage_store(i + 3, st);
    } else {
#pragma unroll
      for (int m = 0; m < 12; ++m) prev[m] = cur[m];
    }
  }
}

template <class T, bool kPrefetch = false>
__global__ void __launch_bounds__(kTbThreads, 1)
    jacobi_fused2_k2(HimenoFields<T> f, T omega, double* partial, unsigned* done, double* gosa) {
  double g1 = 0, g2 = 0;
  fused2_k2_tile<T, kPrefetch>(f, omega, blockIdx.x, blockIdx.y, blockIdx.z, gridDim.z, g1, g2);
  grid_sum2<kTbThreads>(g1, g2, partial, done, gosa);
}

// Whether jacobi_fused2_k2 may run on these fields: aligned pairs on every row.
template <class T>
bool pairs_fit(const HimenoFields<T>& f) {
  const void* arrays[] = {f.a0, f.a1, f.a2, f.a3, f.b0, f.b1, f.b2, f.c0, f.c1, f.c2, f.wrk1, f.bnd, f.p, f.wrk2};
  for (const void* a : arrays)
    if (reinterpret_cast<std::uintptr_t>(a) % (2 * sizeof(T))) return false;
  return f.nk % 2 == 0 && f.stride_j % 2 == 0 && f.stride_i % 2 == 0;
}

// --- fused2 in waves (grids of many waves of blocks) -------------------------
// All fused kernels are bound by DRAM bytes (ncu: 2.72 TB/s, 81% of peak), and
// at XL they read 13-17% more than the ideal where L reads 5% more: the excess
// follows the number of waves of blocks (5% at 10 waves, 8% at 20, 13-17% at
// 68-81; H100, six grids), not the plane size, padding, base addresses or
// partial tiles. Blocks started by the hardware scheduler drift apart over
// the waves, so a tile's halo rows, which its neighbours read too, have left
// L2 when they come to read them. Here persistent blocks, as many as can be
// resident (a cooperative launch guarantees it), take the same tile-segments
// in the plain launch order (item = block + n x blocks), and each starts
// wave n once all blocks have finished wave n-1 (a counter in global memory;
// only the last wave can be partial). H100 (perf/experiments/himeno_fused_probe.cu, GB/s
// effective, against the same tiles started by the hardware; waves of the
// per-tile launch in brackets): double, grids 256 .. 512 along i (L to XL):
// 5077 -> 4895 (10: -4%), 4967 -> 4992 (16: +0.5%), 4968 -> 5084 (23:
// +2%), 4787 -> 4889 (38: +2%), 4800 -> 4970 (39: +4%), XL 4690 -> 4882
// (79: +4%; DRAM excess 17% -> 7% in the experiment before); float (k2): L
// 5081 -> 4875 (8: -4%), XL 4863 -> 5048 (43: +4%). Below ~16 waves the
// blocks lose more waiting for the slowest at every barrier than L2 gains,
// so the library takes it from kWavesMin waves (fused2_async). Without the
// barrier, or with one wave of slack, persistent blocks lost 20-25%
// (experiment).
struct Fused2Waves {
  int nkt, njt, nz;    // the per-tile launch's grid: tiles along k, j, segments
  unsigned* finished;  // tile-segments finished; zero between launches (the last one resets it)
};
template <class T, bool kPairs>  // kPairs: fused2_k2_tile, else fused2_tile (both prefetching)
__global__ void __launch_bounds__(kTbThreads, 1)
    jacobi_fused2_waves(HimenoFields<T> f, T omega, double* partial, unsigned* done, double* gosa, Fused2Waves w) {
  double g1 = 0, g2 = 0;
  const unsigned total = unsigned(w.nkt) * unsigned(w.njt) * unsigned(w.nz);
  const bool leader = threadIdx.x == 0 && threadIdx.y == 0;
  unsigned n = 0;
  for (unsigned item = blockIdx.x; item < total; item += gridDim.x, ++n) {
    if (n > 0) {  // wave n-1 (full: only the last wave can be partial) finished
      if (leader) {
        while (*reinterpret_cast<volatile unsigned*>(w.finished) < n * gridDim.x) __nanosleep(64);
        __threadfence();
      }
      __syncthreads();
    }
    const int bx = int(item % unsigned(w.nkt)), by = int(item / unsigned(w.nkt) % unsigned(w.njt));
    const int bz = int(item / (unsigned(w.nkt) * unsigned(w.njt)));
    if constexpr (kPairs) fused2_k2_tile<T, true>(f, omega, bx, by, bz, w.nz, g1, g2);
    else fused2_tile<T, true>(f, omega, bx, by, bz, w.nz, g1, g2);
    __syncthreads();  // the tile's last reads of its shared memory, before the next item or the count
    if (leader) {
      __threadfence();
      // The last item: every block is past its last wait, so the count can go back to zero.
      if (atomicAdd(w.finished, 1u) == total - 1) atomicExch(w.finished, 0u);
    }
  }
  grid_sum2<kTbThreads>(g1, g2, partial, done, gosa);
}
template <class T>
using Fused2WavesKernel = void (*)(HimenoFields<T>, T, double*, unsigned*, double*, Fused2Waves);

// A cooperative launch of `kernel` in `blocks` resident blocks over the
// tile-segments of the per-tile launch's `grid` (the library and the probe).
template <class T>
cudaError_t launch_fused2_waves(Fused2WavesKernel<T> kernel, dim3 grid, unsigned blocks, int held,
                                cudaStream_t stream, HimenoFields<T> f, T omega, double* partial, unsigned* done,
                                double* gosa, unsigned* finished) {
  Fused2Waves w{int(grid.x), int(grid.y), int(grid.z), finished};
  void* args[] = {&f, &omega, &partial, &done, &gosa, &w};  // the kernel's parameters, in order
  return cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(kernel), dim3(blocks), dim3(kTbK, kTbJ), args,
                                     size_t(held), stream);
}

// The waves version from this many waves of the per-tile launch (H100: L 8
// in float, 10 in double; XL 43 and 79).
constexpr int kWavesMin = 16;

}  // namespace tessera::native_cuda::kernels
