#pragma once
#include "tessera/driver/workload.hpp"

#include <memory>

namespace tessera::himeno {

// The "himeno" driver workload: Jacobi sweeps of the Himeno benchmark.
std::unique_ptr<driver::Workload> make_himeno_workload();

}  // namespace tessera::himeno
