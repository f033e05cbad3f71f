#pragma once
// The tall-skinny GEMM workload of the driver (`tessera run|compare tsm`).
#include "tessera/driver/workload.hpp"

#include <memory>

namespace tessera::tsm {

std::unique_ptr<driver::Workload> make_tsm_workload();

}  // namespace tessera::tsm
