// Native CUDA Himeno sweeps: the launches of the kernels in
// himeno_kernels.cuh, their cache preference and the gosa reductions.
#include "tessera/himeno/himeno_native_cuda.hpp"
#include "tessera/himeno/himeno_chunk_order.hpp"

#include "common/reduce_workspace.cuh"
#include "himeno/himeno_kernels.cuh"

#include <algorithm>
#include <cstdint>

namespace tessera::native_cuda {
namespace {

// Kokkos::Cuda's initialize sets cudaDeviceSetCacheConfig(PreferShared):
// a kernel with no preference of its own then gets the largest shared-memory
// carve-out, leaving ~28 KiB of L1, and the stencil's reuse of p falls to L2
// (ncu: L1 hit rate 38%, L2 at 83% of its throughput while DRAM ran at 87% of
// copy). Kernels that live on the caches ask for L1 at every launch (a host
// call of microseconds; also right for any device and any later setting).
template <class Kernel>
void prefer_l1(Kernel* kernel) {
  check(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxL1),
        "cudaFuncSetAttribute");
}

using namespace kernels;

template <class T>
void fused2_async(cudaStream_t stream, const HimenoFields<T>& f, T omega, double* gosa, Fused2Schedule schedule) {
  if (f.ni < 3 || f.nj < 3 || f.nk < 3) {
    check(cudaMemsetAsync(gosa, 0, 2 * sizeof(double), stream), "cudaMemsetAsync");
    return;
  }
  int device = 0, sms = 0, cooperative = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
  check(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device), "cudaDeviceGetAttribute");
  // The prefetching version of a kernel where its shared memory (held) fits,
  // else its register version; tile_k: its outputs per tile along k. Grids of
  // at least kWavesMin waves run the prefetching tiles in waves of persistent
  // blocks (jacobi_fused2_waves) where the device has cooperative launches.
  const auto launch = [&](Fused2Kernel<T> prefetching, Fused2Kernel<T> registers, Fused2WavesKernel<T> waves,
                          int tile_k, int held) {
    Fused2Kernel<T> kernel = prefetching;
    int per_sm = 0;
    check(fused2_configure(prefetching, held, per_sm), "himeno_sweeps_fused2 configure");
    if (per_sm == 0) {
      kernel = registers, held = 0;
      check(fused2_configure(registers, 0, per_sm), "himeno_sweeps_fused2 configure");
    }
    const dim3 grid = fused2_grid(f, tile_k, std::max(1, per_sm) * sms);
    const long long items = (long long)grid.x * grid.y * grid.z;
    int resident = 0;  // persistent blocks per SM
    const bool many_waves = items >= (long long)kWavesMin * per_sm * sms;
    if (held > 0 && cooperative &&
        (schedule == Fused2Schedule::waves || (schedule == Fused2Schedule::automatic && many_waves)))
      check(fused2_configure(waves, held, resident), "himeno_sweeps_fused2 configure");
    if (resident > 0) {
      const unsigned blocks = unsigned(resident * sms);
      ReduceWorkspace& ws = reduce_workspace(stream, 2 * blocks);
      const cudaError_t e = launch_fused2_waves(waves, grid, blocks, held, stream, f, omega, ws.partial,
                                                ws.done_count, gosa, ws.wave_count);
      if (e != cudaErrorCooperativeLaunchTooLarge && e != cudaErrorNotSupported) {
        check(e, "himeno_sweeps_fused2 cooperative launch");
        return;
      }
      (void)cudaGetLastError();  // not sticky: the tiles below instead
    }
    ReduceWorkspace& ws = reduce_workspace(stream, 2 * unsigned(items));
    kernel<<<grid, dim3(kTbK, kTbJ), held, stream>>>(f, omega, ws.partial, ws.done_count, gosa);
  };
  const auto point = [&] {
    launch(jacobi_fused2<T, true>, jacobi_fused2<T, false>, jacobi_fused2_waves<T, false>, kTbK - 2, held_bytes<T>());
  };
  if constexpr (sizeof(T) == 4) {  // two k points per thread where rows are aligned pairs
    if (pairs_fit(f))
      launch(jacobi_fused2_k2<T, true>, jacobi_fused2_k2<T, false>, jacobi_fused2_waves<T, true>, kK2Out,
             held_bytes<V2<T>>());
    else point();
  } else {  // double: k2 spills at 128 registers
    point();
  }
  check(cudaGetLastError(), "himeno_sweeps_fused2 launch");
}

template <class T>
void sweep_async(cudaStream_t stream, const HimenoFields<T>& f, T omega, HimenoKernel kernel, double* gosa) {
  if (f.ni < 3 || f.nj < 3 || f.nk < 3) {
    check(cudaMemsetAsync(gosa, 0, sizeof(double), stream), "cudaMemsetAsync");
    return;
  }
  const int ni = f.ni - 2, nj = f.nj - 2, nk = f.nk - 2;  // interior extents
  if (kernel == HimenoKernel::vector && !vector_fits(f)) kernel = HimenoKernel::aligned;
  unsigned blocks = 0;
  ReduceWorkspace* ws = nullptr;
  if (kernel == HimenoKernel::vector) {
    const int per_block = 32 * Vec16<T>::n;  // k points per block row
    tessera::himeno::ChunkOrder order{(f.nk + per_block - 1) / per_block, (nj + kVecJ - 1) / kVecJ, ni, 0};
    order.cj = tessera::himeno::chunk_tiles(f.nk, kVecJ, sizeof(T), order.njt);
    blocks = unsigned(order.nkt) * unsigned(order.njt) * unsigned(ni);
    ws = &reduce_workspace(stream, blocks + kSumChunks);
    prefer_l1(jacobi_vec<T>);
    jacobi_vec<T><<<blocks, dim3(32, kVecJ), 0, stream>>>(f, omega, order, ws->partial);
  } else {
    const dim3 block(kK, kJ);
    const bool per_point = kernel != HimenoKernel::march;
    const dim3 grid(((kernel == HimenoKernel::aligned ? f.nk : nk) + kK - 1) / kK, (nj + kJ - 1) / kJ,
                    per_point ? ni : (ni + kChunk - 1) / kChunk);
    blocks = grid.x * grid.y * grid.z;
    ws = &reduce_workspace(stream, blocks + kSumChunks);  // partials, then the chunk sums
    if (kernel == HimenoKernel::naive) {
      prefer_l1(jacobi_naive<T, false>);
      jacobi_naive<T, false><<<grid, block, 0, stream>>>(f, omega, ws->partial);
    } else if (kernel == HimenoKernel::aligned) {
      prefer_l1(jacobi_naive<T, true>);
      jacobi_naive<T, true><<<grid, block, 0, stream>>>(f, omega, ws->partial);
    } else {
      prefer_l1(jacobi_march<T>);
      jacobi_march<T><<<grid, block, 0, stream>>>(f, omega, ws->partial);
    }
  }
  check(cudaGetLastError(), "himeno_sweep launch");
  // 10^4-10^6 blocks: later kernels add their partials (a shared counter
  // with one atomic per block would serialise them).
  sum_partials_async(stream, ws->partial, blocks, ws->partial + blocks, gosa);
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

void himeno_sweeps_fused2_async(cudaStream_t s, const HimenoFields<float>& f, float omega, double* gosa,
                                Fused2Schedule schedule) {
  fused2_async(s, f, omega, gosa, schedule);
}
void himeno_sweeps_fused2_async(cudaStream_t s, const HimenoFields<double>& f, double omega, double* gosa,
                                Fused2Schedule schedule) {
  fused2_async(s, f, omega, gosa, schedule);
}

}  // namespace tessera::native_cuda
