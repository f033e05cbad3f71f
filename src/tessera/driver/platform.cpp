#include "tessera/driver/platform.hpp"

#include "tessera/core/exec_space.hpp"

#include <Kokkos_Core.hpp>

#include <fstream>
#include <sstream>
#include <unistd.h>

namespace tessera::driver {

const char* platform_id(Platform p) {
  switch (p) {
    case Platform::cpu1: return "cpu-1";
    case Platform::cpu: return "cpu";
    case Platform::gpu: return "gpu";
  }
  return "?";
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      auto pos = line.find(':');
      if (pos != std::string::npos) return line.substr(line.find_first_not_of(' ', pos + 1));
    }
  return "unknown CPU";
}

bool platform_available(Platform p) {
  switch (p) {
    case Platform::cpu1: return true;
    case Platform::cpu:
#if defined(KOKKOS_ENABLE_OPENMP)
      return true;
#else
      return false;
#endif
    case Platform::gpu: return cuda_device_count() > 0;
  }
  return false;
}

std::string platform_hardware(Platform p) {
  std::ostringstream s;
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  switch (p) {
    case Platform::cpu1: s << cpu_model() << ", 1 thread (of " << cores << " cores)"; break;
    case Platform::cpu:
#if defined(KOKKOS_ENABLE_OPENMP)
      s << cpu_model() << ", " << Kokkos::OpenMP().concurrency() << " OpenMP threads (of " << cores
        << " cores)";
#endif
      break;
    case Platform::gpu:
#if defined(KOKKOS_ENABLE_CUDA)
      if (cuda_device_count() > 0) {
        cudaDeviceProp prop{};
        int dev = 0;
        cudaGetDevice(&dev);
        cudaGetDeviceProperties(&prop, dev);
        int driver = 0;
        cudaDriverGetVersion(&driver);
        s << prop.name << ", " << prop.multiProcessorCount << " SMs, " << (prop.totalGlobalMem >> 20) << " MiB, L2 "
          << (prop.l2CacheSize >> 20) << " MiB, CUDA runtime " << CUDART_VERSION / 1000 << "."
          << CUDART_VERSION % 1000 / 10 << ", driver " << driver / 1000 << "." << driver % 1000 / 10;
      }
#endif
      break;
  }
  return s.str();
}

void platform_memory(Platform p, double& free_bytes, double& total_bytes) {
  if (p == Platform::gpu) {
#if defined(KOKKOS_ENABLE_CUDA)
    size_t f = 0, t = 0;
    if (cudaMemGetInfo(&f, &t) == cudaSuccess) {
      free_bytes = double(f);
      total_bytes = double(t);
      return;
    }
#endif
    free_bytes = total_bytes = 0;
    return;
  }
  // MemAvailable: what can be allocated without swapping.
  std::ifstream in("/proc/meminfo");
  std::string key;
  double kb = 0;
  std::string unit;
  free_bytes = total_bytes = 0;
  while (in >> key >> kb >> unit) {
    if (key == "MemTotal:") total_bytes = kb * 1024;
    if (key == "MemAvailable:") free_bytes = kb * 1024;
  }
  if (free_bytes == 0) free_bytes = double(sysconf(_SC_AVPHYS_PAGES)) * double(sysconf(_SC_PAGESIZE));
}

}  // namespace tessera::driver
