// conv3d by FFTW (float): the paper's 3-D FOURIER and HYBRID FOURIER methods.
#include "tessera/video/conv3d_fft.hpp"

#if defined(TESSERA_VIDEO_HAS_FFTW)
#include <fftw3.h>
#if defined(_OPENMP)
#include <omp.h>
#endif

#include <algorithm>
#include <chrono>
#include <complex>
#include <cstring>
#include <mutex>
#include <new>
#include <stdexcept>
#include <utility>
#include <vector>

namespace tessera::video {
namespace {

// FFTW's planner is not thread-safe: one lock for every plan made or freed here.
std::mutex& planner_mutex() {
  static std::mutex m;
  return m;
}

template <class T>
T* fftw_alloc(std::size_t n) {
  void* p = fftwf_malloc(n * sizeof(T));
  if (!p) throw std::bad_alloc();
  std::memset(p, 0, n * sizeof(T));
  return static_cast<T*>(p);
}

// Sets FFTW's thread count for the next plans (0: as many as OpenMP has);
// returns it.
int set_threads(int threads) {
#if defined(TESSERA_VIDEO_FFTW_THREADS)
  static std::once_flag once;
  std::call_once(once, [] { fftwf_init_threads(); });
#if defined(_OPENMP)
  if (threads <= 0) threads = omp_get_max_threads();
#endif
  threads = std::max(threads, 1);
  fftwf_plan_with_nthreads(threads);
  return threads;
#else
  (void)threads;
  return 1;
#endif
}

// Seconds of one forward and one inverse transform.
double transforms_once(fftwf_plan fwd, fftwf_plan inv) {
  const auto t0 = std::chrono::steady_clock::now();
  fftwf_execute(fwd);
  fftwf_execute(inv);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

struct Conv3dFftw::State {
  Conv3dFourierMethod method;
  long long Nt = 1, Ny = 1, Nx = 1, Nxc = 1;
  int off = 0;  // input index of output (0, 0) in y and x in the full convolution
  float* r = nullptr;                 // real frames (input, then output)
  std::complex<float>* c = nullptr;   // spectra of the input
  std::complex<float>* o = nullptr;   // hybrid: spectra of the output frames
  std::complex<float>* kh = nullptr;  // kernel spectrum (scaled by 1/N)
  fftwf_plan fwd = nullptr, inv = nullptr;
  std::size_t real_n = 0, spec_n = 0, out_spec_n = 0, kernel_n = 0;
  bool measured_plan = false;  // FFTW_MEASURE's plan kept (not FFTW_ESTIMATE's)
  int threads = 1;             // FFTW threads of the kept plans

  ~State() {
    std::lock_guard<std::mutex> lock(planner_mutex());
    if (fwd) fftwf_destroy_plan(fwd);
    if (inv) fftwf_destroy_plan(inv);
    fftwf_free(r);
    fftwf_free(c);
    fftwf_free(o);
    fftwf_free(kh);
  }
};

Conv3dFftw::Conv3dFftw(Conv3dFourierMethod method, int T, int H, int W, int k, Conv3dPadding padding, int threads,
                       bool measure)
    : g_(conv3d_geometry(T, H, W, k, padding)), s_(std::make_unique<State>()) {
  auto& s = *s_;
  s.method = method;
  const int c = k / 2;
  const bool valid = padding == Conv3dPadding::valid;
  s.off = valid ? k - 1 : c;
  // Wrapped indices must land in the zero padding: N >= H + k/2 for same-size output.
  s.Ny = fft_smooth_size(valid ? H : H + c);
  s.Nx = fft_smooth_size(valid ? W : W + c);
  s.Nxc = s.Nx / 2 + 1;
  const std::size_t plane = std::size_t(s.Ny) * s.Nx, cplane = std::size_t(s.Ny) * s.Nxc;
  if (method == Conv3dFourierMethod::fourier3d) {
    s.Nt = fft_smooth_size(T);  // valid in t: indices t .. t + k - 1 never wrap
    s.real_n = std::size_t(s.Nt) * plane;
    s.spec_n = std::size_t(s.Nt) * cplane;
    s.kernel_n = s.spec_n;
  } else {
    s.real_n = std::size_t(T) * plane;
    s.spec_n = std::size_t(T) * cplane;
    s.out_spec_n = std::size_t(g_.To) * cplane;
    s.kernel_n = std::size_t(k) * cplane;
  }
  s.r = fftw_alloc<float>(s.real_n);
  s.c = fftw_alloc<std::complex<float>>(s.spec_n);
  if (s.out_spec_n) s.o = fftw_alloc<std::complex<float>>(s.out_spec_n);
  s.kh = fftw_alloc<std::complex<float>>(s.kernel_n);
  auto* cc = reinterpret_cast<fftwf_complex*>(s.c);
  auto* oc = reinterpret_cast<fftwf_complex*>(s.o);
  const int n2[2] = {int(s.Ny), int(s.Nx)};
  auto plan = [&](unsigned flags) {
    std::pair<fftwf_plan, fftwf_plan> p;
    if (method == Conv3dFourierMethod::fourier3d) {
      p.first = fftwf_plan_dft_r2c_3d(int(s.Nt), int(s.Ny), int(s.Nx), s.r, cc, flags);
      p.second = fftwf_plan_dft_c2r_3d(int(s.Nt), int(s.Ny), int(s.Nx), cc, s.r, flags);
    } else {
      p.first = fftwf_plan_many_dft_r2c(2, n2, T, s.r, nullptr, 1, int(plane), cc, nullptr, 1, int(cplane), flags);
      p.second = fftwf_plan_many_dft_c2r(2, n2, g_.To, oc, nullptr, 1, int(cplane), s.r, nullptr, 1, int(plane), flags);
    }
    if (!p.first || !p.second) throw std::runtime_error("tessera::video::Conv3dFftw: FFTW could not plan the transforms");
    return p;
  };
  auto destroy = [](std::pair<fftwf_plan, fftwf_plan>& p) {
    fftwf_destroy_plan(p.first);
    fftwf_destroy_plan(p.second);
  };
  // The faster of two runs (one run is noisy on a busy host).
  auto best_of_two = [](const std::pair<fftwf_plan, fftwf_plan>& p) {
    return std::min(transforms_once(p.first, p.second), transforms_once(p.first, p.second));
  };
  std::lock_guard<std::mutex> lock(planner_mutex());
  const int nthreads = set_threads(threads);
  s.threads = nthreads;
  // FFTW_MEASURE tries many plans; bound its search (it keeps the best found).
  fftwf_set_timelimit(measure ? 5.0 : FFTW_NO_TIMELIMIT);
  auto chosen = plan(measure ? FFTW_MEASURE : FFTW_ESTIMATE);
  s.measured_plan = measure;
  if (measure) {
    // A search cut short by the time limit guarantees nothing, and more
    // threads are not always faster (18 x 576 x 729 on a 16-core Xeon: 62 ms
    // on 4 threads, 598 ms on 16): FFTW_ESTIMATE's plans on all, half and a
    // quarter of the threads are timed against it and the fastest is kept.
    std::memset(s.r, 0, s.real_n * sizeof(float));
    double best = best_of_two(chosen);
    for (int t = nthreads; t >= std::max(1, nthreads / 4); t /= 2) {
      set_threads(t);
      auto candidate = plan(FFTW_ESTIMATE);
      const double tc = best_of_two(candidate);
      if (tc < best) {
        destroy(chosen);
        chosen = candidate;
        best = tc;
        s.measured_plan = false;
        s.threads = t;
      } else {
        destroy(candidate);
      }
      if (t == 1) break;
    }
    set_threads(nthreads);
  }
  s.fwd = chosen.first;
  s.inv = chosen.second;
  // Planning with FFTW_MEASURE overwrites the buffers.
  std::memset(s.r, 0, s.real_n * sizeof(float));
}

Conv3dFftw::~Conv3dFftw() = default;

long long Conv3dFftw::nt() const { return s_->Nt; }
bool Conv3dFftw::measured_plan() const { return s_->measured_plan; }
int Conv3dFftw::threads() const { return s_->threads; }

double Conv3dFftw::transforms_seconds(int repeats) {
  // The plans on their own buffers: execute() rewrites every buffer it reads.
  std::vector<double> t;
  for (int i = 0; i < std::max(repeats, 1) + 1; ++i) t.push_back(transforms_once(s_->fwd, s_->inv));
  t.erase(t.begin());  // the first warms the caches
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}
long long Conv3dFftw::ny() const { return s_->Ny; }
long long Conv3dFftw::nx() const { return s_->Nx; }
std::size_t Conv3dFftw::workspace_bytes() const {
  const auto& s = *s_;
  return s.real_n * sizeof(float) + (s.spec_n + s.out_spec_n + s.kernel_n) * sizeof(std::complex<float>);
}

void Conv3dFftw::set_kernel(const float* K) {
  auto& s = *s_;
  const int k = g_.k;
  const std::size_t plane = std::size_t(s.Ny) * s.Nx, cplane = std::size_t(s.Ny) * s.Nxc;
  // The kernel at the origin of a zero volume, transformed with the data's plan.
  std::memset(s.r, 0, s.real_n * sizeof(float));
  for (int l = 0; l < k; ++l)
    for (int n = 0; n < k; ++n)
      std::copy_n(K + (std::size_t(l) * k + n) * k, k, s.r + std::size_t(l) * plane + std::size_t(n) * s.Nx);
  fftwf_execute(s.fwd);
  // FFTW's inverse is unnormalised: fold 1/N into the spectrum.
  const float scale = 1.0f / float(double(s.Nt) * s.Ny * s.Nx);
  const std::size_t n = s.method == Conv3dFourierMethod::fourier3d ? s.spec_n : std::size_t(k) * cplane;
  for (std::size_t i = 0; i < n; ++i) s.kh[i] = s.c[i] * scale;
}

void Conv3dFftw::execute(const float* V, float* out) {
  auto& s = *s_;
  const int T = g_.T, H = g_.H, W = g_.W, k = g_.k, To = g_.To, Ho = g_.Ho, Wo = g_.Wo;
  const long long Ny = s.Ny, Nx = s.Nx;
  const std::size_t plane = std::size_t(Ny) * Nx, cplane = std::size_t(Ny) * s.Nxc;
  // Copy in; the padding stays zero except where the inverse wrote output last time.
#pragma omp parallel for
  for (long long ty = 0; ty < (long long)(s.method == Conv3dFourierMethod::fourier3d ? s.Nt : T) * Ny; ++ty) {
    const long long t = ty / Ny, y = ty % Ny;
    float* row = s.r + std::size_t(t) * plane + std::size_t(y) * Nx;
    if (t < T && y < H) {
      std::copy_n(V + (std::size_t(t) * H + y) * W, W, row);
      std::fill(row + W, row + Nx, 0.0f);
    } else {
      std::fill(row, row + Nx, 0.0f);
    }
  }
  fftwf_execute(s.fwd);
  // Spectra as (re, im) float pairs: written-out products vectorise, where
  // std::complex's operator* keeps a NaN check per product.
  const float* kh = reinterpret_cast<const float*>(s.kh);
  if (s.method == Conv3dFourierMethod::fourier3d) {
    float* c = reinterpret_cast<float*>(s.c);
#pragma omp parallel for
    for (long long i = 0; i < (long long)s.spec_n; ++i) {
      const float a = c[2 * i], b = c[2 * i + 1], x = kh[2 * i], y = kh[2 * i + 1];
      c[2 * i] = a * x - b * y;
      c[2 * i + 1] = a * y + b * x;
    }
    fftwf_execute(s.inv);
  } else {
    // out frame t' = sum_l V frame (t' + k - 1 - l) * K frame l, per frequency,
    // over blocks of frequencies so that every frame's block streams.
    const float* c = reinterpret_cast<const float*>(s.c);
    float* o = reinterpret_cast<float*>(s.o);
    const long long block = 512;
#pragma omp parallel for
    for (long long f0 = 0; f0 < (long long)cplane; f0 += block) {
      const long long f1 = std::min(f0 + block, (long long)cplane);
      for (int t = 0; t < To; ++t) {
        float* ot = o + 2 * (std::size_t(t) * cplane);
        for (long long f = f0; f < f1; ++f) ot[2 * f] = ot[2 * f + 1] = 0.0f;
        for (int l = 0; l < k; ++l) {
          const float* ct = c + 2 * (std::size_t(t + k - 1 - l) * cplane);
          const float* kl = kh + 2 * (std::size_t(l) * cplane);
          for (long long f = f0; f < f1; ++f) {
            const float a = ct[2 * f], b = ct[2 * f + 1], x = kl[2 * f], y = kl[2 * f + 1];
            ot[2 * f] += a * x - b * y;
            ot[2 * f + 1] += a * y + b * x;
          }
        }
      }
    }
    fftwf_execute(s.inv);
  }
  // Output frame t' sits at t' + k - 1 of the 3-D result, at t' of the hybrid's.
  const int t_off = s.method == Conv3dFourierMethod::fourier3d ? k - 1 : 0;
  const int off = s.off;
#pragma omp parallel for
  for (long long ty = 0; ty < (long long)To * Ho; ++ty) {
    const long long t = ty / Ho, y = ty % Ho;
    std::copy_n(s.r + std::size_t(t + t_off) * plane + std::size_t(y + off) * Nx + off, Wo,
                out + (std::size_t(t) * Ho + y) * Wo);
  }
}

}  // namespace tessera::video
#endif
