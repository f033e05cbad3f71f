// The conv3d family of the video workload: the paper's Tables 1-2 case (k + 3
// frames of 720 x 560 -> 4 output frames) through every conv3d algorithm, on
// seeded random data, against a double-precision reference of eq. (1).
#include "tessera/config.hpp"
#include "tessera/core/random.hpp"
#include "tessera/core/timer.hpp"
#include "tessera/core/validate.hpp"
#include "tessera/driver/workload_helpers.hpp"
#include "tessera/video/conv3d.hpp"
#include "tessera/video/conv3d_fft.hpp"
#include "tessera/video/video_io.hpp"
#include "tessera/video/workload/video_kernel.hpp"
#if TESSERA_HAS_CUDA_NATIVE
#include "tessera/video/conv3d_native_cuda.hpp"
#endif

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <type_traits>

namespace tessera::video {
namespace {

using driver::KernelResult;
using driver::MemoryNeed;
using driver::Options;
using driver::OptionSpec;
using driver::Parameter;
using driver::Platform;
using driver::Progress;
using driver::Runner;
using driver::RunSettings;
using driver::UsageError;
using driver::VariantTable;

template <class Mem>
using Vol = Kokkos::View<float***, Kokkos::LayoutRight, Mem>;
using HostVol = Kokkos::View<float***, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

constexpr double kDirectTolerance = 1e-5;  // relative to max |out|
constexpr double kFftTolerance = 1e-4;

class Conv3dKernel final : public VideoKernel {
 public:
  std::string name() const override { return "conv3d"; }
  std::vector<OptionSpec> options() const override {
    return {{"k", "K", "9", "conv3d: kernel size, odd 3..15 (k x k x k taps)"},
            {"width", "W", "720", "conv3d: frame width"},
            {"height", "H", "560", "conv3d: frame height"},
            {"frames", "T", "k+3", "conv3d: input frames (T - k + 1 output frames)"},
            {"padding", "same|valid", "same", "conv3d: x, y output same-size (zero padding) or valid"}};
  }
  void configure(const Options& opts) override {
    k_ = int(opts.get_int("k", 9, conv3d_min_k, conv3d_max_k));
    if (k_ % 2 == 0) throw UsageError("--k must be odd (3..15), got " + std::to_string(k_));
    W_ = int(opts.get_int("width", 720, 1, 1 << 15));
    H_ = int(opts.get_int("height", 560, 1, 1 << 15));
    const std::string f = opts.get("frames", "k+3");
    T_ = f == "k+3" ? k_ + 3 : int(opts.get_int("frames", k_ + 3, 1, 1 << 16));
    padding_ = driver::get_choice(opts, "padding", {"same", "valid"}, "same") == "valid" ? Conv3dPadding::valid
                                                                                       : Conv3dPadding::same;
    // --input: the first T frames' luma (0..255 as float) replace the random
    // video; the file's frame size replaces --width/--height.
    input_ = opts.get("input", "");
    input_V_.clear();
    if (!input_.empty()) {
      Y4mReader r(input_);
      W_ = r.format().width;
      H_ = r.format().height;
      if (std::int64_t(T_) * W_ * H_ > (std::int64_t(1) << 31))
        throw UsageError("conv3d: " + std::to_string(T_) + " frames of " + std::to_string(W_) + "x" +
                         std::to_string(H_) + " are over 2^31 pixels");
      input_V_.reserve(std::size_t(T_) * W_ * H_);
      Frame f;
      for (int t = 0; t < T_; ++t) {
        if (!r.read(f))
          throw UsageError("conv3d: --input '" + input_ + "' holds " + std::to_string(t) + " frames, k = " +
                           std::to_string(k_) + " needs " + std::to_string(T_));
        const std::uint8_t* y = f.plane(0);
        for (std::size_t i = 0; i < std::size_t(W_) * H_; ++i) input_V_.push_back(float(y[i]));
      }
    }
    try {
      g_ = conv3d_geometry(T_, H_, W_, k_, padding_);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }
  std::string problem_summary() const override {
    std::ostringstream s;
    s << "conv3d k = " << k_ << ": " << T_ << " frames of " << W_ << "x" << H_ << " -> " << g_.To << " frames of "
      << g_.Wo << "x" << g_.Ho << " (" << (padding_ == Conv3dPadding::valid ? "valid" : "same") << "), float"
      << (input_.empty() ? "" : ", luma of " + input_);
    return s.str();
  }
  std::vector<Parameter> parameters() const override {
    return {{"conv3d_k", (long long)k_},
            {"conv3d_width", (long long)W_},
            {"conv3d_height", (long long)H_},
            {"conv3d_frames", (long long)T_},
            {"conv3d_output_frames", (long long)g_.To},
            {"conv3d_padding", std::string(padding_ == Conv3dPadding::valid ? "valid" : "same")},
            {"conv3d_precision", std::string("float")}};
  }
  MemoryNeed memory_need() const override {
    const double in = 4.0 * T_ * H_ * W_, out = 4.0 * g_.To * g_.Ho * g_.Wo;
    // FFT buffers: padded volume real + complex + kernel spectrum (~5 volumes).
    const double fft = 5.0 * 4.0 * T_ * (H_ + k_) * (W_ + k_);
    return {in + 4 * out + fft, in + out + fft};
  }
  void prepare(std::uint64_t seed, Progress& progress) override {
    const std::size_t nv = std::size_t(T_) * H_ * W_, nk = std::size_t(k_) * k_ * k_;
    V_.resize(nv);
    K_.resize(nk);
    if (!input_V_.empty())
      V_ = input_V_;
    else
      for (std::size_t i = 0; i < nv; ++i) V_[i] = float(random_uniform(seed, i, 0.0, 1.0));
    for (std::size_t i = 0; i < nk; ++i) K_[i] = float(random_uniform(seed ^ 0x6b65726e656cull, i, -1.0, 1.0));
    // Eq. (1) in double, frame by frame.
    ref_.assign(std::size_t(g_.To) * g_.Ho * g_.Wo, 0.0);
    const int off = padding_ == Conv3dPadding::valid ? k_ - 1 : k_ / 2;
    for (int t = 0; t < g_.To; ++t) {
      progress.update("conv3d reference", t, g_.To);
      const int k = k_, H = H_, W = W_, Ho = g_.Ho, Wo = g_.Wo;
      const float* V = V_.data();
      const float* K = K_.data();
      double* R = ref_.data();
      Kokkos::parallel_for(
          "tessera::video::conv3d_reference", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, Ho),
          [=](int y) {
            for (int x = 0; x < Wo; ++x) {
              double s = 0;
              for (int l = 0; l < k; ++l)
                for (int n = 0; n < k; ++n) {
                  const int yy = y + off - n;
                  if (yy < 0 || yy >= H) continue;
                  const float* row = V + (std::size_t(t + k - 1 - l) * H + yy) * W;
                  const float* kr = K + (std::size_t(l) * k + n) * k;
                  for (int m = 0; m < k; ++m) {
                    const int xx = x + off - m;
                    if (xx >= 0 && xx < W) s += double(row[xx]) * double(kr[m]);
                  }
                }
              R[(std::size_t(t) * Ho + y) * Wo + x] = s;
            }
          });
      Kokkos::fence();
    }
    progress.finish("conv3d reference");
  }

  void declare_variants(VariantTable& t) override {
    t.add("serial-reference", Platform::cpu1, "plain loops of eq. (1), one thread",
          [this](const RunSettings& rs) { return run_serial(rs); });
    add_portable(t, "kokkos-baseline", "conv3d BASELINE: one thread per output", Conv3dAlgorithm::baseline);
    add_portable(t, "kokkos-shared", "conv3d SHARED MEMORY: (k+3)^3 input tile of a 4^3 output tile in team scratch",
                 Conv3dAlgorithm::shared);
    add_portable(t, "kokkos-streaming",
                 "conv3d STREAMING: a team per 16 x 1 (x, t) output column marches down y, 16 x k partial sums",
                 Conv3dAlgorithm::streaming);
    add_portable(t, "kokkos-register",
                 "conv3d register-blocked: 32 x 16 output tile, 4 rows per thread, one input plane in scratch",
                 Conv3dAlgorithm::register_blocked);
    const char* native = "conv3d register-blocked native CUDA kernel, taps in constant memory (tessera::video::conv3d's pick on Cuda)";
    const char* nstream = "conv3d STREAMING native CUDA: 32 columns x 64 rows per block marching down y, k partial sums in registers, taps in constant memory";
    const char* cufft3 = "conv3d 3-D FOURIER with cuFFT (R2C volume, product, C2R)";
    const char* cuffth = "conv3d HYBRID FOURIER with cuFFT (2-D per frame, k-tap complex convolution along t)";
#if TESSERA_HAS_CUDA_NATIVE
    t.add_native("native-cuda-register", Platform::gpu, native,
                 [this](const RunSettings& rs) { return run_kokkos<Kokkos::Cuda>(rs, Conv3dAlgorithm::automatic); }, "");
    t.add_native("native-cuda-streaming", Platform::gpu, nstream,
                 [this](const RunSettings& rs) { return run_native_streaming(rs); }, "");
    t.add_native("cufft-3d", Platform::gpu, cufft3, [this](const RunSettings& rs) { return run_cufft(rs, false); }, "");
    t.add_native("cufft-hybrid", Platform::gpu, cuffth, [this](const RunSettings& rs) { return run_cufft(rs, true); },
                 "");
#else
    const char* needs = "native CUDA kernels: a Cuda build with TESSERA_ENABLE_CUDA_NATIVE";
    t.add_native("native-cuda-register", Platform::gpu, native, {}, needs);
    t.add_native("native-cuda-streaming", Platform::gpu, nstream, {}, needs);
    t.add_native("cufft-3d", Platform::gpu, cufft3, {}, needs);
    t.add_native("cufft-hybrid", Platform::gpu, cuffth, {}, needs);
#endif
    const char* fftw3 = "conv3d 3-D FOURIER with FFTW float (threads)";
    const char* fftwh = "conv3d HYBRID FOURIER with FFTW float (threads)";
#if defined(TESSERA_VIDEO_HAS_FFTW)
    t.add("fftw-3d", Platform::cpu, fftw3, [this](const RunSettings& rs) { return run_fftw(rs, false); });
    t.add("fftw-hybrid", Platform::cpu, fftwh, [this](const RunSettings& rs) { return run_fftw(rs, true); });
#else
    t.add("fftw-3d", Platform::cpu, fftw3, {}, "FFTW3 float (libfftw3-dev) at build time");
    t.add("fftw-hybrid", Platform::cpu, fftwh, {}, "FFTW3 float (libfftw3-dev) at build time");
#endif
    t.set_default(Platform::gpu, TESSERA_HAS_CUDA_NATIVE ? "native-cuda-register" : "kokkos-register@Cuda");
    t.set_default(Platform::cpu, "kokkos-register@OpenMP");
  }

  // Public: nvcc allows no device lambdas in private members (the runners
  // instantiate the library's kernels).
  template <class E>
  std::vector<KernelResult> run_kokkos(const RunSettings& rs_in, Conv3dAlgorithm a) const {
    const RunSettings rs = one_thread_capped<E>(rs_in, 2.0 * k_ * k_ * k_ * double(g_.To) * g_.Ho * g_.Wo);
    E exec;
    using Mem = typename E::memory_space;
    Vol<Mem> V(Kokkos::view_alloc(Kokkos::WithoutInitializing, "V"), T_, H_, W_);
    Vol<Mem> K(Kokkos::view_alloc(Kokkos::WithoutInitializing, "K"), k_, k_, k_);
    Vol<Mem> out(Kokkos::view_alloc(Kokkos::WithoutInitializing, "out"), g_.To, g_.Ho, g_.Wo);
    Kokkos::deep_copy(exec, V, HostVol(const_cast<float*>(V_.data()), T_, H_, W_));
    Kokkos::deep_copy(exec, K, HostVol(const_cast<float*>(K_.data()), k_, k_, k_));
    DeviceTimer<E> timer(exec);
    timer.start();
    const auto filter = make_conv3d_filter(exec, K);
    const double upload = timer.stop();
    Conv3dOptions opt;
    opt.padding = padding_;
    opt.algorithm = a;
    const auto stats = time_repeats(exec, rs.warmup, rs.repeats, [&] { conv3d(exec, V, filter, out, opt); });
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
    std::string note = "kernel flip + upload " + ms(upload);
    if (a == Conv3dAlgorithm::shared)
      note += ", scratch " + std::to_string(impl::conv3d_shared_scratch_bytes(k_)) + " B per team";
    return {result(stats, h.data(), kDirectTolerance, note)};
  }

 private:
  template <class MakeAlgo>
  void add_portable_impl(VariantTable& t, const std::string& kind, const std::string& text, MakeAlgo a) {
    t.add_portable(kind, text, [this, a](auto tag) -> Runner {
      using E = typename decltype(tag)::space;
      return [this, a](const RunSettings& rs) { return run_kokkos<E>(rs, a); };
    });
  }
  void add_portable(VariantTable& t, const std::string& kind, const std::string& text, Conv3dAlgorithm a) {
    add_portable_impl(t, kind, text, a);
  }

  static std::string ms(double s) {
    std::ostringstream o;
    o.precision(3);
    o << s * 1e3 << " ms";
    return o.str();
  }

  KernelResult result(const TimingStats& stats, const float* out, double tol, const std::string& note) const {
    KernelResult r;
    r.kernel = "conv3d";
    r.ran = true;
    r.time = stats;
    const double outputs = double(g_.To) * g_.Ho * g_.Wo;
    r.flops = 2.0 * k_ * k_ * k_ * outputs;  // direct method's count, for every variant (the paper's comparison)
    r.bytes = 4.0 * (double(T_) * H_ * W_ + outputs + double(k_) * k_ * k_);
    r.working_set = r.bytes;
    r.bound = driver::Bound::roofline;
    r.arith = driver::Arith::fp32;
    r.traffic = driver::Traffic::copy;
    r.error = max_relative_error(out, ref_.data(), ref_.size());
    r.tolerance = tol;
    r.valid = r.error <= tol;
    r.note = note;
    double mx = 0;
    for (std::size_t i = 0; i < ref_.size(); ++i) mx = std::max(mx, std::abs(double(out[i])));
    r.observables.push_back({"max |out|", mx, "", -1});
    return r;
  }

  std::vector<KernelResult> run_serial(const RunSettings& rs) const {
    std::vector<float> out(ref_.size());
    const int off = padding_ == Conv3dPadding::valid ? k_ - 1 : k_ / 2;
    auto once = [&] {
      for (int t = 0; t < g_.To; ++t)
        for (int y = 0; y < g_.Ho; ++y)
          for (int x = 0; x < g_.Wo; ++x) {
            float s = 0;
            for (int l = 0; l < k_; ++l)
              for (int n = 0; n < k_; ++n) {
                const int yy = y + off - n;
                if (yy < 0 || yy >= H_) continue;
                for (int m = 0; m < k_; ++m) {
                  const int xx = x + off - m;
                  if (xx >= 0 && xx < W_)
                    s += V_[(std::size_t(t + k_ - 1 - l) * H_ + yy) * W_ + xx] * K_[(std::size_t(l) * k_ + n) * k_ + m];
                }
              }
            out[(std::size_t(t) * g_.Ho + y) * g_.Wo + x] = s;
          }
    };
    // Slow by design: at most 2 timed repeats, no warm-up.
    std::vector<double> times;
    for (int i = 0; i < std::min(rs.repeats, 2); ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      once();
      times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    return {result(summarize(times), out.data(), kDirectTolerance, "plain loops, at most 2 repeats")};
  }

#if defined(TESSERA_VIDEO_HAS_FFTW)
  std::vector<KernelResult> run_fftw(const RunSettings& rs, bool hybrid) const {
    using Clock = std::chrono::steady_clock;
    auto t0 = Clock::now();
    Conv3dFftw plan(hybrid ? Conv3dFourierMethod::hybrid : Conv3dFourierMethod::fourier3d, T_, H_, W_, k_, padding_,
                    0, true);
    const double planning = std::chrono::duration<double>(Clock::now() - t0).count();
    t0 = Clock::now();
    plan.set_kernel(K_.data());
    const double spectrum = std::chrono::duration<double>(Clock::now() - t0).count();
    std::vector<float> out(ref_.size());
    const auto stats = time_repeats(Kokkos::DefaultHostExecutionSpace(), rs.warmup, rs.repeats,
                                    [&] { plan.execute(V_.data(), out.data()); });
    std::ostringstream note;
    note << "transform " << plan.nt() << "x" << plan.ny() << "x" << plan.nx() << ", FFTW_MEASURE planning "
         << ms(planning) << ", kernel spectrum " << ms(spectrum);
    return {result(stats, out.data(), kFftTolerance, note.str())};
  }
#endif

#if TESSERA_HAS_CUDA_NATIVE
  std::vector<KernelResult> run_native_streaming(const RunSettings& rs) const {
    Kokkos::Cuda exec;
    Vol<Kokkos::CudaSpace> V(Kokkos::view_alloc(Kokkos::WithoutInitializing, "V"), T_, H_, W_);
    Vol<Kokkos::CudaSpace> K(Kokkos::view_alloc(Kokkos::WithoutInitializing, "K"), k_, k_, k_);
    Vol<Kokkos::CudaSpace> out(Kokkos::view_alloc(Kokkos::WithoutInitializing, "out"), g_.To, g_.Ho, g_.Wo);
    Kokkos::deep_copy(exec, V, HostVol(const_cast<float*>(V_.data()), T_, H_, W_));
    Kokkos::deep_copy(exec, K, HostVol(const_cast<float*>(K_.data()), k_, k_, k_));
    const auto filter = make_conv3d_filter(exec, K);
    const auto stats = time_repeats(exec, rs.warmup, rs.repeats, [&] {
      native_cuda::conv3d_streaming(exec.cuda_stream(), V.data(), filter.flipped.data(), out.data(), g_);
    });
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
    return {result(stats, h.data(), kDirectTolerance, "taps uploaded to constant memory in each call")};
  }

  std::vector<KernelResult> run_cufft(const RunSettings& rs, bool hybrid) const {
    Kokkos::Cuda exec;
    Vol<Kokkos::CudaSpace> V(Kokkos::view_alloc(Kokkos::WithoutInitializing, "V"), T_, H_, W_);
    Vol<Kokkos::CudaSpace> K(Kokkos::view_alloc(Kokkos::WithoutInitializing, "K"), k_, k_, k_);
    Vol<Kokkos::CudaSpace> out(Kokkos::view_alloc(Kokkos::WithoutInitializing, "out"), g_.To, g_.Ho, g_.Wo);
    Kokkos::deep_copy(exec, V, HostVol(const_cast<float*>(V_.data()), T_, H_, W_));
    Kokkos::deep_copy(exec, K, HostVol(const_cast<float*>(K_.data()), k_, k_, k_));
    exec.fence();
    native_cuda::Conv3dCufft plan(hybrid, g_, exec.cuda_stream());
    DeviceTimer<Kokkos::Cuda> timer(exec);
    timer.start();
    plan.set_kernel(K.data());
    const double spectrum = timer.stop();
    const auto stats = time_repeats(exec, rs.warmup, rs.repeats, [&] { plan.execute(V.data(), out.data()); });
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
    return {result(stats, h.data(), kFftTolerance,
                   "kernel spectrum " + ms(spectrum) + ", workspace " + std::to_string(plan.workspace_bytes() >> 20) +
                       " MiB")};
  }
#endif

  int k_ = 9, W_ = 720, H_ = 560, T_ = 12;
  Conv3dPadding padding_ = Conv3dPadding::same;
  impl::Conv3dGeometry g_;
  std::string input_;
  std::vector<float> input_V_;  // luma of --input, T frames
  std::vector<float> V_, K_;
  std::vector<double> ref_;
};

}  // namespace

std::unique_ptr<VideoKernel> make_conv3d_kernel() { return std::make_unique<Conv3dKernel>(); }

}  // namespace tessera::video
