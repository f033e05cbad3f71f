#pragma once
// STREAM kernels (McCalpin): copy, triad and a read-reduce (sum). They are the
// measured bandwidth roofline of every Tessera benchmark, and the smallest
// example of the Tessera API shape that every workload follows:
//
//   tessera::stream::triad(exec, a, b, c, scalar);   // a = b + scalar * c
//
// exec is any Kokkos execution-space instance, the Views are the caller's own
// rank-1 Views in memory exec can access. On Kokkos::Cuda with contiguous
// double/float Views the native CUDA kernels run (backends/cuda/stream),
// elsewhere the portable Kokkos kernels (impl/stream_kokkos.hpp). Work is
// queued on exec; copy and triad return without fencing.
#include "tessera/stream/stream_spec.hpp"

#include <stdexcept>
#include <string>

namespace tessera::stream {

namespace detail {
template <class V>
void require_rank1(const char* fn, const char* name) {
  static_assert(Kokkos::is_view<V>::value, "tessera::stream: arguments must be Kokkos Views");
  static_assert(V::rank == 1, "tessera::stream: Views must be rank 1");
  (void)fn;
  (void)name;
}
inline void require_same_extent(const char* fn, size_t n, size_t m) {
  if (n != m)
    throw std::invalid_argument(std::string("tessera::stream::") + fn + ": extents differ (" +
                                std::to_string(n) + " vs " + std::to_string(m) + ")");
}
template <class ExecSpace, class V>
void require_accessible() {
  static_assert(can_access_v<ExecSpace, V>,
                "tessera::stream: the execution space cannot access this View's memory space");
}
}  // namespace detail

// c = a
template <class ExecSpace, class ViewA, class ViewC>
void copy(const ExecSpace& exec, const ViewA& a, const ViewC& c) {
  detail::require_rank1<ViewA>("copy", "a");
  detail::require_rank1<ViewC>("copy", "c");
  detail::require_accessible<ExecSpace, ViewA>();
  detail::require_accessible<ExecSpace, ViewC>();
  detail::require_same_extent("copy", a.extent(0), c.extent(0));
  impl::CopySpec<ExecSpace, ViewA, ViewC>::apply(exec, a, c);
}

// a = b + scalar * c
template <class ExecSpace, class ViewA, class ViewB, class ViewC>
void triad(const ExecSpace& exec, const ViewA& a, const ViewB& b, const ViewC& c,
           typename ViewA::non_const_value_type scalar) {
  detail::require_rank1<ViewA>("triad", "a");
  detail::require_rank1<ViewB>("triad", "b");
  detail::require_rank1<ViewC>("triad", "c");
  detail::require_accessible<ExecSpace, ViewA>();
  detail::require_accessible<ExecSpace, ViewB>();
  detail::require_accessible<ExecSpace, ViewC>();
  detail::require_same_extent("triad", a.extent(0), b.extent(0));
  detail::require_same_extent("triad", a.extent(0), c.extent(0));
  impl::TriadSpec<ExecSpace, ViewA, ViewB, ViewC>::apply(exec, a, b, c, scalar);
}

// Sum of a's elements, accumulated in double. Blocks until the result is known.
template <class ExecSpace, class ViewA>
double sum(const ExecSpace& exec, const ViewA& a) {
  detail::require_rank1<ViewA>("sum", "a");
  detail::require_accessible<ExecSpace, ViewA>();
  return impl::SumSpec<ExecSpace, ViewA>::apply(exec, a);
}

}  // namespace tessera::stream
