// Native CUDA Himeno sweeps. The point update follows himenoBMTxps.c term by
// term (the same order as the portable kernels' point_ss); gosa is
// accumulated in double per thread and reduced deterministically in the same
// launch.
#include "tessera/himeno/himeno_native_cuda.hpp"

#include "common/block_reduce.cuh"
#include "common/reduce_workspace.cuh"

namespace tessera::native_cuda {
namespace {

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
// tile of (kTbJ-2) x (kTbK-2) points in (j, k) and a segment of kTbSeg planes
// in i, and marches in i. Each step computes sweep 1 on plane i for the tile
// and a one-point halo ring (the halo is recomputed by the neighbours too),
// keeps the result in a 3-plane shared-memory ring, and computes sweep 2 on
// plane i-1 from that ring with the coefficients it loaded for sweep 1 one
// step earlier, held in registers. So each coefficient is read from memory
// once for two sweeps (plus the halo's share), and p1 never leaves the chip.
constexpr int kTbK = 32, kTbJ = 16, kTbThreads = kTbK * kTbJ;
constexpr int kTbSeg = 64;

// Two blocks per SM cap a thread at 64 registers: enough in float, but the 12
// held double coefficients then spill (124 bytes per thread), so double runs
// one block per SM with up to 128 registers.
template <class T>
__global__ void __launch_bounds__(kTbThreads, sizeof(T) == 4 ? 2 : 1)
    jacobi_fused2(HimenoFields<T> f, T omega, double* partial, unsigned* done, double* gosa) {
  __shared__ T ring[3][kTbJ][kTbK];  // p after sweep 1, planes i-2, i-1, i (slot = plane % 3)
  const int tk = threadIdx.x, tj = threadIdx.y;
  const int k = blockIdx.x * (kTbK - 2) + tk;  // this thread's point; the tile starts at k = 1
  const int j = blockIdx.y * (kTbJ - 2) + tj;
  const bool in_array = k < f.nk && j < f.nj;
  const bool inner_jk = k >= 1 && k < f.nk - 1 && j >= 1 && j < f.nj - 1;
  const bool owner = inner_jk && tk >= 1 && tk < kTbK - 1 && tj >= 1 && tj < kTbJ - 1;
  const int is = 1 + blockIdx.z * kTbSeg, ie = min(is + kTbSeg, f.ni - 1);  // sweep-2 planes [is, ie)
  const long long si = f.stride_i, sj = f.stride_j;
  const long long cjk = j * sj + k;
  Coef<T> prev{};  // coefficients of plane i-1 (owners)
  double g1 = 0, g2 = 0;
  for (int i = is - 1; i <= ie; ++i) {
    const int slot = i % 3;
    const long long c = i * si + cjk;
    // Sweep 1 on plane i (tile and halo); p1 = p outside the interior.
    Coef<T> cur{};
    if (in_array) {
      T p1;
      if (inner_jk && i >= 1 && i < f.ni - 1) {
        cur = load_coef(f, c);
        const T* __restrict__ p = f.p;
        const T ss = residual(cur, [&](int di, int dj, int dk) { return __ldg(p + c + di * si + dj * sj + dk); });
        p1 = __ldg(p + c) + omega * ss;
        if (owner && i >= is && i < ie) g1 += double(ss) * double(ss);
      } else {
        p1 = __ldg(f.p + c);
      }
      ring[slot][tj][tk] = p1;
    }
    __syncthreads();
    // Sweep 2 on plane i-1 from the ring.
    const int i2 = i - 1;
    if (owner && i2 >= is) {
      const int s0 = i2 % 3;
      const T ss = residual(prev, [&](int di, int dj, int dk) { return ring[(s0 + 3 + di) % 3][tj + dj][tk + dk]; });
      f.wrk2[i2 * si + cjk] = ring[s0][tj][tk] + omega * ss;
      g2 += double(ss) * double(ss);
    }
    prev = cur;
    __syncthreads();  // the ring slot written next step was read above
  }
  grid_sum2<kTbThreads>(g1, g2, partial, done, gosa);
}

template <class T>
void fused2_async(cudaStream_t stream, const HimenoFields<T>& f, T omega, double* gosa) {
  if (f.ni < 3 || f.nj < 3 || f.nk < 3) {
    check(cudaMemsetAsync(gosa, 0, 2 * sizeof(double), stream), "cudaMemsetAsync");
    return;
  }
  const dim3 block(kTbK, kTbJ);
  const dim3 grid((f.nk - 2 + kTbK - 3) / (kTbK - 2), (f.nj - 2 + kTbJ - 3) / (kTbJ - 2),
                  (f.ni - 2 + kTbSeg - 1) / kTbSeg);
  ReduceWorkspace& ws = reduce_workspace(stream, 2 * grid.x * grid.y * grid.z);
  jacobi_fused2<T><<<grid, block, 0, stream>>>(f, omega, ws.partial, ws.done_count, gosa);
  check(cudaGetLastError(), "himeno_sweeps_fused2 launch");
}

template <class T>
void sweep_async(cudaStream_t stream, const HimenoFields<T>& f, T omega, HimenoKernel kernel, double* gosa) {
  if (f.ni < 3 || f.nj < 3 || f.nk < 3) {
    check(cudaMemsetAsync(gosa, 0, sizeof(double), stream), "cudaMemsetAsync");
    return;
  }
  const int ni = f.ni - 2, nj = f.nj - 2, nk = f.nk - 2;  // interior extents
  const dim3 block(kK, kJ);
  const bool per_point = kernel != HimenoKernel::march;
  dim3 grid(((kernel == HimenoKernel::aligned ? f.nk : nk) + kK - 1) / kK, (nj + kJ - 1) / kJ,
            per_point ? ni : (ni + kChunk - 1) / kChunk);
  const unsigned blocks = grid.x * grid.y * grid.z;
  ReduceWorkspace& ws = reduce_workspace(stream, blocks + kSumChunks);  // partials, then the chunk sums
  if (kernel == HimenoKernel::naive)
    jacobi_naive<T, false><<<grid, block, 0, stream>>>(f, omega, ws.partial);
  else if (kernel == HimenoKernel::aligned)
    jacobi_naive<T, true><<<grid, block, 0, stream>>>(f, omega, ws.partial);
  else
    jacobi_march<T><<<grid, block, 0, stream>>>(f, omega, ws.partial);
  check(cudaGetLastError(), "himeno_sweep launch");
  // 10^4-10^6 blocks: later kernels add their partials (a shared counter
  // with one atomic per block would serialise them).
  sum_partials_async(stream, ws.partial, blocks, ws.partial + blocks, gosa);
  check(cudaGetLastError(), "himeno_sweep sum launch");
}

template <class T>
double sweep(cudaStream_t stream, const HimenoFields<T>& f, T omega, HimenoKernel kernel) {
  ReduceWorkspace& ws = reduce_workspace(stream, 1);
  sweep_async(stream, f, omega, kernel, ws.result);
  return read_result(stream, ws);
}

}  // namespace

double himeno_sweep(cudaStream_t s, const HimenoFields<float>& f, float omega, HimenoKernel k) {
  return sweep(s, f, omega, k);
}
double himeno_sweep(cudaStream_t s, const HimenoFields<double>& f, double omega, HimenoKernel k) {
  return sweep(s, f, omega, k);
}
void himeno_sweep_async(cudaStream_t s, const HimenoFields<float>& f, float omega, HimenoKernel k, double* gosa) {
  sweep_async(s, f, omega, k, gosa);
}
void himeno_sweep_async(cudaStream_t s, const HimenoFields<double>& f, double omega, HimenoKernel k, double* gosa) {
  sweep_async(s, f, omega, k, gosa);
}

void himeno_sweeps_fused2_async(cudaStream_t s, const HimenoFields<float>& f, float omega, double* gosa) {
  fused2_async(s, f, omega, gosa);
}
void himeno_sweeps_fused2_async(cudaStream_t s, const HimenoFields<double>& f, double omega, double* gosa) {
  fused2_async(s, f, omega, gosa);
}

}  // namespace tessera::native_cuda
