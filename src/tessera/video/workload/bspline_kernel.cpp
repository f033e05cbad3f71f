// The bspline family of the video workload: cubic B-spline upscaling of every
// plane of one frame by --scale (Table 4: QCIF x7), timed as the paper's two
// rows, the prefilter (IIR) and the 4x4 evaluation (FIR), and as the whole
// upscale of the frame (the fused native kernel has only that row). With
// --input the first frame of the file is the timed frame; with --output the
// whole file (or the synthetic frame) is upscaled frame by frame and written.
#include "tessera/core/timer.hpp"
#include "tessera/driver/workload_helpers.hpp"
#include "tessera/video/bspline.hpp"
#include "tessera/video/video_io.hpp"
#include "tessera/video/workload/video_workload.hpp"

#include <Kokkos_Core.hpp>

#include <chrono>
#include <cmath>
#include <future>
#include <limits>

namespace tessera::video {
namespace {

using driver::KernelResult;
using driver::Options;
using driver::Platform;
using driver::Runner;
using driver::RunSettings;
using driver::UsageError;

// Reference in double: the same recursions (exact mirror initialisation),
// then the direct 4x4 sum with beta3 evaluated at each output position.
void reference_plane(const std::uint8_t* in, int h, int w, int u, Alignment a, std::vector<double>& coef,
                     std::vector<std::uint8_t>& out) {
  coef.assign(in, in + std::size_t(h) * w);
  auto line = [](double* c, std::ptrdiff_t s, int n) {
    if (n < 2) return;
    const double z = std::sqrt(3.0) - 2;
    for (int k = 0; k < n; ++k) c[k * s] *= 6;
    double sum = 0, zk = 1;  // causal initial value: the mirrored signal summed directly
    for (int k = 0; k < 2 * n - 2; ++k, zk *= z) sum += zk * c[(k < n ? k : 2 * n - 2 - k) * s];
    c[0] = sum / (1 - zk);
    for (int k = 1; k < n; ++k) c[k * s] += z * c[(k - 1) * s];
    c[(n - 1) * s] = z / (z * z - 1) * (z * c[(n - 2) * s] + c[(n - 1) * s]);
    for (int k = n - 2; k >= 0; --k) c[k * s] = z * (c[(k + 1) * s] - c[k * s]);
  };
  for (int y = 0; y < h; ++y) line(coef.data() + std::size_t(y) * w, 1, w);
  for (int x = 0; x < w; ++x) line(coef.data() + x, w, h);
  out.resize(std::size_t(h) * u * w * u);
  auto pos = [&](int X) { return a == Alignment::centre ? (X + 0.5) / u - 0.5 : double(X) / u; };
  for (int Y = 0; Y < h * u; ++Y) {
    const double y = pos(Y);
    const int iy = int(std::floor(y));
    for (int X = 0; X < w * u; ++X) {
      const double x = pos(X);
      const int ix = int(std::floor(x));
      double s = 0;
      for (int l = iy - 1; l <= iy + 2; ++l)
        for (int k = ix - 1; k <= ix + 2; ++k)
          s += coef[std::size_t(mirror_index(l, h)) * w + mirror_index(k, w)] * bspline3(x - k) * bspline3(y - l);
      out[std::size_t(Y) * w * u + X] = std::uint8_t(std::clamp(std::floor(s + 0.5), 0.0, 255.0));
    }
  }
}

class BsplineKernel final : public VideoKernel {
 public:
  std::string name() const override { return "bspline"; }
  std::vector<driver::OptionSpec> options() const override {
    return {{"scale", "N", "7", "B-spline upscaling factor, 1..16 (Table 4: 7)"},
            {"align", "centre|corner", "centre", "B-spline sample alignment: pixel centres, or corners (X = k u on sample k)"},
            {"bspline-size", "WxH", "176x144", "B-spline synthetic frame when no --input (QCIF as Table 4)"},
            {"chroma", "420|444|mono", "420", "planes of the synthetic frames (bspline)"}};
  }
  void configure(const Options& opts) override {
    scale_ = int(opts.get_int("scale", 7, 1, kMaxBsplineScale));
    align_ = driver::get_choice(opts, "align", {"centre", "corner"}, "centre") == "centre" ? Alignment::centre
                                                                                          : Alignment::corner;
    input_ = opts.get("input", "");
    output_ = opts.get("output", "");
    if (!input_.empty()) {
      Y4mReader r(input_);  // header errors: FormatError -> exit 2
      format_ = r.format();
      if (!r.read(frame_)) throw UsageError("--input '" + input_ + "' holds no frame");
    } else {
      const PlaneSize s = parse_plane_size("bspline-size", opts.get("bspline-size", "176x144"));
      const std::string c = driver::get_choice(opts, "chroma", {"420", "444", "mono"}, "420");
      format_ = VideoFormat{};
      format_.width = s.width;
      format_.height = s.height;
      format_.chroma = c == "420" ? Chroma::c420 : c == "444" ? Chroma::c444 : Chroma::mono;
      format_.chroma_tag = c == "420" ? "420jpeg" : c;
      format_.validate();
    }
    out_format_ = format_;
    out_format_.width = format_.width * scale_;
    out_format_.height = format_.height * scale_;
    try {
      out_format_.validate();
    } catch (const FormatError&) {
      throw UsageError("--scale " + std::to_string(scale_) + " makes " + std::to_string(out_format_.width) + "x" +
                       std::to_string(out_format_.height) + " frames, beyond the limit");
    }
  }
  std::string problem_summary() const override {
    return "bspline " + std::to_string(format_.width) + "x" + std::to_string(format_.height) + " x" +
           std::to_string(scale_) + " -> " + std::to_string(out_format_.width) + "x" +
           std::to_string(out_format_.height) + ", " + std::to_string(format_.planes()) + " plane(s)" +
           (input_.empty() ? ", synthetic" : ", from " + input_);
  }
  std::vector<driver::Parameter> parameters() const override {
    return {{"bspline_width", (long long)format_.width},
            {"bspline_height", (long long)format_.height},
            {"bspline_scale", (long long)scale_},
            {"bspline_planes", (long long)format_.planes()},
            {"bspline_align", std::string(align_ == Alignment::centre ? "centre" : "corner")},
            {"bspline_input", input_.empty() ? std::string("synthetic") : input_}};
  }
  driver::MemoryNeed memory_need() const override {
    const double in = double(format_.frame_bytes()), out = in * scale_ * scale_;
    return {in * 13 + out * 3, in * 5 + out};
  }
  void prepare(std::uint64_t seed, driver::Progress& progress) override {
    if (input_.empty()) synthetic_frame(format_, seed, 0, frame_);
    progress.message("bspline: double-precision reference");
    ref_coef_.resize(format_.planes());
    ref_out_.resize(format_.planes());
    for (int p = 0; p < format_.planes(); ++p)
      reference_plane(frame_.plane(p), format_.plane_height(p), format_.plane_width(p), scale_, align_, ref_coef_[p],
                      ref_out_[p]);
    output_written_ = false;
  }
  void declare_variants(driver::VariantTable& t) override {
    t.add("serial-reference", Platform::cpu1, "plain loops in double (recursions, then direct beta3 sums)",
          [this](const RunSettings& rs) { return run_serial(rs); });
    t.add_portable("kokkos", "portable kernels: IIR one thread per scanline, FIR one thread per output pixel",
                   [this](auto tag) -> Runner {
                     using E = typename decltype(tag)::space;
                     return [this](const RunSettings& rs) { return run_views<E>(rs, Path::portable); };
                   });
    const char* native =
        "bspline native CUDA kernels: IIR prefilter of a plane in one block, then the evaluation "
        "(tessera::video::bspline_prefilter and bspline_interpolate on Cuda)";
    const char* fused =
        "bspline fused native CUDA kernel: the frame in one launch, each 64 x 32 output tile prefiltering its "
        "input window with the truncated FIR (tessera::video::bspline_upscale's pick on Cuda)";
#if TESSERA_HAS_CUDA_NATIVE
    t.add_native("native-cuda", Platform::gpu, native,
                 [this](const RunSettings& rs) { return run_views<Kokkos::Cuda>(rs, Path::two_stage); }, "");
    t.add_native("native-cuda-fused", Platform::gpu, fused,
                 [this](const RunSettings& rs) { return run_views<Kokkos::Cuda>(rs, Path::fused); }, "");
#else
    const char* needs = "native CUDA kernels: a Cuda build with TESSERA_ENABLE_CUDA_NATIVE";
    t.add_native("native-cuda", Platform::gpu, native, {}, needs);
    t.add_native("native-cuda-fused", Platform::gpu, fused, {}, needs);
#endif
  }

 private:
  double in_elems() const {
    double n = 0;
    for (int p = 0; p < format_.planes(); ++p) n += double(format_.plane_bytes(p));
    return n;
  }
  // How a variant runs: the portable kernels, the public prefilter and
  // evaluation (two stages), or the public upscale of the whole frame.
  enum class Path { portable, two_stage, fused };

  // Rows in the paper's shape: IIR (both passes of every plane), FIR; then
  // the whole upscale of the frame.
  std::vector<KernelResult> rows() const {
    const double n = in_elems(), m = n * scale_ * scale_;
    KernelResult iir, fir, all;
    iir.kernel = "bspline-iir";
    iir.bytes = n + 3 * 4 * n;  // read 8-bit, write coef, column pass reads and writes it
    iir.flops = 2 * 5 * n;      // per pass: gain, causal and anti-causal FMAs
    fir.kernel = "bspline-fir";
    fir.bytes = 4 * n + m;  // coefficients once, 8-bit output
    fir.flops = 40 * m;     // 16 + 4 FMAs per output pixel
    all.kernel = "bspline-upscale";
    all.bytes = n + m;  // what no path avoids: 8-bit input and output
    all.flops = iir.flops + fir.flops;
    for (auto* r : {&iir, &fir, &all}) {
      r->bound = driver::Bound::memory;
      r->traffic = driver::Traffic::copy;
      r->arith = driver::Arith::fp32;
      r->working_set = r->bytes;
    }
    iir.tolerance = 1e-3;  // relative to max |coef|
    fir.tolerance = 1;     // grey levels: float vs double may round a tie the other way
    all.tolerance = 1;
    return {iir, fir, all};
  }
  void observables(KernelResult& fir, const std::vector<std::vector<std::uint8_t>>& out) const {
    double s = 0;
    for (auto v : out[0]) s += v;
    fir.observables.push_back({"output_mean_luma", s / double(out[0].size()), "grey levels"});
    fir.observables.push_back({"output_width", double(out_format_.width), "px"});
    fir.observables.push_back({"output_height", double(out_format_.height), "px"});
  }

  std::vector<KernelResult> run_serial(const RunSettings& rs) {
    auto r = rows();
    std::vector<std::vector<double>> coef(format_.planes());
    std::vector<std::vector<std::uint8_t>> out(format_.planes());
    const auto t = time_repeats(HostClock{}, rs.warmup, rs.repeats, [&] {
      for (int p = 0; p < format_.planes(); ++p)
        reference_plane(frame_.plane(p), format_.plane_height(p), format_.plane_width(p), scale_, align_, coef[p],
                        out[p]);
    });
    // One timing for both stages: the reference is not split.
    r[0].ran = false;
    r[0].note = "timed with bspline-fir (prefilter + evaluation)";
    r[1].ran = true;
    r[1].time = t;
    r[1].valid = out == ref_out_;
    r[1].error = r[1].valid ? 0 : std::numeric_limits<double>::infinity();
    observables(r[1], out);
    r[2].ran = r[1].ran;
    r[2].time = r[1].time;
    r[2].valid = r[1].valid;
    r[2].error = r[1].error;
    return r;
  }

  template <class E>
  std::vector<KernelResult> run_views(const RunSettings& rs, Path path) {
    using M = typename E::memory_space;
    using Plane8 = Kokkos::View<std::uint8_t**, Kokkos::LayoutRight, M>;
    using PlaneF = Kokkos::View<float**, Kokkos::LayoutRight, M>;
    E exec;
    const int np = format_.planes();
    std::vector<Plane8> in(np), out(np);
    std::vector<PlaneF> coef(np);
    for (int p = 0; p < np; ++p) {
      const int h = format_.plane_height(p), w = format_.plane_width(p);
      in[p] = Plane8("bspline::in", h, w);
      coef[p] = PlaneF("bspline::coef", h, w);
      out[p] = Plane8("bspline::out", h * scale_, w * scale_);
    }
    auto upload = [&](const Frame& f) {
      for (int p = 0; p < np; ++p)
        Kokkos::deep_copy(exec, in[p],
                          Kokkos::View<const std::uint8_t**, Kokkos::LayoutRight, Kokkos::HostSpace,
                                       Kokkos::MemoryTraits<Kokkos::Unmanaged>>(f.plane(p), in[p].extent(0),
                                                                                in[p].extent(1)));
    };
    const BsplinePhases ph = make_bspline_phases(scale_, align_);
    auto prefilter = [&] {
      for (int p = 0; p < np; ++p) {
        if (path == Path::portable)
          impl::bspline_prefilter_kokkos(exec, in[p], coef[p]);
        else
          bspline_prefilter(exec, in[p], coef[p]);
      }
    };
    auto interpolate = [&] {
      for (int p = 0; p < np; ++p) {
        if (path == Path::portable)
          impl::bspline_interpolate_kokkos(exec, coef[p], out[p], ph);
        else
          bspline_interpolate(exec, coef[p], out[p], scale_, align_);
      }
    };
    auto upscale = [&] {
      if (path == Path::fused) {
        bspline_upscale_planes(exec, in, coef, out, scale_, align_);
      } else {
        prefilter();
        interpolate();
      }
    };
    const bool fused = path == Path::fused;
    upload(frame_);
    auto r = rows();
    if constexpr (!is_device_space_v<E>) {
      // The host's one-pass prefilter (impl/bspline_host_fused.hpp) reads the
      // 8-bit plane once and writes the coefficients once.
      bool one_pass = true;
      for (int p = 0; p < np; ++p) one_pass = one_pass && impl::bspline_prefilter_one_pass(exec, in[p]);
      if (one_pass) {
        r[0].bytes = r[0].working_set = 5 * in_elems();
        r[0].note = "one pass: rows and columns together";
      }
    }
    if (fused) {
      r[0].note = r[1].note = "fused: timed as bspline-upscale";
    } else {
      r[0].ran = r[1].ran = true;
      r[0].time = time_repeats(exec, rs.warmup, rs.repeats, prefilter);
      r[1].time = time_repeats(exec, rs.warmup, rs.repeats, interpolate);
    }
    r[2].ran = true;
    r[2].time = time_repeats(exec, rs.warmup, rs.repeats, upscale);
    exec.fence();
    // Check the coefficients (the fused kernel keeps none) and the output
    // against the double reference.
    double cerr = 0, cmax = 0, oerr = 0;
    std::vector<std::vector<std::uint8_t>> host_out(np);
    for (int p = 0; p < np; ++p) {
      if (!fused) {
        auto hc = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), coef[p]);
        for (std::size_t i = 0; i < hc.size(); ++i) {
          cerr = std::max(cerr, std::fabs(double(hc.data()[i]) - ref_coef_[p][i]));
          cmax = std::max(cmax, std::fabs(ref_coef_[p][i]));
        }
      }
      auto ho = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out[p]);
      host_out[p].assign(ho.data(), ho.data() + ho.size());
      for (std::size_t i = 0; i < ho.size(); ++i)
        oerr = std::max(oerr, std::fabs(double(ho.data()[i]) - double(ref_out_[p][i])));
    }
    if (!fused) {
      r[0].error = cmax > 0 ? cerr / cmax : cerr;
      r[0].valid = r[0].error <= r[0].tolerance;
      r[1].error = oerr;
      r[1].valid = oerr <= r[1].tolerance;
    }
    r[2].error = oerr;
    r[2].valid = oerr <= r[2].tolerance;
    KernelResult& last = fused ? r[2] : r[1];
    observables(last, host_out);
    if (!output_.empty() && !output_written_ && r[2].valid && (fused || (r[0].valid && r[1].valid))) {
      write_output(exec, upload, upscale, out, last);
      output_written_ = true;
    }
    return r;
  }

  // Streams the input (or the synthetic frame) through the kernels into the
  // output file; the chroma planes of 4:2:0 are cropped to the output's size.
  // Double buffered: the next frame is read and the previous result written
  // on other threads while the device works on the current one.
  template <class E, class Upload, class Upscale, class Planes>
  void write_output(const E& exec, Upload& upload, Upscale& upscale, const Planes& out, KernelResult& row) {
    const auto t0 = std::chrono::steady_clock::now();
    Y4mWriter w(output_, out_format_);
    std::unique_ptr<Y4mReader> reader;
    if (!input_.empty()) reader = std::make_unique<Y4mReader>(input_);
    bool synthetic_done = false;
    auto read_into = [&](Frame& f) -> bool {
      if (reader) return reader->read(f);
      if (synthetic_done) return false;
      f = frame_;
      synthetic_done = true;
      return true;
    };
    Frame cur, nxt, outs[2];
    outs[0].resize(out_format_);
    outs[1].resize(out_format_);
    std::vector<typename Planes::value_type::HostMirror> host(out.size());
    for (std::size_t p = 0; p < out.size(); ++p) host[p] = Kokkos::create_mirror_view(out[p]);
    long frames = 0;
    int slot = 0;
    // A bad frame further into the input is a bad input, like a bad header
    // (exit 2); the writer then removes its temporary.
    auto next_frame = [](std::future<bool>& f) {
      try {
        return f.get();
      } catch (const FormatError& e) {
        throw UsageError(e.what());
      }
    };
    // Declared after the writer: an exception waits for them before the
    // writer removes its temporary.
    std::future<void> writing;
    std::future<bool> reading = std::async(std::launch::async, [&] { return read_into(nxt); });
    while (next_frame(reading)) {
      std::swap(cur, nxt);
      reading = std::async(std::launch::async, [&] { return read_into(nxt); });
      upload(cur);
      upscale();
      Frame& o = outs[slot];  // the write in flight, if any, uses the other slot
      for (int p = 0; p < out_format_.planes(); ++p) {
        Kokkos::deep_copy(exec, host[p], out[p]);
        exec.fence();
        const auto& ho = host[p];
        const int ow = out_format_.plane_width(p), oh = out_format_.plane_height(p);
        for (int y = 0; y < oh; ++y)
          std::copy(ho.data() + std::size_t(y) * ho.extent(1), ho.data() + std::size_t(y) * ho.extent(1) + ow,
                    o.plane(p) + std::size_t(y) * ow);
      }
      if (writing.valid()) writing.get();
      writing = std::async(std::launch::async, [&w, &o] { w.write(o); });
      slot ^= 1;
      ++frames;
    }
    if (writing.valid()) writing.get();
    w.commit();
    row.observables.push_back({"frames_written", double(frames), ""});
    row.observables.push_back(
        {"output_seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), "s"});
    row.note = "wrote " + output_;
  }

  int scale_ = 7;
  Alignment align_ = Alignment::centre;
  std::string input_, output_;
  VideoFormat format_, out_format_;
  Frame frame_;
  std::vector<std::vector<double>> ref_coef_;
  std::vector<std::vector<std::uint8_t>> ref_out_;
  bool output_written_ = false;
};

}  // namespace

std::unique_ptr<VideoKernel> make_bspline_kernel() { return std::make_unique<BsplineKernel>(); }

}  // namespace tessera::video
