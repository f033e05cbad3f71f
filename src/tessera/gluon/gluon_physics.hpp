#pragma once
// Physics core of the multi-gluon Monte Carlo (Giele, Stavenga, Winter, TESS):
// four-vectors, the leading-colour Berends-Giele recursion in a fixed-size
// per-event scratch, polarisation vectors, massless RAMBO and the counter-based
// random numbers of an event. Header-only; every function runs on the host and
// on the device (KOKKOS_INLINE_FUNCTION). Conventions: metric (+,-,-,-), all
// momenta outgoing (k1, k2 have negative energy), legs numbered from 0 in code
// (leg 0 = the paper's gluon 1). See docs/gluon.md.
#include <Kokkos_Core.hpp>
#include <Kokkos_Complex.hpp>

#include <cmath>
#include <cstdint>

// Philox's round functions must be callable from host+device Kokkos code.
#if defined(__CUDACC__) && !defined(R123_CUDA_DEVICE)
#define R123_CUDA_DEVICE __host__ __device__
#endif
#include <Random123/philox.h>

namespace tessera::gluon {

// The largest n the library is built for (per-event scratch is sized by it).
inline constexpr int max_gluons = 14;

namespace math {
// The device math functions: Kokkos::Experimental::* before Kokkos 3.7, Kokkos::* since (4.3 removed the former).
#if KOKKOS_VERSION >= 30700
namespace kmath = ::Kokkos;
#else
namespace kmath = ::Kokkos::Experimental;
#endif
template <class T>
KOKKOS_INLINE_FUNCTION T sqrt(T x) { return kmath::sqrt(x); }
template <class T>
KOKKOS_INLINE_FUNCTION T log(T x) { return kmath::log(x); }
template <class T>
KOKKOS_INLINE_FUNCTION T exp(T x) { return kmath::exp(x); }
template <class T>
KOKKOS_INLINE_FUNCTION T cos(T x) { return kmath::cos(x); }
template <class T>
KOKKOS_INLINE_FUNCTION T sin(T x) { return kmath::sin(x); }
template <class T>
KOKKOS_INLINE_FUNCTION T fabs(T x) { return x < T(0) ? -x : x; }
template <class T>
KOKKOS_INLINE_FUNCTION T atan2(T y, T x) { return kmath::atan2(y, x); }
template <class T>
KOKKOS_INLINE_FUNCTION T pi() { return T(3.14159265358979323846); }
// 1 / sqrt(x): on CUDA devices the reciprocal square root (within an ulp or
// two; in double a few FMAs instead of a square root and a division).
template <class T>
KOKKOS_INLINE_FUNCTION T rsqrt(T x) {
#ifdef __CUDA_ARCH__
  if constexpr (sizeof(T) == sizeof(float)) return ::rsqrtf(x);
  else return T(::rsqrt(double(x)));  // long double (host tests' references) as double
#else
  return T(1) / std::sqrt(x);
#endif
}
// sin and cos of the angle 2 pi u, u in [0, 1]: on CUDA devices sincospi
// (exact argument reduction, no division by pi, one call for both).
template <class T>
KOKKOS_INLINE_FUNCTION void sincos_2pi(T u, T& s, T& c) {
#ifdef __CUDA_ARCH__
  if constexpr (sizeof(T) == sizeof(float)) ::sincospif(2.0f * u, &s, &c);
  else ::sincospi(2.0 * u, &s, &c);
#else
  s = std::sin(T(2) * pi<T>() * u);
  c = std::cos(T(2) * pi<T>() * u);
#endif
}
}  // namespace math

// ---------------------------------------------------------------------------
// Four-vectors. C may be real or Kokkos::complex (helicity tests).
template <class C>
struct Vec4 {
  C v[4];
  KOKKOS_INLINE_FUNCTION C& operator[](int i) { return v[i]; }
  KOKKOS_INLINE_FUNCTION const C& operator[](int i) const { return v[i]; }
};

template <class A, class B>
KOKKOS_INLINE_FUNCTION auto dot(const Vec4<A>& a, const Vec4<B>& b) -> decltype(a.v[0] * b.v[0]) {
  return a.v[0] * b.v[0] - a.v[1] * b.v[1] - a.v[2] * b.v[2] - a.v[3] * b.v[3];
}
template <class C>
KOKKOS_INLINE_FUNCTION Vec4<C> sub(const Vec4<C>& a, const Vec4<C>& b) {
  return {{a.v[0] - b.v[0], a.v[1] - b.v[1], a.v[2] - b.v[2], a.v[3] - b.v[3]}};
}
template <class C>
KOKKOS_INLINE_FUNCTION Vec4<C> add(const Vec4<C>& a, const Vec4<C>& b) {
  return {{a.v[0] + b.v[0], a.v[1] + b.v[1], a.v[2] + b.v[2], a.v[3] + b.v[3]}};
}
template <class C>
KOKKOS_INLINE_FUNCTION Vec4<C> zero4() {
  return {{C(0), C(0), C(0), C(0)}};
}

// ---------------------------------------------------------------------------
// Counter-based random numbers: Philox4x32-10 keyed by the seed, counter =
// (event index, block, stream tag), so an event's numbers depend only on
// (seed, event) and every backend draws the same event.
class EventRng {
 public:
  KOKKOS_INLINE_FUNCTION EventRng(std::uint64_t seed, std::uint64_t event)
      : seed_(seed), event_(event), block_(0), used_(4) {}

  KOKKOS_INLINE_FUNCTION std::uint32_t next_u32() {
    if (used_ == 4) refill();
    return buf_[used_++];
  }
  // Uniform in the open interval (0,1): float from 24 bits, double from 53.
  template <class T>
  KOKKOS_INLINE_FUNCTION T uniform();

 private:
  KOKKOS_INLINE_FUNCTION void refill() {
    r123::Philox4x32 gen;
    r123::Philox4x32::ctr_type c = {{std::uint32_t(event_), std::uint32_t(event_ >> 32), block_, 0x676c756fu}};
    r123::Philox4x32::key_type k = {{std::uint32_t(seed_), std::uint32_t(seed_ >> 32)}};
    const r123::Philox4x32::ctr_type r = gen(c, k);
    for (int i = 0; i < 4; ++i) buf_[i] = r.v[i];
    ++block_;
    used_ = 0;
  }
  std::uint64_t seed_, event_;
  std::uint32_t block_;
  int used_;
  std::uint32_t buf_[4] = {0, 0, 0, 0};
};
// Both precisions consume two words a number, so a float run draws the same
// events as a double run (to the uniforms' 24-bit rounding).
template <>
KOKKOS_INLINE_FUNCTION float EventRng::uniform<float>() {
  const std::uint32_t hi = next_u32();
  (void)next_u32();
  return (float(hi >> 8) + 0.5f) * 5.9604644775390625e-08f;  // 2^-24
}
template <>
KOKKOS_INLINE_FUNCTION double EventRng::uniform<double>() {
  const std::uint64_t hi = next_u32(), lo = next_u32();
  return (double(((hi << 32) | lo) >> 11) + 0.5) * 1.1102230246251565e-16;  // 2^-53
}

// ---------------------------------------------------------------------------
// Polarisation basis of a massless momentum k: real unit vectors e1, e2,
// spatial, orthogonal to k and to each other, e1 x e2 along k (theta-hat, phi-hat).
template <class T>
KOKKOS_INLINE_FUNCTION void pol_basis(const Vec4<T>& k, Vec4<T>& e1, Vec4<T>& e2) {
  const T kx = k[1], ky = k[2], kz = k[3];
  const T inv_k = math::rsqrt(kx * kx + ky * ky + kz * kz);
  const T nx = kx * inv_k, ny = ky * inv_k, nz = kz * inv_k;
  const T pt2 = nx * nx + ny * ny;
  if (pt2 > T(1e-12)) {
    const T inv_pt = math::rsqrt(pt2), pt = pt2 * inv_pt;
    e1 = {{T(0), nz * nx * inv_pt, nz * ny * inv_pt, -pt}};
    e2 = {{T(0), -ny * inv_pt, nx * inv_pt, T(0)}};
  } else {  // along the beam: theta-hat, phi-hat at phi = 0
    e1 = {{T(0), nz > T(0) ? T(1) : T(-1), T(0), T(0)}};
    e2 = {{T(0), T(0), T(1), T(0)}};
  }
}

// Real linear polarisation c e1 + s e2 of k, c = cos(phi), s = sin(phi).
template <class T>
KOKKOS_INLINE_FUNCTION Vec4<T> linear_polarisation_cs(const Vec4<T>& k, T c, T s) {
  Vec4<T> e1, e2;
  pol_basis(k, e1, e2);
  return {{T(0), c * e1[1] + s * e2[1], c * e1[2] + s * e2[2], c * e1[3] + s * e2[3]}};
}
// The same at the angle phi.
template <class T>
KOKKOS_INLINE_FUNCTION Vec4<T> linear_polarisation(const Vec4<T>& k, T phi) {
  return linear_polarisation_cs(k, math::cos(phi), math::sin(phi));
}
// The same at phi = 2 pi u (what an event draws: u uniform).
template <class T>
KOKKOS_INLINE_FUNCTION Vec4<T> linear_polarisation_turns(const Vec4<T>& k, T u) {
  T s, c;
  math::sincos_2pi(u, s, c);
  return linear_polarisation_cs(k, c, s);
}

// Helicity vector (e1 + i h e2)/sqrt(2), h = +-1, with respect to the direction
// of k's spatial part (for a negative-energy leg the physical helicity is -h).
template <class T>
KOKKOS_INLINE_FUNCTION Vec4<Kokkos::complex<T>> helicity_polarisation(const Vec4<T>& k, int h) {
  Vec4<T> e1, e2;
  pol_basis(k, e1, e2);
  const T r = T(1) / math::sqrt(T(2));
  Vec4<Kokkos::complex<T>> e;
  for (int i = 0; i < 4; ++i) e[i] = Kokkos::complex<T>(r * e1[i], T(h) * r * e2[i]);
  return e;
}

// ---------------------------------------------------------------------------
// Berends-Giele recursion (paper eqs. 1, 2, with the 4-vertex
// {a,b,c} = 2(a.c)b - (a.b)c - (c.b)a). The currents J[a..b] of the legs
// ord[1..n-1] live in a triangular scratch: level L (L legs) holds n-L
// currents. Returns m = J[ord[0]] . (K^2 J[ord[1..n-1]]).
template <class C, class T, int NMAX = max_gluons>
struct BergsScratch {
  Vec4<C> J[(NMAX - 1) * NMAX / 2];
  Vec4<T> P[NMAX];  // prefix sums of the momenta along the ordering
};

// Index of the current of level len (1-based) starting at leg a, nl legs in all.
KOKKOS_INLINE_FUNCTION int bg_index(int nl, int len, int a) {
  return (len - 1) * (nl + 1) - ((len - 1) * len) / 2 + a;
}

// Offset from a of the i-loop's r-th index on lane `lane` of `lanes`: lanes
// take the indices in a zigzag (0..L-1, then L-1..0, ...), so the 4-vertex
// loop, whose inner length falls with i, splits evenly. One lane: r.
KOKKOS_INLINE_FUNCTION int bg_lane_offset(int r, int lane, int lanes) {
  return r * lanes + ((r & 1) ? lanes - 1 - lane : lane);
}

// The vertex sum (eq. 1 without its propagator) of current [a..b], or the
// part of it that lane `lane` of `lanes` owns (the terms of its indices i).
template <class C, class T>
KOKKOS_INLINE_FUNCTION Vec4<C> bg_vertices(const Vec4<C>* J, const Vec4<T>* P, int nl, int a, int b, int lane = 0,
                                           int lanes = 1) {
  Vec4<C> V = zero4<C>();
  for (int r = 0;; ++r) {
    const int i = a + bg_lane_offset(r, lane, lanes);
    if (i >= b) break;
    const Vec4<C>& A = J[bg_index(nl, i - a + 1, a)];
    const Vec4<C>& B = J[bg_index(nl, b - i, i + 1)];
    const Vec4<T> KA = sub(P[i + 1], P[a]);
    const Vec4<T> KB = sub(P[b + 1], P[i + 1]);
    const C ab = dot(A, B);
    const C aKb = C(2) * dot(A, KB);
    const C kaB = C(2) * dot(KA, B);
    for (int mu = 0; mu < 4; ++mu) V[mu] += aKb * B[mu] - kaB * A[mu] + ab * (KA[mu] - KB[mu]);
  }
  for (int r = 0;; ++r) {
    const int i = a + bg_lane_offset(r, lane, lanes);
    if (i >= b - 1) break;
    const Vec4<C>& A = J[bg_index(nl, i - a + 1, a)];
    for (int j = i + 1; j < b; ++j) {
      const Vec4<C>& B = J[bg_index(nl, j - i, i + 1)];
      const Vec4<C>& Cc = J[bg_index(nl, b - j, j + 1)];
      const C ac = C(2) * dot(A, Cc);
      const C ab = dot(A, B);
      const C cb = dot(Cc, B);
      for (int mu = 0; mu < 4; ++mu) V[mu] += ac * B[mu] - ab * Cc[mu] - cb * A[mu];
    }
  }
  return V;
}
template <class C, class T, int NMAX>
KOKKOS_INLINE_FUNCTION Vec4<C> bg_vertices(const BergsScratch<C, T, NMAX>& s, int nl, int a, int b) {
  return bg_vertices(s.J, s.P, nl, a, b);
}

// Current [a..b] from its vertex sum: times the propagator 1/K^2.
template <class C, class T>
KOKKOS_INLINE_FUNCTION Vec4<C> bg_propagate(Vec4<C> V, const Vec4<T>* P, int a, int b) {
  const Vec4<T> K = sub(P[b + 1], P[a]);
  const T inv = T(1) / dot(K, K);
  for (int mu = 0; mu < 4; ++mu) V[mu] *= inv;
  return V;
}

// The recursion's start for the legs ord[1..nl]: prefix sums P of their
// momenta and their one-leg currents (the polarisations).
template <class C, class T>
KOKKOS_INLINE_FUNCTION void bg_leaves(int nl, const int* ord, const Vec4<T>* k, const Vec4<C>* eps, Vec4<C>* J,
                                      Vec4<T>* P) {
  P[0] = zero4<T>();
  for (int i = 0; i < nl; ++i) {
    P[i + 1] = add(P[i], k[ord[i + 1]]);
    J[bg_index(nl, 1, i)] = eps[ord[i + 1]];
  }
}

// Ordered amplitude m(ord[0], ..., ord[n-1]); k and eps indexed by leg.
template <class C, class T, int NMAX = max_gluons>
KOKKOS_INLINE_FUNCTION C bg_amplitude(int n, const int* ord, const Vec4<T>* k, const Vec4<C>* eps,
                                      BergsScratch<C, T, NMAX>& s) {
  const int nl = n - 1;
  // eps may lie in the upper levels of s.J (generate_event): leg ord[0]'s
  // polarisation is read before the recursion overwrites them.
  const Vec4<C> e0 = eps[ord[0]];
  bg_leaves(nl, ord, k, eps, s.J, s.P);
  for (int len = 2; len < nl; ++len) {
    for (int a = 0; a + len <= nl; ++a) {
      const int b = a + len - 1;
      s.J[bg_index(nl, len, a)] = bg_propagate(bg_vertices(s, nl, a, b), s.P, a, b);
    }
  }
  const Vec4<C> V = bg_vertices(s, nl, 0, nl - 1);
  return dot(e0, V);
}

// Vertex counts of one recursion (for flop counts): 3-vertices and 4-vertices.
inline void bg_vertex_counts(int n, long& v3, long& v4) {
  const int nl = n - 1;
  v3 = v4 = 0;
  for (int len = 2; len <= nl; ++len) {
    const long cur = nl - len + 1;
    v3 += cur * (len - 1);
    v4 += cur * (long(len - 1) * (len - 2) / 2);
  }
}
// Floating-point operations of one recursion: a 3-vertex is 3 dots (7 each),
// 2 scalings, 4 x (K difference + 3 multiply-adds) = 55; a 4-vertex 3 dots, one
// scaling, 4 x 5 = 42; a propagator 7 + 1 + 4 = 12; the prefix sums 4 a leg.
inline double bg_flops(int n) {
  long v3, v4;
  bg_vertex_counts(n, v3, v4);
  const int nl = n - 1;
  const long props = long(nl - 2) * (nl - 1) / 2;
  return 55.0 * v3 + 42.0 * v4 + 12.0 * props + 4.0 * nl + 7.0;
}

// ---------------------------------------------------------------------------
// Massless RAMBO (Kleiss, Stirling, Ellis): np momenta of total energy
// sqrt(s) at rest, 4 uniforms each. The weight is constant (rambo_volume).
template <class T, class Rng>
KOKKOS_INLINE_FUNCTION void rambo(int np, T sqrt_s, Rng& rng, Vec4<T>* p) {
  Vec4<T> Q = zero4<T>();
  for (int i = 0; i < np; ++i) {
    const T c = T(2) * rng.template uniform<T>() - T(1);
    const T st = math::sqrt(T(1) - c * c);
    T sf, cf;
    math::sincos_2pi(rng.template uniform<T>(), sf, cf);  // azimuth 2 pi u
    const T r3 = rng.template uniform<T>(), r4 = rng.template uniform<T>();
    const T e = -math::log(r3 * r4);
    p[i] = {{e, e * st * cf, e * st * sf, e * c}};
    Q = add(Q, p[i]);
  }
  const T inv_m = math::rsqrt(dot(Q, Q));
  const T bx = -Q[1] * inv_m, by = -Q[2] * inv_m, bz = -Q[3] * inv_m;
  const T x = sqrt_s * inv_m, g = Q[0] * inv_m, a = T(1) / (T(1) + g);
  for (int i = 0; i < np; ++i) {
    const T bq = bx * p[i][1] + by * p[i][2] + bz * p[i][3];
    const T q0 = p[i][0];
    p[i][0] = x * (g * q0 + bq);
    p[i][1] = x * (p[i][1] + bx * q0 + a * bq * bx);
    p[i][2] = x * (p[i][2] + by * q0 + a * bq * by);
    p[i][3] = x * (p[i][3] + bz * q0 + a * bq * bz);
  }
}

// The massless np-body phase-space volume, d^3p/((2pi)^3 2E) per particle and
// (2pi)^4 delta^4: (2pi)^(4-3np) (pi/2)^(np-1) s^(np-2) / ((np-1)! (np-2)!).
inline double rambo_volume(int np, double s) {
  const double twopi = 2 * 3.14159265358979323846;
  double v = 1.0;
  for (int i = 0; i < 3 * np - 4; ++i) v /= twopi;
  for (int i = 0; i < np - 1; ++i) v *= 3.14159265358979323846 / 2;
  for (int i = 0; i < np - 2; ++i) v *= s;
  for (int i = 2; i <= np - 1; ++i) v /= i;
  for (int i = 2; i <= np - 2; ++i) v /= i;
  return v;
}

// A uniform random ordering: ord[0] = 0, ord[1..n-1] a permutation of 1..n-1
// (Fisher-Yates, n-2 uniforms).
template <class T, class Rng>
KOKKOS_INLINE_FUNCTION void random_ordering(int n, Rng& rng, int* ord) {
  for (int i = 0; i < n; ++i) ord[i] = i;
  for (int i = n - 1; i > 1; --i) {
    int j = 1 + int(rng.template uniform<T>() * T(i));  // 1..i
    if (j > i) j = i;
    const int t = ord[i];
    ord[i] = ord[j];
    ord[j] = t;
  }
}

}  // namespace tessera::gluon
