#pragma once
// Deterministic device-wide sums for native kernels: each block reduces its
// threads' values (warp shuffles, then one warp), writes one partial, and the
// last block to finish adds the partials in block order. Same result run to
// run for the same launch shape; no floating-point atomics.
#include <cuda_runtime.h>

namespace tessera::native_cuda {

// Sum over the block's threads; valid in thread 0. kThreads: the block size,
// a multiple of 32 up to 1024. Ends with the shared buffer free for reuse.
template <int kThreads>
__device__ __forceinline__ double block_sum(double v) {
  static_assert(kThreads % 32 == 0 && kThreads <= 1024, "block_sum: block size");
  __shared__ double warp_sums[kThreads / 32];
  const int tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  __syncthreads();  // a previous call's readers are done with warp_sums
  if (tid % 32 == 0) warp_sums[tid / 32] = v;
  __syncthreads();
  v = tid < kThreads / 32 ? warp_sums[tid] : 0.0;
  if (tid < 32)
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}

// Call with every thread's value. partial: one double per block;
// done_count: zero before the launch, left zero after it. Writes *out.
template <int kThreads>
__device__ __forceinline__ void grid_sum(double v, double* partial, unsigned* done_count, double* out) {
  const unsigned nblocks = gridDim.x * gridDim.y * gridDim.z;
  const unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  const int tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const double s = block_sum<kThreads>(v);
  __shared__ bool last;
  if (tid == 0) {
    partial[block] = s;
    __threadfence();
    last = atomicAdd(done_count, 1u) == nblocks - 1;
  }
  __syncthreads();
  if (!last) return;
  // Eight independent loads in flight per thread: a serial chain of L2
  // reads over 10^5 partials cost ~0.3 ms, half a Himeno sweep.
  double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  unsigned b = tid;
  for (; b + 7 * kThreads < nblocks; b += 8 * kThreads)
#pragma unroll
    for (int u = 0; u < 8; ++u) acc[u] += __ldcg(partial + b + u * kThreads);
  for (; b < nblocks; b += kThreads) acc[0] += __ldcg(partial + b);
  const double total =
      block_sum<kThreads>(((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7])));
  if (tid == 0) {
    *out = total;
    *done_count = 0;
  }
}

// Two sums at once (e.g. the gosa of two fused sweeps): partial holds 2 doubles
// per block; out[0], out[1] receive the totals.
template <int kThreads>
__device__ __forceinline__ void grid_sum2(double v0, double v1, double* partial, unsigned* done_count, double* out) {
  const unsigned nblocks = gridDim.x * gridDim.y * gridDim.z;
  const unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  const int tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const double s0 = block_sum<kThreads>(v0);
  const double s1 = block_sum<kThreads>(v1);
  __shared__ bool last;
  if (tid == 0) {
    partial[2 * block] = s0;
    partial[2 * block + 1] = s1;
    __threadfence();
    last = atomicAdd(done_count, 1u) == nblocks - 1;
  }
  __syncthreads();
  if (!last) return;
  double a0 = 0, a1 = 0;
  for (unsigned b = tid; b < nblocks; b += kThreads) a0 += __ldcg(partial + 2 * b), a1 += __ldcg(partial + 2 * b + 1);
  const double t0 = block_sum<kThreads>(a0);
  const double t1 = block_sum<kThreads>(a1);
  if (tid == 0) {
    out[0] = t0;
    out[1] = t1;
    *done_count = 0;
  }
}

// For kernels of very many blocks: each block only writes its partial (no
// fence, no atomic on one shared counter), and sum_partials adds them after.
template <int kThreads>
__device__ __forceinline__ void block_partial(double v, double* partial) {
  const unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  const int tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const double s = block_sum<kThreads>(v);
  if (tid == 0) partial[block] = s;
}

// One block of kThreads adds n partials in a fixed order into *out (a
// template, so that every .cu including this header may instantiate it).
template <int kThreads = 1024>
__global__ void __launch_bounds__(kThreads) sum_partials(const double* partial, unsigned n, double* out) {
  double acc[4] = {0, 0, 0, 0};
  unsigned b = threadIdx.x;
  for (; b + 3 * kThreads < n; b += 4 * kThreads)
#pragma unroll
    for (int u = 0; u < 4; ++u) acc[u] += partial[b + u * kThreads];
  for (; b < n; b += kThreads) acc[0] += partial[b];
  const double total = block_sum<kThreads>((acc[0] + acc[1]) + (acc[2] + acc[3]));
  if (threadIdx.x == 0) *out = total;
}

// Block b adds partials [b chunk, (b+1) chunk) of n into out[b]: the first of
// two passes for very many partials (one block alone reads them at tens of
// GB/s: 8 MB of XL partials took ~0.25 ms, 8% of a sweep).
template <int kThreads = 256>
__global__ void __launch_bounds__(kThreads) sum_chunks(const double* partial, unsigned n, unsigned chunk, double* out) {
  const unsigned begin = blockIdx.x * chunk, end = min(n, begin + chunk);
  double acc = 0;
  for (unsigned b = begin + threadIdx.x; b < end; b += kThreads) acc += partial[b];
  const double total = block_sum<kThreads>(acc);
  if (threadIdx.x == 0) out[blockIdx.x] = total;
}

// Sums n partials into *out, deterministically (fixed chunks, fixed order);
// scratch: kSumChunks doubles.
constexpr unsigned kSumChunks = 512;
inline void sum_partials_async(cudaStream_t stream, const double* partial, unsigned n, double* scratch, double* out) {
  if (n <= 16 * 1024) {
    sum_partials<1024><<<1, 1024, 0, stream>>>(partial, n, out);
    return;
  }
  const unsigned chunk = (n + kSumChunks - 1) / kSumChunks;
  sum_chunks<256><<<kSumChunks, 256, 0, stream>>>(partial, n, chunk, scratch);
  sum_partials<1024><<<1, 1024, 0, stream>>>(scratch, kSumChunks, out);
}

}  // namespace tessera::native_cuda
