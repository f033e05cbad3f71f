// Read bandwidth: every thread keeps four 16-byte loads in flight (grid-stride,
// coalesced), adds them into four sums and stores nothing unless the sum is
// -1: no reduction, no host read-back, so the time is the reading alone (the
// STREAM sum's final reduction and read-back cost a quarter of the rate of a
// 256 MiB sum on an H200).
#include "tessera/core/read_peak_native_cuda.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace tessera::native_cuda {
namespace {

constexpr int kBlock = 256;
constexpr int kLoads = 4;

__global__ void __launch_bounds__(kBlock) read_stream(const double2* __restrict__ a, std::size_t nv, double* sink) {
  const std::size_t stride = std::size_t(gridDim.x) * kBlock;
  std::size_t i = std::size_t(blockIdx.x) * kBlock + threadIdx.x;
  double acc[kLoads] = {};
  for (; i + (kLoads - 1) * stride < nv; i += kLoads * stride) {
    double2 v[kLoads];
#pragma unroll
    for (int k = 0; k < kLoads; ++k) v[k] = a[i + k * stride];
#pragma unroll
    for (int k = 0; k < kLoads; ++k) acc[k] += v[k].x + v[k].y;
  }
  for (; i < nv; i += stride) acc[0] += a[i].x + a[i].y;
  const double s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
  if (s == -1.0) *sink = s;
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("read_peak: ") + what + ": " + cudaGetErrorString(e));
}

}  // namespace

double read_peak(cudaStream_t stream, const double* a, std::size_t n, double* sink) {
  if (n < 2) return 0;
  int device = 0, sms = 0, per_sm = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, read_stream, kBlock, 0), "occupancy");
  const std::size_t nv = n / 2;
  const std::size_t blocks = std::min<std::size_t>(std::size_t(sms) * std::max(1, per_sm), (nv + kBlock - 1) / kBlock);
  read_stream<<<unsigned(std::max<std::size_t>(1, blocks)), kBlock, 0, stream>>>(
      reinterpret_cast<const double2*>(a), nv, sink);
  check(cudaGetLastError(), "launch");
  return double(nv) * sizeof(double2);
}

}  // namespace tessera::native_cuda
