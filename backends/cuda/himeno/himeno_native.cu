// Native CUDA Himeno sweeps. The point update follows the benchmark's listing
// term by term (Table I of Phillips & Fatica); gosa is accumulated in double
// per thread and reduced deterministically in the same launch.
#include "tessera/himeno/himeno_native_cuda.hpp"

#include "common/block_reduce.cuh"
#include "common/reduce_workspace.cuh"

namespace tessera::native_cuda {
namespace {

// Residual ss at linear index c, with p(i-1, j, k) and p(i+1, j, k) given.
template <class T>
__device__ __forceinline__ T residual(const HimenoFields<T>& f, long long c, T pm, T p0, T pp) {
  const long long si = f.stride_i, sj = f.stride_j;
  const T* __restrict__ p = f.p;
  const T s0 = __ldg(f.a0 + c) * pp + __ldg(f.a1 + c) * __ldg(p + c + sj) + __ldg(f.a2 + c) * __ldg(p + c + 1) +
               __ldg(f.b0 + c) * (__ldg(p + c + si + sj) - __ldg(p + c + si - sj) - __ldg(p + c - si + sj) +
                                  __ldg(p + c - si - sj)) +
               __ldg(f.b1 + c) * (__ldg(p + c + sj + 1) - __ldg(p + c + sj - 1) - __ldg(p + c - sj + 1) +
                                  __ldg(p + c - sj - 1)) +
               __ldg(f.b2 + c) * (__ldg(p + c + si + 1) - __ldg(p + c + si - 1) - __ldg(p + c - si + 1) +
                                  __ldg(p + c - si - 1)) +
               __ldg(f.c0 + c) * pm + __ldg(f.c1 + c) * __ldg(p + c - sj) + __ldg(f.c2 + c) * __ldg(p + c - 1) +
               __ldg(f.wrk1 + c);
  return (s0 * __ldg(f.a3 + c) - p0) * __ldg(f.bnd + c);
}

constexpr int kK = 32, kJ = 8, kThreads = kK * kJ;  // block: a warp along k, 8 rows of j
constexpr int kChunk = 8;                           // planes of i per march block

template <class T>
__global__ void __launch_bounds__(kThreads) jacobi_naive(HimenoFields<T> f, T omega, double* partial, unsigned* done,
                                                         double* out) {
  const int k = 1 + blockIdx.x * kK + threadIdx.x;
  const int j = 1 + blockIdx.y * kJ + threadIdx.y;
  const int i = 1 + blockIdx.z;
  double acc = 0;
  if (k < f.nk - 1 && j < f.nj - 1) {
    const long long c = i * f.stride_i + j * f.stride_j + k;
    const T p0 = __ldg(f.p + c);
    const T ss = residual(f, c, __ldg(f.p + c - f.stride_i), p0, __ldg(f.p + c + f.stride_i));
    f.wrk2[c] = p0 + omega * ss;
    acc = double(ss) * double(ss);
  }
  grid_sum<kThreads>(acc, partial, done, out);
}

template <class T>
__global__ void __launch_bounds__(kThreads) jacobi_march(HimenoFields<T> f, T omega, double* partial, unsigned* done,
                                                         double* out) {
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
  grid_sum<kThreads>(acc, partial, done, out);
}

template <class T>
void sweep_async(cudaStream_t stream, const HimenoFields<T>& f, T omega, HimenoKernel kernel, double* gosa) {
  if (f.ni < 3 || f.nj < 3 || f.nk < 3) {
    check(cudaMemsetAsync(gosa, 0, sizeof(double), stream), "cudaMemsetAsync");
    return;
  }
  const int ni = f.ni - 2, nj = f.nj - 2, nk = f.nk - 2;  // interior extents
  const dim3 block(kK, kJ);
  dim3 grid((nk + kK - 1) / kK, (nj + kJ - 1) / kJ, kernel == HimenoKernel::naive ? ni : (ni + kChunk - 1) / kChunk);
  ReduceWorkspace& ws = reduce_workspace(stream, grid.x * grid.y * grid.z);
  if (kernel == HimenoKernel::naive)
    jacobi_naive<T><<<grid, block, 0, stream>>>(f, omega, ws.partial, ws.done_count, gosa);
  else
    jacobi_march<T><<<grid, block, 0, stream>>>(f, omega, ws.partial, ws.done_count, gosa);
  check(cudaGetLastError(), "himeno_sweep launch");
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

}  // namespace tessera::native_cuda
