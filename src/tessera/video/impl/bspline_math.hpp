#pragma once
// Cubic B-spline pieces shared by the portable and the native CUDA kernels:
// the prefilter of one scanline (Unser's causal + anti-causal first-order IIR,
// pole sqrt(3) - 2, gain 6, whole-sample symmetric boundary with the exact
// initialisation), its impulse response for the fused native kernel, and the
// u phase weight sets of the 4-tap evaluation.
#include <Kokkos_Macros.hpp>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace tessera::video {

enum class Alignment {
  centre,  // pixel centres coincide: x = (X + 1/2)/u - 1/2 (the default)
  corner,  // x = X/u: output X = k*u lands on input sample k
};

inline constexpr int kMaxBsplineScale = 16;

// Phase r = X mod u of an output coordinate X = q*u + r reads the taps
// i - 1 .. i + 2 with i = q + offset[r], weighted by w[r][0..3].
struct BsplinePhases {
  int u = 1;
  int offset[kMaxBsplineScale] = {};
  float w[kMaxBsplineScale][4] = {};
};

// beta3(t) for |t| < 2.
inline double bspline3(double t) {
  t = std::fabs(t);
  if (t < 1) return 2.0 / 3.0 - t * t + 0.5 * t * t * t;
  if (t < 2) return (2 - t) * (2 - t) * (2 - t) / 6.0;
  return 0.0;
}

inline BsplinePhases make_bspline_phases(int u, Alignment a) {
  if (u < 1 || u > kMaxBsplineScale)
    throw std::invalid_argument("B-spline: scale " + std::to_string(u) + " outside 1.." +
                                std::to_string(kMaxBsplineScale));
  BsplinePhases p;
  p.u = u;
  for (int r = 0; r < u; ++r) {
    const double x = a == Alignment::centre ? (2.0 * r + 1 - u) / (2.0 * u) : double(r) / u;
    const double i = std::floor(x), t = x - i;
    p.offset[r] = int(i);
    for (int k = 0; k < 4; ++k) p.w[r][k] = float(bspline3(t - (k - 1)));
  }
  return p;
}

// Whole-sample symmetric index (period 2n - 2): ... 2 1 | 0 1 2 .. n-1 | n-2 ...
// Interior indices (all but a few per scanline) skip the modulo.
KOKKOS_INLINE_FUNCTION int mirror_index(int k, int n) {
  if (static_cast<unsigned>(k) < static_cast<unsigned>(n)) return k;
  if (n == 1) return 0;
  const int period = 2 * n - 2;
  k = k < 0 ? -k : k;
  k %= period;
  return k < n ? k : period - k;
}

// Samples per chunk of the recursions below: the loads of a chunk are issued
// together ahead of its dependent FMAs, so a pass over a line waits for memory
// once per chunk rather than once per sample.
inline constexpr int kIirChunk = 8;

// The prefilter's pole z = sqrt(3) - 2.
inline constexpr double kBsplinePole = -0.26794919243112270;

// The anti-causal recursion's exact start at a line's last sample (whole-
// sample symmetric boundary), from the causal values of its last two samples.
KOKKOS_INLINE_FUNCTION float bspline_anticausal_last(float before_last, float last) {
  constexpr double z = kBsplinePole;
  return float((z / (z * z - 1.0)) * (z * double(before_last) + double(last)));
}

// In-place prefilter of c[0], c[s], ..., c[(n-1)s] (already multiplied by
// the gain 6 when n > 1). The causal initial value is the mirror sum in double
// (z^k underflows in float long before the far end's terms vanish), summed to
// where its weights fall below 1e-23: exact to double rounding for samples of
// one magnitude, as pixel values are.
KOKKOS_INLINE_FUNCTION void bspline_iir_line(float* c, std::int64_t s, int n) {
  if (n < 2) return;
  constexpr double z = kBsplinePole;
  constexpr double zinv = 1.0 / z;
  {
    double zn1 = 1.0, b = z;  // z^(n-1) by squaring
    for (int e = n - 1; e > 0; e >>= 1) {
      if (e & 1) zn1 *= b;
      b *= b;
    }
    // The far end's terms z^(2n-2-k) are below z^(n-1); from n = 42 on
    // (|z|^41 < 1e-23) they, and the near terms beyond k = 40, are dropped.
    const bool far = n < 42;
    const int last = far ? n - 2 : 40;
    double sum = double(c[0]) + (far ? zn1 * double(c[(n - 1) * s]) : 0.0);
    double zn = z, z2n = far ? zn1 * zn1 * zinv : 0.0;  // z^(2n-3)
    for (int k = 1; k <= last; ++k) {
      sum += (zn + z2n) * double(c[k * s]);
      zn *= z;
      z2n *= zinv;
    }
    const double zn2 = far ? zn1 * zn1 : 0.0;  // z^(2n-2)
    c[0] = float(sum / (1.0 - zn2));
  }
  const float zf = float(z);
  // Causal: c[k] += z c[k-1], the running value kept in a register.
  float prev = c[0];
  int k = 1;
  for (; k + kIirChunk <= n; k += kIirChunk) {
    float v[kIirChunk];
    for (int j = 0; j < kIirChunk; ++j) v[j] = c[(k + j) * s];
    for (int j = 0; j < kIirChunk; ++j) v[j] = prev = v[j] + zf * prev;
    for (int j = 0; j < kIirChunk; ++j) c[(k + j) * s] = v[j];
  }
  for (; k < n; ++k) c[k * s] = prev = c[k * s] + zf * prev;
  // Anti-causal: c[k] = z (c[k+1] - c[k]), from the exact value at the end.
  prev = bspline_anticausal_last(c[(n - 2) * s], prev);
  c[(n - 1) * s] = prev;
  k = n - 2;
  for (; k + 1 >= kIirChunk; k -= kIirChunk) {
    float v[kIirChunk];
    for (int j = 0; j < kIirChunk; ++j) v[j] = c[(k - j) * s];
    for (int j = 0; j < kIirChunk; ++j) v[j] = prev = zf * (prev - v[j]);
    for (int j = 0; j < kIirChunk; ++j) c[(k - j) * s] = v[j];
  }
  for (; k >= 0; --k) c[k * s] = prev = zf * (prev - c[k * s]);
}

// bspline_iir_line for L lines at once, sample pos of line j at
// t[pos * L + j] (host code: every step is a loop over the lines that the
// compiler vectorises, L independent recursions instead of one dependent
// chain). Each line's arithmetic is bspline_iir_line's, operation for
// operation, so the coefficients are the same to the bit.
// Its stages, for host callers that run them as their loads and stores go
// (a block or a sample position at a time, while the data is in L1):
// init sets t[0] from t[0..min(n, 41)) (and t[n - 1] when n < 42); causal
// runs positions [k0, k1), k0 >= 1; last sets t[n - 1]; anticausal runs
// positions k1 - 1 down to k0 (k1 <= n - 1). n >= 2.
template <int L>
inline void bspline_iir_lines_init(float* t, int n) {
  constexpr double z = kBsplinePole;
  constexpr double zinv = 1.0 / z;
  double zn1 = 1.0, b = z;
  for (int e = n - 1; e > 0; e >>= 1) {
    if (e & 1) zn1 *= b;
    b *= b;
  }
  const bool far = n < 42;
  const int last = far ? n - 2 : 40;
  double sum[L];
  for (int j = 0; j < L; ++j) sum[j] = double(t[j]) + (far ? zn1 * double(t[std::int64_t(n - 1) * L + j]) : 0.0);
  double zn = z, z2n = far ? zn1 * zn1 * zinv : 0.0;
  for (int k = 1; k <= last; ++k) {
    const double w = zn + z2n;
    for (int j = 0; j < L; ++j) sum[j] += w * double(t[k * L + j]);
    zn *= z;
    z2n *= zinv;
  }
  const double zn2 = far ? zn1 * zn1 : 0.0;
  for (int j = 0; j < L; ++j) t[j] = float(sum[j] / (1.0 - zn2));
}

template <int L>
inline void bspline_iir_lines_causal(float* t, int k0, int k1) {
  const float zf = float(kBsplinePole);
  for (int k = k0; k < k1; ++k) {
    float* c = t + std::int64_t(k) * L;
    for (int j = 0; j < L; ++j) c[j] = c[j] + zf * c[j - L];
  }
}

template <int L>
inline void bspline_iir_lines_last(float* t, int n) {
  float* c = t + std::int64_t(n - 1) * L;
  for (int j = 0; j < L; ++j) c[j] = bspline_anticausal_last(c[j - L], c[j]);
}

template <int L>
inline void bspline_iir_lines_anticausal(float* t, int k1, int k0) {
  const float zf = float(kBsplinePole);
  for (int k = k1 - 1; k >= k0; --k) {
    float* c = t + std::int64_t(k) * L;
    for (int j = 0; j < L; ++j) c[j] = zf * (c[j + L] - c[j]);
  }
}

template <int L>
inline void bspline_iir_lines(float* t, int n) {
  if (n < 2) return;
  bspline_iir_lines_init<L>(t, n);
  bspline_iir_lines_causal<L>(t, 1, n);
  bspline_iir_lines_last<L>(t, n);
  bspline_iir_lines_anticausal<L>(t, n - 1, 0);
}

// The prefilter as a convolution: the causal + anti-causal pair with its gain
// has the symmetric impulse response h[n] = sqrt(3) z^|n| (sum 1, sum |h| = 3),
// and the exact mirror initialisation makes the IIR equal to h applied to the
// whole-sample symmetric extension of the line (any length, 1 included). The
// fused native kernel truncates h at |n| <= 15: the dropped tail weighs
// T = 2 sqrt(3) |z|^16 / (1 - |z|) = 3.3e-9 of max |sample| per pass; the
// column pass drops T of row coefficients up to 3 max |input| and carries the
// row pass's T through sum |h| = 3, so both passes together stay within
// 6 T = 2.0e-8 < 2^-25 of max |input|: below float rounding. (|n| <= 14
// would leave 7.5e-8, just over 2^-24.)
inline constexpr int kBsplineFirRadius = 15;

struct BsplineFirTaps {
  float h[kBsplineFirRadius + 1];  // h[|n|]
};

constexpr BsplineFirTaps make_bspline_fir_taps() {
  BsplineFirTaps t{};
  double v = kBsplinePole + 2;  // sqrt(3) z^n
  for (int n = 0; n <= kBsplineFirRadius; ++n) {
    t.h[n] = float(v);
    v *= kBsplinePole;
  }
  return t;
}

template <class T>
KOKKOS_INLINE_FUNCTION T bspline_store(float v);
template <>
KOKKOS_INLINE_FUNCTION float bspline_store<float>(float v) {
  return v;
}
template <>
KOKKOS_INLINE_FUNCTION std::uint8_t bspline_store<std::uint8_t>(float v) {
  // Round half up and clamp to 0..255 (NaN-free inputs).
  const float r = v + 0.5f;
  return r <= 0.0f ? std::uint8_t(0) : r >= 255.0f ? std::uint8_t(255) : std::uint8_t(int(r));
}

}  // namespace tessera::video
