#include "common/reduce_workspace.cuh"

#include <map>
#include <mutex>
#include <utility>

namespace tessera::native_cuda {

ReduceWorkspace& reduce_workspace(cudaStream_t stream, unsigned blocks) {
  static std::mutex mutex;
  static std::map<std::pair<int, cudaStream_t>, ReduceWorkspace> cache;
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  std::lock_guard<std::mutex> lock(mutex);
  ReduceWorkspace& ws = cache[{device, stream}];
  if (!ws.done_count) {
    // One allocation: the two counters in the first 8 bytes, the result in the next.
    check(cudaMalloc(reinterpret_cast<void**>(&ws.done_count), 2 * sizeof(double)), "cudaMalloc");
    check(cudaMemset(ws.done_count, 0, 2 * sizeof(unsigned)), "cudaMemset");
    ws.wave_count = ws.done_count + 1;
    ws.result = reinterpret_cast<double*>(ws.done_count) + 1;
    check(cudaMallocHost(reinterpret_cast<void**>(&ws.host_result), sizeof(double)), "cudaMallocHost");
  }
  if (ws.capacity < blocks) {
    // Work already queued on this stream may still read the old buffer.
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    if (ws.partial) check(cudaFree(ws.partial), "cudaFree");
    check(cudaMalloc(reinterpret_cast<void**>(&ws.partial), sizeof(double) * blocks), "cudaMalloc");
    ws.capacity = blocks;
  }
  return ws;
}

unsigned long long* stream_counter(cudaStream_t stream) {
  static std::mutex mutex;
  static std::map<std::pair<int, cudaStream_t>, unsigned long long*> cache;
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  std::lock_guard<std::mutex> lock(mutex);
  unsigned long long*& c = cache[{device, stream}];
  if (!c) check(cudaMalloc(reinterpret_cast<void**>(&c), sizeof(unsigned long long)), "cudaMalloc");
  return c;
}

double read_result(cudaStream_t stream, ReduceWorkspace& ws) {
  check(cudaMemcpyAsync(ws.host_result, ws.result, sizeof(double), cudaMemcpyDeviceToHost, stream),
        "cudaMemcpyAsync");
  check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  return *ws.host_result;
}

}  // namespace tessera::native_cuda
