// Where does the host B-spline prefilter's time go: its row pass (8-bit in,
// float coefficients out, 5 bytes a pixel), its column pass (the plane read
// and written in place, 8 bytes a pixel), or neither against a plain copy of
// the plane (8 bytes a pixel) in the same process? The library's own host
// functions (bspline_prefilter_rows_kokkos, bspline_prefilter_cols_kokkos) on
// Kokkos' default host execution space, median of 9 after one warm-up, GB/s
// at the bytes counted (write-allocate reads not counted, as for the copy).
// Beside them, on x86-64 with AVX2 and FMA, a candidate row pass without
// transposes ("rows AVX2", bspline_row_avx2 below; its largest difference
// from the library's row pass is printed). The library's row pass moves
// every sample through 4 x 4 transposes and 8-bit unpacks, shuffles that
// Intel cores issue on one port: on the 16-core Xeon it ran at 1.2-1.4 ns a
// pixel a thread, bound inside the cores.
// Built with -DTESSERA_BUILD_EXPERIMENTS=ON (host or cuda flavour):
// bspline_prefilter_passes_probe [W H] (default 7680 4320); threads as
// OMP_NUM_THREADS. Findings: docs/perf/video.md (CPU B-spline prefilter).
#include "tessera/video/impl/bspline_kokkos.hpp"

#include <Kokkos_Core.hpp>
#if TESSERA_BSPLINE_SSE2
#include <immintrin.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

using Exec = Kokkos::DefaultHostExecutionSpace;
using namespace tessera::video::impl;

#if TESSERA_BSPLINE_SSE2
namespace {

// Whether this CPU runs the row pass without transposes (AVX2 and FMA).
bool bspline_rows_avx2() {
  static const bool ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return ok;
}

// Shortest row the AVX2 row pass takes: the causal initial value's mirror
// sum drops its far-end terms from 42 samples on (bspline_iir_line).
constexpr int kBsplineRowAvx2Min = 42;

// A causal step over samples k..k+7: c+[k+i] = sum_{j<=i} z^(i-j) x[k+j] +
// z^(i+1) prev, columns t[j], p. An anti-causal step over k-7..k (lane a is
// sample k-7+a): c[k-7+a] = sum_{b>=a} -z^(b-a+1) c+[k-7+b] + z^(8-a) c[k+1],
// columns u[b], q.
struct BsplineRowSteps {
  alignas(32) float t[8][8], p[8], u[8][8], q[8];
  float z8;
};

const BsplineRowSteps& bspline_row_steps() {
  static const BsplineRowSteps s = [] {
    BsplineRowSteps b{};
    auto zp = [](int e) { return std::pow(tessera::video::kBsplinePole, e); };
    for (int j = 0; j < 8; ++j)
      for (int i = 0; i < 8; ++i) {
        b.t[j][i] = i >= j ? float(zp(i - j)) : 0.0f;
        b.u[j][i] = i <= j ? float(-zp(j - i + 1)) : 0.0f;
      }
    for (int i = 0; i < 8; ++i) b.p[i] = float(zp(i + 1)), b.q[i] = float(zp(8 - i));
    b.z8 = float(zp(8));
    return b;
  }();
  return s;
}

// out = the prefilter of the row gain * in (n >= kBsplineRowAvx2Min
// samples), worked in buf (n floats, the thread's own); stream: the row
// leaves through non-temporal stores (bspline_stream_fence() before others
// read it).
[[gnu::target("avx2,fma")]] void bspline_row_avx2(const std::uint8_t* in, float* buf, float* out, int n,
                                                        float gain, bool stream, const BsplineRowSteps& st) {
  constexpr double z = tessera::video::kBsplinePole;
  const float zf = float(z);
  float* c = buf;
  const __m256 g = _mm256_set1_ps(gain);
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i w = _mm256_cvtepu8_epi32(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(in + i)));
    _mm256_storeu_ps(c + i, _mm256_mul_ps(_mm256_cvtepi32_ps(w), g));
  }
  for (; i < n; ++i) c[i] = gain * float(in[i]);
  // The causal initial value as bspline_iir_line has it for n >= 42.
  double sum = double(c[0]), zn = z;
  for (int k = 1; k <= 40; ++k) {
    sum += zn * double(c[k]);
    zn *= z;
  }
  c[0] = float(sum);
  __m256 t[8];
  for (int j = 0; j < 8; ++j) t[j] = _mm256_load_ps(st.t[j]);
  const __m256 p = _mm256_load_ps(st.p);
  float prev = c[0];
  int k = 1;
  for (; k + 8 <= n; k += 8) {  // two partial sums: half the latency of a step's own sum
    __m256 s0 = _mm256_mul_ps(_mm256_broadcast_ss(c + k), t[0]);
    __m256 s1 = _mm256_mul_ps(_mm256_broadcast_ss(c + k + 4), t[4]);
    for (int j = 1; j < 4; ++j) {
      s0 = _mm256_fmadd_ps(_mm256_broadcast_ss(c + k + j), t[j], s0);
      s1 = _mm256_fmadd_ps(_mm256_broadcast_ss(c + k + 4 + j), t[4 + j], s1);
    }
    const __m256 s = _mm256_add_ps(s0, s1);
    const float last = _mm_cvtss_f32(_mm_permute_ps(_mm256_extractf128_ps(s, 1), 0xFF));
    _mm256_storeu_ps(c + k, _mm256_fmadd_ps(_mm256_set1_ps(prev), p, s));
    prev = std::fma(st.z8, prev, last);
  }
  for (; k < n; ++k) c[k] = prev = c[k] + zf * prev;
  prev = float((z / (z * z - 1.0)) * (z * double(c[n - 2]) + double(prev)));
  c[n - 1] = prev;
  __m256 u[8];
  for (int j = 0; j < 8; ++j) u[j] = _mm256_load_ps(st.u[j]);
  const __m256 q = _mm256_load_ps(st.q);
  k = n - 2;
  for (; k >= 7; k -= 8) {
    const float* e = c + k - 7;
    __m256 s0 = _mm256_mul_ps(_mm256_broadcast_ss(e), u[0]);
    __m256 s1 = _mm256_mul_ps(_mm256_broadcast_ss(e + 4), u[4]);
    for (int j = 1; j < 4; ++j) {
      s0 = _mm256_fmadd_ps(_mm256_broadcast_ss(e + j), u[j], s0);
      s1 = _mm256_fmadd_ps(_mm256_broadcast_ss(e + 4 + j), u[4 + j], s1);
    }
    const __m256 s = _mm256_add_ps(s0, s1);
    const float first = _mm256_cvtss_f32(s);
    _mm256_storeu_ps(c + k - 7, _mm256_fmadd_ps(_mm256_set1_ps(prev), q, s));
    prev = std::fma(st.z8, prev, first);
  }
  for (; k >= 0; --k) c[k] = prev = zf * (prev - c[k]);
  i = 0;
  if (stream) {
    for (; i < n && reinterpret_cast<std::uintptr_t>(out + i) % 32 != 0; ++i) out[i] = c[i];
    for (; i + 8 <= n; i += 8) _mm256_stream_ps(out + i, _mm256_loadu_ps(c + i));
  } else {
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(out + i, _mm256_loadu_ps(c + i));
  }
  for (; i < n; ++i) out[i] = c[i];
}

// The row pass without transposes over a plane: 8-bit rows whose samples
// are adjacent, at least kBsplineRowAvx2Min of them, on a CPU with AVX2 and
// FMA; false (nothing done) otherwise. A team takes 4 rows with a row buffer
// of its own; the coefficients stream past the caches under the library's
// rule (BsplineHostStores).
template <class ExecSpace, class In, class Coef>
bool bspline_prefilter_rows_avx2(const ExecSpace& exec, const In& in, const Coef& coef, BsplineHostStores stores) {
  if constexpr (BsplineU8Rows<BsplineRowSource<In>>::value) {
    const int h = int(coef.extent(0)), w = int(coef.extent(1));
    if (w < kBsplineRowAvx2Min || !rows_contiguous(in) || !bspline_rows_avx2()) return false;
    using Policy = Kokkos::TeamPolicy<ExecSpace>;
    constexpr int kRows = 4;
    const std::size_t bytes = std::size_t(w) * sizeof(float);
    const bool stream = stores == BsplineHostStores::streaming ||
                        (stores == BsplineHostStores::automatic && std::size_t(h) * bytes > tessera::host_llc_bytes());
    const std::uint8_t* src = in.data();
    const std::int64_t pitch = row_pitch(in);
    float* c = coef.data();
    const BsplineRowSteps* st = &bspline_row_steps();
    Kokkos::parallel_for(
        "tessera::video::bspline_rows", Policy(exec, (h + kRows - 1) / kRows, 1).set_scratch_size(1, Kokkos::PerTeam(bytes)),
        [=](const typename Policy::member_type& team) {
          float* buf = static_cast<float*>(team.team_scratch(1).get_shmem(bytes));
          const int y1 = std::min(h, (team.league_rank() + 1) * kRows);
          for (int y = team.league_rank() * kRows; y < y1; ++y)
            bspline_row_avx2(src + y * pitch, buf, c + std::int64_t(y) * w, w, 6.0f, stream, *st);
          if (stream) bspline_stream_fence();
        });
    return true;
  }
  (void)exec, (void)in, (void)coef, (void)stores;
  return false;
}

}  // namespace
#endif

int main(int argc, char** argv) {
  int W = 7680, H = 4320;
  if (argc == 3) W = std::atoi(argv[1]), H = std::atoi(argv[2]);
  if ((argc != 1 && argc != 3) || W < 64 || H < 64 || W > 32768 || H > 32768) {
    std::fprintf(stderr, "usage: %s [W H], each 64 to 32768\n", argv[0]);
    return 2;
  }
  Kokkos::initialize(argc, argv);
  {
    using Plane = Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::HostSpace>;
    Kokkos::View<std::uint8_t**, Kokkos::LayoutRight, Kokkos::HostSpace> in("in", H, W);
    Plane coef("coef", H, W), a("a", H, W), b("b", H, W);
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x) in(y, x) = std::uint8_t((x * 7 + y * 13 + (x * y) % 5) & 255);
    Exec exec;
    auto median_ms = [&](auto&& f) {
      std::vector<double> v;
      f();
      exec.fence();
      for (int r = 0; r < 9; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        f();
        exec.fence();
        v.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      }
      std::sort(v.begin(), v.end());
      return v[v.size() / 2];
    };
    const std::int64_t n = std::int64_t(W) * H;
    const float* src = a.data();
    float* dst = b.data();
    const double copy = median_ms([&] {
      Kokkos::parallel_for(Kokkos::RangePolicy<Exec>(exec, 0, n), [=](std::int64_t i) { dst[i] = src[i]; });
    });
    const double rows = median_ms([&] { bspline_prefilter_rows_kokkos(exec, in, coef); });
    double avx2 = -1, avx2_err = -1;
#if TESSERA_BSPLINE_SSE2
    if (bspline_prefilter_rows_avx2(exec, in, a, BsplineHostStores::automatic)) {
      avx2 = median_ms([&] { bspline_prefilter_rows_avx2(exec, in, a, BsplineHostStores::automatic); });
      bspline_prefilter_rows_kokkos(exec, in, coef);
      exec.fence();
      double md = 0, mv = 0;
      for (std::int64_t i = 0; i < std::int64_t(W) * H; ++i) {
        md = std::max(md, double(std::fabs(a.data()[i] - coef.data()[i])));
        mv = std::max(mv, double(std::fabs(coef.data()[i])));
      }
      avx2_err = md / mv;
    }
#endif
    const double cols = median_ms([&] { bspline_prefilter_cols_kokkos(exec, coef); });
    const double both = median_ms([&] { bspline_prefilter_kokkos(exec, in, coef); });
    auto line = [&](const char* what, double ms, double bytes_px) {
      std::printf("%-11s %8.3f ms %7.1f GB/s at %2.0f B/px  %5.1f%% of the copy's rate\n", what, ms,
                  bytes_px * double(n) / ms * 1e-6, bytes_px, 100.0 * (bytes_px / ms) / (8.0 / copy));
    };
    std::printf("%d x %d, %d host threads (%s)\n", W, H, Exec().concurrency(), Exec::name());
    line("copy", copy, 8);
    line("rows", rows, 5);
    if (avx2 >= 0) {
      line("rows AVX2", avx2, 5);
      std::printf("            (its largest difference from the row pass: %.1e of the largest value)\n", avx2_err);
    }
    line("columns", cols, 8);
    line("prefilter", both, 13);
  }
  Kokkos::finalize();
  return 0;
}
