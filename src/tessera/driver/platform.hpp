#pragma once
// Hardware behind each platform, as printed above every comparison table.
#include "tessera/driver/workload.hpp"

#include <string>

namespace tessera::driver {

bool platform_available(Platform p);  // after Kokkos::initialize
std::string platform_hardware(Platform p);  // "AMD EPYC ..., 16 OpenMP threads"
std::string cpu_model();
// Free and total bytes of the platform's memory (host RAM or GPU memory).
void platform_memory(Platform p, double& free_bytes, double& total_bytes);

}  // namespace tessera::driver
