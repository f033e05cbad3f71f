#pragma once
// Portable direct 3-D convolution kernels (Lin et al., "The Parallelization
// of Video Processing": BASELINE, SHARED MEMORY, STREAMING) and a
// register-blocked kernel beyond the paper. One source for every Kokkos
// backend: team loops are TeamThreadRange loops, so a team of one thread (the
// host spaces) runs the same code as a team of hundreds (CUDA).
//
// All kernels take the flipped kernel kf (see conv3d.hpp), so they compute a
// correlation: out(t, y, x) = sum_{l,j,m} kf(l, j, m) * V(t + l, y + s + j, x + s + m)
// with s = -(k/2) for same-size output in x, y and s = 0 for valid output;
// V outside the frame reads as 0 (t is always valid).
#include "tessera/core/cpu_features.hpp"
#include "tessera/core/exec_space.hpp"
#include "tessera/video/conv3d_geometry.hpp"

#include <Kokkos_Core.hpp>
#if TESSERA_HOST_X86
#include <immintrin.h>
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace tessera::video::impl {

using Index = std::int64_t;

// Room for the alignment of each scratch View after the first.
inline constexpr std::size_t conv3d_scratch_slack = 256;

template <class ExecSpace>
int conv3d_team_threads(int want) {
  return is_device_space_v<ExecSpace> ? want : 1;
}

template <class ExecSpace>
using ScratchFloats = Kokkos::View<float*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;

// V(t, y, x) with zero outside the frame in y and x.
template <class VView>
KOKKOS_INLINE_FUNCTION float conv3d_load(const VView& v, int t, int y, int x, int H, int W) {
  return (y >= 0 && y < H && x >= 0 && x < W) ? float(v(t, y, x)) : 0.0f;
}

// BASELINE: one work item per output, k^3 loads of V (caches only).
template <class ExecSpace, class VView, class KView, class OView>
void conv3d_baseline_kokkos(const ExecSpace& exec, const VView& v, const KView& kf, const OView& out,
                            const Conv3dGeometry& g) {
  const Index n = Index(g.To) * g.Ho * g.Wo;
  const int k = g.k, H = g.H, W = g.W, Ho = g.Ho, Wo = g.Wo, s = g.shift;
  Kokkos::parallel_for(
      "tessera::video::conv3d_baseline", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<Index>>(exec, 0, n),
      KOKKOS_LAMBDA(const Index i) {
        const int x = int(i % Wo);
        const int y = int((i / Wo) % Ho);
        const int t = int(i / (Index(Wo) * Ho));
        float acc = 0;
        for (int l = 0; l < k; ++l)
          for (int j = 0; j < k; ++j) {
            const int yy = y + s + j;
            if (yy < 0 || yy >= H) continue;
            for (int m = 0; m < k; ++m) {
              const int xx = x + s + m;
              if (xx >= 0 && xx < W) acc += kf(l, j, m) * float(v(t + l, yy, xx));
            }
          }
        out(t, y, x) = acc;
      });
}

// Output tile edge of SHARED MEMORY (the paper's o).
inline constexpr int conv3d_shared_tile = 4;

inline std::size_t conv3d_shared_scratch_bytes(int k) {
  const std::size_t e = std::size_t(k + conv3d_shared_tile - 1);
  return e * e * e * sizeof(float) + conv3d_scratch_slack;
}

// SHARED MEMORY: a team loads the (k+o-1)^3 input tile of an o^3 output tile
// into team scratch, then each output reads only scratch (and kf).
template <class ExecSpace, class VView, class KView, class OView>
void conv3d_shared_kokkos(const ExecSpace& exec, const VView& v, const KView& kf, const OView& out,
                          const Conv3dGeometry& g) {
  constexpr int o = conv3d_shared_tile;
  const int k = g.k, H = g.H, W = g.W, To = g.To, Ho = g.Ho, Wo = g.Wo, s = g.shift;
  const int e = k + o - 1;
  const int nt = (To + o - 1) / o, ny = (Ho + o - 1) / o, nx = (Wo + o - 1) / o;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  Policy policy(exec, nt * ny * nx, conv3d_team_threads<ExecSpace>(o * o * o));
  policy.set_scratch_size(0, Kokkos::PerTeam(conv3d_shared_scratch_bytes(k)));
  Kokkos::parallel_for(
      "tessera::video::conv3d_shared", policy, KOKKOS_LAMBDA(const Member& team) {
        const int b = team.league_rank();
        const int x0 = (b % nx) * o, y0 = ((b / nx) % ny) * o, t0 = (b / (nx * ny)) * o;
        ScratchFloats<ExecSpace> tile(team.team_scratch(0), e * e * e);
        const int T = g.T;
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, e * e * e), [&](const int i) {
          const int a = i % e, bb = (i / e) % e, c = i / (e * e);
          const int t = t0 + c;
          tile(i) = t < T ? conv3d_load(v, t, y0 + s + bb, x0 + s + a, H, W) : 0.0f;
        });
        team.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, o * o * o), [&](const int i) {
          const int dx = i % o, dy = (i / o) % o, dt = i / (o * o);
          if (t0 + dt >= To || y0 + dy >= Ho || x0 + dx >= Wo) return;
          float acc = 0;
          for (int l = 0; l < k; ++l)
            for (int j = 0; j < k; ++j) {
              const int row = ((dt + l) * e + dy + j) * e + dx;
              for (int m = 0; m < k; ++m) acc += kf(l, j, m) * tile(row + m);
            }
          out(t0 + dt, y0 + dy, x0 + dx) = acc;
        });
      });
}

// Output columns of STREAMING along x (the paper's 16 x 1 tile).
inline constexpr int conv3d_stream_width = 16;

inline std::size_t conv3d_streaming_scratch_bytes(int k) {
  constexpr int w = conv3d_stream_width;
  return (std::size_t(k) * (k + w - 1) + std::size_t(w) * k) * sizeof(float) + conv3d_scratch_slack;
}

// STREAMING (loop skewing): a team owns a 16-wide column of one output frame
// and marches down y. Each step loads one (k+15) x k slice (x by t) of input
// row r and adds it to the k output rows in flight (16 x k partial sums, one
// per (x, row mod k) slot); the row that receives its last kernel row is
// written. Every input row is loaded once per column.
template <class ExecSpace, class VView, class KView, class OView>
void conv3d_streaming_kokkos(const ExecSpace& exec, const VView& v, const KView& kf, const OView& out,
                             const Conv3dGeometry& g) {
  constexpr int w = conv3d_stream_width;
  const int k = g.k, H = g.H, W = g.W, To = g.To, Ho = g.Ho, Wo = g.Wo, s = g.shift;
  const int e = k + w - 1;
  const int nx = (Wo + w - 1) / w;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  Policy policy(exec, To * nx, conv3d_team_threads<ExecSpace>(w * k));
  policy.set_scratch_size(0, Kokkos::PerTeam(conv3d_streaming_scratch_bytes(k)));
  Kokkos::parallel_for(
      "tessera::video::conv3d_streaming", policy, KOKKOS_LAMBDA(const Member& team) {
        const int x0 = (team.league_rank() % nx) * w, t0 = team.league_rank() / nx;
        ScratchFloats<ExecSpace> slice(team.team_scratch(0), k * e);
        ScratchFloats<ExecSpace> acc(team.team_scratch(0), w * k);
        for (int r = 0; r < Ho + k - 1; ++r) {
          const int yin = r + s;
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, k * e), [&](const int i) {
            const int a = i % e, l = i / e;
            slice(i) = conv3d_load(v, t0 + l, yin, x0 + s + a, H, W);
          });
          team.team_barrier();
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, w * k), [&](const int i) {
            const int xi = i % w, slot = i / w;
            // The output row of this slot that input row r reaches: y = r - j, y = slot (mod k).
            const int j = ((r - slot) % k + k) % k;
            const int y = r - j;
            if (y < 0 || y >= Ho || x0 + xi >= Wo) return;
            float a = j == 0 ? 0.0f : acc(i);
            for (int l = 0; l < k; ++l)
              for (int m = 0; m < k; ++m) a += kf(l, j, m) * slice(l * e + xi + m);
            if (j == k - 1)
              out(t0, y, x0 + xi) = a;
            else
              acc(i) = a;
          });
          team.team_barrier();
        }
      });
}

// Register-blocked tile: 32 (x) by 16 (y) outputs of one frame, each thread
// R = 4 rows of one column.
inline constexpr int conv3d_rb_tile_x = 32;
inline constexpr int conv3d_rb_rows = 4;
inline constexpr int conv3d_rb_tile_y = 16;

inline std::size_t conv3d_register_scratch_bytes(int k) {
  constexpr int tx = conv3d_rb_tile_x, ty = conv3d_rb_tile_y;
  return (std::size_t(ty + k - 1) * (tx + k - 1) + std::size_t(k) * k + std::size_t(tx) * ty) * sizeof(float) +
         conv3d_scratch_slack;
}

#if !defined(__CUDA_ARCH__)
// Host register block: R output rows by X outputs along x of one frame, all
// k^3 taps. Each X-wide input vector feeds up to R rows' multiply-adds. The
// lanes are GCC vector types: written as plain loops inside the Kokkos
// lambda, g++ either kept the accumulators in memory or did not vectorise.
// Every access to acc has constant indices (the stores too: a run-time row
// index would put acc on the stack, a load and a store around every add).
// v: input (t0, y0 + s, x0 + s); kf: k^3 taps (l, j, m) contiguous;
// out: output (t0, y0, x0); strides in floats.
template <int R, int X>
[[gnu::noinline]] void conv3d_register_host_block(const float* v, std::ptrdiff_t vplane, std::ptrdiff_t vrow,
                                                  const float* kf, int k, float* out, std::ptrdiff_t orow, int rows,
                                                  int cols) {
  typedef float lanes __attribute__((vector_size(16)));
  typedef float ulanes __attribute__((vector_size(16), aligned(4), may_alias));  // unaligned, aliasing floats
  constexpr int V = X / 4;
  static_assert(X % 4 == 0, "X: whole 4-float vectors");
  lanes acc[R][V];
  for (int r = 0; r < R; ++r)
    for (int u = 0; u < V; ++u) acc[r][u] = lanes{0, 0, 0, 0};
  for (int l = 0; l < k; ++l)
    for (int q = 0; q < k + R - 1; ++q) {
      const float* in = v + l * vplane + q * vrow;
      const float* w = kf + std::ptrdiff_t(l * k + q) * k;  // taps row j = q - r: w - r k
      for (int m = 0; m < k; ++m) {
        lanes x[V];
        for (int u = 0; u < V; ++u) x[u] = *reinterpret_cast<const ulanes*>(in + m + 4 * u);
        // R is a constant: the r loop unrolls and acc stays in registers.
        for (int r = 0; r < R; ++r) {
          if (q - r < 0 || q - r >= k) continue;
          const float wr = w[m - r * k];
          for (int u = 0; u < V; ++u) acc[r][u] += wr * x[u];
        }
      }
    }
  for (int r = 0; r < R; ++r) {
    if (r >= rows) break;
    float* o = out + r * orow;
    if (cols == X) {
      for (int u = 0; u < V; ++u) *reinterpret_cast<ulanes*>(o + 4 * u) = acc[r][u];
    } else {
      for (int u = 0; u < V; ++u)
        for (int i = 0; i < 4; ++i)
          if (4 * u + i < cols) o[4 * u + i] = acc[r][u][i];
    }
  }
}
#endif

#if TESSERA_HOST_X86
// conv3d_register_host_block in AVX2 and FMA (taken at run time where the CPU
// has them): 8 floats a vector and one fused multiply-add per 8 products,
// where the build's SSE2 block takes a multiply and an add per 4. The same
// sums in the same order; each product is added unrounded.
template <int R, int X>
[[gnu::target("avx2,fma"), gnu::noinline]] void conv3d_register_host_block_avx2(
    const float* v, std::ptrdiff_t vplane, std::ptrdiff_t vrow, const float* kf, int k, float* out, std::ptrdiff_t orow,
    int rows, int cols) {
  constexpr int V = X / 8;
  static_assert(X % 8 == 0, "X: whole 8-float vectors");
  __m256 acc[R][V];
  for (int r = 0; r < R; ++r)
    for (int u = 0; u < V; ++u) acc[r][u] = _mm256_setzero_ps();
  for (int l = 0; l < k; ++l)
    for (int q = 0; q < k + R - 1; ++q) {
      const float* in = v + l * vplane + q * vrow;
      const float* w = kf + std::ptrdiff_t(l * k + q) * k;  // taps row j = q - r: w - r k
      for (int m = 0; m < k; ++m) {
        __m256 x[V];
        for (int u = 0; u < V; ++u) x[u] = _mm256_loadu_ps(in + m + 8 * u);
        for (int r = 0; r < R; ++r) {
          if (q - r < 0 || q - r >= k) continue;
          const __m256 wr = _mm256_set1_ps(w[m - r * k]);
          for (int u = 0; u < V; ++u) acc[r][u] = _mm256_fmadd_ps(wr, x[u], acc[r][u]);
        }
      }
    }
  for (int r = 0; r < R; ++r) {
    if (r >= rows) break;
    float* o = out + r * orow;
    for (int u = 0; u < V; ++u) {
      if (cols >= 8 * (u + 1)) {
        _mm256_storeu_ps(o + 8 * u, acc[r][u]);
      } else {
        alignas(32) float t[8];
        _mm256_store_ps(t, acc[r][u]);
        for (int i = 0; 8 * u + i < cols && i < 8; ++i) o[8 * u + i] = t[i];
      }
    }
  }
}
#endif

// Host spaces: blocks of conv3d_host_rows x conv3d_host_x outputs through
// the vectorised block above; a block whose input window leaves the frame
// (zero padding) reads a zero-padded copy of that window first.
// 2 x 32 outputs: 8 AVX2 accumulators, enough independent FMA chains for two
// FMA ports of 4-cycle latency (2 x 16: 4 chains, at most half the FMA rate;
// 4 x 16 measured 12% slower, 2 x 24 and 2 x 32 5% faster on the development
// host at k = 9, 15). The SSE2 block takes a block as two halves of 16.
inline constexpr int conv3d_host_rows = 2;
inline constexpr int conv3d_host_x = 32;
inline constexpr int conv3d_host_x_sse = 16;
inline constexpr int conv3d_host_max_k = 15;  // the padded copy's size; larger k: scalar loop

template <class ExecSpace, class VView, class KView, class OView>
void conv3d_register_host(const ExecSpace& exec, const VView& v, const KView& kf, const OView& out,
                          const Conv3dGeometry& g, bool simd = true) {
  constexpr int R = conv3d_host_rows, X = conv3d_host_x;
  const bool avx2 = simd && host_avx2_fma();
  // The block: AVX2 + FMA where the CPU has them, else the build's SSE2 lanes.
  auto block = [avx2](const float* vb, std::ptrdiff_t vplane, std::ptrdiff_t vrow, const float* kb, int kk, float* ob,
                      std::ptrdiff_t orow, int rows, int cols) {
#if !defined(__CUDA_ARCH__)  // the blocks are host code (a CUDA build's device pass parses this too)
#if TESSERA_HOST_X86
    if (avx2) {
      conv3d_register_host_block_avx2<R, X>(vb, vplane, vrow, kb, kk, ob, orow, rows, cols);
      return;
    }
#endif
    constexpr int H = conv3d_host_x_sse;
    static_assert(X == 2 * H, "two SSE2 halves a block");
    conv3d_register_host_block<R, H>(vb, vplane, vrow, kb, kk, ob, orow, rows, cols < H ? cols : H);
    if (cols > H) conv3d_register_host_block<R, H>(vb + H, vplane, vrow, kb, kk, ob + H, orow, rows, cols - H);
#endif
    (void)avx2, (void)vb, (void)vplane, (void)vrow, (void)kb, (void)kk, (void)ob, (void)orow, (void)rows, (void)cols;
  };
  const int k = g.k, H = g.H, W = g.W, Ho = g.Ho, Wo = g.Wo, s = g.shift;
  const int nx = (Wo + X - 1) / X, ny = (Ho + R - 1) / R;
  const Index n = Index(g.To) * ny * nx;
  // The taps contiguous (l, j, m): kf itself when it is (conv3d.hpp's flipped
  // filter always is), else a copy.
  using Taps = Kokkos::View<const float***, Kokkos::LayoutRight, typename ExecSpace::memory_space>;
  Taps taps;
  if constexpr (std::is_same_v<typename KView::array_layout, Kokkos::LayoutRight> &&
                std::is_same_v<typename KView::non_const_value_type, float> &&
                std::is_same_v<typename KView::memory_space, typename ExecSpace::memory_space>) {
    if (kf.span_is_contiguous()) taps = kf;
  }
  if (!taps.data()) {
    Kokkos::View<float***, Kokkos::LayoutRight, typename ExecSpace::memory_space> copy("tessera::conv3d_taps", k, k, k);
    Kokkos::deep_copy(exec, copy, kf);
    taps = copy;
  }
  const bool unit_stride = v.stride(2) == 1 && out.stride(2) == 1;
  Kokkos::parallel_for(
      "tessera::video::conv3d_register_host", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<Index>>(exec, 0, n),
      KOKKOS_LAMBDA(const Index b) {
        const int x0 = int(b % nx) * X, y0 = int((b / nx) % ny) * R, t0 = int(b / (Index(nx) * ny));
        const int rows = Ho - y0 < R ? Ho - y0 : R;
#if !defined(__CUDA_ARCH__)
        const bool inside = y0 + s >= 0 && y0 + s + R + k - 2 < H && x0 + s >= 0 && x0 + s + X + k - 2 < W;
        const int cols = Wo - x0 < X ? Wo - x0 : X;
        if (unit_stride && inside) {
          block(&v(t0, y0 + s, x0 + s), std::ptrdiff_t(v.stride(0)), std::ptrdiff_t(v.stride(1)), taps.data(), k,
                &out(t0, y0, x0), std::ptrdiff_t(out.stride(1)), rows, cols);
          return;
        }
        if (unit_stride && k <= conv3d_host_max_k) {
          constexpr int kMaxY = R + conv3d_host_max_k - 1, kMaxX = X + conv3d_host_max_k - 1;
          float window[conv3d_host_max_k * kMaxY * kMaxX];
          const int ey = R + k - 1, ex = X + k - 1;
          for (int l = 0; l < k; ++l)
            for (int q = 0; q < ey; ++q)
              for (int a = 0; a < ex; ++a)
                window[(l * ey + q) * ex + a] = conv3d_load(v, t0 + l, y0 + s + q, x0 + s + a, H, W);
          block(window, std::ptrdiff_t(ey) * ex, ex, taps.data(), k, &out(t0, y0, x0), std::ptrdiff_t(out.stride(1)),
                rows, cols);
          return;
        }
#endif
        for (int r = 0; r < rows; ++r)
          for (int x = x0; x < x0 + X && x < Wo; ++x) {
            const int y = y0 + r;
            float acc = 0;
            for (int l = 0; l < k; ++l)
              for (int j = 0; j < k; ++j)
                for (int m = 0; m < k; ++m) acc += taps(l, j, m) * conv3d_load(v, t0 + l, y + s + j, x + s + m, H, W);
            out(t0, y, x) = acc;
          }
      });
}

// Register-blocked direct kernel: for each kernel plane l the team loads one
// (16+k-1) x (32+k-1) input plane; each thread slides down its column, so
// one scratch load feeds up to R = 4 FMAs (one per output row it holds).
template <class ExecSpace, class VView, class KView, class OView>
void conv3d_register_kokkos(const ExecSpace& exec, const VView& v, const KView& kf, const OView& out,
                            const Conv3dGeometry& g, bool simd = true) {
  if constexpr (!is_device_space_v<ExecSpace>) {
    if constexpr (std::is_same_v<typename VView::non_const_value_type, float> &&
                  std::is_same_v<typename OView::non_const_value_type, float>) {
      conv3d_register_host(exec, v, kf, out, g, simd);
      return;
    }
  }
  (void)simd;
  constexpr int tx = conv3d_rb_tile_x, ty = conv3d_rb_tile_y, R = conv3d_rb_rows;
  constexpr int threads = tx * (ty / R);
  const int k = g.k, H = g.H, W = g.W, To = g.To, Ho = g.Ho, Wo = g.Wo, s = g.shift;
  const int ex = tx + k - 1, ey = ty + k - 1;
  const int nx = (Wo + tx - 1) / tx, ny = (Ho + ty - 1) / ty;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  Policy policy(exec, To * ny * nx, conv3d_team_threads<ExecSpace>(threads));
  policy.set_scratch_size(0, Kokkos::PerTeam(conv3d_register_scratch_bytes(k)));
  Kokkos::parallel_for(
      "tessera::video::conv3d_register", policy, KOKKOS_LAMBDA(const Member& team) {
        const int b = team.league_rank();
        const int x0 = (b % nx) * tx, y0 = ((b / nx) % ny) * ty, t0 = b / (nx * ny);
        ScratchFloats<ExecSpace> plane(team.team_scratch(0), ey * ex);
        ScratchFloats<ExecSpace> kp(team.team_scratch(0), k * k);
        ScratchFloats<ExecSpace> acc(team.team_scratch(0), tx * ty);
        for (int l = 0; l < k; ++l) {
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, ey * ex), [&](const int i) {
            const int a = i % ex, bb = i / ex;
            plane(i) = conv3d_load(v, t0 + l, y0 + s + bb, x0 + s + a, H, W);
          });
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, k * k), [&](const int i) { kp(i) = kf(l, i / k, i % k); });
          team.team_barrier();
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, threads), [&](const int i) {
            const int xi = i % tx, yb = (i / tx) * R;
            float a[R];
            for (int r = 0; r < R; ++r) a[r] = l == 0 ? 0.0f : acc((yb + r) * tx + xi);
            for (int m = 0; m < k; ++m)
              for (int q = 0; q < k + R - 1; ++q) {
                const float val = plane((yb + q) * ex + xi + m);
                for (int r = 0; r < R; ++r) {
                  const int j = q - r;
                  if (j >= 0 && j < k) a[r] += kp(j * k + m) * val;
                }
              }
            for (int r = 0; r < R; ++r) {
              const int y = y0 + yb + r, x = x0 + xi;
              if (l == k - 1) {
                if (y < Ho && x < Wo) out(t0, y, x) = a[r];
              } else {
                acc((yb + r) * tx + xi) = a[r];
              }
            }
          });
          team.team_barrier();
        }
      });
}

// kf(l, j, m) = K(k-1-l, k-1-j, k-1-m): the kernel the correlation kernels use.
template <class ExecSpace, class KView, class FView>
void conv3d_flip_kokkos(const ExecSpace& exec, const KView& K, const FView& kf) {
  const int k = int(K.extent(0));
  Kokkos::parallel_for(
      "tessera::video::conv3d_flip", Kokkos::RangePolicy<ExecSpace>(exec, 0, k * k * k), KOKKOS_LAMBDA(const int i) {
        const int m = i % k, j = (i / k) % k, l = i / (k * k);
        kf(l, j, m) = K(k - 1 - l, k - 1 - j, k - 1 - m);
      });
}

}  // namespace tessera::video::impl
