#pragma once
// Himeno on several MPI ranks: a 1-D slab decomposition along i (Slab in
// himeno.hpp), halo exchange of p, gosa summed over ranks.
//
//   const Slab slab = slab_decomposition(global, size, rank);
//   HimenoState<float> s(slab.local);
//   initialize(exec, s, slab);
//   SlabJacobi<Kokkos::Cuda, float> jac(MPI_COMM_WORLD, slab, s, compute, halo, iters);
//   for (int n = 0; n < iters; ++n) jac.sweep(n);
//   std::vector<double> gosa = jac.gosa_history(iters);   // collective
//
// Overlap (the paper's boundary/interior split): the halo planes are sent
// while the interior planes [2, planes) are updated on the `compute`
// instance; when the halos have arrived, the two boundary planes are updated
// on the `halo` instance (on CUDA: another stream, so both run at once). The
// field is bit-identical to one rank's (every point is computed by the same
// code from the same values); gosa differs by the summation order only.
// Device memory goes to MPI directly when MPI says it is CUDA-aware, else it
// is staged through host buffers (pinned on CUDA).
#include "tessera/himeno/himeno.hpp"

#include <Kokkos_Core.hpp>
#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>  // MPIX_CUDA_AWARE_SUPPORT
#endif

#include <climits>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace tessera::himeno {

// Whether this MPI library reads and writes CUDA device memory.
inline bool mpi_cuda_aware() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

struct SlabOptions {
  bool overlap = true;  // exchange halos while the interior is swept
  // Device halos: automatic = straight to MPI when it is CUDA-aware, else
  // through host buffers; host = always through host buffers.
  enum class Staging { automatic, host } staging = Staging::automatic;
  SweepOptions sweep;  // kernel and tiles; the plane range is set per part
};

template <class ExecSpace, class Scalar, class Mem = typename ExecSpace::memory_space, class Accum = double>
class SlabJacobi {
 public:
  using State = HimenoState<Scalar, Mem>;
  // Gosa parts per sweep: interior planes, lower and upper boundary plane.
  using Parts = Kokkos::View<Accum* [3], Kokkos::LayoutRight, Mem>;

  // capacity: sweeps whose gosa is kept (sweep(n) takes n < capacity).
  SlabJacobi(MPI_Comm comm, const Slab& slab, State& state, const ExecSpace& compute, const ExecSpace& halo,
             int capacity, const SlabOptions& opt = {})
      : comm_(comm), slab_(slab), s_(state), compute_(compute), halo_(halo), opt_(opt) {
    int size = 0, rank = 0;
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    if (size != slab.ranks || rank != slab.rank)
      throw std::invalid_argument("tessera::himeno::SlabJacobi: the slab is rank " + std::to_string(slab.rank) +
                                  " of " + std::to_string(slab.ranks) + ", the communicator has rank " +
                                  std::to_string(rank) + " of " + std::to_string(size));
    detail::require_usable<ExecSpace>("SlabJacobi", state);
    detail::require_slab("SlabJacobi", state, slab);
    if (capacity < 1) throw std::invalid_argument("tessera::himeno::SlabJacobi: capacity must be at least 1");
    plane_ = std::int64_t(slab.local.jmax) * slab.local.kmax;
    if (plane_ > INT_MAX)
      throw std::invalid_argument("tessera::himeno::SlabJacobi: a (j, k) plane of " + std::to_string(plane_) +
                                  " points is too large for one MPI message");
    parts_ = Parts("himeno::gosa_parts", capacity);  // zero: parts a sweep does not write stay 0
    constexpr bool host_mem = Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible;
    staged_ = !host_mem && !(opt.staging == SlabOptions::Staging::automatic && mpi_cuda_aware());
    if (staged_)
      for (auto* b : {&send_lo_, &send_hi_, &recv_lo_, &recv_hi_})
        *b = Staging(Kokkos::view_alloc(Kokkos::WithoutInitializing, "himeno::halo"), slab.local.jmax,
                     slab.local.kmax);
  }

  // Sweep n (0-based): gosa parts into row n, then p and wrk2 swap.
  void sweep(int n) {
    if (n < 0 || n >= int(parts_.extent(0)))
      throw std::out_of_range("tessera::himeno::SlabJacobi::sweep: sweep " + std::to_string(n) +
                              " is beyond the capacity " + std::to_string(parts_.extent(0)));
    const int np = slab_.planes();
    if (!opt_.overlap || slab_.ranks == 1) {
      exchange();
      apply(compute_, 1, np + 1, n, 0);
    } else {
      start_exchange();
      apply(compute_, 2, np < 2 ? 2 : np, n, 0);
      finish_exchange();
      apply(halo_, 1, 2, n, 1);
      if (np >= 2) apply(halo_, np, np + 1, n, 2);
    }
    compute_.fence();
    halo_.fence();
    std::swap(s_.p, s_.wrk2);
  }

  // The halo exchange alone, blocking: p's halo planes from the neighbours.
  void exchange() {
    start_exchange();
    finish_exchange();
    halo_.fence();
  }

  // Global gosa of sweeps [0, count): parts summed per rank, then over ranks
  // (collective). Every rank gets the history.
  std::vector<double> gosa_history(int count) const {
    if (count < 0 || count > int(parts_.extent(0)))
      throw std::out_of_range("tessera::himeno::SlabJacobi::gosa_history: count beyond capacity");
    compute_.fence();
    halo_.fence();
    const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), parts_);
    std::vector<double> local(count), global(count);
    for (int n = 0; n < count; ++n) local[n] = double(h(n, 0)) + double(h(n, 1)) + double(h(n, 2));
    MPI_Allreduce(local.data(), global.data(), count, MPI_DOUBLE, MPI_SUM, comm_);
    return global;
  }

  bool staged() const { return staged_; }
  const Slab& slab() const { return slab_; }

 private:
#if defined(KOKKOS_ENABLE_CUDA)
  using StagingSpace = std::conditional_t<std::is_same_v<Mem, Kokkos::CudaSpace>, Kokkos::CudaHostPinnedSpace,
                                          Kokkos::HostSpace>;
#else
  using StagingSpace = Kokkos::HostSpace;
#endif
  using Staging = Kokkos::View<Scalar**, Kokkos::LayoutRight, StagingSpace>;
  static MPI_Datatype mpi_type() { return std::is_same_v<Scalar, double> ? MPI_DOUBLE : MPI_FLOAT; }
  auto plane_view(int i) const { return Kokkos::subview(s_.p, i, Kokkos::ALL, Kokkos::ALL); }
  Scalar* plane_ptr(int i) const { return s_.p.data() + std::int64_t(i) * plane_; }

  void apply(const ExecSpace& exec, int begin, int end, int n, int part) {
    SweepOptions o = opt_.sweep;
    o.i_begin = begin;
    o.i_end = end;
    const auto g = Kokkos::subview(parts_, n, part);
    impl::SweepSpec<ExecSpace, State>::template apply<Accum>(exec, s_, o, g);
  }

  // Tags name the direction a plane travels.
  static constexpr int kUp = 11, kDown = 12;

  void start_exchange() {
    const int np = slab_.planes(), count = int(plane_);
    const bool lo = slab_.has_lower(), hi = slab_.has_upper();
    nreq_ = 0;
    if (!lo && !hi) return;
    if (staged_) {
      if (lo) Kokkos::deep_copy(halo_, send_lo_, plane_view(1));
      if (hi) Kokkos::deep_copy(halo_, send_hi_, plane_view(np));
      halo_.fence();
    }
    Scalar* rlo = staged_ ? recv_lo_.data() : plane_ptr(0);
    Scalar* rhi = staged_ ? recv_hi_.data() : plane_ptr(np + 1);
    Scalar* slo = staged_ ? send_lo_.data() : plane_ptr(1);
    Scalar* shi = staged_ ? send_hi_.data() : plane_ptr(np);
    if (lo) MPI_Irecv(rlo, count, mpi_type(), slab_.rank - 1, kUp, comm_, &req_[nreq_++]);
    if (hi) MPI_Irecv(rhi, count, mpi_type(), slab_.rank + 1, kDown, comm_, &req_[nreq_++]);
    if (lo) MPI_Isend(slo, count, mpi_type(), slab_.rank - 1, kDown, comm_, &req_[nreq_++]);
    if (hi) MPI_Isend(shi, count, mpi_type(), slab_.rank + 1, kUp, comm_, &req_[nreq_++]);
  }

  // Waits for the halos; staged ones are copied in on the halo instance.
  void finish_exchange() {
    if (nreq_ == 0) return;
    MPI_Waitall(nreq_, req_, MPI_STATUSES_IGNORE);
    nreq_ = 0;
    if (staged_) {
      const int np = slab_.planes();
      if (slab_.has_lower()) Kokkos::deep_copy(halo_, plane_view(0), recv_lo_);
      if (slab_.has_upper()) Kokkos::deep_copy(halo_, plane_view(np + 1), recv_hi_);
    }
  }

  MPI_Comm comm_;
  Slab slab_;
  State& s_;
  ExecSpace compute_, halo_;
  SlabOptions opt_;
  std::int64_t plane_ = 0;
  Parts parts_;
  bool staged_ = false;
  Staging send_lo_, send_hi_, recv_lo_, recv_hi_;
  MPI_Request req_[4];
  int nreq_ = 0;
};

}  // namespace tessera::himeno
