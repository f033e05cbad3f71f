#pragma once
#include "tessera/driver/workload.hpp"

#include <memory>

namespace tessera::stream {

std::unique_ptr<driver::Workload> make_stream_workload();

// Named sizes (elements per array) of `--size`.
long long stream_size_elements(const std::string& size);  // UsageError if invalid

}  // namespace tessera::stream
