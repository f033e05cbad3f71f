#pragma once
// Runs a workload's variants on the same inputs and builds the Report: rates,
// each row's ceiling (bandwidth, compute or roofline) per platform, the
// performance-portability metric and speed-ups over a CPU baseline.
#include "tessera/driver/ceilings.hpp"
#include "tessera/driver/results.hpp"
#include "tessera/driver/workload.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::driver {

struct CompareRequest {
  std::string command = "compare";    // "run" or "compare" (the report's header)
  std::vector<std::string> variants;  // empty: every variant available here
  RunSettings settings;
  std::uint64_t seed = 1;
  std::string baseline;  // empty: the fastest valid variant on the multicore CPU, else serial-reference
  CeilingsMode ceilings = CeilingsMode::measure;
};

// One row per (variant, kernel) from the rows of several rounds of the same
// variant list: the median of the rounds' medians, the extremes of all
// repeats, the repeats summed; valid only if every round was, with the
// largest error. Throws std::invalid_argument if the rounds' rows differ.
std::vector<Row> merge_rounds(const std::vector<std::vector<Row>>& rounds);

// Variants of w that can run here (in this build, platform present).
std::vector<Variant> available_variants(const Workload& w);

// Throws UsageError for unknown or unavailable variants and for a configured
// problem that does not fit in memory (run_compare checks the same first).
void check_variants_fit(const Workload& w, const std::vector<std::string>& variants);

// The workload must be configured. Throws UsageError for unknown or
// unavailable variants and for problems that do not fit in memory.
Report run_compare(Workload& w, const CompareRequest& req, Progress& progress);

// Fills each row's ceiling, efficiency and the portability metric from
// r.ceilings (used by run_compare; public for tests).
void apply_ceilings(Report& r);

}  // namespace tessera::driver
