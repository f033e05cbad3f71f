// Native CUDA depth propagation without atomics (the prefix-sum direction of
// Lin et al.): one 64-bit key per source pixel (target index << 32 | depth
// bits), a CUB radix sort over the bits that can differ, and the first key of
// each target's run written by one thread (a segmented min).
#include "tessera/video/dibr_native_cuda.hpp"

#include "common/reduce_workspace.cuh"
#include "dibr_native_common.cuh"

#include <cub/device/device_radix_sort.cuh>

#include <map>
#include <mutex>

namespace tessera::native_cuda {
namespace {

using dibr::blocks;
using dibr::kBlock;

__global__ void __launch_bounds__(kBlock)
    make_keys(const float* __restrict__ depth, int h, int w, std::uint64_t* __restrict__ keys, int th, int tw,
              const video::CameraRig rig) {
  const std::int64_t i = std::int64_t(blockIdx.x) * kBlock + threadIdx.x;
  if (i >= std::int64_t(h) * w) return;
  int tx, ty;
  std::uint32_t z;
  keys[i] = dibr::project_pixel(depth, i, w, th, tw, rig, tx, ty, z)
                ? (std::uint64_t(std::int64_t(ty) * tw + tx) << 32) | z
                : video::no_target_key(std::int64_t(th) * tw, i);
}

__global__ void clear(float* __restrict__ out, std::int64_t n) {
  const std::int64_t i = std::int64_t(blockIdx.x) * kBlock + threadIdx.x;
  if (i < n) out[i] = 0.0f;
}

__global__ void segment_min(const std::uint64_t* __restrict__ sorted, std::int64_t n, std::int64_t nt,
                            float* __restrict__ out) {
  const std::int64_t i = std::int64_t(blockIdx.x) * kBlock + threadIdx.x;
  if (i >= n) return;
  const std::uint64_t k = sorted[i];
  if (std::int64_t(k >> 32) >= nt) return;  // lands nowhere
  if (i > 0 && (sorted[i - 1] >> 32) == (k >> 32)) return;  // not the nearest of its pixel
  out[k >> 32] = video::depth_from_bits(std::uint32_t(k & 0xffffffffu));
}

// The sorted keys and CUB's temporary storage, kept per (device, stream):
// allocating them per call would cost more than the sort.
struct SortWorkspace {
  std::uint64_t* keys = nullptr;
  std::int64_t keys_capacity = 0;
  void* temp = nullptr;
  std::size_t temp_capacity = 0;
};
SortWorkspace& sort_workspace(cudaStream_t stream, std::int64_t n, std::size_t temp_bytes) {
  static std::mutex mutex;
  static std::map<std::pair<int, cudaStream_t>, SortWorkspace> spaces;
  int device = 0;
  check(cudaGetDevice(&device), "dibr_sorted cudaGetDevice");
  std::lock_guard<std::mutex> lock(mutex);
  SortWorkspace& ws = spaces[{device, stream}];
  if (ws.keys_capacity < n || ws.temp_capacity < temp_bytes) check(cudaStreamSynchronize(stream), "dibr_sorted sync");
  if (ws.keys_capacity < n) {
    if (ws.keys) check(cudaFree(ws.keys), "dibr_sorted cudaFree");
    check(cudaMalloc(&ws.keys, std::size_t(n) * sizeof(std::uint64_t)), "dibr_sorted cudaMalloc keys");
    ws.keys_capacity = n;
  }
  if (ws.temp_capacity < temp_bytes) {
    if (ws.temp) check(cudaFree(ws.temp), "dibr_sorted cudaFree");
    check(cudaMalloc(&ws.temp, temp_bytes), "dibr_sorted cudaMalloc temp");
    ws.temp_capacity = temp_bytes;
  }
  return ws;
}

}  // namespace

void dibr_sorted(cudaStream_t stream, const float* depth, int h, int w, std::uint64_t* keys, float* out, int th, int tw,
                 const video::CameraRig& rig) {
  const std::int64_t nt = std::int64_t(th) * tw, ns = std::int64_t(h) * w;
  if (nt == 0) return;
  clear<<<blocks(nt), kBlock, 0, stream>>>(out, nt);
  check(cudaGetLastError(), "dibr_sorted clear launch");
  if (ns == 0) return;
  make_keys<<<blocks(ns), kBlock, 0, stream>>>(depth, h, w, keys, th, tw, rig);
  check(cudaGetLastError(), "dibr_sorted keys launch");
  // Bits 32 .. end_bit hold the target index (< nt, nt + i for a dropped pixel i).
  int index_bits = 1;
  while (index_bits < 32 && (std::int64_t(1) << index_bits) <= nt + ns) ++index_bits;
  const int end_bit = 32 + index_bits;
  std::size_t temp_bytes = 0;
  check(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, keys, keys, int(ns), 0, end_bit, stream),
        "dibr_sorted SortKeys size");
  SortWorkspace& ws = sort_workspace(stream, ns, temp_bytes);
  check(cub::DeviceRadixSort::SortKeys(ws.temp, temp_bytes, keys, ws.keys, int(ns), 0, end_bit, stream),
        "dibr_sorted SortKeys");
  segment_min<<<blocks(ns), kBlock, 0, stream>>>(ws.keys, ns, nt, out);
  check(cudaGetLastError(), "dibr_sorted segment_min launch");
}

}  // namespace tessera::native_cuda
