#pragma once
// The ceilings a kernel row is measured against, per platform and measured
// in this process (or cached from an earlier measurement of the same host
// and build): bandwidth (STREAM copy/triad, and a read-only sum) and compute
// (FP64 and FP32 FMA throughput: the native kernel on CUDA, else a small
// Kokkos kernel), plus the last-level cache size (rows whose working set fits
// are marked: their rates can exceed the memory ceiling).
#include "tessera/driver/progress.hpp"
#include "tessera/driver/workload.hpp"

#include <map>
#include <set>
#include <string>

namespace tessera::driver {

struct Ceilings {
  double copy_gbs = 0;     // best STREAM copy/triad
  double read_gbs = 0;     // best STREAM read-only sum
  double fp64_gflops = 0;  // FMA throughput
  double fp32_gflops = 0;
  double llc_bytes = 0;    // last-level cache (L3 of the CPU, L2 of the GPU)
  int ranks = 1;           // MPI ranks the values are summed over
  std::string source;      // "measured", "cached <date>", "this run's STREAM rows"
  bool has_bandwidth() const { return copy_gbs > 0; }
  bool has_compute() const { return fp64_gflops > 0; }
};

enum class CeilingsMode {
  off,      // none (--no-roofline)
  cached,   // from the cache file when it has this host and build, else none
  measure,  // measured now (and written to the cache)
};

// Ceilings of `platforms`; under MPI every rank measures at the same time
// (after a barrier) and the values are summed over ranks.
std::map<std::string, Ceilings> ceilings(const std::set<Platform>& platforms, CeilingsMode mode, Progress& progress);

// The cache file (a small JSON file in the user's cache folder).
std::string ceilings_cache_path();

// What a row is measured against: the value (GB/s for memory-bound rows,
// GFLOP/s otherwise) and a label; 0 when the platform lacks that ceiling.
struct RowCeiling {
  double value = 0;
  double efficiency = 0;  // achieved / value (0 when none)
  std::string label;      // "copy 2920 GB/s", "FP64 33.0 TF/s", "min(I b, P) 1234 GFLOP/s"
  bool in_cache = false;  // the working set fits in the last-level cache
};
RowCeiling row_ceiling(const KernelResult& k, double gbs, double gflops, const Ceilings& c);

}  // namespace tessera::driver
