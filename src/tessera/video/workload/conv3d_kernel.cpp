// The conv3d family of the video workload: the paper's Tables 1-2 case (k + 3
// frames of 720 x 560 -> 4 output frames) through every conv3d algorithm, on
// seeded random data, against a double-precision reference of eq. (1). --k
// takes a list (the rows of Tables 1-2 in one run: one row per k, kernel
// "conv3d-k<k>"; a single k keeps the kernel name "conv3d").
#include "tessera/config.hpp"
#include "tessera/core/random.hpp"
#include "tessera/core/timer.hpp"
#include "tessera/core/validate.hpp"
#include "tessera/driver/workload_helpers.hpp"
#include "tessera/video/conv3d.hpp"
#include "tessera/video/conv3d_fft.hpp"
#include "tessera/video/conv3d_window.hpp"
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
#include <iomanip>
#include <memory>
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
// TF32 tensor cores round each operand to a 10-bit mantissa (2^-11 relative).
constexpr double kTf32Tolerance = 5e-3;

// One kernel size of the run: its frames, sizes, taps and reference.
struct Conv3dCase {
  int k = 9, T = 12;
  impl::Conv3dGeometry g;
  std::vector<float> K;
  std::vector<double> ref;
};

class Conv3dKernel final : public VideoKernel {
 public:
  std::string name() const override { return "conv3d"; }
  std::vector<OptionSpec> options() const override {
    return {{"k", "K[,K...]", "9", "conv3d: kernel size, odd 3..15 (k x k x k taps); a list runs each (one row per k)"},
            {"width", "W", "720", "conv3d: frame width"},
            {"height", "H", "560", "conv3d: frame height"},
            {"frames", "T", "k+3", "conv3d: input frames (T - k + 1 output frames)"},
            {"padding", "same|valid", "same", "conv3d: x, y output same-size (zero padding) or valid"},
            {"stream", "F", "0",
             "conv3d: the window variants (kokkos@*, native-cuda) stream a clip of F frames (--input: its first F, "
             "0 with --output: all) and report frames/s"},
            {"taps", "random|mean", "random", "conv3d: seeded random taps in [-1, 1), or the k^3 mean filter"}};
  }
  void configure(const Options& opts) override {
    std::vector<int> ks;
    for (const auto& item : opts.get_list("k", "9")) {
      Options one;
      one.set("k", item);
      const int k = int(one.get_int("k", 9, conv3d_min_k, conv3d_max_k));
      if (k % 2 == 0) throw UsageError("--k must be odd (3..15), got " + std::to_string(k));
      if (std::find(ks.begin(), ks.end(), k) == ks.end()) ks.push_back(k);
    }
    if (ks.empty()) throw UsageError("--k needs at least one kernel size");
    std::sort(ks.begin(), ks.end());
    W_ = int(opts.get_int("width", 720, 1, 1 << 15));
    H_ = int(opts.get_int("height", 560, 1, 1 << 15));
    const std::string f = opts.get("frames", "k+3");
    const int fixed_T = f == "k+3" ? 0 : int(opts.get_int("frames", 12, 1, 1 << 16));
    cases_.clear();
    T_ = 0;
    for (int k : ks) {
      Conv3dCase c;
      c.k = k;
      c.T = fixed_T ? fixed_T : k + 3;
      T_ = std::max(T_, c.T);
      cases_.push_back(c);
    }
    padding_ = driver::get_choice(opts, "padding", {"same", "valid"}, "same") == "valid" ? Conv3dPadding::valid
                                                                                       : Conv3dPadding::same;
    mean_taps_ = driver::get_choice(opts, "taps", {"random", "mean"}, "random") == "mean";
    stream_ = int(opts.get_int("stream", 0, 0, 1 << 24));
    output_ = opts.get("output", "");
    if (!output_.empty() && opts.get("input", "").empty() && stream_ == 0)
      throw UsageError("conv3d: --output needs --input (the whole clip) or --stream F (F synthetic frames)");
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
                           std::to_string(cases_.back().k) + " needs " + std::to_string(T_));
        const std::uint8_t* y = f.plane(0);
        for (std::size_t i = 0; i < std::size_t(W_) * H_; ++i) input_V_.push_back(float(y[i]));
      }
    }
    try {
      for (auto& c : cases_) c.g = conv3d_geometry(c.T, H_, W_, c.k, padding_);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
    streaming_ = stream_ > 0 || !output_.empty();
    if (streaming_ && input_.empty() && stream_ < cases_.back().k)
      throw UsageError("conv3d: --stream " + std::to_string(stream_) + " frames are fewer than k = " +
                       std::to_string(cases_.back().k));
    if (streaming_ && input_.empty() && double(stream_) * W_ * H_ > double(kMaxPixels) * 64)
      throw UsageError("conv3d: --stream " + std::to_string(stream_) + " frames of " + std::to_string(W_) + "x" +
                       std::to_string(H_) + " are over 2^32 pixels");
  }
  std::string problem_summary() const override {
    std::ostringstream s;
    const auto& g = cases_.front().g;
    s << "conv3d k = " << k_list() << ": " << (cases_.size() > 1 && cases_.front().T != cases_.back().T ? "k + 3" : std::to_string(g.T))
      << " frames of " << W_ << "x" << H_ << " -> " << (cases_.size() > 1 && cases_.front().g.To != cases_.back().g.To ? "T - k + 1" : std::to_string(g.To))
      << " frames of " << g.Wo << "x" << g.Ho << (padding_ == Conv3dPadding::valid ? " (valid, smallest k)" : " (same)")
      << ", float" << (input_.empty() ? "" : ", luma of " + input_);
    return s.str();
  }
  std::vector<Parameter> parameters() const override {
    // One k: numbers (as before lists existed); several: the list as text.
    const auto& c = cases_.front();
    auto one_or_list = [&](auto get) -> std::variant<long long, double, std::string> {
      if (std::all_of(cases_.begin(), cases_.end(), [&](const Conv3dCase& x) { return get(x) == get(c); }))
        return (long long)get(c);
      std::string s;
      for (const auto& x : cases_) s += (s.empty() ? "" : ",") + std::to_string(get(x));
      return s;
    };
    return {{"conv3d_k", one_or_list([](const Conv3dCase& x) { return x.k; })},
            {"conv3d_width", (long long)W_},
            {"conv3d_height", (long long)H_},
            {"conv3d_frames", one_or_list([](const Conv3dCase& x) { return x.T; })},
            {"conv3d_output_frames", one_or_list([](const Conv3dCase& x) { return x.g.To; })},
            {"conv3d_padding", std::string(padding_ == Conv3dPadding::valid ? "valid" : "same")},
            {"conv3d_precision", std::string("float")}};
  }
  MemoryNeed memory_need() const override {
    // The cases run one after another: the largest one's buffers, every reference.
    MemoryNeed m;
    double largest = 0;
    for (const auto& c : cases_) {
      const double in = 4.0 * c.T * H_ * W_, out = 4.0 * c.g.To * c.g.Ho * c.g.Wo;
      // FFT buffers: padded volume real + complex + kernel spectrum (~5 volumes).
      const double fft = 5.0 * 4.0 * c.T * (H_ + c.k) * (W_ + c.k);
      m.host_bytes += 2 * out;  // the double reference
      largest = std::max(largest, 2 * out + fft);
      m.device_bytes = std::max(m.device_bytes, in + out + fft);
    }
    m.host_bytes += 4.0 * T_ * H_ * W_ + largest;
    if (streaming_ && input_.empty()) {  // the synthetic clip, on the host and (resident) on the device
      m.host_bytes += double(stream_) * H_ * W_;
      m.device_bytes = std::max(m.device_bytes, double(stream_) * H_ * W_ + 4.0 * (2 * cases_.back().k + 2) * H_ * W_);
    }
    return m;
  }
  void prepare(std::uint64_t seed, Progress& progress) override {
    const std::size_t nv = std::size_t(T_) * H_ * W_;
    V_.resize(nv);
    if (!input_V_.empty())
      V_ = input_V_;
    else
      for (std::size_t i = 0; i < nv; ++i) V_[i] = std::floor(float(random_uniform(seed, i, 0.0, 256.0)));  // 8-bit samples
    // The first T frames of V_ are case c's video (the same seeded stream for every k).
    for (auto& c : cases_) {
      const std::size_t nk = std::size_t(c.k) * c.k * c.k;
      c.K.resize(nk);
      for (std::size_t i = 0; i < nk; ++i)
        c.K[i] = mean_taps_ ? float(1.0 / double(nk)) : float(random_uniform(seed ^ 0x6b65726e656cull, i, -1.0, 1.0));
      prepare_reference(c, V_.data(), progress);
    }
    if (streaming_) prepare_stream(seed, progress);
    progress.finish("conv3d reference");
  }

  // The streamed clip (synthetic luma, or the file's frames read while
  // streaming) and the reference of its first and last windows.
  void prepare_stream(std::uint64_t seed, Progress& progress) {
    clip_.clear();
    std::vector<float> first(V_.begin(), V_.begin() + std::ptrdiff_t(cases_.back().k) * H_ * W_), last;
    if (input_.empty()) {
      VideoFormat f;
      f.width = W_, f.height = H_, f.chroma = Chroma::mono, f.chroma_tag = "mono";
      clip_.resize(std::size_t(stream_) * H_ * W_);
      Frame frame;
      for (int t = 0; t < stream_; ++t) {
        progress.update("conv3d stream clip", t, stream_);
        synthetic_frame(f, seed, t, frame);
        std::copy(frame.data.begin(), frame.data.end(), clip_.begin() + std::ptrdiff_t(t) * H_ * W_);
      }
      first.assign(clip_.begin(), clip_.begin() + std::ptrdiff_t(cases_.back().k) * H_ * W_);
    }
    stream_refs_.clear();
    for (const auto& c : cases_) {
      StreamRef r;
      r.c.k = c.k;
      r.c.T = c.k;
      r.c.g = conv3d_geometry(c.k, H_, W_, c.k, padding_);
      r.c.K = c.K;
      prepare_reference(r.c, first.data(), progress);
      r.first = r.c.ref;
      if (input_.empty()) {
        r.c.ref.clear();
        prepare_reference(r.c, nullptr, progress, stream_ - c.k);
        r.last = r.c.ref;
      }
      stream_refs_.push_back(std::move(r));
    }
  }

  // Eq. (1) in double, frame by frame, on the video V (float), or (V null)
  // on the synthetic clip's frames from clip_first on.
  void prepare_reference(Conv3dCase& c, const float* Vsrc, Progress& progress, int clip_first = 0) const {
    std::vector<float> from_clip;
    if (!Vsrc) {
      from_clip.assign(clip_.begin() + std::ptrdiff_t(clip_first) * H_ * W_,
                       clip_.begin() + std::ptrdiff_t(clip_first + c.T) * H_ * W_);
      Vsrc = from_clip.data();
    }
    const auto& g = c.g;
    c.ref.assign(std::size_t(g.To) * g.Ho * g.Wo, 0.0);
    const int off = padding_ == Conv3dPadding::valid ? c.k - 1 : c.k / 2;
    for (int t = 0; t < g.To; ++t) {
      progress.update("conv3d reference k = " + std::to_string(c.k), t, g.To);
      const int k = c.k, H = H_, W = W_, Ho = g.Ho, Wo = g.Wo;
      const float* V = Vsrc;
      const float* K = c.K.data();
      double* R = c.ref.data();
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
    // The whole-video sliding window under the names the image families
    // use, so `run video --kernels conv3d` runs it by default.
    t.add_portable("kokkos", "conv3d: whole-video sliding window (ring of k frames, register-blocked kernel)",
                   [this](auto tag) -> Runner {
                     using E = typename decltype(tag)::space;
                     return [this](const RunSettings& rs) { return run_window<E>(rs, Conv3dAlgorithm::register_blocked); };
                   });
    const char* nwindow = "conv3d: whole-video sliding window with the native CUDA kernel";
#if TESSERA_HAS_CUDA_NATIVE
    t.add_native("native-cuda", Platform::gpu, nwindow,
                 [this](const RunSettings& rs) { return run_window<Kokkos::Cuda>(rs, Conv3dAlgorithm::automatic); }, "");
#else
    t.add_native("native-cuda", Platform::gpu, nwindow, {}, "native CUDA kernels: a Cuda build with TESSERA_ENABLE_CUDA_NATIVE");
#endif
    const char* native = "conv3d register-blocked native CUDA kernel: 4 or 2 output frames (by k) of a 32 x 20 tile a block, each input frame staged once (cp.async), all taps in shared memory (tessera::video::conv3d's pick on Cuda)";
    const char* nstream = "conv3d STREAMING native CUDA: 32 columns x 64 rows per block marching down y, k partial sums in registers, taps in constant memory";
    const char* ntensor = "conv3d direct on the tensor cores for 8-bit video (fp16 samples exact, taps split in two fp16 parts, FP32 sums; k 3..15): 144 x 8 x 4 outputs a block";
    const char* cufft3 = "conv3d 3-D FOURIER with cuFFT (R2C volume, product, C2R)";
    const char* cuffth = "conv3d HYBRID FOURIER with cuFFT (2-D per frame, k-tap complex convolution along t)";
#if TESSERA_HAS_CUDA_NATIVE
    t.add_native("native-cuda-register", Platform::gpu, native,
                 [this](const RunSettings& rs) { return run_kokkos<Kokkos::Cuda>(rs, Conv3dAlgorithm::automatic); }, "");
    t.add_native("native-cuda-streaming", Platform::gpu, nstream,
                 [this](const RunSettings& rs) { return run_native_streaming(rs); }, "");
    t.add_native("native-cuda-tensor", Platform::gpu, ntensor,
                 [this](const RunSettings& rs) { return run_native_tensor(rs); }, "");
    t.add_native("cufft-3d", Platform::gpu, cufft3, [this](const RunSettings& rs) { return run_cufft(rs, false); }, "");
    t.add_native("cufft-hybrid", Platform::gpu, cuffth, [this](const RunSettings& rs) { return run_cufft(rs, true); },
                 "");
#else
    const char* needs = "native CUDA kernels: a Cuda build with TESSERA_ENABLE_CUDA_NATIVE";
    t.add_native("native-cuda-register", Platform::gpu, native, {}, needs);
    t.add_native("native-cuda-streaming", Platform::gpu, nstream, {}, needs);
    t.add_native("native-cuda-tensor", Platform::gpu, ntensor, {}, needs);
    t.add_native("cufft-3d", Platform::gpu, cufft3, {}, needs);
    t.add_native("cufft-hybrid", Platform::gpu, cuffth, {}, needs);
#endif
    const char* cudnn = "conv3d with cuDNN's forward convolution (fastest FMA-math algorithm by cuDNN's own timing)";
    const char* cudnn_tf32 =
        "conv3d with cuDNN, TF32 tensor cores allowed as frameworks do by default (10-bit mantissas; checked to 5e-3)";
#if TESSERA_HAS_CUDA_NATIVE && defined(TESSERA_VIDEO_HAS_CUDNN)
    t.add_native("cudnn", Platform::gpu, cudnn, [this](const RunSettings& rs) { return run_cudnn(rs, false); }, "");
    t.add_native("cudnn-tf32", Platform::gpu, cudnn_tf32, [this](const RunSettings& rs) { return run_cudnn(rs, true); },
                 "");
#else
    const char* no_cudnn = "cuDNN (cudnn.h, libcudnn) at configure time in a native CUDA build";
    t.add_native("cudnn", Platform::gpu, cudnn, {}, no_cudnn);
    t.add_native("cudnn-tf32", Platform::gpu, cudnn_tf32, {}, no_cudnn);
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
    std::vector<KernelResult> rows;
    for (const auto& c : cases_) {
      const auto& g = c.g;
      const RunSettings rs = one_thread_capped<E>(rs_in, flops(c));
      E exec;
      using Mem = typename E::memory_space;
      Vol<Mem> V(Kokkos::view_alloc(Kokkos::WithoutInitializing, "V"), c.T, H_, W_);
      Vol<Mem> K(Kokkos::view_alloc(Kokkos::WithoutInitializing, "K"), c.k, c.k, c.k);
      Vol<Mem> out(Kokkos::view_alloc(Kokkos::WithoutInitializing, "out"), g.To, g.Ho, g.Wo);
      Kokkos::deep_copy(exec, V, host_video(c));
      Kokkos::deep_copy(exec, K, HostVol(const_cast<float*>(c.K.data()), c.k, c.k, c.k));
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
        note += ", scratch " + std::to_string(impl::conv3d_shared_scratch_bytes(c.k)) + " B per team";
      rows.push_back(result(c, stats, h.data(), kDirectTolerance, note));
    }
    return rows;
  }

  // The window variants: without --stream, the benchmark video pushed frame
  // by frame (its To output frames, validated like the other variants); with
  // it, the clip streamed (rows conv3d-stream: clip resident on the device,
  // conv3d-stream-host: frames from host memory or the file, transfers
  // overlapped).
  template <class E>
  std::vector<KernelResult> run_window(const RunSettings& rs_in, Conv3dAlgorithm a) const {
    std::vector<KernelResult> rows;
    for (std::size_t ci = 0; ci < cases_.size(); ++ci) {
      const auto& c = cases_[ci];
      E exec;
      using Mem = typename E::memory_space;
      Vol<Mem> K(Kokkos::view_alloc(Kokkos::WithoutInitializing, "K"), c.k, c.k, c.k);
      Kokkos::deep_copy(exec, K, HostVol(const_cast<float*>(c.K.data()), c.k, c.k, c.k));
      Conv3dOptions opt;
      opt.padding = padding_;
      opt.algorithm = a;
      Conv3dWindow<E> w(H_, W_, make_conv3d_filter(exec, K), opt);
      if (streaming_) {
        if (input_.empty()) rows.push_back(stream_resident(exec, w, c, rs_in));
        rows.push_back(stream_host(exec, w, c, stream_refs_[ci], rs_in, ci == 0));
        continue;
      }
      const RunSettings rs = one_thread_capped<E>(rs_in, flops(c));
      Vol<Mem> V(Kokkos::view_alloc(Kokkos::WithoutInitializing, "V"), c.T, H_, W_);
      Vol<Mem> out(Kokkos::view_alloc(Kokkos::WithoutInitializing, "out"), c.g.To, c.g.Ho, c.g.Wo);
      Kokkos::deep_copy(exec, V, host_video(c));
      const auto stats = time_repeats(exec, rs.warmup, rs.repeats, [&] {
        w.reset();
        for (int t = 0; t < c.T; ++t) {
          w.push(exec, Kokkos::subview(V, t, Kokkos::ALL, Kokkos::ALL));
          if (w.ready()) w.compute(exec, Kokkos::subview(out, t - c.k + 1, Kokkos::ALL, Kokkos::ALL));
        }
      });
      auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
      rows.push_back(result(c, stats, h.data(), kDirectTolerance,
                            "sliding window: " + std::to_string(c.T) + " frames pushed, each output frame once"));
    }
    return rows;
  }

 private:
  // One reference window of the stream: its first and (synthetic clip) last output frame.
  struct StreamRef {
    Conv3dCase c;
    std::vector<double> first, last;
  };

  // A stream row: time per pass of `frames` frames, frames/s as observables.
  KernelResult stream_row(const Conv3dCase& c, const std::string& kernel, const TimingStats& stats, long frames,
                          double error, const std::string& note) const {
    KernelResult r;
    r.kernel = kernel + (cases_.size() == 1 ? "" : "-k" + std::to_string(c.k));
    r.ran = true;
    r.time = stats;
    const long outputs = frames - c.k + 1;
    const double per_out = double(c.g.Ho) * c.g.Wo;
    r.flops = 2.0 * c.k * c.k * c.k * per_out * outputs;
    r.bytes = double(frames) * H_ * W_ + 4.0 * per_out * outputs;  // 8-bit frames in, float frames out
    r.working_set = 4.0 * (2 * c.k + 2) * H_ * W_;
    r.bound = driver::Bound::roofline;
    r.arith = driver::Arith::fp32;
    r.traffic = driver::Traffic::copy;
    r.error = error;
    r.tolerance = kDirectTolerance;
    r.valid = error <= kDirectTolerance;
    r.note = note;
    r.observables.push_back({"output_frames", double(outputs), ""});
    r.observables.push_back({"frames_per_second", stats.median > 0 ? outputs / stats.median : 0.0, "1/s"});
    return r;
  }

  // The clip resident on the device as 8-bit frames; each pass pushes every
  // frame and computes every output frame (into two alternating buffers).
  template <class E>
  KernelResult stream_resident(const E& exec, Conv3dWindow<E>& w, const Conv3dCase& c, const RunSettings& rs_in) const {
    using Mem = typename E::memory_space;
    const RunSettings rs = one_thread_capped<E>(rs_in, 2.0 * c.k * c.k * c.k * double(H_) * W_ * stream_);
    Kokkos::View<std::uint8_t***, Kokkos::LayoutRight, Mem> clip(Kokkos::view_alloc(Kokkos::WithoutInitializing, "clip"),
                                                                 stream_, H_, W_);
    Kokkos::deep_copy(exec, clip,
                      Kokkos::View<const std::uint8_t***, Kokkos::LayoutRight, Kokkos::HostSpace>(clip_.data(), stream_, H_, W_));
    Vol<Mem> out(Kokkos::view_alloc(Kokkos::WithoutInitializing, "out"), 2, w.output_height(), w.output_width());
    const auto stats = time_repeats(exec, rs.warmup, rs.repeats, [&] {
      w.reset();
      for (int t = 0; t < stream_; ++t) {
        w.push(exec, Kokkos::subview(clip, t, Kokkos::ALL, Kokkos::ALL));
        if (w.ready()) w.compute(exec, Kokkos::subview(out, t % 2, Kokkos::ALL, Kokkos::ALL));
      }
    });
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Kokkos::subview(out, (stream_ - 1) % 2, Kokkos::ALL, Kokkos::ALL));
    const auto& ref = stream_refs_[std::size_t(&c - cases_.data())].last;
    return stream_row(c, "conv3d-stream", stats, stream_, max_relative_error(h.data(), ref.data(), ref.size()),
                      std::to_string(stream_) + " frames resident on the device; checked: the last output frame");
  }

  // Frames from host memory (or --input, read as they are needed) through two
  // instances: frame t + 1 uploads on one while frame t computes on the
  // other, output frame t downloads while t + 1 computes. Read and write
  // (--output) time are measured apart. `write` once: the first case.
  template <class E>
  KernelResult stream_host(const E&, Conv3dWindow<E>& w, const Conv3dCase& c, const StreamRef& ref,
                           const RunSettings& rs, bool write) const {
    using Mem = typename E::memory_space;
#if defined(KOKKOS_ENABLE_CUDA)
    using Pinned = std::conditional_t<std::is_same_v<E, Kokkos::Cuda>, Kokkos::CudaHostPinnedSpace, Kokkos::HostSpace>;
#else
    using Pinned = Kokkos::HostSpace;
#endif
    const auto instances = two_instances<E>();  // a computes, b transfers
    const E& a = instances.first;
    const E& b = instances.second;
    const int Ho = w.output_height(), Wo = w.output_width();
    using HostIn = Kokkos::View<std::uint8_t**, Kokkos::LayoutRight, Pinned>;
    using DevIn = Kokkos::View<std::uint8_t**, Kokkos::LayoutRight, Mem>;
    using HostOut = Kokkos::View<float**, Kokkos::LayoutRight, Pinned>;
    using DevOut = Kokkos::View<float**, Kokkos::LayoutRight, Mem>;
    HostIn hin[2] = {HostIn("hin0", H_, W_), HostIn("hin1", H_, W_)};
    DevIn din[2] = {DevIn("din0", H_, W_), DevIn("din1", H_, W_)};
    HostOut hout[2] = {HostOut("hout0", Ho, Wo), HostOut("hout1", Ho, Wo)};
    DevOut dout[2] = {DevOut("dout0", Ho, Wo), DevOut("dout1", Ho, Wo)};
    using Clock = std::chrono::steady_clock;
    auto since = [](Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); };
    double error = 0;
    double read_s = 0, write_s = 0;
    long frames = 0;
    auto pass = [&](bool timed_pass) {
      std::unique_ptr<Y4mReader> reader;
      std::unique_ptr<Y4mWriter> writer;
      Frame in_frame, out_frame;
      if (!input_.empty()) reader = std::make_unique<Y4mReader>(input_);
      if (timed_pass && write && !output_.empty()) {
        VideoFormat f = reader ? reader->format() : VideoFormat{};
        f.width = Wo, f.height = Ho, f.chroma = Chroma::mono, f.chroma_tag = "mono";
        writer = std::make_unique<Y4mWriter>(output_, f);
        out_frame.resize(f);
      }
      const long limit = stream_ > 0 ? stream_ : std::numeric_limits<long>::max();
      long n = 0;
      auto source = [&](Kokkos::View<std::uint8_t**, Kokkos::LayoutRight, Pinned>& dst) {
        const auto t0 = Clock::now();
        bool ok = n < limit;
        if (ok && reader) {
          try {
            ok = reader->read(in_frame);
          } catch (const FormatError& e) {
            throw UsageError(e.what());
          }
          if (ok) std::copy(in_frame.plane(0), in_frame.plane(0) + std::size_t(H_) * W_, dst.data());
        } else if (ok) {
          std::copy(clip_.begin() + std::ptrdiff_t(n) * H_ * W_, clip_.begin() + std::ptrdiff_t(n + 1) * H_ * W_,
                    dst.data());
        }
        if (ok) ++n;
        read_s += since(t0);
        return ok;
      };
      long outputs = 0;
      auto sink = [&](const Kokkos::View<float**, Kokkos::LayoutRight, Pinned>& o, long index, bool last) {
        const auto t0 = Clock::now();
        const std::size_t m = std::size_t(Ho) * Wo;
        if (index == 0 || last) {
          const auto& want = index == 0 ? ref.first : ref.last;
          if (!want.empty()) error = std::max(error, max_relative_error(o.data(), want.data(), m));
        }
        if (writer) {
          for (std::size_t i = 0; i < m; ++i) out_frame.data[i] = std::uint8_t(std::clamp(std::lround(o.data()[i]), 0L, 255L));
          writer->write(out_frame);
        }
        ++outputs;
        write_s += since(t0);
      };
      w.reset();
      bool have = source(hin[0]);
      if (have) Kokkos::deep_copy(b, din[0], hin[0]);
      b.fence();
      long t = 0, pending = -1;
      while (have) {
        const int cur = int(t % 2), nxt = cur ^ 1;
        w.push(a, din[cur]);
        const bool produced = w.ready();
        if (produced) w.compute(a, dout[cur]);
        have = source(hin[nxt]);
        if (have) Kokkos::deep_copy(b, din[nxt], hin[nxt]);
        b.fence();  // the upload of frame t + 1 and the download of the previous output
        if (pending >= 0) sink(hout[pending % 2], pending - c.k + 1, false);
        pending = -1;
        a.fence();
        if (produced) {
          Kokkos::deep_copy(b, hout[cur], dout[cur]);
          pending = t;
        }
        ++t;
      }
      b.fence();
      if (pending >= 0) sink(hout[pending % 2], pending - c.k + 1, input_.empty());
      if (writer) writer->commit();
      frames = n;
      return outputs;
    };
    // Warm-up passes (not written), then one timed pass.
    for (int i = 0; i < std::min(rs.warmup, 1); ++i) pass(false);
    read_s = write_s = error = 0;
    const auto t0 = Clock::now();
    const long outputs = pass(true);
    const double total = since(t0);
    if (frames < c.k)
      throw UsageError("conv3d: --input '" + input_ + "' holds " + std::to_string(frames) + " frames, fewer than k = " +
                       std::to_string(c.k));
    (void)outputs;
    KernelResult r = stream_row(c, "conv3d-stream-host", summarize({total}), frames, error,
                                std::string(input_.empty() ? "frames from host memory" : "frames read from " + input_) +
                                    ", uploads and downloads overlapped with compute; checked: the first" +
                                    (input_.empty() ? " and last" : "") + " output frame" +
                                    (writer_note(write) ? ", wrote " + output_ : ""));
    r.observables.push_back({"read_seconds", read_s, "s"});
    r.observables.push_back({"write_seconds", write_s, "s"});
    const double compute = total - read_s - write_s;
    r.observables.push_back(
        {"frames_per_second_without_io", compute > 0 ? double(frames - c.k + 1) / compute : 0.0, "1/s"});
    return r;
  }
  bool writer_note(bool write) const { return write && !output_.empty(); }

  // Two instances for the transfer / compute overlap: two streams on CUDA
  // (created once, kept for the process), the one instance elsewhere.
  template <class E>
  static std::pair<E, E> two_instances() {
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (std::is_same_v<E, Kokkos::Cuda>) {
      static cudaStream_t streams[2] = {nullptr, nullptr};
      if (!streams[0])
        for (auto& st : streams)
          if (cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking) != cudaSuccess)
            throw std::runtime_error("conv3d: cudaStreamCreate failed");
      return {Kokkos::Cuda(streams[0]), Kokkos::Cuda(streams[1])};
    }
#endif
    return {E(), E()};
  }

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

  std::string k_list() const {
    std::string s;
    for (const auto& c : cases_) s += (s.empty() ? "" : ",") + std::to_string(c.k);
    return s;
  }
  static double flops(const Conv3dCase& c) { return 2.0 * c.k * c.k * c.k * double(c.g.To) * c.g.Ho * c.g.Wo; }
  // Case c's video: the first c.T frames of V_.
  HostVol host_video(const Conv3dCase& c) const { return HostVol(const_cast<float*>(V_.data()), c.T, H_, W_); }

  KernelResult result(const Conv3dCase& c, const TimingStats& stats, const float* out, double tol,
                      const std::string& note) const {
    KernelResult r;
    r.kernel = cases_.size() == 1 ? "conv3d" : "conv3d-k" + std::to_string(c.k);
    r.ran = true;
    r.time = stats;
    const double outputs = double(c.g.To) * c.g.Ho * c.g.Wo;
    r.flops = flops(c);  // direct method's count, for every variant (the paper's comparison)
    r.bytes = 4.0 * (double(c.T) * H_ * W_ + outputs + double(c.k) * c.k * c.k);
    r.working_set = r.bytes;
    r.bound = driver::Bound::roofline;
    r.arith = driver::Arith::fp32;
    r.traffic = driver::Traffic::copy;
    r.tolerance = tol;
    r.note = note;
    if (!out) return r;  // a row this variant cannot run
    r.error = max_relative_error(out, c.ref.data(), c.ref.size());
    r.valid = r.error <= tol;
    double mx = 0;
    for (std::size_t i = 0; i < c.ref.size(); ++i) mx = std::max(mx, std::abs(double(out[i])));
    r.observables.push_back({"max |out|", mx, "", -1});
    return r;
  }

  std::vector<KernelResult> run_serial(const RunSettings& rs) const {
    std::vector<KernelResult> rows;
    for (const auto& c : cases_) {
      const auto& g = c.g;
      const int k = c.k;
      std::vector<float> out(c.ref.size());
      const int off = padding_ == Conv3dPadding::valid ? k - 1 : k / 2;
      auto once = [&] {
        for (int t = 0; t < g.To; ++t)
          for (int y = 0; y < g.Ho; ++y)
            for (int x = 0; x < g.Wo; ++x) {
              float s = 0;
              for (int l = 0; l < k; ++l)
                for (int n = 0; n < k; ++n) {
                  const int yy = y + off - n;
                  if (yy < 0 || yy >= H_) continue;
                  for (int m = 0; m < k; ++m) {
                    const int xx = x + off - m;
                    if (xx >= 0 && xx < W_)
                      s += V_[(std::size_t(t + k - 1 - l) * H_ + yy) * W_ + xx] * c.K[(std::size_t(l) * k + n) * k + m];
                  }
                }
              out[(std::size_t(t) * g.Ho + y) * g.Wo + x] = s;
            }
      };
      // Slow by design: at most 2 timed repeats, no warm-up.
      std::vector<double> times;
      for (int i = 0; i < std::min(rs.repeats, 2); ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        once();
        times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      }
      rows.push_back(result(c, summarize(times), out.data(), kDirectTolerance, "plain loops, at most 2 repeats"));
    }
    return rows;
  }

#if defined(TESSERA_VIDEO_HAS_FFTW)
  std::vector<KernelResult> run_fftw(const RunSettings& rs, bool hybrid) const {
    using Clock = std::chrono::steady_clock;
    std::vector<KernelResult> rows;
    for (const auto& c : cases_) {
      auto t0 = Clock::now();
      Conv3dFftw plan(hybrid ? Conv3dFourierMethod::hybrid : Conv3dFourierMethod::fourier3d, c.T, H_, W_, c.k,
                      padding_, 0, true);
      const double planning = std::chrono::duration<double>(Clock::now() - t0).count();
      t0 = Clock::now();
      plan.set_kernel(c.K.data());
      const double spectrum = std::chrono::duration<double>(Clock::now() - t0).count();
      std::vector<float> out(c.ref.size());
      const auto stats = time_repeats(Kokkos::DefaultHostExecutionSpace(), rs.warmup, rs.repeats,
                                      [&] { plan.execute(V_.data(), out.data()); });
      std::ostringstream note;
      const double transforms = plan.transforms_seconds(std::max(rs.repeats, 1));
      note << "transform " << plan.nt() << "x" << plan.ny() << "x" << plan.nx() << ", FFTW_MEASURE planning "
           << ms(planning) << (plan.measured_plan() ? "" : " (FFTW_ESTIMATE's plans kept: faster)") << ", "
           << plan.threads() << " threads"
           << ", kernel spectrum " << ms(spectrum) << ", transforms alone " << ms(transforms) << " ("
           << std::setprecision(3) << stats.median / transforms << "x)";
      rows.push_back(result(c, stats, out.data(), kFftTolerance, note.str()));
    }
    return rows;
  }
#endif

#if TESSERA_HAS_CUDA_NATIVE
  // Case c's video, taps and output on the device.
  struct DeviceCase {
    Vol<Kokkos::CudaSpace> V, K, out;
  };
  DeviceCase upload(const Kokkos::Cuda& exec, const Conv3dCase& c) const {
    DeviceCase d;
    d.V = Vol<Kokkos::CudaSpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "V"), c.T, H_, W_);
    d.K = Vol<Kokkos::CudaSpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "K"), c.k, c.k, c.k);
    d.out = Vol<Kokkos::CudaSpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "out"), c.g.To, c.g.Ho, c.g.Wo);
    Kokkos::deep_copy(exec, d.V, host_video(c));
    Kokkos::deep_copy(exec, d.K, HostVol(const_cast<float*>(c.K.data()), c.k, c.k, c.k));
    return d;
  }

  // A native direct kernel, launch(stream, v, flipped taps, out, geometry),
  // timed on case c's device copies and checked against the reference.
  template <class Launch>
  KernelResult run_native_direct(const RunSettings& rs, const Conv3dCase& c, Launch launch,
                                 const std::string& note) const {
    Kokkos::Cuda exec;
    const auto d = upload(exec, c);
    const auto filter = make_conv3d_filter(exec, d.K);
    const auto stats = time_repeats(exec, rs.warmup, rs.repeats, [&] {
      launch(exec.cuda_stream(), d.V.data(), filter.flipped.data(), d.out.data(), c.g);
    });
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d.out);
    return result(c, stats, h.data(), kDirectTolerance, note);
  }

  std::vector<KernelResult> run_native_streaming(const RunSettings& rs) const {
    std::vector<KernelResult> rows;
    for (const auto& c : cases_)
      rows.push_back(run_native_direct(rs, c, native_cuda::conv3d_streaming, "taps uploaded to constant memory in each call"));
    return rows;
  }

  // The tensor-core kernel's precondition: integer samples, |v| <= 2048 (exact in fp16).
  bool integer_samples(const Conv3dCase& c) const {
    const float* v = V_.data();
    const std::size_t n = std::size_t(c.T) * H_ * W_;
    for (std::size_t i = 0; i < n; ++i)
      if (!(std::abs(v[i]) <= 2048.f) || v[i] != std::nearbyint(v[i])) return false;
    return true;
  }

  std::vector<KernelResult> run_native_tensor(const RunSettings& rs) const {
    std::vector<KernelResult> rows;
    for (const auto& c : cases_) {
      const bool k_ok = native_cuda::conv3d_tensor_supports(c.k);
      if (k_ok && integer_samples(c)) {
        rows.push_back(run_native_direct(rs, c, native_cuda::conv3d_tensor,
                                         "mma.sync m16n8k16 fp16, two products a tap; flops: the direct count"));
        continue;
      }
      KernelResult r = result(c, TimingStats{}, nullptr, kDirectTolerance,
                              k_ok ? "needs integer samples |v| <= 2048 (8-bit video)" : "k 3..15 only");
      r.ran = false;
      rows.push_back(r);
    }
    return rows;
  }

  std::vector<KernelResult> run_cufft(const RunSettings& rs, bool hybrid) const {
    std::vector<KernelResult> rows;
    for (const auto& c : cases_) {
      Kokkos::Cuda exec;
      const auto d = upload(exec, c);
      exec.fence();
      native_cuda::Conv3dCufft plan(hybrid, c.g, exec.cuda_stream());
      DeviceTimer<Kokkos::Cuda> timer(exec);
      timer.start();
      plan.set_kernel(d.K.data());
      const double spectrum = timer.stop();
      const auto stats = time_repeats(exec, rs.warmup, rs.repeats, [&] { plan.execute(d.V.data(), d.out.data()); });
      auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d.out);
      rows.push_back(result(c, stats, h.data(), kFftTolerance,
                            "kernel spectrum " + ms(spectrum) + ", workspace " +
                                std::to_string(plan.workspace_bytes() >> 20) + " MiB"));
    }
    return rows;
  }
#endif

#if defined(TESSERA_VIDEO_HAS_CUDNN)
  std::vector<KernelResult> run_cudnn(const RunSettings& rs, bool tf32) const {
    std::vector<KernelResult> rows;
    for (const auto& c : cases_) {
      Kokkos::Cuda exec;
      const auto d = upload(exec, c);
      exec.fence();
      DeviceTimer<Kokkos::Cuda> timer(exec);
      timer.start();
      native_cuda::Conv3dCudnn plan(c.g, exec.cuda_stream(), d.V.data(), d.out.data(), tf32);
      const double choice = timer.stop();
      plan.set_kernel(d.K.data());
      const auto stats = time_repeats(exec, rs.warmup, rs.repeats, [&] { plan.execute(d.V.data(), d.out.data()); });
      auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d.out);
      rows.push_back(result(c, stats, h.data(), tf32 ? kTf32Tolerance : kFftTolerance,
                            "cuDNN algorithm " + plan.algorithm() + " (chosen in " + ms(choice) + "), workspace " +
                                std::to_string(plan.workspace_bytes() >> 20) + " MiB"));
    }
    return rows;
  }
#endif

  int W_ = 720, H_ = 560, T_ = 12;  // T_: the most frames a case reads
  Conv3dPadding padding_ = Conv3dPadding::same;
  std::vector<Conv3dCase> cases_;  // one per k, ascending
  std::string input_;
  std::vector<float> input_V_;  // luma of --input, T_ frames
  std::vector<float> V_;
  // --stream / --output: the whole-clip sliding window.
  int stream_ = 0;
  bool streaming_ = false, mean_taps_ = false;
  std::string output_;
  std::vector<std::uint8_t> clip_;       // the synthetic clip (empty with --input)
  std::vector<StreamRef> stream_refs_;  // per case
};

}  // namespace

std::unique_ptr<VideoKernel> make_conv3d_kernel() { return std::make_unique<Conv3dKernel>(); }

}  // namespace tessera::video
