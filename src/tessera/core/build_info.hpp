#pragma once
// What this Tessera build was compiled with: printed beside every CPU-vs-GPU
// comparison so that both columns' build flags are on record.
#include <string>

namespace tessera {

struct BuildInfo {
  std::string version;
  std::string cxx_compiler;     // path and id/version of the C++ compiler
  std::string cxx_flags;        // CMAKE_CXX_FLAGS + build-type flags
  std::string build_type;
  std::string kokkos_version;
  std::string kokkos_devices;   // e.g. "CUDA;OPENMP;SERIAL"
  std::string kokkos_arch;      // e.g. "HOPPER90"
  std::string kokkos_options;   // e.g. "CUDA_LAMBDA;..."
  std::string cuda_version;     // empty without Cuda
  bool cuda_native = false;
  bool mpi = false;
  bool hdf5 = false;
};

const BuildInfo& build_info();

}  // namespace tessera
