// FMA throughput: 8 independent chains per thread (enough to hide the FMA
// latency at full occupancy), the step loop unrolled so that its counter
// costs next to no issue slots (FP32 needs an FMA issued every cycle),
// explicit fma() so that nothing depends on contraction, results kept live
// through one store per thread.
#include "tessera/core/fma_peak_native_cuda.hpp"

#include <stdexcept>
#include <string>

namespace tessera::native_cuda {
namespace {

constexpr int kChains = 8;
constexpr int kBlock = 256;

__device__ __forceinline__ double fma_(double a, double b, double c) { return fma(a, b, c); }
__device__ __forceinline__ float fma_(float a, float b, float c) { return fmaf(a, b, c); }

template <class T>
__global__ void __launch_bounds__(kBlock) fma_chains(T* out, std::int64_t items, int steps) {
  const std::int64_t i = std::int64_t(blockIdx.x) * kBlock + threadIdx.x;
  if (i >= items) return;
  T a[kChains];
#pragma unroll
  for (int k = 0; k < kChains; ++k) a[k] = T(1) + T(1e-9) * T(i + k);
  const T b = T(0.9999999), c = T(1e-7);
#pragma unroll 8
  for (int s = 0; s < steps; ++s) {
#pragma unroll
    for (int k = 0; k < kChains; ++k) a[k] = fma_(a[k], b, c);
  }
  T sum = 0;
#pragma unroll
  for (int k = 0; k < kChains; ++k) sum += a[k];
  out[i] = sum;
}

template <class T>
double launch(cudaStream_t stream, T* out, std::int64_t items, int steps) {
  const unsigned blocks = unsigned((items + kBlock - 1) / kBlock);
  fma_chains<T><<<blocks, kBlock, 0, stream>>>(out, items, steps);
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) throw std::runtime_error(std::string("fma_peak launch: ") + cudaGetErrorString(e));
  return 2.0 * kChains * double(items) * steps;
}

}  // namespace

double fma_peak(cudaStream_t stream, double* out, std::int64_t items, int steps) {
  return launch(stream, out, items, steps);
}
double fma_peak(cudaStream_t stream, float* out, std::int64_t items, int steps) {
  return launch(stream, out, items, steps);
}

}  // namespace tessera::native_cuda
