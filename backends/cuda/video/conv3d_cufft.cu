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

// Zero-padded copy of frames (T, H, W) into (frames, Ny, Nx); frames >= T.
__global__ void pad_frames(const float* __restrict__ src, float* __restrict__ dst, int T, int H, int W, int frames,
                           int Ny, int Nx) {
  const long long n = (long long)frames * Ny * Nx;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const int x = int(i % Nx), y = int((i / Nx) % Ny), t = int(i / ((long long)Nx * Ny));
    dst[i] = (t < T && y < H && x < W) ? src[((long long)t * H + y) * W + x] : 0.f;
  }
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

// o[t][f] = sum_l c[t + k - 1 - l][f] * kh[l][f]: one thread per frequency, all output frames.
__global__ void time_convolution(const cufftComplex* __restrict__ c, const cufftComplex* __restrict__ kh,
                                 cufftComplex* __restrict__ o, long long plane, int k, int To) {
  const long long f = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (f >= plane) return;
  for (int t = 0; t < To; ++t) {
    float re = 0, im = 0;
    for (int l = 0; l < k; ++l) {
      const cufftComplex a = c[(t + k - 1 - l) * plane + f], b = kh[l * plane + f];
      re += a.x * b.x - a.y * b.y;
      im += a.x * b.y + a.y * b.x;
    }
    o[t * plane + f] = make_cuComplex(re, im);
  }
}

__global__ void extract(const float* __restrict__ r, float* __restrict__ out, int To, int Ho, int Wo, int t_off, int off,
                        int Ny, int Nx) {
  const long long n = (long long)To * Ho * Wo;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    const int x = int(i % Wo), y = int((i / Wo) % Ho), t = int(i / ((long long)Wo * Ho));
    out[i] = r[((long long)(t + t_off) * Ny + y + off) * Nx + x + off];
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
  const int k = s.g.k;
  // The kernel at the origin of a zero volume, through the data's forward plan.
  pad_frames<<<grid_for(s.real_n), 256, 0, s.stream>>>(K, s.r, k, k, k, s.frames, s.Ny, s.Nx);
  check(cudaGetLastError(), "pad kernel");
  check(cufftExecR2C(s.fwd, s.r, s.c), "forward");
  const float scale = float(1.0 / (double(s.Nt) * s.Ny * s.Nx));
  scale_copy<<<grid_for(s.kernel_n), 256, 0, s.stream>>>(s.c, s.kh, (long long)s.kernel_n, scale);
  check(cudaGetLastError(), "scale");
}

void Conv3dCufft::execute(const float* v, float* out) {
  auto& s = *s_;
  const auto& g = s.g;
  pad_frames<<<grid_for(s.real_n), 256, 0, s.stream>>>(v, s.r, g.T, g.H, g.W, s.frames, s.Ny, s.Nx);
  check(cudaGetLastError(), "pad");
  check(cufftExecR2C(s.fwd, s.r, s.c), "forward");
  const long long cplane = (long long)s.Ny * s.Nxc;
  if (!s.hybrid) {
    multiply<<<grid_for(s.spec_n), 256, 0, s.stream>>>(s.c, s.kh, (long long)s.spec_n);
    check(cudaGetLastError(), "multiply");
    check(cufftExecC2R(s.inv, s.c, s.r), "inverse");
  } else {
    time_convolution<<<unsigned((cplane + 255) / 256), 256, 0, s.stream>>>(s.c, s.kh, s.o, cplane, g.k, g.To);
    check(cudaGetLastError(), "time convolution");
    check(cufftExecC2R(s.inv, s.o, s.r), "inverse");
  }
  extract<<<grid_for((long long)g.To * g.Ho * g.Wo), 256, 0, s.stream>>>(s.r, out, g.To, g.Ho, g.Wo,
                                                                         s.hybrid ? 0 : g.k - 1, s.off, s.Ny, s.Nx);
  check(cudaGetLastError(), "extract");
}

}  // namespace tessera::native_cuda
