// Tall-skinny GEMM with K split over MPI ranks (ctest runs it under mpiexec
// with 2 and 3 ranks): every rank holds the global operands on the host,
// passes its own block of rows to tessera::tsm::mpi and checks the result
// against a long-double reference of the global product. Splits: nearly
// even, and uneven with rank 0 holding no rows.
#include "test_tsm_common.hpp"
#include "mpi_test_support.hpp"
#include "tessera/tsm/tsm_mpi.hpp"

#include <mpi.h>

#include <cstdio>
#include <stdexcept>

namespace {

using namespace tsm_test;
using tessera::test::ExecSpaces;

using tessera::test::mpi::all;
using tessera::test::mpi::rank;
using tessera::test::mpi::ranks;
using tessera::test::mpi::shared_seed;

enum class Split { even, weighted };  // weighted: rank r holds a share r / sum(r), so rank 0 none

// This rank's rows [k0, k1) of K.
std::pair<int, int> rows(int K, Split s) {
  const long long P = ranks(), r = rank();
  if (s == Split::even) return {int(K * r / P), int(K * (r + 1) / P)};
  const long long W = P * (P - 1) / 2;
  if (W == 0) return {0, K};  // one rank holds everything
  return {int(K * (r * (r - 1) / 2) / W), int(K * (r * (r + 1) / 2) / W)};
}

template <class T>
HostMat<T> block(const HostMat<T>& h, std::pair<int, int> r) {
  HostMat<T> b{r.second - r.first, h.cols, {}};
  b.v.assign(h.v.begin() + std::size_t(r.first) * h.cols, h.v.begin() + std::size_t(r.second) * h.cols);
  return b;
}

template <class T>
T scalar(std::uint64_t seed, std::uint64_t i) {
  return make<T>(tessera::random_uniform(seed, i, 0.5, 1.5), tessera::random_uniform(seed, i + 1, -1, 1));
}

struct Case {
  int M, N, K;
  Split split = Split::even;
  bool conj = false;
  bool zero_beta = false;  // beta = 0, C poisoned with NaN
  std::string str() const {
    return "M=" + std::to_string(M) + " N=" + std::to_string(N) + " K=" + std::to_string(K) +
           (split == Split::even ? " even" : " weighted") + (conj ? " C" : " T") + (zero_beta ? " beta=0" : "") +
           " ranks=" + std::to_string(ranks());
  }
};

template <class T, class Exec>
void check_tsmttsm(const Case& c) {
  using L = Kokkos::LayoutRight;
  const std::uint64_t seed = shared_seed();
  SCOPED_TRACE("tsmttsm " + c.str() + " seed=" + std::to_string(seed) + " " + Exec::name());
  const auto hA = random_mat<T>(c.K, c.M, seed + 1);
  const auto hB = random_mat<T>(c.K, c.N, seed + 2);
  const auto hC = c.zero_beta ? filled<T>(c.M, c.N, nan_value<T>()) : random_mat<T>(c.M, c.N, seed + 3);
  const T alpha = scalar<T>(seed, 10), beta = c.zero_beta ? T(0) : scalar<T>(seed, 20);
  const auto ref = ref_tsmttsm(c.conj, alpha, hA, hB, beta, hC);
  const auto r = rows(c.K, c.split);
  Exec exec;
  auto A = to_device<T, Exec, L>(block(hA, r));
  auto B = to_device<T, Exec, L>(block(hB, r));
  auto C = to_device<T, Exec, L>(hC);
  tessera::tsm::mpi::tsmttsm(MPI_COMM_WORLD, exec, c.conj ? "C" : "T", alpha, A, B, beta, C);
  std::string first;
  const int bad = count_bad(to_host<T>(C), ref, &first);
  EXPECT_TRUE(all(bad == 0)) << "rank " << rank() << " rows [" << r.first << "," << r.second << "): " << bad
                             << " bad, " << first;
}

template <class T, class Exec>
void check_tsmm(const Case& c) {
  using L = Kokkos::LayoutRight;
  const std::uint64_t seed = shared_seed();
  SCOPED_TRACE("tsmm " + c.str() + " seed=" + std::to_string(seed) + " " + Exec::name());
  const auto hA = random_mat<T>(c.K, c.M, seed + 4);
  const auto hC = random_mat<T>(c.M, c.N, seed + 5);
  const auto hB = c.zero_beta ? filled<T>(c.K, c.N, nan_value<T>()) : random_mat<T>(c.K, c.N, seed + 6);
  const T alpha = scalar<T>(seed, 30), beta = c.zero_beta ? T(0) : scalar<T>(seed, 40);
  const auto r = rows(c.K, c.split);
  // The reference of this rank's rows only: row k of B needs row k of A and all of C.
  const auto ref = ref_tsmm(alpha, block(hA, r), hC, beta, block(hB, r));
  Exec exec;
  auto A = to_device<T, Exec, L>(block(hA, r));
  auto C = to_device<T, Exec, L>(hC);
  auto B = to_device<T, Exec, L>(block(hB, r));
  tessera::tsm::mpi::tsmm(MPI_COMM_WORLD, exec, alpha, A, C, beta, B);
  exec.fence();
  std::string first;
  const int bad = count_bad(to_host<T>(B), ref, &first);
  EXPECT_TRUE(all(bad == 0)) << "rank " << rank() << ": " << bad << " bad, " << first;
}

template <class Exec>
class TsmMpi : public ::testing::Test {};
TYPED_TEST_SUITE(TsmMpi, ExecSpaces);

// M = N and M != N, K below the rank count (a rank with no rows under
// both splits), K = 0 (C = beta C), an odd K.
const std::vector<Case> shapes = {{1, 1, 1031}, {3, 17, 1031}, {24, 48, 517}, {64, 8, 263}, {8, 64, 2}, {5, 4, 0}};

TYPED_TEST(TsmMpi, TsmttsmDouble) {
  for (auto c : shapes)
    for (Split s : {Split::even, Split::weighted}) {
      c.split = s;
      c.zero_beta = c.M == 3 || c.K == 2;
      check_tsmttsm<double, TypeParam>(c);
    }
}

TYPED_TEST(TsmMpi, TsmttsmComplex) {
  for (auto c : shapes)
    for (Split s : {Split::even, Split::weighted}) {
      c.split = s;
      c.conj = s == Split::weighted;
      c.zero_beta = c.M == 24;
      check_tsmttsm<zc, TypeParam>(c);
    }
}

TYPED_TEST(TsmMpi, Tsmm) {
  for (auto c : shapes)
    for (Split s : {Split::even, Split::weighted}) {
      c.split = s;
      c.zero_beta = s == Split::weighted;
      check_tsmm<double, TypeParam>(c);
      check_tsmm<zc, TypeParam>(c);
    }
}

// A call refused on one rank is refused on every rank (none waits in the sum):
// the refusing rank with its own message, the others with "another rank".
TYPED_TEST(TsmMpi, RefusedEverywhere) {
  using V = Kokkos::View<double**, Kokkos::LayoutRight, typename TypeParam::memory_space>;
  TypeParam exec;
  const bool odd = rank() == ranks() - 1;  // the last rank passes a B with a row too many
  V A("A", 10, 4), B("B", odd ? 11 : 10, 5), C("C", 4, 5);
  std::string msg;
  try {
    tessera::tsm::mpi::tsmttsm(MPI_COMM_WORLD, exec, "T", 1.0, A, B, 0.0, C);
  } catch (const std::invalid_argument& e) {
    msg = e.what();
  }
  const std::string want = odd ? "row counts (K) differ" : "refused on another rank";
  EXPECT_TRUE(all(msg.find(want) != std::string::npos)) << "rank " << rank() << ": '" << msg << "'";

  // C of another size on one rank (each call alone is valid).
  V A2("A", 10, odd ? 3 : 4), C2("C", odd ? 3 : 4, 5), B2("B", 10, 5);
  msg.clear();
  try {
    tessera::tsm::mpi::tsmttsm(MPI_COMM_WORLD, exec, "T", 1.0, A2, B2, 0.0, C2);
  } catch (const std::invalid_argument& e) {
    msg = e.what();
  }
  if (ranks() > 1) EXPECT_TRUE(all(msg.find("M ranges over 3..4") != std::string::npos)) << "'" << msg << "'";
  // And the communicator still works: a valid call afterwards.
  V A3("A", 7, 2), B3("B", 7, 2), C3("C", 2, 2);
  Kokkos::deep_copy(A3, 1.0);
  Kokkos::deep_copy(B3, 2.0);
  tessera::tsm::mpi::tsmttsm(MPI_COMM_WORLD, exec, "T", 1.0, A3, B3, 0.0, C3);
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), C3);
  EXPECT_TRUE(all(h(1, 1) == 14.0 * ranks())) << h(1, 1);
}

}  // namespace

int main(int argc, char** argv) { return tessera::test::mpi::run_all(argc, argv); }
