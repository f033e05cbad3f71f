#pragma once
// Device timers: CUDA events on the instance's stream for Kokkos::Cuda, a
// fence plus a steady clock for host spaces. time_repeats() does warm-up and
// repeats; summarize() gives the median the tables report.
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

namespace tessera {

template <class ExecSpace>
class DeviceTimer {
 public:
  explicit DeviceTimer(const ExecSpace& exec) : exec_(exec) {}
  void start() {
    exec_.fence();
    t0_ = std::chrono::steady_clock::now();
  }
  // Seconds since start(), after the work queued on the instance is done.
  double stop() {
    exec_.fence();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  }

 private:
  ExecSpace exec_;
  std::chrono::steady_clock::time_point t0_;
};

#if defined(KOKKOS_ENABLE_CUDA)
template <>
class DeviceTimer<Kokkos::Cuda> {
 public:
  explicit DeviceTimer(const Kokkos::Cuda& exec) : exec_(exec) {
    check(cudaEventCreate(&start_), "cudaEventCreate");
    check(cudaEventCreate(&stop_), "cudaEventCreate");
  }
  ~DeviceTimer() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  DeviceTimer(const DeviceTimer&) = delete;
  DeviceTimer& operator=(const DeviceTimer&) = delete;
  void start() { check(cudaEventRecord(start_, exec_.cuda_stream()), "cudaEventRecord"); }
  double stop() {
    check(cudaEventRecord(stop_, exec_.cuda_stream()), "cudaEventRecord");
    check(cudaEventSynchronize(stop_), "cudaEventSynchronize");
    check(cudaGetLastError(), "kernel launch");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
    return 1e-3 * ms;
  }

 private:
  static void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
  }
  Kokkos::Cuda exec_;
  cudaEvent_t start_{}, stop_{};
};
#endif

// For host code outside Kokkos (plain C++ references): nothing to fence.
struct HostClock {
  void fence() const {}
};

struct TimingStats {
  double median = 0, min = 0, max = 0;
  int repeats = 0;
};

inline TimingStats summarize(std::vector<double> t) {
  if (t.empty()) throw std::invalid_argument("summarize: no timings");
  std::sort(t.begin(), t.end());
  TimingStats s;
  s.repeats = static_cast<int>(t.size());
  s.min = t.front();
  s.max = t.back();
  const size_t n = t.size();
  s.median = n % 2 ? t[n / 2] : 0.5 * (t[n / 2 - 1] + t[n / 2]);
  return s;
}

// Runs f() warmup times untimed, then repeats times, each timed on exec.
template <class ExecSpace, class F>
TimingStats time_repeats(const ExecSpace& exec, int warmup, int repeats, F&& f) {
  if (repeats < 1) throw std::invalid_argument("time_repeats: repeats must be >= 1");
  for (int i = 0; i < warmup; ++i) f();
  DeviceTimer<ExecSpace> timer(exec);
  std::vector<double> t;
  t.reserve(repeats);
  for (int i = 0; i < repeats; ++i) {
    timer.start();
    f();
    t.push_back(timer.stop());
  }
  return summarize(std::move(t));
}

}  // namespace tessera
