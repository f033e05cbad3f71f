#pragma once
// Portable STREAM kernels: one source for every Kokkos backend.
//
// Each work item moves several independent elements: one double per GPU
// thread keeps too few bytes in flight (1.70 TB/s on the H100 against 3.0 for
// cudaMemcpy; 4 independent doubles reach 2.88, 16-byte elements 2.99). So
// when the Views are contiguous and 16-byte aligned, an item moves two 16-byte
// packs (i and i + half, both coalesced across a warp); otherwise four
// scalars through the Views' own indexing (any layout, e.g. LayoutStride).
#include "tessera/core/pack.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

namespace tessera::stream::impl {

using Index = std::int64_t;

template <class ExecSpace>
using Range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<Index>>;

// True when v's elements can be read as 16-byte packs of T.
template <class T, class View>
bool packable(const View& v) {
  using V = typename View::non_const_value_type;
  if constexpr (!std::is_same_v<V, T> || 16 % sizeof(T) != 0) {
    return false;
  } else {
    return v.span_is_contiguous() && (v.extent(0) < 2 || v.stride(0) == 1) &&
           is_pack_aligned<T>(v.data());
  }
}

// Work split of n elements into packs of P: item i moves packs i and i + half
// (when below np), and the scalar tail element np * P + i (when i < tail).
struct PackSplit {
  Index np, half, tail, items;
  template <int P>
  static PackSplit of(Index n) {
    PackSplit s;
    s.np = n / P;
    s.half = (s.np + 1) / 2;
    s.tail = n - s.np * P;
    s.items = s.half > s.tail ? s.half : s.tail;
    return s;
  }
};

// Four-way split for the scalar path: item i moves i, i+q, i+2q, i+3q and the
// tail element 4q + i.
struct QuadSplit {
  Index q, tail, items;
  static QuadSplit of(Index n) {
    QuadSplit s;
    s.q = n / 4;
    s.tail = n - 4 * s.q;
    s.items = s.q > s.tail ? s.q : s.tail;
    return s;
  }
};

// Kernels are named functors, not KOKKOS_LAMBDA: nvcc's extended-lambda
// wrapper keeps a per-translation-unit pointer, and a header kernel
// instantiated for a host backend in two translation units of one program can
// call through the copy that was never set (seen on the H100 with the Himeno
// kernels; docs/himeno.md).
template <class T>
struct CopyPack {
  using P = Pack<T>;
  const P* a;
  P* c;
  const T* ta;
  T* tc;
  PackSplit s;
  KOKKOS_INLINE_FUNCTION void operator()(Index i) const {
    if (i < s.half) {
      const Index j = i + s.half;
      const P x0 = a[i];
      if (j < s.np) {
        const P x1 = a[j];
        c[j] = x1;
      }
      c[i] = x0;
    }
    if (i < s.tail) tc[s.np * P::size + i] = ta[s.np * P::size + i];
  }
};

template <class ViewA, class ViewC>
struct CopyQuad {
  ViewA a;
  ViewC c;
  QuadSplit s;
  KOKKOS_INLINE_FUNCTION void operator()(Index i) const {
    if (i < s.q) {
      const auto x0 = a(i), x1 = a(i + s.q), x2 = a(i + 2 * s.q), x3 = a(i + 3 * s.q);
      c(i) = x0;
      c(i + s.q) = x1;
      c(i + 2 * s.q) = x2;
      c(i + 3 * s.q) = x3;
    }
    if (i < s.tail) c(4 * s.q + i) = a(4 * s.q + i);
  }
};

template <class T>
struct TriadPack {
  using P = Pack<T>;
  P* a;
  const P* b;
  const P* c;
  T* ta;
  const T* tb;
  const T* tc;
  T scalar;
  PackSplit s;
  KOKKOS_INLINE_FUNCTION void operator()(Index i) const {
    if (i < s.half) {
      const Index j = i + s.half;
      const P b0 = b[i], c0 = c[i];
      if (j < s.np) {
        const P b1 = b[j], c1 = c[j];
        P a1;
        for (int k = 0; k < P::size; ++k) a1.v[k] = b1.v[k] + scalar * c1.v[k];
        a[j] = a1;
      }
      P a0;
      for (int k = 0; k < P::size; ++k) a0.v[k] = b0.v[k] + scalar * c0.v[k];
      a[i] = a0;
    }
    if (i < s.tail) {
      const Index e = s.np * P::size + i;
      ta[e] = tb[e] + scalar * tc[e];
    }
  }
};

template <class ViewA, class ViewB, class ViewC>
struct TriadQuad {
  ViewA a;
  ViewB b;
  ViewC c;
  typename ViewA::non_const_value_type scalar;
  QuadSplit s;
  KOKKOS_INLINE_FUNCTION void operator()(Index i) const {
    if (i < s.q)
      for (int k = 0; k < 4; ++k) a(i + k * s.q) = b(i + k * s.q) + scalar * c(i + k * s.q);
    if (i < s.tail) a(4 * s.q + i) = b(4 * s.q + i) + scalar * c(4 * s.q + i);
  }
};

template <class T>
struct SumPack {
  using P = Pack<T>;
  using value_type = double;
  const P* a;
  const T* ta;
  PackSplit s;
  KOKKOS_INLINE_FUNCTION void operator()(Index i, double& acc) const {
    double part = 0;
    if (i < s.half) {
      const Index j = i + s.half;
      const P x0 = a[i];
      if (j < s.np) {
        const P x1 = a[j];
        for (int k = 0; k < P::size; ++k) part += static_cast<double>(x1.v[k]);
      }
      for (int k = 0; k < P::size; ++k) part += static_cast<double>(x0.v[k]);
    }
    if (i < s.tail) part += static_cast<double>(ta[s.np * P::size + i]);
    acc += part;
  }
};

template <class ViewA>
struct SumQuad {
  using value_type = double;
  ViewA a;
  QuadSplit s;
  KOKKOS_INLINE_FUNCTION void operator()(Index i, double& acc) const {
    double part = 0;
    if (i < s.q)
      for (int k = 0; k < 4; ++k) part += static_cast<double>(a(i + k * s.q));
    if (i < s.tail) part += static_cast<double>(a(4 * s.q + i));
    acc += part;
  }
};

template <class ExecSpace, class ViewA, class ViewC>
void copy_kokkos(const ExecSpace& exec, const ViewA& a, const ViewC& c) {
  using T = typename ViewC::non_const_value_type;
  const Index n = static_cast<Index>(a.extent(0));
  if (n == 0) return;
  if (packable<T>(a) && packable<T>(c)) {
    using P = Pack<T>;
    const auto s = PackSplit::of<P::size>(n);
    Kokkos::parallel_for("tessera::stream::copy[pack]", Range<ExecSpace>(exec, 0, s.items),
                         CopyPack<T>{reinterpret_cast<const P*>(a.data()), reinterpret_cast<P*>(c.data()), a.data(),
                                     c.data(), s});
  } else {
    const auto s = QuadSplit::of(n);
    Kokkos::parallel_for("tessera::stream::copy[scalar]", Range<ExecSpace>(exec, 0, s.items),
                         CopyQuad<ViewA, ViewC>{a, c, s});
  }
}

template <class ExecSpace, class ViewA, class ViewB, class ViewC>
void triad_kokkos(const ExecSpace& exec, const ViewA& a, const ViewB& b, const ViewC& c,
                  typename ViewA::non_const_value_type scalar) {
  using T = typename ViewA::non_const_value_type;
  const Index n = static_cast<Index>(a.extent(0));
  if (n == 0) return;
  if (packable<T>(a) && packable<T>(b) && packable<T>(c)) {
    using P = Pack<T>;
    const auto s = PackSplit::of<P::size>(n);
    Kokkos::parallel_for("tessera::stream::triad[pack]", Range<ExecSpace>(exec, 0, s.items),
                         TriadPack<T>{reinterpret_cast<P*>(a.data()), reinterpret_cast<const P*>(b.data()),
                                      reinterpret_cast<const P*>(c.data()), a.data(), b.data(), c.data(), scalar, s});
  } else {
    const auto s = QuadSplit::of(n);
    Kokkos::parallel_for("tessera::stream::triad[scalar]", Range<ExecSpace>(exec, 0, s.items),
                         TriadQuad<ViewA, ViewB, ViewC>{a, b, c, scalar, s});
  }
}

template <class ExecSpace, class ViewA>
double sum_kokkos(const ExecSpace& exec, const ViewA& a) {
  using T = typename ViewA::non_const_value_type;
  const Index n = static_cast<Index>(a.extent(0));
  double result = 0;
  if (n == 0) return result;
  if (packable<T>(a)) {
    using P = Pack<T>;
    const auto s = PackSplit::of<P::size>(n);
    Kokkos::parallel_reduce("tessera::stream::sum[pack]", Range<ExecSpace>(exec, 0, s.items),
                            SumPack<T>{reinterpret_cast<const P*>(a.data()), a.data(), s}, result);
  } else {
    const auto s = QuadSplit::of(n);
    Kokkos::parallel_reduce("tessera::stream::sum[scalar]", Range<ExecSpace>(exec, 0, s.items),
                            SumQuad<ViewA>{a, s}, result);
  }
  return result;
}

}  // namespace tessera::stream::impl
