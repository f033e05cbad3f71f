#pragma once
#include "tessera/driver/workload.hpp"

#include <memory>

namespace tessera::gluon {

std::unique_ptr<driver::Workload> make_gluon_workload();

}  // namespace tessera::gluon
