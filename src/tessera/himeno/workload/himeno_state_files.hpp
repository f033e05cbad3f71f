#pragma once
// Himeno state files of the driver: --output, --checkpoint-every and
// --restart, checked against the run before anything starts.
#include "tessera/config.hpp"
#include "tessera/driver/options.hpp"
#include "tessera/himeno/himeno.hpp"
#if TESSERA_HAS_HDF5
#include "tessera/himeno/himeno_checkpoint.hpp"
#endif

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tessera::himeno::workload {

#if !TESSERA_HAS_HDF5
struct CheckpointInfo {  // never filled without HDF5 (--restart is refused)
  int sweeps = 0;
  std::vector<double> gosa;
};
#endif

struct StateFiles {
  std::string output, restart;
  int checkpoint_every = 0;                   // 0: only the final state
  std::optional<CheckpointInfo> restart_info;  // what --restart holds
};

// What the run is, for checking a restart file against it.
struct RunIdentity {
  Grid grid;
  std::string precision, init;  // "double"/"float"/"mixed", "benchmark"/"random"
  std::uint64_t seed = 0;       // compared for random inputs only
  int iters = 0;
};

// Reads and checks the options; UsageError on any mismatch or unusable file.
StateFiles read_state_file_options(const driver::Options& opts, const RunIdentity& run);

}  // namespace tessera::himeno::workload
