#pragma once
// Dispatch of the Himeno sweep (Kokkos Kernels' _spec shape): the primary
// template runs the portable Kokkos kernels; a native backend specialises it
// for its execution space and falls back to the portable kernels for what it
// does not handle.
#include "tessera/config.hpp"
#include "tessera/core/exec_space.hpp"
#include "tessera/himeno/impl/himeno_kokkos.hpp"
#include "tessera/himeno/impl/himeno_kokkos_fused.hpp"
#include "tessera/himeno/impl/himeno_kokkos_pointwise.hpp"
#include "tessera/himeno/impl/himeno_kokkos_rows.hpp"
#if TESSERA_HAS_CUDA_NATIVE
#include "tessera/himeno/himeno_native_cuda.hpp"
#endif

#include <stdexcept>
#include <string>
#include <type_traits>

namespace tessera::himeno::impl {

// State: HimenoState<Scalar, Mem>. Result: an Accum lvalue (the sweep blocks)
// or a rank-0 View of Accum (queued on exec when the View is device memory).
template <class ExecSpace, class State, class Enable = void>
struct SweepSpec {
  template <class Accum, class Result>
  static void apply(const ExecSpace& exec, const State& s, const SweepOptions& opt, Result& result) {
    if (is_native_kernel(opt.kernel))
      throw std::invalid_argument(std::string("tessera::himeno::sweep: native kernels need Kokkos::Cuda and a "
                                              "Cuda-accessible float/double state, not ") + ExecSpace::name());
    // automatic: rows on CPUs (2.4-5x mdrange), pointwise on GPUs (1.3-1.8x
    // teamscratch on the H100), docs/perf/himeno.md
    const bool automatic = opt.kernel == Kernel::automatic;
    if (opt.kernel == Kernel::rows || (automatic && !is_device_space_v<ExecSpace>))
      sweep_rows<Accum>(exec, s, opt, result);
    else if (opt.kernel == Kernel::mdrange)
      sweep_mdrange<Accum>(exec, s, opt, result);
    else if (opt.kernel == Kernel::pointwise || automatic)
      sweep_pointwise<Accum>(exec, s, opt, result);
    else
      sweep_teamscratch<Accum>(exec, s, opt, result);
  }
};

// Two fused sweeps (temporal blocking): the portable fused-rows kernel.
template <class ExecSpace, class State, class Enable = void>
struct Sweep2Spec {
  template <class Accum, class GosaView>
  static void apply(const ExecSpace& exec, const State& s, const SweepOptions& opt, const GosaView& gosa2) {
    sweep2_rows<Accum>(exec, s, opt, gosa2);
  }
};

#if TESSERA_HAS_CUDA_NATIVE
// The native kernels' view of a state: raw pointers, k contiguous, one stride
// pair shared by all 14 arrays (LayoutRight without padding, as HimenoState
// allocates). Returns false for states that do not fit (then: portable).
template <class State>
bool native_fields(const State& s, native_cuda::HimenoFields<typename State::scalar_type>& f) {
  if (!uniform_layout(s)) return false;
  const long long si = s.p.stride(0), sj = s.p.stride(1), plane = si * s.p.extent(0);
  f = {s.a.data(), s.a.data() + plane, s.a.data() + 2 * plane, s.a.data() + 3 * plane,
       s.b.data(), s.b.data() + plane, s.b.data() + 2 * plane,
       s.c.data(), s.c.data() + plane, s.c.data() + 2 * plane,
       s.wrk1.data(), s.bnd.data(), s.p.data(), s.wrk2.data(), si, sj, s.grid.imax, s.grid.jmax, s.grid.kmax};
  return true;
}

// The fields of planes [r.begin - 1, r.end] as a grid of their own, whose
// interior is exactly planes [r.begin, r.end): every array is its own pointer,
// so a slab is an offset and a shorter ni.
template <class T>
native_cuda::HimenoFields<T> slice_planes(native_cuda::HimenoFields<T> f, PlaneRange r) {
  const long long o = (r.begin - 1) * f.stride_i;
  for (const T** q : {&f.a0, &f.a1, &f.a2, &f.a3, &f.b0, &f.b1, &f.b2, &f.c0, &f.c1, &f.c2, &f.wrk1, &f.bnd, &f.p})
    *q += o;
  f.wrk2 += o;
  f.ni = r.end - r.begin + 2;
  return f;
}

template <class State>
inline constexpr bool native_cuda_state_v =
    Kokkos::SpaceAccessibility<Kokkos::Cuda, typename State::memory_space>::accessible &&
    (std::is_same_v<typename State::scalar_type, float> || std::is_same_v<typename State::scalar_type, double>);

// Native CUDA on Kokkos::Cuda: automatic and native_* run the native kernels
// (gosa summed in double, then converted to Accum); mdrange, teamscratch,
// rows and pointwise stay portable, so the driver's kokkos-*@Cuda variants
// measure Kokkos.
template <class State>
struct SweepSpec<Kokkos::Cuda, State, std::enable_if_t<native_cuda_state_v<State>>> {
  template <class Accum, class Result>
  static void apply(const Kokkos::Cuda& exec, const State& s, const SweepOptions& opt, Result& result) {
    native_cuda::HimenoFields<typename State::scalar_type> f;
    const bool portable = opt.kernel != Kernel::automatic && !is_native_kernel(opt.kernel);
    if (portable || !native_fields(s, f)) {
      SweepSpec<Kokkos::Cuda, State, int>::template apply<Accum>(exec, s, opt, result);
      return;
    }
    f = slice_planes(f, plane_range(s.grid.imax, opt));
    // automatic: 16 bytes of k points per thread, warps on 512-byte lines, the
    // fastest at L and XL on the H100 (docs/perf/himeno.md: 89-100% of copy);
    // rows that are not whole 16-byte vectors run the aligned kernel.
    const auto kind = opt.kernel == Kernel::native_march     ? native_cuda::HimenoKernel::march
                      : opt.kernel == Kernel::native_naive   ? native_cuda::HimenoKernel::naive
                      : opt.kernel == Kernel::native_aligned ? native_cuda::HimenoKernel::aligned
                                                             : native_cuda::HimenoKernel::vector;
    if constexpr (Kokkos::is_view<Result>::value) {
      constexpr bool device_double =
          std::is_same_v<typename Result::non_const_value_type, double> &&
          Kokkos::SpaceAccessibility<Kokkos::Cuda, typename Result::memory_space>::accessible;
      if constexpr (device_double) {
        native_cuda::himeno_sweep_async(exec.cuda_stream(), f, s.omega, kind, result.data());  // no host sync
      } else {
        const double g = native_cuda::himeno_sweep(exec.cuda_stream(), f, s.omega, kind);
        Kokkos::deep_copy(exec, result, typename Result::non_const_value_type(g));
      }
    } else {
      result = Accum(native_cuda::himeno_sweep(exec.cuda_stream(), f, s.omega, kind));
    }
  }
};

// gosa2(n) = Accum(from(n)), n = 0, 1: the native kernels' double gosa into
// a View of another type or memory space.
template <class GosaView>
struct CopyGosa2 {
  Kokkos::View<double[2], Kokkos::CudaSpace> from;
  GosaView to;
  KOKKOS_INLINE_FUNCTION void operator()(int n) const { to(n) = typename GosaView::non_const_value_type(from(n)); }
};

// Native two-sweep kernel on Kokkos::Cuda for the whole interior (automatic
// and native_*); a plane range (a slab's split) or a portable kernel's name
// runs the portable fused-rows kernel (correct, slow on GPUs).
template <class State>
struct Sweep2Spec<Kokkos::Cuda, State, std::enable_if_t<native_cuda_state_v<State>>> {
  template <class Accum, class GosaView>
  static void apply(const Kokkos::Cuda& exec, const State& s, const SweepOptions& opt, const GosaView& gosa2) {
    native_cuda::HimenoFields<typename State::scalar_type> f;
    const PlaneRange r = plane_range(s.grid.imax, opt);
    const bool portable = opt.kernel != Kernel::automatic && !is_native_kernel(opt.kernel);
    if (portable || r.begin != 1 || r.end != s.grid.imax - 1 || !native_fields(s, f)) {
      sweep2_rows<Accum>(exec, s, opt, gosa2);
      return;
    }
    require_gosa2(gosa2);
    constexpr bool device_double = std::is_same_v<typename GosaView::non_const_value_type, double> &&
                                   Kokkos::SpaceAccessibility<Kokkos::Cuda, typename GosaView::memory_space>::accessible;
    if constexpr (device_double) {
      native_cuda::himeno_sweeps_fused2_async(exec.cuda_stream(), f, s.omega, gosa2.data());  // no host sync
    } else {
      const Kokkos::View<double[2], Kokkos::CudaSpace> tmp(Kokkos::view_alloc("himeno::gosa2", exec));
      native_cuda::himeno_sweeps_fused2_async(exec.cuda_stream(), f, s.omega, tmp.data());
      Kokkos::parallel_for("tessera::himeno::sweep2[gosa]", Kokkos::RangePolicy<Kokkos::Cuda>(exec, 0, 2),
                           CopyGosa2<GosaView>{tmp, gosa2});
    }
  }
};
#endif

}  // namespace tessera::himeno::impl
