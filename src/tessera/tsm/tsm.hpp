#pragma once
// Tall & skinny matrix products (Ernst, Hager, Thies, Wellein), KokkosBlas
// style: the caller's Views, work queued on the caller's execution-space
// instance, no fence.
//
//   tessera::tsm::tsmttsm(exec, "T", alpha, A, B, beta, C);   // C = alpha A^T B + beta C
//   tessera::tsm::tsmttsm(exec, "C", alpha, A, B, beta, C);   // C = alpha A^H B + beta C
//   tessera::tsm::tsmm(exec, alpha, A, C, beta, B);           // B = alpha A C + beta B
//
// A is K x M, B is K x N, C is M x N, with M, N in 1..64 and any K >= 0.
// Scalars: double or Kokkos::complex<double>, the same for all three Views.
// The tall operands (A, B) may be LayoutRight (row-major, the paper's
// layout), LayoutLeft, or LayoutStride with unit column stride (a column
// block of a wider block vector); C may have any of these layouts.
// BLAS semantics: beta = 0 never reads the output (NaN there does not
// propagate); alpha = 0 reads neither tall operand.
// Errors (std::invalid_argument, one line): mismatched extents, M or N
// outside 1..64, a LayoutStride tall operand whose columns are not adjacent,
// an output that shares memory with an input, trans other than T or C.
//
// On Kokkos::Cuda with row-major tall operands (LayoutRight or unit column
// stride) the native CUDA kernels run when Tessera was built with them;
// anything else runs the portable Kokkos kernels (impl/tsm_kokkos.hpp).
#include "tessera/tsm/tsm_spec.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace tessera::tsm {

inline constexpr int max_skinny = 64;

namespace detail {

template <class V>
inline constexpr bool supported_scalar_v = std::is_same_v<typename V::non_const_value_type, double> ||
                                           std::is_same_v<typename V::non_const_value_type, Kokkos::complex<double>>;

template <class V>
inline constexpr bool supported_layout_v = std::is_same_v<typename V::array_layout, Kokkos::LayoutRight> ||
                                           std::is_same_v<typename V::array_layout, Kokkos::LayoutLeft> ||
                                           std::is_same_v<typename V::array_layout, Kokkos::LayoutStride>;

template <class ExecSpace, class Out, class... In>
void static_checks() {
  static_assert(Kokkos::is_view<Out>::value && (Kokkos::is_view<In>::value && ...),
                "tessera::tsm: arguments must be Kokkos Views");
  static_assert(Out::rank == 2 && ((In::rank == 2) && ...), "tessera::tsm: Views must be rank 2");
  static_assert(supported_scalar_v<Out>, "tessera::tsm: scalars must be double or Kokkos::complex<double>");
  static_assert((std::is_same_v<typename In::non_const_value_type, typename Out::non_const_value_type> && ...),
                "tessera::tsm: all Views must have the same scalar type");
  static_assert(!std::is_const_v<typename Out::value_type>, "tessera::tsm: the output View must not be const");
  static_assert(supported_layout_v<Out> && (supported_layout_v<In> && ...),
                "tessera::tsm: layouts must be LayoutRight, LayoutLeft or LayoutStride");
  static_assert(can_access_v<ExecSpace, Out> && (can_access_v<ExecSpace, In> && ...),
                "tessera::tsm: the execution space cannot access these Views' memory");
}

[[noreturn]] inline void fail(const char* fn, const std::string& what) {
  throw std::invalid_argument(std::string("tessera::tsm::") + fn + ": " + what);
}

inline std::string dims(std::size_t r, std::size_t c) { return std::to_string(r) + "x" + std::to_string(c); }

inline void check_skinny(const char* fn, const char* name, std::size_t n) {
  if (n < 1 || n > std::size_t(max_skinny))
    fail(fn, std::string(name) + " = " + std::to_string(n) + " is outside 1.." + std::to_string(max_skinny));
}

// A tall operand's columns must be adjacent (row-major rows with any row
// stride), except for LayoutLeft, which the portable kernels read as is.
template <class V>
void check_tall_layout(const char* fn, const char* name, const V& v) {
  if constexpr (std::is_same_v<typename V::array_layout, Kokkos::LayoutStride>) {
    if (v.extent(1) > 1 && v.stride(1) != 1)
      fail(fn, std::string(name) + " is LayoutStride with column stride " + std::to_string(v.stride(1)) +
                   " (tall operands need unit column stride)");
  }
}

template <class A, class B>
bool overlap(const A& a, const B& b) {
  if (a.span() == 0 || b.span() == 0) return false;
  const auto a0 = reinterpret_cast<std::uintptr_t>(a.data());
  const auto b0 = reinterpret_cast<std::uintptr_t>(b.data());
  const auto a1 = a0 + a.span() * sizeof(typename A::value_type);
  const auto b1 = b0 + b.span() * sizeof(typename B::value_type);
  return a0 < b1 && b0 < a1;
}

inline bool parse_trans(const char* fn, const std::string& trans) {
  if (trans == "T" || trans == "t") return false;
  if (trans == "C" || trans == "c") return true;
  fail(fn, "trans must be \"T\" or \"C\", got \"" + trans + "\"");
}

// Both kernels take A (K x M), B (K x N) and C (M x N): extents, sizes and
// layouts of the tall operands, checked alike.
template <class ViewA, class ViewB, class ViewC>
void check_shapes(const char* fn, const ViewA& A, const ViewB& B, const ViewC& C) {
  if (A.extent(0) != B.extent(0))
    fail(fn, "A is " + dims(A.extent(0), A.extent(1)) + " and B is " +
                         dims(B.extent(0), B.extent(1)) + ": row counts (K) differ");
  if (C.extent(0) != A.extent(1) || C.extent(1) != B.extent(1))
    fail(fn, "C is " + dims(C.extent(0), C.extent(1)) + ", expected " +
                         dims(A.extent(1), B.extent(1)) + " (A is Kx" + std::to_string(A.extent(1)) +
                         ", B is Kx" + std::to_string(B.extent(1)) + ")");
  check_skinny(fn, "M", A.extent(1));
  check_skinny(fn, "N", B.extent(1));
  check_tall_layout(fn, "A", A);
  check_tall_layout(fn, "B", B);
}

}  // namespace detail

// C = alpha op(A)^T B + beta C with op(A) = A ("T") or conj(A) ("C").
template <class ExecSpace, class ViewA, class ViewB, class ViewC>
void tsmttsm(const ExecSpace& exec, const std::string& trans, typename ViewC::non_const_value_type alpha,
             const ViewA& A, const ViewB& B, typename ViewC::non_const_value_type beta, const ViewC& C) {
  constexpr const char* fn = "tsmttsm";
  detail::static_checks<ExecSpace, ViewC, ViewA, ViewB>();
  const bool conj = detail::parse_trans(fn, trans);
  detail::check_shapes(fn, A, B, C);
  if (detail::overlap(C, A) || detail::overlap(C, B)) detail::fail(fn, "the output C shares memory with an input");
  impl::TsmttsmSpec<ExecSpace, ViewA, ViewB, ViewC>::apply(exec, conj, alpha, A, B, beta, C);
}

// B = alpha A C + beta B.
template <class ExecSpace, class ViewA, class ViewC, class ViewB>
void tsmm(const ExecSpace& exec, typename ViewB::non_const_value_type alpha, const ViewA& A, const ViewC& C,
          typename ViewB::non_const_value_type beta, const ViewB& B) {
  constexpr const char* fn = "tsmm";
  detail::static_checks<ExecSpace, ViewB, ViewA, ViewC>();
  detail::check_shapes(fn, A, B, C);
  if (detail::overlap(B, A) || detail::overlap(B, C)) detail::fail(fn, "the output B shares memory with an input");
  impl::TsmmSpec<ExecSpace, ViewA, ViewC, ViewB>::apply(exec, alpha, A, C, beta, B);
}

}  // namespace tessera::tsm
