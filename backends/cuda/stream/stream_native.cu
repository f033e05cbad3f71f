// Native CUDA STREAM kernels: 16-byte vector loads (double2/float4), two per
// thread in flight, scalar path for misaligned pointers, and a deterministic
// one-pass sum (block partials added in order by the last block).
#include "tessera/stream/stream_native_cuda.hpp"

#include "common/block_reduce.cuh"
#include "common/reduce_workspace.cuh"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace tessera::native_cuda {
namespace {

template <class T> struct Vec;
template <> struct Vec<double> { using type = double2; static constexpr int size = 2; };
template <> struct Vec<float> { using type = float4; static constexpr int size = 4; };

__device__ __forceinline__ double hsum(double2 v) { return v.x + v.y; }
__device__ __forceinline__ double hsum(float4 v) { return double(v.x) + double(v.y) + double(v.z) + double(v.w); }
__device__ __forceinline__ double2 fma_vec(double s, double2 c, double2 b) {
  return make_double2(fma(s, c.x, b.x), fma(s, c.y, b.y));
}
__device__ __forceinline__ float4 fma_vec(float s, float4 c, float4 b) {
  return make_float4(fmaf(s, c.x, b.x), fmaf(s, c.y, b.y), fmaf(s, c.z, b.z), fmaf(s, c.w, b.w));
}

constexpr int kBlock = 256;

bool aligned16(const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0; }

unsigned blocks_for(std::size_t items, std::size_t per_block) {
  return static_cast<unsigned>((items + per_block - 1) / per_block);
}

// Each thread moves vectors i and i + blockDim (coalesced); block 0 also
// moves the scalar tail that does not fill a vector.
template <class T, class V>
__global__ void __launch_bounds__(kBlock) copy_vec(const V* __restrict__ a, V* __restrict__ c, std::size_t nv,
                                                   const T* __restrict__ ta, T* __restrict__ tc, int tail) {
  const std::size_t i = std::size_t(blockIdx.x) * (2 * kBlock) + threadIdx.x;
  const std::size_t j = i + kBlock;
  if (j < nv) {
    const V x0 = a[i], x1 = a[j];
    c[i] = x0;
    c[j] = x1;
  } else if (i < nv) {
    c[i] = a[i];
  }
  if (blockIdx.x == 0 && threadIdx.x < tail) tc[threadIdx.x] = ta[threadIdx.x];
}

template <class T>
__global__ void __launch_bounds__(kBlock) copy_scalar(const T* __restrict__ a, T* __restrict__ c, std::size_t n) {
  const std::size_t i = std::size_t(blockIdx.x) * (4 * kBlock) + threadIdx.x;
  T x[4];
#pragma unroll
  for (int k = 0; k < 4; ++k)
    if (i + k * kBlock < n) x[k] = a[i + k * kBlock];
#pragma unroll
  for (int k = 0; k < 4; ++k)
    if (i + k * kBlock < n) c[i + k * kBlock] = x[k];
}

template <class T, class V>
__global__ void __launch_bounds__(kBlock) triad_vec(V* __restrict__ a, const V* __restrict__ b, const V* __restrict__ c,
                                                    T s, std::size_t nv, T* __restrict__ ta,
                                                    const T* __restrict__ tb, const T* __restrict__ tc, int tail) {
  const std::size_t i = std::size_t(blockIdx.x) * (2 * kBlock) + threadIdx.x;
  const std::size_t j = i + kBlock;
  if (j < nv) {
    const V b0 = b[i], c0 = c[i], b1 = b[j], c1 = c[j];
    a[i] = fma_vec(s, c0, b0);
    a[j] = fma_vec(s, c1, b1);
  } else if (i < nv) {
    a[i] = fma_vec(s, c[i], b[i]);
  }
  if (blockIdx.x == 0 && threadIdx.x < tail) ta[threadIdx.x] = tb[threadIdx.x] + s * tc[threadIdx.x];
}

template <class T>
__global__ void __launch_bounds__(kBlock) triad_scalar(T* __restrict__ a, const T* __restrict__ b,
                                                       const T* __restrict__ c, T s, std::size_t n) {
  const std::size_t i = std::size_t(blockIdx.x) * (4 * kBlock) + threadIdx.x;
#pragma unroll
  for (int k = 0; k < 4; ++k)
    if (i + k * kBlock < n) a[i + k * kBlock] = b[i + k * kBlock] + s * c[i + k * kBlock];
}

// One pass: grid-stride partial sums with two independent vector loads per
// iteration; the last block to finish adds the block partials in block order,
// so the result is the same run to run (no floating-point atomics).
template <class T, class V, bool Vectorised>
__global__ void __launch_bounds__(kBlock) sum_kernel(const T* __restrict__ ta, std::size_t n, double* partial,
                                                     unsigned* done_count, double* out) {
  const std::size_t stride = std::size_t(gridDim.x) * kBlock;
  std::size_t i = std::size_t(blockIdx.x) * kBlock + threadIdx.x;
  double acc0 = 0, acc1 = 0;
  if constexpr (Vectorised) {
    constexpr int P = sizeof(V) / sizeof(T);
    const V* a = reinterpret_cast<const V*>(ta);
    const std::size_t nv = n / P;
    for (; i + stride < nv; i += 2 * stride) {
      const V x = a[i], y = a[i + stride];
      acc0 += hsum(x);
      acc1 += hsum(y);
    }
    if (i < nv) acc0 += hsum(a[i]);
    if (blockIdx.x == 0 && threadIdx.x < n - nv * P) acc1 += double(ta[nv * P + threadIdx.x]);
  } else {
    for (; i < n; i += stride) acc0 += double(ta[i]);
  }
  grid_sum<kBlock>(acc0 + acc1, partial, done_count, out);
}

template <class T>
void copy_impl(cudaStream_t stream, const T* a, T* c, std::size_t n) {
  if (n == 0) return;
  using V = typename Vec<T>::type;
  constexpr int P = Vec<T>::size;
  if (aligned16(a) && aligned16(c)) {
    const std::size_t nv = n / P;
    const int tail = static_cast<int>(n - nv * P);
    copy_vec<T, V><<<std::max(1u, blocks_for(nv, 2 * kBlock)), kBlock, 0, stream>>>(
        reinterpret_cast<const V*>(a), reinterpret_cast<V*>(c), nv, a + nv * P, c + nv * P, tail);
  } else {
    copy_scalar<T><<<blocks_for(n, 4 * kBlock), kBlock, 0, stream>>>(a, c, n);
  }
  check(cudaGetLastError(), "stream_copy launch");
}

template <class T>
void triad_impl(cudaStream_t stream, T* a, const T* b, const T* c, T s, std::size_t n) {
  if (n == 0) return;
  using V = typename Vec<T>::type;
  constexpr int P = Vec<T>::size;
  if (aligned16(a) && aligned16(b) && aligned16(c)) {
    const std::size_t nv = n / P;
    const int tail = static_cast<int>(n - nv * P);
    triad_vec<T, V><<<std::max(1u, blocks_for(nv, 2 * kBlock)), kBlock, 0, stream>>>(
        reinterpret_cast<V*>(a), reinterpret_cast<const V*>(b), reinterpret_cast<const V*>(c), s, nv,
        a + nv * P, b + nv * P, c + nv * P, tail);
  } else {
    triad_scalar<T><<<blocks_for(n, 4 * kBlock), kBlock, 0, stream>>>(a, b, c, s, n);
  }
  check(cudaGetLastError(), "stream_triad launch");
}

template <class T>
double sum_impl(cudaStream_t stream, const T* a, std::size_t n) {
  if (n == 0) return 0.0;
  using V = typename Vec<T>::type;
  auto launch = [&](auto kernel) {
    // A full-occupancy grid; each thread then streams many vectors.
    int device = 0, sms = 0, per_sm = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
    check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kBlock, 0), "occupancy");
    const unsigned grid = std::max(1u, std::min<unsigned>(sms * per_sm, blocks_for(n, kBlock)));
    ReduceWorkspace& ws = reduce_workspace(stream, grid);
    kernel<<<grid, kBlock, 0, stream>>>(a, n, ws.partial, ws.done_count, ws.result);
    check(cudaGetLastError(), "stream_sum launch");
    return read_result(stream, ws);
  };
  if (aligned16(a)) return launch(sum_kernel<T, V, true>);
  return launch(sum_kernel<T, V, false>);
}

}  // namespace

void stream_copy(cudaStream_t s, const double* a, double* c, std::size_t n) { copy_impl(s, a, c, n); }
void stream_copy(cudaStream_t s, const float* a, float* c, std::size_t n) { copy_impl(s, a, c, n); }
void stream_triad(cudaStream_t s, double* a, const double* b, const double* c, double k, std::size_t n) {
  triad_impl(s, a, b, c, k, n);
}
void stream_triad(cudaStream_t s, float* a, const float* b, const float* c, float k, std::size_t n) {
  triad_impl(s, a, b, c, k, n);
}
double stream_sum(cudaStream_t s, const double* a, std::size_t n) { return sum_impl(s, a, n); }
double stream_sum(cudaStream_t s, const float* a, std::size_t n) { return sum_impl(s, a, n); }

}  // namespace tessera::native_cuda
