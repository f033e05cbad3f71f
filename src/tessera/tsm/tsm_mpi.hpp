#pragma once
// Tall & skinny products with the K rows split over MPI ranks (each rank
// holds a block of rows of the tall operands, any number of rows, 0
// included; the small matrix C is replicated on every rank).
//
//   tessera::tsm::mpi::tsmttsm(comm, exec, "T", alpha, A_local, B_local, beta, C);  // collective
//   tessera::tsm::mpi::tsmm(comm, exec, alpha, A_local, C, beta, B_local);          // local
//
// TSMTTSM: each rank's alpha op(A_local)^T B_local goes into a buffer (beta
// = 0), the buffers are summed over the ranks (MPI_Allreduce) and then
// C = beta C + sum on every rank, so beta C is added once and beta = 0 still
// never reads C. The call is collective and blocking (it fences exec): every
// rank of comm calls it with the same trans, alpha, beta, M and N. A rank
// whose arguments are refused throws its own one-line error and the other
// ranks throw "refused on another rank" (an agreement step before the sum),
// so a bad call never leaves a rank waiting.
// TSMM: row k of B depends on row k of A and all of C, so each rank computes
// its own rows with no communication (tessera::tsm::tsmm on the local rows).
//
// The M x N partial sums (at most 64 x 64) go through host memory: at this
// size a transfer costs its latency, whether MPI reads device memory or not.
#include "tessera/tsm/tsm.hpp"

#include <Kokkos_Core.hpp>
#include <mpi.h>

#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace tessera::tsm::mpi {

namespace detail {

template <class T>
MPI_Datatype datatype() {
  if constexpr (std::is_same_v<T, double>)
    return MPI_DOUBLE;
  else
    return MPI_C_DOUBLE_COMPLEX;  // Kokkos::complex<double> is {re, im}, as C's double _Complex
}

// Whether every rank's call was accepted with the same M and N: one
// MPI_MAX over {failed, M, -M, N, -N} (equal on all ranks iff max == -max(-x)).
inline void agree(MPI_Comm comm, const char* fn, bool failed, int M, int N) {
  int mine[5] = {failed ? 1 : 0, M, -M, N, -N}, all[5] = {0, 0, 0, 0, 0};
  MPI_Allreduce(mine, all, 5, MPI_INT, MPI_MAX, comm);
  if (failed) return;  // the caller rethrows its own error
  if (all[0] != 0) tsm::detail::fail(fn, "the arguments were refused on another rank");
  if (all[1] != -all[2] || all[3] != -all[4])
    tsm::detail::fail(fn, "C is " + tsm::detail::dims(M, N) + " here, M ranges over " + std::to_string(-all[2]) +
                              ".." + std::to_string(all[1]) + " and N over " + std::to_string(-all[4]) + ".." +
                              std::to_string(all[3]) + " on the ranks");
}

}  // namespace detail

// C = beta C + (sum over the ranks of comm of P), P and C M x N on every
// rank (P is overwritten with the sum). Collective and blocking: it fences
// exec. The building block of tsmttsm below, public so that a caller whose
// local products come from elsewhere (another BLAS) can sum them the same way.
template <class ExecSpace, class ViewP, class ViewC>
void sum_over_ranks(MPI_Comm comm, const ExecSpace& exec, const ViewP& P,
                    typename ViewC::non_const_value_type beta, const ViewC& C) {
  using T = typename ViewC::non_const_value_type;
  static_assert(std::is_same_v<typename ViewP::non_const_value_type, T>, "P and C must have the same scalar type");
  static_assert(std::is_same_v<typename ViewP::array_layout, Kokkos::LayoutRight>,
                "P must be LayoutRight (contiguous) for the transfers");
  static_assert(can_access_v<ExecSpace, ViewP> && can_access_v<ExecSpace, ViewC>,
                "the execution space cannot access these Views' memory");
  const int M = int(C.extent(0)), N = int(C.extent(1));
  if (P.extent(0) != C.extent(0) || P.extent(1) != C.extent(1))
    tsm::detail::fail("mpi::sum_over_ranks", "P is " + tsm::detail::dims(P.extent(0), P.extent(1)) + ", C is " +
                                                 tsm::detail::dims(M, N));
  using Host = Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  std::vector<T> buf(std::size_t(M) * N);
  Host h(buf.data(), M, N);
  Kokkos::deep_copy(exec, h, P);
  exec.fence();
  MPI_Allreduce(MPI_IN_PLACE, buf.data(), M * N, detail::datatype<T>(), MPI_SUM, comm);
  Kokkos::deep_copy(exec, P, h);
  const bool zero_beta = beta == T(0);
  Kokkos::parallel_for(
      "tessera::tsm::mpi::add", Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>(exec, {0, 0}, {M, N}),
      KOKKOS_LAMBDA(int m, int n) { C(m, n) = zero_beta ? P(m, n) : beta * C(m, n) + P(m, n); });
  exec.fence();  // buf (P's source) lives on this stack frame
}

// C = alpha op(A)^T B + beta C over all ranks' rows: A_local (K_r x M) and
// B_local (K_r x N) are this rank's rows, C (M x N) is replicated.
template <class ExecSpace, class ViewA, class ViewB, class ViewC>
void tsmttsm(MPI_Comm comm, const ExecSpace& exec, const std::string& trans,
             typename ViewC::non_const_value_type alpha, const ViewA& A_local, const ViewB& B_local,
             typename ViewC::non_const_value_type beta, const ViewC& C) {
  using T = typename ViewC::non_const_value_type;
  constexpr const char* fn = "mpi::tsmttsm";
  tsm::detail::static_checks<ExecSpace, ViewC, ViewA, ViewB>();
  bool ok = false;
  try {
    tsm::detail::parse_trans(fn, trans);
    tsm::detail::check_shapes(fn, A_local, B_local, C);
    if (tsm::detail::overlap(C, A_local) || tsm::detail::overlap(C, B_local))
      tsm::detail::fail(fn, "the output C shares memory with an input");
    ok = true;
  } catch (...) {
    detail::agree(comm, fn, true, int(C.extent(0)), int(C.extent(1)));
    throw;
  }
  detail::agree(comm, fn, !ok, int(C.extent(0)), int(C.extent(1)));
  Kokkos::View<T**, Kokkos::LayoutRight, typename ViewC::memory_space> P(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "tsm::mpi::partial"), C.extent(0), C.extent(1));
  tsm::tsmttsm(exec, trans, alpha, A_local, B_local, T(0), P);
  sum_over_ranks(comm, exec, P, beta, C);
}

// B = alpha A C + beta B on this rank's rows (A_local K_r x M, B_local K_r x
// N, C M x N replicated): no communication, queued on exec like tsm::tsmm.
template <class ExecSpace, class ViewA, class ViewC, class ViewB>
void tsmm(MPI_Comm /*comm*/, const ExecSpace& exec, typename ViewB::non_const_value_type alpha,
          const ViewA& A_local, const ViewC& C, typename ViewB::non_const_value_type beta, const ViewB& B_local) {
  tsm::tsmm(exec, alpha, A_local, C, beta, B_local);
}

}  // namespace tessera::tsm::mpi
