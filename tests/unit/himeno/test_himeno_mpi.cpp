// Himeno over MPI ranks (run by ctest under mpiexec with 1, 2 and 3 ranks):
// every rank also runs the whole grid alone with the same kernel, and its
// owned planes must be bit-identical to that, the gosa history equal to
// rounding; state files: restart bit-identical to an uninterrupted run,
// one writer or MPI-IO giving the same file, bad files refused.
#include "exec_spaces.hpp"
#include "mpi_test_support.hpp"
#include "tessera/config.hpp"
#include "tessera/core/exec_space.hpp"
#include "tessera/himeno/himeno.hpp"
#include "tessera/himeno/himeno_mpi.hpp"
#if TESSERA_HAS_HDF5
#include "tessera/himeno/himeno_checkpoint.hpp"
#endif

#include <mpi.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace {

using namespace tessera::himeno;
using tessera::test::ExecSpaces;

using tessera::test::mpi::all;
using tessera::test::mpi::rank;
using tessera::test::mpi::ranks;
using tessera::test::mpi::shared_seed;

template <class State>
std::vector<typename State::scalar_type> host_p(const State& s) {
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.p);
  return std::vector<typename State::scalar_type>(h.data(), h.data() + h.size());
}

// p's planes [a, b) of a host copy, as bytes.
template <class T>
std::vector<T> planes(const std::vector<T>& p, const Grid& g, int a, int b) {
  const std::size_t plane = std::size_t(g.jmax) * g.kmax;
  return std::vector<T>(p.begin() + a * plane, p.begin() + b * plane);
}

template <class ExecSpace>
class HimenoMpi : public ::testing::Test {};
TYPED_TEST_SUITE(HimenoMpi, ExecSpaces);

template <class ExecSpace, class T, class Accum>
void slab_equals_whole(const Grid& g, Kernel kernel, bool overlap, int iters) {
  using Mem = typename ExecSpace::memory_space;
  const std::uint64_t seed = shared_seed();
  SCOPED_TRACE("seed " + std::to_string(seed) + ", grid " + g.str() + ", kernel " + std::to_string(int(kernel)) +
               ", overlap " + std::to_string(overlap) + ", ranks " + std::to_string(ranks()));
  ExecSpace exec;
  SweepOptions opt;
  opt.kernel = kernel;
  // The whole grid on this rank alone.
  HimenoState<T, Mem> whole(g);
  initialize_random(exec, whole, seed);
  std::vector<double> whole_gosa;
  for (int n = 0; n < iters; ++n) whole_gosa.push_back(sweep<Accum>(exec, whole, opt));
  // The slab of this rank.
  const Slab slab = slab_decomposition(g, ranks(), rank());
  HimenoState<T, Mem> part(slab.local);
  initialize_random(exec, part, seed, slab);
  SlabOptions so;
  so.overlap = overlap;
  so.sweep = opt;
  SlabJacobi<ExecSpace, T, Mem, Accum> jac(MPI_COMM_WORLD, slab, part, exec, exec, iters, so);
  for (int n = 0; n < iters; ++n) jac.sweep(n);
  const std::vector<double> gosa = jac.gosa_history(iters);

  const auto pw = planes(host_p(whole), g, slab.first, slab.end);
  const auto ps = planes(host_p(part), slab.local, 1, slab.planes() + 1);
  EXPECT_TRUE(all(pw.size() == ps.size() && std::memcmp(pw.data(), ps.data(), pw.size() * sizeof(T)) == 0))
      << "owned planes differ from the undecomposed run";
  // Positive terms summed in another order: within N eps of each other.
  const double tol = double(g.interior()) * std::numeric_limits<Accum>::epsilon();
  for (int n = 0; n < iters; ++n) EXPECT_NEAR(gosa[n], whole_gosa[n], tol * whole_gosa[n]) << "sweep " << n;
}

TYPED_TEST(HimenoMpi, SlabsGiveTheUndecomposedField) {
  // 11 interior planes: uneven slabs for 2 and 3 ranks.
  const Grid g = make_grid(13, 9, 21);
  for (bool overlap : {true, false}) {
    slab_equals_whole<TypeParam, double, double>(g, Kernel::automatic, overlap, 3);
    slab_equals_whole<TypeParam, float, double>(g, Kernel::mdrange, overlap, 2);
    slab_equals_whole<TypeParam, float, float>(g, Kernel::teamscratch, overlap, 3);
    slab_equals_whole<TypeParam, float, double>(g, Kernel::pointwise, overlap, 2);
  }
  // One plane per rank at 3 ranks: no interior, only boundary planes.
  slab_equals_whole<TypeParam, double, double>(make_grid(ranks() + 2, 7, 9), Kernel::automatic, true, 2);
}

TEST(HimenoSlab, DecompositionCoversTheInteriorOnce) {
  const Grid g = make_grid(12, 5, 5);
  for (int n = 1; n <= 10; ++n) {
    int next = 1;
    for (int r = 0; r < n; ++r) {
      const Slab s = slab_decomposition(g, n, r);
      EXPECT_EQ(s.first, next);
      EXPECT_GE(s.planes(), 10 / n);
      EXPECT_LE(s.planes(), 10 / n + 1);
      EXPECT_EQ(s.local.imax, s.planes() + 2);
      next = s.end;
    }
    EXPECT_EQ(next, 11);
  }
  EXPECT_THROW(slab_decomposition(g, 11, 0), std::invalid_argument);
  EXPECT_THROW(slab_decomposition(g, 2, 2), std::invalid_argument);
}

#if TESSERA_HAS_HDF5
std::string scratch(const std::string& name) {
  // Every rank must name the same file: rank 0's pid.
  int pid = int(::getpid());
  MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return "himeno_mpi_test_" + std::to_string(pid) + "_" + name + ".h5";
}

template <class ExecSpace, class T>
std::vector<double> advance(SlabJacobi<ExecSpace, T>& jac, int from, int to) {
  for (int n = from; n < to; ++n) jac.sweep(n);
  return jac.gosa_history(to);
}

template <class T, class State>
CheckpointInfo info_of(const Grid& g, const State& s, std::uint64_t seed, const std::vector<double>& gosa) {
  CheckpointInfo info;
  info.grid = g;
  info.precision = std::is_same_v<T, double> ? "double" : "float";
  info.init = "random";
  info.seed = seed;
  info.omega = double(s.omega);
  info.sweeps = int(gosa.size());
  info.gosa = gosa;
  info.variant = "test";
  return info;
}

TYPED_TEST(HimenoMpi, RestartIsBitIdentical) {
  using ExecSpace = TypeParam;
  using T = float;
  using Mem = typename ExecSpace::memory_space;
  const std::uint64_t seed = shared_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  const Grid g = make_grid(15, 11, 17);
  const Slab slab = slab_decomposition(g, ranks(), rank());
  ExecSpace exec;
  // Uninterrupted: 5 sweeps.
  HimenoState<T, Mem> a(slab.local);
  initialize_random(exec, a, seed, slab);
  SlabJacobi<ExecSpace, T> ja(MPI_COMM_WORLD, slab, a, exec, exec, 5);
  const auto gosa_a = advance(ja, 0, 5);
  // 2 sweeps, state file, a fresh state restarted from it, 3 more.
  const std::string file = scratch("restart");
  {
    HimenoState<T, Mem> b(slab.local);
    initialize_random(exec, b, seed, slab);
    SlabJacobi<ExecSpace, T> jb(MPI_COMM_WORLD, slab, b, exec, exec, 5);
    const auto gosa_b = advance(jb, 0, 2);
    const auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), b.p);
    write_checkpoint(file, info_of<T>(g, b, seed, gosa_b), slab, hb.data());
  }
  const CheckpointInfo info = read_checkpoint_info(file);
  EXPECT_EQ(info.sweeps, 2);
  EXPECT_EQ(info.seed, seed);
  EXPECT_EQ(info.grid.str(), g.str());
  HimenoState<T, Mem> c(slab.local);
  initialize_random(exec, c, seed, slab);
  {
    auto hc = Kokkos::create_mirror_view(Kokkos::HostSpace(), c.p);
    read_checkpoint_field(file, info, slab, hc.data());
    Kokkos::deep_copy(c.p, hc);
    Kokkos::deep_copy(c.wrk2, c.p);
  }
  SlabJacobi<ExecSpace, T> jc(MPI_COMM_WORLD, slab, c, exec, exec, 5);
  auto gosa_c = advance(jc, 2, 5);
  for (int n = 0; n < 2; ++n) gosa_c[n] = info.gosa[n];
  const auto pa = planes(host_p(a), slab.local, 1, slab.planes() + 1);
  const auto pc = planes(host_p(c), slab.local, 1, slab.planes() + 1);
  EXPECT_TRUE(all(std::memcmp(pa.data(), pc.data(), pa.size() * sizeof(T)) == 0)) << "restarted field differs";
  for (int n = 0; n < 5; ++n) EXPECT_EQ(gosa_c[n], gosa_a[n]) << "sweep " << n;
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank() == 0) std::remove(file.c_str());
}

TYPED_TEST(HimenoMpi, OneWriterAndMpiIoWriteTheSameField) {
  using ExecSpace = TypeParam;
  using Mem = typename ExecSpace::memory_space;
  const std::uint64_t seed = shared_seed();
  const Grid g = make_grid(9, 6, 7);
  const Slab slab = slab_decomposition(g, ranks(), rank());
  ExecSpace exec;
  HimenoState<double, Mem> s(slab.local);
  initialize_random(exec, s, seed, slab);
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), s.p);
  const std::string f1 = scratch("auto"), f2 = scratch("funnel");
  const CheckpointInfo info = info_of<double>(g, s, seed, {0.5});
  write_checkpoint(f1, info, slab, h.data(), CheckpointIo::automatic);
  write_checkpoint(f2, info, slab, h.data(), CheckpointIo::funnel);
  // Both read back whole on every rank equal the whole initial field.
  HimenoState<double, Mem> whole(g);
  initialize_random(exec, whole, seed);
  const auto expect = host_p(whole);
  const Slab all_planes = slab_decomposition(g, 1, 0);
  for (const auto& f : {f1, f2}) {
    const CheckpointInfo back = read_checkpoint_info(f);
    ASSERT_EQ(back.gosa, std::vector<double>{0.5});
    std::vector<double> p(g.points());
    read_checkpoint_field(f, back, all_planes, p.data());
    EXPECT_TRUE(all(std::memcmp(p.data(), expect.data(), p.size() * sizeof(double)) == 0)) << f;
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank() == 0) std::remove(f1.c_str()), std::remove(f2.c_str());
}

TEST(HimenoStateFile, BadFilesAreRefused) {
  if (rank() != 0) return;  // reading is local
  EXPECT_THROW(read_checkpoint_info("no-such-himeno-state.h5"), CheckpointError);
  const std::string text = "himeno_mpi_test_not_hdf5.h5";
  std::ofstream(text) << "not an HDF5 file\n";
  try {
    read_checkpoint_info(text);
    ADD_FAILURE() << "a text file was accepted";
  } catch (const CheckpointError& e) {
    EXPECT_NE(std::string(e.what()).find("not an HDF5 file"), std::string::npos) << e.what();
  }
  std::remove(text.c_str());
}
#endif

}  // namespace

int main(int argc, char** argv) { return tessera::test::mpi::run_all(argc, argv); }
