#pragma once
// Native CUDA kernels of the gluon Monte Carlo (backends/cuda/gluon): one
// event per thread, Neumaier sums per thread, a block reduction in shared
// memory, the blocks' partials added by a second kernel. Blocks until the
// result is known.
#include "tessera/gluon/impl/gluon_kokkos.hpp"

#include <cuda_runtime.h>

namespace tessera::native_cuda {

gluon::SigmaResult gluon_integrate(cudaStream_t stream, const gluon::EventConfig<float>& cfg,
                                   const gluon::PdfGrid<float, Kokkos::CudaSpace>& pdf, std::uint64_t seed,
                                   std::uint64_t first, std::uint64_t count);
gluon::SigmaResult gluon_integrate(cudaStream_t stream, const gluon::EventConfig<double>& cfg,
                                   const gluon::PdfGrid<double, Kokkos::CudaSpace>& pdf, std::uint64_t seed,
                                   std::uint64_t first, std::uint64_t count);

// The launch of gluon_integrate for precision bytes (4 or 8): threads per
// block, resident blocks per SM, local bytes per thread (the analogue of the
// paper's Table 1).
struct GluonLaunchInfo {
  int threads_per_block, blocks_per_sm, sm_count;
  std::size_t local_bytes_per_thread;
  int registers_per_thread;
};
GluonLaunchInfo gluon_launch_info(int precision_bytes);

}  // namespace tessera::native_cuda
