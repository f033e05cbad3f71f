#pragma once
// Runs a workload's variants on the same inputs and builds the Report: rates,
// the measured roofline per platform and speed-ups over a CPU baseline.
#include "tessera/driver/results.hpp"
#include "tessera/driver/workload.hpp"

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace tessera::driver {

struct CompareRequest {
  std::vector<std::string> variants;  // empty: every variant available here
  RunSettings settings;
  std::uint64_t seed = 1;
  std::string baseline;  // empty: the fastest valid variant on the multicore CPU, else serial-reference
  bool progress = true;  // progress lines on the given stream
  bool roofline = true;  // calibrate the roofline with STREAM (workloads other than STREAM)
};

// Variants of w that can run here (compiled in, platform present).
std::vector<VariantInfo> available_variants(const Workload& w);

// The workload must be configured. Throws UsageError for unknown or
// unavailable variants and for problems that do not fit in memory.
Report run_compare(Workload& w, const CompareRequest& req, std::ostream& progress);

}  // namespace tessera::driver
