// conv3d by cuFFT: the paper's 3-D FOURIER and HYBRID FOURIER methods (see
// Conv3dCufft in conv3d_native_cuda.hpp). Sizes as in the FFTW version:
// 2-3-5-smooth, N >= H + k/2 (same) or H (valid) in y and x, N >= T in t for
// the 3-D method (valid in t never wraps).
#include "tessera/video/conv3d_native_cuda.hpp"

#include <cufft.h>

#include <stdexcept>
#include <string>

namespace tessera::native_cuda {
namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("conv3d cuFFT: ") + what + ": " + cudaGetErrorString(e));
}
void check(cufftResult r, const char* what) {
  if (r != CUFFT_SUCCESS) throw std::runtime_error(std::string("conv3d cuFFT: ") + what + ": error " + std::to_string(int(r)));
}

long long smooth(long long n) {
  for (long long m = n < 1 ? 1 : n;; ++m) {
    long long r = m;
    for (long long p : {2, 3, 5})
      while (r % p == 0) r /= p;
    if (r == 1) return m;
  }
}

// dst[t][y][x] for t < dframes, y < drows, x < dwidth: src[t][y][x] inside the box frames x rows x width (width <=
// dwidth), 0 outside it; plane and row pitches in floats. One warp per destination row, so the only division is one
// per row (32-bit); four loads in flight per thread.
__global__ void copy_box(const float* __restrict__ src, long long s_plane, int s_pitch, int frames, int rows, int width,
                         float* __restrict__ dst, long long d_plane, int d_pitch, int dframes, int drows, int dwidth) {
  const unsigned row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  if (row >= unsigned(dframes) * unsigned(drows)) return;
  const unsigned t = row / unsigned(drows), y = row - t * unsigned(drows);
  const int lane = int(threadIdx.x % 32);
  float* d = dst + t * d_plane + (long long)y * d_pitch;
  const int n = (int(t) < frames && int(y) < rows) ? width : 0;
  const float* s = n ? src + t * s_plane + (long long)y * s_pitch : src;
  for (int x0 = lane; x0 < dwidth; x0 += 128) {
    float v[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int x = x0 + 32 * j;
      v[j] = x < n ? s[x] : 0.f;
    }
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int x = x0 + 32 * j;
      if (x < dwidth) d[x] = v[j];
    }
  }
}

void launch_copy_box(cudaStream_t stream, const float* src, long long s_plane, int s_pitch, int frames, int rows,
                     int width, float* dst, long long d_plane, int d_pitch, int dframes, int drows, int dwidth) {
  const long long n_rows = (long long)dframes * drows;
  if (n_rows == 0) return;
  copy_box<<<unsigned((n_rows + 7) / 8), 256, 0, stream>>>(src, s_plane, s_pitch, frames, rows, width, dst, d_plane,
                                                           d_pitch, dframes, drows, dwidth);
}

__global__ void scale_copy(const cufftComplex* __restrict__ src, cufftComplex* __restrict__ dst, long long n, float s) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    dst[i] = make_cuComplex(src[i].x * s, src[i].y * s);
}

__global__ void multiply(cufftComplex* __restrict__ c, const cufftComplex* __restrict__ kh, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const cufftComplex a = c[i], b = kh[i];
    c[i] = make_cuComplex(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
  }
}

// o[t][f] = sum_l c[t + k - 1 - l][f] * kh[l][f] (l ascending, as before): one thread per frequency, the outputs in
// chunks of TC with their accumulators in registers. At tap l output t0 + i reads frame t0 + i + k - 1 - l, so the TC
// inputs of a chunk are a window that moves down one frame per tap: each input frame and each kh[l] is loaded once
// per chunk (k + TC - 1 and k loads instead of 2 k TC). Window slots of outputs past To (the last chunk) hold real
// frames or zeros and their sums are dropped.
template <int TC>
__global__ void __launch_bounds__(256)
    time_convolution(const cufftComplex* __restrict__ c, const cufftComplex* __restrict__ kh,
                     cufftComplex* __restrict__ o, long long plane, int k, int T, int To) {
  const long long f = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (f >= plane) return;
  c += f;
  kh += f;
  o += f;
  for (int t0 = 0; t0 < To; t0 += TC) {
    cufftComplex w[TC], acc[TC];
#pragma unroll
    for (int i = 0; i < TC; ++i) {
      const int j = t0 + i + k - 1;
      w[i] = j < T ? c[j * plane] : make_cuComplex(0.f, 0.f);
      acc[i] = make_cuComplex(0.f, 0.f);
    }
#pragma unroll 3
    for (int l = 0; l < k; ++l) {
      const cufftComplex b = kh[l * plane];
#pragma unroll
      for (int i = 0; i < TC; ++i) {
        const cufftComplex a = w[i];
        acc[i].x += a.x * b.x - a.y * b.y;
        acc[i].y += a.x * b.y + a.y * b.x;
      }
      if (l + 1 < k) {
#pragma unroll
        for (int i = TC - 1; i > 0; --i) w[i] = w[i - 1];
        w[0] = c[(t0 + k - 2 - l) * plane];  // frame t0 + k - 1 - (l + 1), in range
      }
    }
#pragma unroll
    for (int i = 0; i < TC; ++i)
      if (t0 + i < To) o[(t0 + i) * plane] = acc[i];
  }
}

unsigned grid_for(long long n) {
  const long long b = (n + 255) / 256;
  return unsigned(b < 65536 ? (b < 1 ? 1 : b) : 65536);
}

}  // namespace

struct Conv3dCufft::State {
  bool hybrid = false;
  video::impl::Conv3dGeometry g;
  cudaStream_t stream = nullptr;
  int Nt = 1, Ny = 1, Nx = 1, Nxc = 1, off = 0, frames = 0;
  float* r = nullptr;
  cufftComplex *c = nullptr, *o = nullptr, *kh = nullptr;
  cufftHandle fwd = 0, inv = 0;
  bool has_fwd = false, has_inv = false;
  std::size_t real_n = 0, spec_n = 0, out_n = 0, kernel_n = 0;
  ~State() {
    if (has_fwd) cufftDestroy(fwd);
    if (has_inv) cufftDestroy(inv);
    cudaFree(r);
    cudaFree(c);
    cudaFree(o);
    cudaFree(kh);
  }
};

Conv3dCufft::Conv3dCufft(bool hybrid, const video::impl::Conv3dGeometry& g, cudaStream_t stream)
    : s_(std::make_unique<State>()) {
  auto& s = *s_;
  s.hybrid = hybrid;
  s.g = g;
  s.stream = stream;
  const bool valid = g.shift == 0;
  const int c = g.k / 2;
  s.off = valid ? g.k - 1 : c;
  s.Ny = int(smooth(valid ? g.H : g.H + c));
  s.Nx = int(smooth(valid ? g.W : g.W + c));
  s.Nxc = s.Nx / 2 + 1;
  const std::size_t plane = std::size_t(s.Ny) * s.Nx, cplane = std::size_t(s.Ny) * s.Nxc;
  if (!hybrid) {
    s.Nt = int(smooth(g.T));
    s.frames = s.Nt;
    s.kernel_n = std::size_t(s.Nt) * cplane;
  } else {
    s.frames = g.T;
    s.out_n = std::size_t(g.To) * cplane;
    s.kernel_n = std::size_t(g.k) * cplane;
  }
  s.real_n = std::size_t(s.frames) * plane;
  s.spec_n = std::size_t(s.frames) * cplane;
  check(cudaMalloc(&s.r, s.real_n * sizeof(float)), "cudaMalloc");
  check(cudaMalloc(&s.c, s.spec_n * sizeof(cufftComplex)), "cudaMalloc");
  if (s.out_n) check(cudaMalloc(&s.o, s.out_n * sizeof(cufftComplex)), "cudaMalloc");
  check(cudaMalloc(&s.kh, s.kernel_n * sizeof(cufftComplex)), "cudaMalloc");
  // The hybrid keeps r zero outside the data box (T x H x W at the origin of each plane) from here on: execute writes
  // only that box, the forward transform (out of place) leaves r as it is, the inverse writes elsewhere.
  check(cudaMemsetAsync(s.r, 0, s.real_n * sizeof(float), stream), "cudaMemsetAsync");
  if (!hybrid) {
    check(cufftPlan3d(&s.fwd, s.Nt, s.Ny, s.Nx, CUFFT_R2C), "plan");
    s.has_fwd = true;
    check(cufftPlan3d(&s.inv, s.Nt, s.Ny, s.Nx, CUFFT_C2R), "plan");
    s.has_inv = true;
  } else {
    int n[2] = {s.Ny, s.Nx};
    check(cufftPlanMany(&s.fwd, 2, n, nullptr, 1, int(plane), nullptr, 1, int(cplane), CUFFT_R2C, g.T), "plan");
    s.has_fwd = true;
    check(cufftPlanMany(&s.inv, 2, n, nullptr, 1, int(cplane), nullptr, 1, int(plane), CUFFT_C2R, g.To), "plan");
    s.has_inv = true;
  }
  check(cufftSetStream(s.fwd, stream), "stream");
  check(cufftSetStream(s.inv, stream), "stream");
}

Conv3dCufft::~Conv3dCufft() = default;

std::size_t Conv3dCufft::workspace_bytes() const {
  const auto& s = *s_;
  return s.real_n * sizeof(float) + (s.spec_n + s.out_n + s.kernel_n) * sizeof(cufftComplex);
}

void Conv3dCufft::set_kernel(const float* K) {
  auto& s = *s_;
  const auto& g = s.g;
  const int k = g.k, kr = k < s.Ny ? k : s.Ny, kc = k < s.Nx ? k : s.Nx;
  const long long plane = (long long)s.Ny * s.Nx;
  // The kernel at the origin of a zero volume, through the data's forward plan. The 3-D method's r holds the last
  // inverse everywhere; the hybrid's is zero outside the data box, so clearing the box (and the kernel's) is enough.
  if (s.hybrid)
    launch_copy_box(s.stream, K, (long long)k * k, k, k, kr, kc, s.r, plane, s.Nx, s.frames, g.H > kr ? g.H : kr,
                    g.W > kc ? g.W : kc);
  else
    launch_copy_box(s.stream, K, (long long)k * k, k, k, kr, kc, s.r, plane, s.Nx, s.frames, s.Ny, s.Nx);
  check(cudaGetLastError(), "pad kernel");
  check(cufftExecR2C(s.fwd, s.r, s.c), "forward");
  // Hybrid: zero the kernel's box again (it may reach past the data box when H or W < k).
  if (s.hybrid) launch_copy_box(s.stream, K, 0, 0, 0, 0, 0, s.r, plane, s.Nx, k, kr, kc);
  check(cudaGetLastError(), "clear kernel");
  const float scale = float(1.0 / (double(s.Nt) * s.Ny * s.Nx));
  scale_copy<<<grid_for(s.kernel_n), 256, 0, s.stream>>>(s.c, s.kh, (long long)s.kernel_n, scale);
  check(cudaGetLastError(), "scale");
}

void Conv3dCufft::execute(const float* v, float* out) {
  auto& s = *s_;
  const auto& g = s.g;
  const long long plane = (long long)s.Ny * s.Nx, cplane = (long long)s.Ny * s.Nxc;
  // Input rows of W floats into rows of Nx: the hybrid's padding is already zero (see the constructor), the 3-D
  // method's inverse overwrote it, so it is written again (rows and columns past the frame, frames T .. Nt - 1).
  if (s.hybrid)
    launch_copy_box(s.stream, v, (long long)g.H * g.W, g.W, g.T, g.H, g.W, s.r, plane, s.Nx, g.T, g.H, g.W);
  else
    launch_copy_box(s.stream, v, (long long)g.H * g.W, g.W, g.T, g.H, g.W, s.r, plane, s.Nx, s.frames, s.Ny, s.Nx);
  check(cudaGetLastError(), "pad");
  check(cufftExecR2C(s.fwd, s.r, s.c), "forward");
  const float* result = s.r;  // the real volume the output frames are cut from
  int t_off = g.k - 1;
  if (!s.hybrid) {
    multiply<<<grid_for(s.spec_n), 256, 0, s.stream>>>(s.c, s.kh, (long long)s.spec_n);
    check(cudaGetLastError(), "multiply");
    check(cufftExecC2R(s.inv, s.c, s.r), "inverse");
  } else {
    time_convolution<4><<<unsigned((cplane + 255) / 256), 256, 0, s.stream>>>(s.c, s.kh, s.o, cplane, g.k, g.T, g.To);
    check(cudaGetLastError(), "time convolution");
    // The input spectrum is dead once the t-convolution has read it: the To output frames (To Ny Nx floats, no more
    // than its T Ny Nxc complex values) go there, so r keeps its zero padding and no buffer is added.
    float* planes = reinterpret_cast<float*>(s.c);
    check(cufftExecC2R(s.inv, s.o, planes), "inverse");
    result = planes;
    t_off = 0;
  }
  launch_copy_box(s.stream, result + t_off * plane + (long long)s.off * s.Nx + s.off, plane, s.Nx, g.To, g.Ho, g.Wo,
                  out, (long long)g.Ho * g.Wo, g.Wo, g.To, g.Ho, g.Wo);
  check(cudaGetLastError(), "extract");
}

}  // namespace tessera::native_cuda
