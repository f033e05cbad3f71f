#pragma once
// Himeno state files (HDF5): the final p field and the gosa history of a run,
// which are also its checkpoints; a run restarts from any of them.
//
// Layout: /p (imax x jmax x kmax, float or double: the storage type, boundary
// included), /gosa (one double per completed sweep), root attributes format
// = "tessera-himeno-state", version, grid, precision, init, seed, omega,
// sweeps, variant. Only p is stored: the coefficients are regenerated from
// init and seed, and wrk2 = p is all a sweep needs (its interior is
// overwritten), so a restarted run is bit-identical to an uninterrupted one.
//
// Under MPI (initialised, several ranks) reads and writes are collective over
// MPI_COMM_WORLD: each rank gives its slab's owned planes (rank 0 also the
// lower boundary plane, the last rank the upper one). With parallel HDF5 all
// ranks write one file through MPI-IO; without, rank 0 receives the planes
// and writes them. Files are written under a temporary name and renamed when
// complete, so a crash never leaves a half-written file under the name.
#include "tessera/himeno/himeno.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace tessera::himeno {

// A missing, unreadable, malformed or mismatched state file.
class CheckpointError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct CheckpointInfo {
  Grid grid;
  std::string precision;  // double | float | mixed (storage: double, float, float)
  std::string init;       // benchmark | random
  std::uint64_t seed = 0;
  double omega = 0.8;
  int sweeps = 0;            // completed sweeps
  std::string variant;       // informational
  std::vector<double> gosa;  // one per completed sweep
  bool double_storage() const { return precision == "double"; }
};

enum class CheckpointIo {
  automatic,  // MPI-IO with parallel HDF5, else through rank 0
  funnel,     // always through rank 0 (one writer)
};

// Writes path (collective). p_local: the slab's local planes (slab.local,
// halos included) in host memory, of the storage type.
void write_checkpoint(const std::string& path, const CheckpointInfo& info, const Slab& slab, const void* p_local,
                      CheckpointIo io = CheckpointIo::automatic);

// Reads and checks the attributes and the gosa history (not p).
CheckpointInfo read_checkpoint_info(const std::string& path);

// Reads planes [slab.i_offset, slab.i_offset + slab.local.imax) of p (halos
// and boundary included) into p_local (host, the storage type of info).
void read_checkpoint_field(const std::string& path, const CheckpointInfo& info, const Slab& slab, void* p_local);

}  // namespace tessera::himeno
