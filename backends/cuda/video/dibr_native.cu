// Native CUDA depth propagation, atomic z-buffer: clear, scatter with
// atomicMin on the bits of the positive float depth, resolve to float.
#include "tessera/video/dibr_native_cuda.hpp"

#include "common/reduce_workspace.cuh"
#include "dibr_native_common.cuh"

namespace tessera::native_cuda {
namespace {

using dibr::blocks;
using dibr::kBlock;

__global__ void clear(std::uint32_t* __restrict__ zbuf, std::int64_t n) {
  const std::int64_t i = std::int64_t(blockIdx.x) * kBlock + threadIdx.x;
  if (i < n) zbuf[i] = video::kDepthUnknownBits;
}

__global__ void __launch_bounds__(kBlock)
    scatter(const float* __restrict__ depth, int h, int w, std::uint32_t* __restrict__ zbuf, int th, int tw,
            const video::CameraRig rig) {
  const std::int64_t i = std::int64_t(blockIdx.x) * kBlock + threadIdx.x;
  if (i >= std::int64_t(h) * w) return;
  int tx, ty;
  std::uint32_t z;
  if (dibr::project_pixel(depth, i, w, th, tw, rig, tx, ty, z)) atomicMin(zbuf + std::int64_t(ty) * tw + tx, z);
}

__global__ void resolve(const std::uint32_t* __restrict__ zbuf, float* __restrict__ out, std::int64_t n) {
  const std::int64_t i = std::int64_t(blockIdx.x) * kBlock + threadIdx.x;
  if (i < n) out[i] = video::depth_from_bits(zbuf[i]);
}

}  // namespace

void dibr_atomic(cudaStream_t stream, const float* depth, int h, int w, std::uint32_t* zbuf, float* out, int th, int tw,
                 const video::CameraRig& rig) {
  const std::int64_t nt = std::int64_t(th) * tw, ns = std::int64_t(h) * w;
  if (nt == 0) return;
  clear<<<blocks(nt), kBlock, 0, stream>>>(zbuf, nt);
  check(cudaGetLastError(), "dibr clear launch");
  if (ns > 0) {
    scatter<<<blocks(ns), kBlock, 0, stream>>>(depth, h, w, zbuf, th, tw, rig);
    check(cudaGetLastError(), "dibr scatter launch");
  }
  resolve<<<blocks(nt), kBlock, 0, stream>>>(zbuf, out, nt);
  check(cudaGetLastError(), "dibr resolve launch");
}

}  // namespace tessera::native_cuda
