#pragma once
// Native CUDA Jacobi sweeps of the Himeno benchmark
// (backends/cuda/himeno/himeno_native.cu), on raw arrays so that any layout
// with k contiguous fits. Queued on `stream`; himeno_sweep returns gosa
// (double), waiting for it.
#include <cuda_runtime.h>

namespace tessera::native_cuda {

template <class T>
struct HimenoFields {
  const T *a0, *a1, *a2, *a3, *b0, *b1, *b2, *c0, *c1, *c2, *wrk1, *bnd;
  const T* p;  // read
  T* wrk2;     // written on the interior only
  long long stride_i, stride_j;  // element strides; k is contiguous
  int ni, nj, nk;                // extents; the interior is [1, n-1) in each
};

enum class HimenoKernel {
  naive,  // one thread per point, the caches do the reuse
  march,  // one thread per (j, k) column piece, marching in i: p reused in registers
  aligned,  // naive with warps on 128-byte lines (k = 0 .. 31 per warp, the boundary k idle)
  vector,   // 16 bytes of k points per thread (float4 / double2 loads); aligned where the
            // rows are not 16-byte aligned
};

double himeno_sweep(cudaStream_t stream, const HimenoFields<float>& f, float omega, HimenoKernel kernel);
double himeno_sweep(cudaStream_t stream, const HimenoFields<double>& f, double omega, HimenoKernel kernel);

// Queues the sweep and leaves gosa in device memory (*gosa_device): a run of
// sweeps then needs no host synchronisation until its gosa history is read.
void himeno_sweep_async(cudaStream_t stream, const HimenoFields<float>& f, float omega, HimenoKernel kernel,
                        double* gosa_device);
void himeno_sweep_async(cudaStream_t stream, const HimenoFields<double>& f, double omega, HimenoKernel kernel,
                        double* gosa_device);

// How the two-sweep kernel's tiles are scheduled: automatic picks waves for
// grids of many waves of blocks where the device has cooperative launches
// (backends/cuda/himeno/himeno_kernels.cuh, jacobi_fused2_waves); tiles and
// waves force one (waves falls back to tiles where it cannot run: no
// cooperative launch, the register kernel, or a cooperative launch that the
// driver refuses as too large or not supported).
enum class Fused2Schedule {
  automatic,
  tiles,  // one block per tile-segment, started by the hardware
  waves,  // persistent blocks, each wave of tile-segments started together
};

// Two sweeps in one pass over memory (temporal blocking): reads f.p, writes
// the state after two sweeps to f.wrk2 (interior), gosa of sweep 1 and 2 to
// gosa_device[0] and [1]. The same arithmetic as two himeno_sweep calls.
void himeno_sweeps_fused2_async(cudaStream_t stream, const HimenoFields<float>& f, float omega, double* gosa_device,
                                Fused2Schedule schedule = Fused2Schedule::automatic);
void himeno_sweeps_fused2_async(cudaStream_t stream, const HimenoFields<double>& f, double omega,
                                double* gosa_device, Fused2Schedule schedule = Fused2Schedule::automatic);

}  // namespace tessera::native_cuda
