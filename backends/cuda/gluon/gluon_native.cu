// Native CUDA kernel of the gluon Monte Carlo: one event per thread (the
// per-event scratch of the recursion in registers/local memory), compensated
// per-thread sums, a shared-memory block reduction, then one block adds the
// blocks' partials. The physics is the library's device code (gluon_event.hpp),
// so the events are the portable kernels' events.
#include "tessera/gluon/gluon_native_cuda.hpp"

#include <stdexcept>
#include <string>

namespace tessera::native_cuda {
namespace {

constexpr int kThreads = 128;

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("gluon native CUDA: ") + what + ": " + cudaGetErrorString(e));
}

struct BlockSums {
  double w, w2;
  unsigned long long acc;
};

__device__ void block_reduce(double& w, double& w2, unsigned long long& acc) {
  for (int o = 16; o > 0; o >>= 1) {
    w += __shfl_down_sync(0xffffffffu, w, o);
    w2 += __shfl_down_sync(0xffffffffu, w2, o);
    acc += __shfl_down_sync(0xffffffffu, acc, o);
  }
  __shared__ BlockSums warp_sums[kThreads / 32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) warp_sums[warp] = BlockSums{w, w2, acc};
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int i = 1; i < int(blockDim.x) / 32; ++i) {
      w += warp_sums[i].w;
      w2 += warp_sums[i].w2;
      acc += warp_sums[i].acc;
    }
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads) events_kernel(gluon::EventConfig<T> cfg,
                                                          gluon::PdfGrid<T, Kokkos::CudaSpace> pdf, std::uint64_t seed,
                                                          std::uint64_t first, std::uint64_t count, BlockSums* part) {
  const std::uint64_t W = std::uint64_t(gridDim.x) * blockDim.x;
  gluon::BergsScratch<T, T> scratch;
  gluon::Neumaier sw, sw2;
  unsigned long long acc = 0;
  for (std::uint64_t e = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; e < count; e += W) {
    const gluon::EventResult<T> r = gluon::generate_event(cfg, pdf, seed, first + e, scratch);
    const double w = double(r.weight);
    sw.add(w);
    sw2.add(w * w);
    acc += r.accepted ? 1 : 0;
  }
  double w = sw.value(), w2 = sw2.value();
  block_reduce(w, w2, acc);
  if (threadIdx.x == 0) part[blockIdx.x] = BlockSums{w, w2, acc};
}

__global__ void __launch_bounds__(kThreads) partials_kernel(const BlockSums* part, int nb, BlockSums* out) {
  gluon::Neumaier sw, sw2;
  unsigned long long acc = 0;
  for (int i = threadIdx.x; i < nb; i += blockDim.x) {
    sw.add(part[i].w);
    sw2.add(part[i].w2);
    acc += part[i].acc;
  }
  double w = sw.value(), w2 = sw2.value();
  block_reduce(w, w2, acc);
  if (threadIdx.x == 0) *out = BlockSums{w, w2, acc};
}

template <class T>
GluonLaunchInfo launch_info() {
  GluonLaunchInfo li{};
  int dev = 0;
  check(cudaGetDevice(&dev), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&li.sm_count, cudaDevAttrMultiProcessorCount, dev), "attribute");
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&li.blocks_per_sm, events_kernel<T>, kThreads, 0), "occupancy");
  cudaFuncAttributes fa{};
  check(cudaFuncGetAttributes(&fa, events_kernel<T>), "cudaFuncGetAttributes");
  li.threads_per_block = kThreads;
  li.local_bytes_per_thread = fa.localSizeBytes;
  li.registers_per_thread = fa.numRegs;
  if (li.blocks_per_sm < 1) li.blocks_per_sm = 1;
  return li;
}

template <class T>
gluon::SigmaResult integrate(cudaStream_t stream, const gluon::EventConfig<T>& cfg,
                             const gluon::PdfGrid<T, Kokkos::CudaSpace>& pdf, std::uint64_t seed, std::uint64_t first,
                             std::uint64_t count) {
  static const GluonLaunchInfo li = launch_info<T>();
  std::uint64_t blocks = std::uint64_t(li.sm_count) * li.blocks_per_sm;
  const std::uint64_t need = (count + kThreads - 1) / kThreads;
  if (need < blocks) blocks = need;
  if (blocks < 1) blocks = 1;
  // Partials and the result live in one buffer, kept between calls.
  static BlockSums* buf = nullptr;
  static std::uint64_t cap = 0;
  if (cap < blocks + 1) {
    if (buf) check(cudaFree(buf), "cudaFree");
    check(cudaMalloc(&buf, (blocks + 1) * sizeof(BlockSums)), "cudaMalloc");
    cap = blocks + 1;
  }
  events_kernel<T><<<unsigned(blocks), kThreads, 0, stream>>>(cfg, pdf, seed, first, count, buf);
  check(cudaGetLastError(), "events kernel launch");
  partials_kernel<<<1, kThreads, 0, stream>>>(buf, int(blocks), buf + blocks);
  check(cudaGetLastError(), "partials kernel launch");
  BlockSums h{};
  check(cudaMemcpyAsync(&h, buf + blocks, sizeof(h), cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync");
  check(cudaStreamSynchronize(stream), "events kernel");
  gluon::SigmaResult r;
  r.sum_w = h.w;
  r.sum_w2 = h.w2;
  r.accepted = h.acc;
  r.generated = count;
  return r;
}

}  // namespace

gluon::SigmaResult gluon_integrate(cudaStream_t stream, const gluon::EventConfig<float>& cfg,
                                   const gluon::PdfGrid<float, Kokkos::CudaSpace>& pdf, std::uint64_t seed,
                                   std::uint64_t first, std::uint64_t count) {
  return integrate(stream, cfg, pdf, seed, first, count);
}
gluon::SigmaResult gluon_integrate(cudaStream_t stream, const gluon::EventConfig<double>& cfg,
                                   const gluon::PdfGrid<double, Kokkos::CudaSpace>& pdf, std::uint64_t seed,
                                   std::uint64_t first, std::uint64_t count) {
  return integrate(stream, cfg, pdf, seed, first, count);
}
GluonLaunchInfo gluon_launch_info(int precision_bytes) {
  return precision_bytes == 4 ? launch_info<float>() : launch_info<double>();
}

}  // namespace tessera::native_cuda
