#pragma once
// Execution-space facts the driver and the dispatch need.
#include <Kokkos_Core.hpp>

#include <string>
#include <type_traits>

namespace tessera {

template <class ExecSpace>
inline std::string exec_space_name() {
  return ExecSpace::name();
}

// True for spaces whose kernels run on a GPU.
template <class ExecSpace>
inline constexpr bool is_device_space_v =
#if defined(KOKKOS_ENABLE_CUDA)
    std::is_same_v<ExecSpace, Kokkos::Cuda> ||
#endif
    false;

// Can a kernel of ExecSpace read memory of View's memory space?
template <class ExecSpace, class View>
inline constexpr bool can_access_v =
    Kokkos::SpaceAccessibility<ExecSpace, typename View::memory_space>::accessible;

// Number of usable CUDA devices; 0 without Cuda or without a GPU. Safe to call
// before Kokkos::initialize (a Cuda-enabled Kokkos aborts there without a GPU).
int cuda_device_count();

}  // namespace tessera
