#pragma once
// MPI for the driver. MPI is initialised only when the process was started by
// an MPI launcher (mpiexec/srun set PMI/PMIx/Open MPI variables), so that a
// plain `tessera run` needs no MPI runtime; TESSERA_MPI=1 forces it.
// Without MPI (or not launched by it) there is one rank.
#include <string>
#include <vector>

namespace tessera::driver {

class MpiSession {
 public:
  MpiSession();  // initialises MPI when launched by it
  ~MpiSession();  // finalises what it initialised
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  bool active() const { return active_; }
  // Ranks of this node, this rank among them (device choice).
  int local_rank() const { return local_rank_; }
  [[noreturn]] void abort(int code) const;

 private:
  bool active_ = false;
  int local_rank_ = 0;
};

// MPI_COMM_WORLD's rank and size (0 and 1 when MPI is not initialised).
int world_rank();
int world_size();
// Sum / max of a value over all ranks (the value itself with one rank).
double world_sum(double v);
double world_max(double v);
void world_barrier();

}  // namespace tessera::driver
