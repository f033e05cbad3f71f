#pragma once
// 4 x 4 transposes between four scanlines and the host prefilter's
// sample-major buffer (t[pos * L + j]): the row pass moves every sample in
// and out of that buffer, and as scalar loads and stores that traffic, not
// the recursions, set its time. SSE2 (the x86-64 baseline) where available;
// plain loops elsewhere. The values are the scalar code's: gain * float(x)
// in, copies out.
#include "tessera/core/cache_info.hpp"
#include "tessera/core/cpu_features.hpp"

#include <cstddef>
#include <cstdint>
#if TESSERA_HOST_X86
#include <emmintrin.h>
#endif

namespace tessera::video::impl {

// How the host row pass writes the coefficients: through the caches, or
// with non-temporal stores that bypass them (no read for ownership, no
// eviction of what the column pass reads next). automatic streams when the
// plane is larger than the last-level cache: there the coefficients would
// not be in cache for the column pass anyway (a 7680 x 4320 plane on a 32
// MiB cache: 1.5x), while a plane that fits (the same plane on a 300 MiB
// cache) is read back from the cache and streaming it costs 1.2-1.9x instead.
enum class BsplineHostStores { automatic, cached, streaming };

// Whether a host pass writing a plane of `bytes` streams it under `stores`.
inline bool bspline_host_streams(BsplineHostStores stores, std::size_t bytes) {
  return stores == BsplineHostStores::streaming ||
         (stores == BsplineHostStores::automatic && bytes > host_llc_bytes());
}

// Samples the transposes take at a time (in: 16 bytes a line; out: 4 floats).
inline constexpr int kBsplineInStep = 16;
inline constexpr int kBsplineOutStep = 4;

// t[(p + q) * L + i] = gain * r_i[p + q], i < 4, q < 16.
template <int L>
inline void bspline_transpose_in_u8(const std::uint8_t* const r[4], int p, float gain, float* t) {
#if TESSERA_HOST_X86
  const __m128i zero = _mm_setzero_si128();
  const __m128 g = _mm_set1_ps(gain);
  __m128 v[4][4];  // [line][quarter]
  for (int i = 0; i < 4; ++i) {
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(r[i] + p));
    const __m128i lo = _mm_unpacklo_epi8(b, zero), hi = _mm_unpackhi_epi8(b, zero);
    v[i][0] = _mm_mul_ps(g, _mm_cvtepi32_ps(_mm_unpacklo_epi16(lo, zero)));
    v[i][1] = _mm_mul_ps(g, _mm_cvtepi32_ps(_mm_unpackhi_epi16(lo, zero)));
    v[i][2] = _mm_mul_ps(g, _mm_cvtepi32_ps(_mm_unpacklo_epi16(hi, zero)));
    v[i][3] = _mm_mul_ps(g, _mm_cvtepi32_ps(_mm_unpackhi_epi16(hi, zero)));
  }
  for (int q = 0; q < 4; ++q) {
    __m128 a = v[0][q], b = v[1][q], c = v[2][q], d = v[3][q];
    _MM_TRANSPOSE4_PS(a, b, c, d);
    float* o = t + std::int64_t(p + 4 * q) * L;
    _mm_storeu_ps(o, a);
    _mm_storeu_ps(o + L, b);
    _mm_storeu_ps(o + 2 * L, c);
    _mm_storeu_ps(o + 3 * L, d);
  }
#else
  for (int q = 0; q < kBsplineInStep; ++q)
    for (int i = 0; i < 4; ++i) t[std::int64_t(p + q) * L + i] = gain * float(r[i][p + q]);
#endif
}

// r_i[p + q] = t[(p + q) * L + i], i < 4, q < 4. Stream: non-temporal
// stores (r_i + p 16-byte aligned), for output that would only evict what
// the caches hold; bspline_stream_fence() before other threads read it.
template <int L, bool Stream = false>
inline void bspline_transpose_out(const float* t, int p, float* const r[4]) {
#if TESSERA_HOST_X86
  const float* s = t + std::int64_t(p) * L;
  __m128 a = _mm_loadu_ps(s), b = _mm_loadu_ps(s + L), c = _mm_loadu_ps(s + 2 * L), d = _mm_loadu_ps(s + 3 * L);
  _MM_TRANSPOSE4_PS(a, b, c, d);
  if constexpr (Stream) {
    _mm_stream_ps(r[0] + p, a);
    _mm_stream_ps(r[1] + p, b);
    _mm_stream_ps(r[2] + p, c);
    _mm_stream_ps(r[3] + p, d);
  } else {
    _mm_storeu_ps(r[0] + p, a);
    _mm_storeu_ps(r[1] + p, b);
    _mm_storeu_ps(r[2] + p, c);
    _mm_storeu_ps(r[3] + p, d);
  }
#else
  for (int q = 0; q < kBsplineOutStep; ++q)
    for (int i = 0; i < 4; ++i) r[i][p + q] = t[std::int64_t(p + q) * L + i];
#endif
}

inline void bspline_stream_fence() {
#if TESSERA_HOST_X86
  _mm_sfence();
#endif
}

// Whether rows from c, line_step floats apart, can take streaming stores of 4
// floats at multiples of 4 (SSE2, 16-byte aligned).
inline bool bspline_can_stream(const float* c, std::int64_t line_step) {
  return TESSERA_HOST_X86 && reinterpret_cast<std::uintptr_t>(c) % 16 == 0 && line_step % 4 == 0;
}

}  // namespace tessera::video::impl
