#include "tessera/driver/mpi_session.hpp"

#include "tessera/config.hpp"

#include <cstdlib>
#if TESSERA_HAS_MPI
#include <mpi.h>
#endif

namespace tessera::driver {
namespace {

bool launched_by_mpi() {
  if (const char* f = std::getenv("TESSERA_MPI")) return std::string(f) == "1";
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMI_RANK", "PMIX_RANK", "MV2_COMM_WORLD_SIZE"})
    if (std::getenv(v)) return true;
  return false;
}

#if TESSERA_HAS_MPI
bool mpi_up() {
  int up = 0, down = 0;
  MPI_Initialized(&up);
  MPI_Finalized(&down);
  return up && !down;
}
#endif

}  // namespace

MpiSession::MpiSession() {
#if TESSERA_HAS_MPI
  if (!launched_by_mpi() || mpi_up()) return;
  int provided = 0;
  // Funneled: only the main thread calls MPI (OpenMP threads never do).
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) return;
  active_ = true;
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &local_rank_);
  MPI_Comm_free(&node);
#endif
}

MpiSession::~MpiSession() {
#if TESSERA_HAS_MPI
  if (active_ && mpi_up()) MPI_Finalize();
#endif
}

void MpiSession::abort(int code) const {
#if TESSERA_HAS_MPI
  if (active_ && mpi_up()) MPI_Abort(MPI_COMM_WORLD, code);
#endif
  std::exit(code);
}

int world_rank() {
  int r = 0;
#if TESSERA_HAS_MPI
  if (mpi_up()) MPI_Comm_rank(MPI_COMM_WORLD, &r);
#endif
  return r;
}

int world_size() {
  int n = 1;
#if TESSERA_HAS_MPI
  if (mpi_up()) MPI_Comm_size(MPI_COMM_WORLD, &n);
#endif
  return n;
}

#if TESSERA_HAS_MPI
namespace {
double world_reduce(double v, MPI_Op op) {
  if (!mpi_up()) return v;
  double r = 0;
  MPI_Allreduce(&v, &r, 1, MPI_DOUBLE, op, MPI_COMM_WORLD);
  return r;
}
}  // namespace
double world_sum(double v) { return world_reduce(v, MPI_SUM); }
double world_max(double v) { return world_reduce(v, MPI_MAX); }
#else
double world_sum(double v) { return v; }
double world_max(double v) { return v; }
#endif

void world_barrier() {
#if TESSERA_HAS_MPI
  if (mpi_up()) MPI_Barrier(MPI_COMM_WORLD);
#endif
}

}  // namespace tessera::driver
