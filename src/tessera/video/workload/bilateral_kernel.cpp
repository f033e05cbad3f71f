// The bilateral family of the video workload: the depth-colour bilateral
// filter of Table 5 (800x600, K = 11) on the luma of a synthetic frame or of
// the first frame of --input, with a synthetic incomplete depth map whose
// edges follow the luma. --output writes the filtered depth as a mono Y4M
// frame (depth scaled to 0..255).
#include "tessera/core/random.hpp"
#include "tessera/core/timer.hpp"
#include "tessera/video/bilateral.hpp"
#include "tessera/video/video_io.hpp"
#include "tessera/video/workload/video_workload.hpp"
#if TESSERA_HAS_CUDA_NATIVE
#include "tessera/video/bilateral_native_cuda.hpp"
#endif

#include <Kokkos_Core.hpp>

#include <cmath>
#include <limits>
#include <type_traits>

namespace tessera::video {
namespace {

using driver::KernelResult;
using driver::Options;
using driver::Platform;
using driver::Runner;
using driver::RunSettings;

// The serial reference in double: Gaussians from exp in double (tables of
// them, indexed like the kernels', for speed), sums in double.
void bilateral_serial(const std::vector<float>& d, const std::vector<std::uint8_t>& l, int h, int w,
                      const BilateralParams& p, std::vector<double>& out, std::vector<double>* wa = nullptr) {
  const int r = p.k / 2;
  std::vector<double> gs(2 * r * r + 1), gr(256);
  for (std::size_t i = 0; i < gs.size(); ++i) gs[i] = std::exp(-double(i) / (2 * p.sigma_s * p.sigma_s));
  for (int i = 0; i < 256; ++i) gr[i] = std::exp(-double(i) * i / (2 * p.sigma_r * p.sigma_r));
  out.assign(d.size(), 0.0);
  if (wa) wa->assign(d.size(), 0.0);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const int ia = l[std::size_t(y) * w + x];
      double s = 0, ws = 0;
      for (int yy = std::max(0, y - r); yy <= std::min(h - 1, y + r); ++yy)
        for (int xx = std::max(0, x - r); xx <= std::min(w - 1, x + r); ++xx) {
          const double db = d[std::size_t(yy) * w + xx];
          if (!(db > 0)) continue;
          const double wt = gs[(yy - y) * (yy - y) + (xx - x) * (xx - x)] * gr[std::abs(ia - l[std::size_t(yy) * w + xx])];
          s += wt * db;
          ws += wt;
        }
      out[std::size_t(y) * w + x] = ws > 0 ? s / ws : 0.0;
      if (wa) (*wa)[std::size_t(y) * w + x] = ws;
    }
}

class BilateralKernel final : public VideoKernel {
 public:
  std::string name() const override { return "bilateral"; }
  std::vector<driver::OptionSpec> options() const override {
    return {{"bilateral-size", "WxH", "800x600", "bilateral filter frame when no --input (Table 5: 800x600)"},
            {"bilateral-k", "K", "11", "bilateral window K x K, K odd 1..15 (Table 5: 11)"},
            {"sigma-s", "PX", "3", "bilateral spatial sigma, pixels"},
            {"sigma-r", "LEVELS", "10", "bilateral range sigma, grey levels of luma"}};
  }
  void configure(const Options& opts) override {
    params_.k = int(opts.get_int("bilateral-k", 11, 1, kMaxBilateralK));
    if (params_.k % 2 == 0) throw driver::UsageError("--bilateral-k must be odd");
    params_.sigma_s = opts.get_double("sigma-s", 3.0, 1e-3, 1e3);
    params_.sigma_r = opts.get_double("sigma-r", 10.0, 1e-3, 1e4);
    input_ = opts.get("input", "");
    output_ = opts.get("output", "");
    format_ = VideoFormat{};
    if (!input_.empty()) {
      Y4mReader r(input_);
      format_ = r.format();
      if (!r.read(frame_)) throw driver::UsageError("--input '" + input_ + "' holds no frame");
    } else {
      const PlaneSize s = parse_plane_size("bilateral-size", opts.get("bilateral-size", "800x600"));
      format_.width = s.width;
      format_.height = s.height;
      format_.chroma = Chroma::mono;
      format_.chroma_tag = "mono";
      format_.validate();
    }
  }
  std::string problem_summary() const override {
    return "bilateral " + std::to_string(format_.width) + "x" + std::to_string(format_.height) + " K=" +
           std::to_string(params_.k) + (input_.empty() ? ", synthetic" : ", luma of " + input_);
  }
  std::vector<driver::Parameter> parameters() const override {
    return {{"bilateral_width", (long long)format_.width}, {"bilateral_height", (long long)format_.height},
            {"bilateral_k", (long long)params_.k},         {"bilateral_sigma_s", params_.sigma_s},
            {"bilateral_sigma_r", params_.sigma_r},        {"bilateral_input", input_.empty() ? std::string("synthetic") : input_}};
  }
  driver::MemoryNeed memory_need() const override {
    const double n = double(format_.width) * format_.height;
    return {n * 30 + double(format_.frame_bytes()), n * 9};
  }
  void prepare(std::uint64_t seed, driver::Progress& progress) override {
    const int w = format_.width, h = format_.height;
    if (input_.empty()) synthetic_frame(format_, seed, 0, frame_);
    luma_.assign(frame_.plane(0), frame_.plane(0) + std::size_t(w) * h);
    // Depth whose edges follow the luma (the filter's premise), 60% unknown
    // as after propagation into a denser colour view.
    depth_.assign(luma_.size(), 0.0f);
    for (std::size_t i = 0; i < depth_.size(); ++i)
      if (random_uniform(seed, 7 * i + 3) >= 0.6) depth_[i] = float(1.0 + luma_[i] / 64.0 + 0.001 * double(i % w));
    progress.message("bilateral: double-precision reference");
    bilateral_serial(depth_, luma_, h, w, params_, ref_, &ref_w_);
    dmax_ = 0;
    for (double v : ref_) dmax_ = std::max(dmax_, v);
    output_written_ = false;
  }
  void declare_variants(driver::VariantTable& t) override {
    t.add("serial-reference", Platform::cpu1, "plain loops in double",
          [this](const RunSettings& rs) { return run_serial(rs); });
    t.add_portable("kokkos", "portable TeamPolicy kernel, tile and tables in team scratch",
                   [this](auto tag) -> Runner {
                     using E = typename decltype(tag)::space;
                     return [this](const RunSettings& rs) { return run_views<E>(rs, Path::portable); };
                   });
    const char* native =
        "native CUDA kernel (what tessera::video::bilateral_filter selects on Cuda; K = 11: three pixels a "
        "thread, the range table once per lane)";
    const char* one = "native CUDA kernel, one pixel a thread at every K (the form before the three-pixel K = 11 kernel)";
#if TESSERA_HAS_CUDA_NATIVE
    t.add_native("native-cuda", Platform::gpu, native,
                 [this](const RunSettings& rs) { return run_views<Kokkos::Cuda>(rs, Path::public_api); }, "");
    t.add_native("native-cuda-one-per-thread", Platform::gpu, one,
                 [this](const RunSettings& rs) { return run_views<Kokkos::Cuda>(rs, Path::one_per_thread); }, "");
#else
    const char* needs = "native CUDA kernels: a Cuda build with TESSERA_ENABLE_CUDA_NATIVE";
    t.add_native("native-cuda", Platform::gpu, native, {}, needs);
    t.add_native("native-cuda-one-per-thread", Platform::gpu, one, {}, needs);
#endif
  }

 private:
  KernelResult row() const {
    const double n = double(format_.width) * format_.height;
    KernelResult r;
    r.kernel = "bilateral";
    r.bytes = 9 * n;                             // depth and luma in, depth out
    r.flops = 5.0 * params_.k * params_.k * n;  // two table products, two FMAs, per tap
    r.bound = driver::Bound::roofline;
    r.traffic = driver::Traffic::copy;
    r.arith = driver::Arith::fp32;
    r.working_set = r.bytes;
    r.tolerance = 1e-5;  // relative to the largest depth
    return r;
  }
  template <class Get>
  void check(KernelResult& r, Get get) const {
    double err = 0;
    long long known = 0;
    for (std::size_t i = 0; i < ref_.size(); ++i) {
      const double v = get(i);
      // Weights in float's subnormal range: precision lost, or W_A = 0 (unknown).
      if (ref_w_[i] < 1e-25 && v >= 0.0 && v <= dmax_) continue;
      err = std::max(err, std::isfinite(v) ? std::fabs(v - ref_[i]) : std::numeric_limits<double>::infinity());
      known += v > 0;
    }
    r.error = dmax_ > 0 ? err / dmax_ : err;
    r.valid = r.error <= r.tolerance;
    r.observables.push_back({"known_fraction_after", double(known) / double(ref_.size()), ""});
  }
  void write_depth(const std::vector<float>& out, KernelResult& r) {
    VideoFormat f = format_;
    f.chroma = Chroma::mono;
    f.chroma_tag = "mono";
    Frame fr;
    fr.resize(f);
    for (std::size_t i = 0; i < out.size(); ++i)
      fr.data[i] = std::uint8_t(std::clamp(std::floor(out[i] / dmax_ * 255 + 0.5), 0.0, 255.0));
    Y4mWriter w(output_, f);
    w.write(fr);
    w.commit();
    r.note = "wrote " + output_;
    output_written_ = true;
  }

  std::vector<KernelResult> run_serial(const RunSettings& rs) {
    auto r = row();
    std::vector<double> out;
    r.ran = true;
    r.time = time_repeats(HostClock{}, rs.warmup, rs.repeats,
                          [&] { bilateral_serial(depth_, luma_, format_.height, format_.width, params_, out); });
    check(r, [&](std::size_t i) { return out[i]; });
    return {r};
  }

  enum class Path { portable, public_api, one_per_thread };
  template <class E>
  std::vector<KernelResult> run_views(const RunSettings& rs, Path path) {
    using M = typename E::memory_space;
    const int h = format_.height, w = format_.width;
    E exec;
    Kokkos::View<float**, Kokkos::LayoutRight, M> d("bilateral::depth", h, w), out("bilateral::out", h, w);
    Kokkos::View<std::uint8_t**, Kokkos::LayoutRight, M> l("bilateral::luma", h, w);
    Kokkos::deep_copy(d, Kokkos::View<const float**, Kokkos::LayoutRight, Kokkos::HostSpace,
                                      Kokkos::MemoryTraits<Kokkos::Unmanaged>>(depth_.data(), h, w));
    Kokkos::deep_copy(l, Kokkos::View<const std::uint8_t**, Kokkos::LayoutRight, Kokkos::HostSpace,
                                      Kokkos::MemoryTraits<Kokkos::Unmanaged>>(luma_.data(), h, w));
    Kokkos::deep_copy(out, std::numeric_limits<float>::quiet_NaN());
    const BilateralTables tab = make_bilateral_tables(params_);
    auto r = row();
    r.ran = true;
    r.time = time_repeats(exec, rs.warmup, rs.repeats, [&] {
      if (path == Path::public_api)
        bilateral_filter(exec, d, l, out, params_);
      else if (path == Path::portable)
        impl::bilateral_kokkos(exec, d, l, out, tab);
#if TESSERA_HAS_CUDA_NATIVE
      else if constexpr (std::is_same_v<E, Kokkos::Cuda>)
        native_cuda::bilateral_one_per_thread(exec.cuda_stream(), d.data(), w, l.data(), w, out.data(), w, h, w, tab);
#endif
    });
    exec.fence();
    auto ho = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
    check(r, [&](std::size_t i) { return double(ho.data()[i]); });
    if (!output_.empty() && !output_written_ && r.valid)
      write_depth(std::vector<float>(ho.data(), ho.data() + ho.size()), r);
    return {r};
  }

  BilateralParams params_;
  std::string input_, output_;
  VideoFormat format_;
  Frame frame_;
  std::vector<float> depth_;
  std::vector<std::uint8_t> luma_;
  std::vector<double> ref_, ref_w_;
  double dmax_ = 0;
  bool output_written_ = false;
};

}  // namespace

std::unique_ptr<VideoKernel> make_bilateral_kernel() { return std::make_unique<BilateralKernel>(); }

}  // namespace tessera::video
