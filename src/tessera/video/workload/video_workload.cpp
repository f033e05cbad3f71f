// The video workload: merges the selected kernel families' variant tables.
#include "tessera/video/workload/video_workload.hpp"

#include "tessera/driver/results.hpp"
#include "tessera/driver/workload_helpers.hpp"
#include "tessera/video/video_io.hpp"
#include "tessera/video/workload/video_tables.hpp"

#include <algorithm>
#include <map>

namespace tessera::video {

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

PlaneSize parse_plane_size(const std::string& option, const std::string& text) {
  const auto x = text.find('x');
  auto bad = [&] { return UsageError("--" + option + " expects WxH (1..16384 each), got '" + text + "'"); };
  if (x == std::string::npos) throw bad();
  Options o;
  o.set("w", text.substr(0, x));
  o.set("h", text.substr(x + 1));
  try {
    return {int(o.get_int("w", 0, 1, kMaxDimension)), int(o.get_int("h", 0, 1, kMaxDimension))};
  } catch (const UsageError&) {
    throw bad();
  }
}

namespace {

// Families of this build: part of them may live in other translation units
// that a build adds later (TESSERA_VIDEO_HAS_* from sources_image.cmake).
std::vector<std::unique_ptr<VideoKernel>> available_families() {
  std::vector<std::unique_ptr<VideoKernel>> f;
#if defined(TESSERA_VIDEO_HAS_CONV3D)
  f.push_back(make_conv3d_kernel());
#endif
#if defined(TESSERA_VIDEO_HAS_PAIRWISE)
  f.push_back(make_pairwise_kernel());
#endif
  f.push_back(make_bspline_kernel());
  f.push_back(make_dibr_kernel());
  f.push_back(make_bilateral_kernel());
  return f;
}

// --size: defaults of the families' size options. small keeps a whole
// `compare video` at seconds on two cores; paper is the issue's benchmark
// (Tables 1-5: conv3d k = 5..15 on 720 x 560, pairwise 8192^2 x 256,
// bilateral 800 x 600). An option given on the command line wins.
struct SizeDefault {
  const char* option;
  const char* small;
  const char* paper;
};
constexpr SizeDefault kSizeDefaults[] = {{"k", "9", "5,7,9,11,13,15"}, {"width", "96", "720"},
                                         {"height", "72", "560"},     {"m", "512", "8192"},
                                         {"n", "512", "8192"},        {"bilateral-size", "400x300", "800x600"}};

template <class E>
std::string space_name() {
  return E::name();
}

class VideoWorkload final : public driver::Workload {
 public:
  VideoWorkload() : families_(available_families()) {
    for (std::size_t i = 0; i < families_.size(); ++i) selected_.push_back(true);
  }
  std::string name() const override { return "video"; }
  std::string description() const override {
    return "video kernels of Lin et al.: 3-D convolution, pairwise distance, cubic B-spline upscaling, depth "
           "propagation, depth-colour bilateral filter; Y4M video in and out";
  }
  std::vector<OptionSpec> options() const override {
    std::vector<OptionSpec> o = {
        {"kernels", "LIST", all_names(), "kernel families to run"},
        {"input", "FILE.y4m", "", "process this video (bspline: every plane; bilateral: its luma) instead of synthetic data"},
        {"output", "FILE.y4m", "", "write the processed video (bspline if selected, else bilateral's depth, else conv3d's)"},
        {"size", "small|paper", "small",
         "default sizes: small (a whole compare in seconds) or the paper's (Tables 1-5; conv3d k = 5..15)"}};
    for (const auto& f : families_)
      for (auto spec : f->options()) {
        for (const auto& d : kSizeDefaults)
          if (spec.name == d.option) spec.default_value = std::string(d.small) + ", paper " + d.paper;
        if (std::none_of(o.begin(), o.end(), [&](const OptionSpec& s) { return s.name == spec.name; })) o.push_back(spec);
      }
    return o;
  }
  void configure(const Options& given) override {
    Options opts = given;
    const bool paper = driver::get_choice(given, "size", {"small", "paper"}, "small") == "paper";
    for (const auto& d : kSizeDefaults)
      if (!given.has(d.option)) opts.set(d.option, paper ? d.paper : d.small);
    const auto list = opts.get_list("kernels", all_names());
    if (list.empty()) throw UsageError("--kernels needs at least one of " + all_names());
    std::fill(selected_.begin(), selected_.end(), false);
    for (const auto& k : list) {
      bool found = false;
      for (std::size_t i = 0; i < families_.size(); ++i)
        if (families_[i]->name() == k) selected_[i] = found = true;
      if (!found) {
        if (k == "conv3d" || k == "pairwise" || k == "bspline" || k == "dibr" || k == "bilateral")
          throw UsageError("video kernel '" + k + "' is not in this build");
        throw UsageError("unknown video kernel '" + k + "' (" + all_names() + ")");
      }
    }
    const std::string output = opts.get("output", "");
    if (!output.empty()) driver::check_output_path(output);
    // --output goes to bspline when it runs, else to bilateral, else to conv3d.
    std::string output_owner;
    for (const char* k : {"bspline", "bilateral", "conv3d"})
      if (output_owner.empty() && is_selected(k)) output_owner = k;
    if (!output.empty() && output_owner.empty())
      throw UsageError("--output needs --kernels with bspline, bilateral or conv3d");
    for (std::size_t i = 0; i < families_.size(); ++i) {
      if (!selected_[i]) continue;
      Options o = opts;
      if (families_[i]->name() != output_owner) o.set("output", "");
      try {
        families_[i]->configure(o);
      } catch (const FormatError& e) {
        throw UsageError(e.what());
      }
    }
  }
  std::string problem_summary() const override {
    std::string s;
    for (std::size_t i = 0; i < families_.size(); ++i)
      if (selected_[i]) s += (s.empty() ? "" : "; ") + families_[i]->problem_summary();
    return s;
  }
  std::vector<Parameter> parameters() const override {
    std::string k;
    for (std::size_t i = 0; i < families_.size(); ++i)
      if (selected_[i]) k += (k.empty() ? "" : ",") + families_[i]->name();
    std::vector<Parameter> p = {{"kernels", k}};
    for (std::size_t i = 0; i < families_.size(); ++i)
      if (selected_[i])
        for (auto& x : families_[i]->parameters()) p.push_back(x);
    return p;
  }
  MemoryNeed memory_need() const override {
    // Families run one after another and free their buffers: the largest counts.
    MemoryNeed m;
    for (std::size_t i = 0; i < families_.size(); ++i)
      if (selected_[i]) {
        const MemoryNeed f = families_[i]->memory_need();
        m.host_bytes += f.host_bytes;  // inputs and references stay on the host
        m.device_bytes = std::max(m.device_bytes, f.device_bytes);
      }
    return m;
  }
  void prepare(std::uint64_t seed, Progress& progress) override {
    for (std::size_t i = 0; i < families_.size(); ++i)
      if (selected_[i]) {
        try {
          families_[i]->prepare(seed, progress);
        } catch (const FormatError& e) {
          throw UsageError(e.what());
        }
      }
  }
  void print_summary(const driver::Report& report, std::ostream& out) const override {
    print_paper_tables(report, out);
  }
  std::vector<std::string> demo_arguments() const override {
    return {"--kernels", "bspline,dibr,bilateral", "--scale",   "4",         "--bspline-size", "88x72",
            "--dibr-size", "200x150",            "--bilateral-size", "200x150", "--repeats",    "3"};
  }

 protected:
  void declare_variants(VariantTable& t) override {
    struct Merged {
      std::string name, description, needs;
      Platform platform = Platform::cpu;
      bool portable = false, native = false;
      std::vector<std::pair<std::size_t, Runner>> runs;
    };
    std::vector<Merged> merged;
    // A description without its ", <Space> backend" suffix (add_portable puts it back).
    auto bare = [](std::string d) {
      const auto comma = d.rfind(", ");
      if (comma != std::string::npos && d.size() > 8 && d.compare(d.size() - 8, 8, " backend") == 0) d.resize(comma);
      return d;
    };
    for (std::size_t i = 0; i < families_.size(); ++i) {
      VariantTable ft;
      families_[i]->declare_variants(ft);
      for (const auto& v : ft.all()) {
        auto it = std::find_if(merged.begin(), merged.end(), [&](const Merged& m) { return m.name == v.name; });
        if (it != merged.end() && bare(v.description) != bare(it->description) &&
            it->description.find(bare(v.description)) == std::string::npos)
          it->description = bare(it->description) + "; " + v.description;  // each family's part
        if (it == merged.end()) {
          Merged m;
          m.name = v.name;
          m.description = v.description;
          m.platform = v.platform;
          m.portable = v.portable;
          m.native = v.native;
          merged.push_back(m);
          it = merged.end() - 1;
        }
        if (v.run)
          it->runs.emplace_back(i, v.run);
        else if (it->needs.empty())
          it->needs = v.needs;
      }
    }
    auto composite = [this](const Merged& m) -> Runner {
      if (m.runs.empty()) return {};
      return [this, runs = m.runs](const RunSettings& rs) {
        std::vector<KernelResult> rows;
        for (std::size_t i = 0; i < families_.size(); ++i) {
          if (!selected_[i]) continue;
          bool had = false;
          for (const auto& [fam, run] : runs)
            if (fam == i) {
              for (auto& r : run(rs)) rows.push_back(std::move(r));
              had = true;
            }
          if (!had) {
            KernelResult r;
            r.kernel = families_[i]->name();
            r.note = "not offered by this variant";
            rows.push_back(r);
          }
        }
        return rows;
      };
    };
    std::vector<std::string> portable_kinds;
    for (const auto& m : merged) {
      if (m.portable) {
        const std::string kind = m.name.substr(0, m.name.find('@'));
        if (std::find(portable_kinds.begin(), portable_kinds.end(), kind) != portable_kinds.end()) continue;
        portable_kinds.push_back(kind);
        unsigned spaces = 0;
        for (const auto& n : merged) {
          if (n.name == kind + "@Serial") spaces |= driver::serial;
          if (n.name == kind + "@OpenMP") spaces |= driver::openmp;
          if (n.name == kind + "@Cuda") spaces |= driver::cuda;
        }
        std::string desc = m.description;
        const auto comma = desc.rfind(", ");
        if (comma != std::string::npos && desc.size() > 8 && desc.compare(desc.size() - 8, 8, " backend") == 0)
          desc.resize(comma);
        t.add_portable(
            kind, desc,
            [&merged, &composite, kind](auto tag) -> Runner {
              using E = typename decltype(tag)::space;
              const std::string name = kind + "@" + space_name<E>();
              for (const auto& n : merged)
                if (n.name == name) return composite(n);
              return {};
            },
            spaces);
      } else if (m.native) {
        t.add_native(m.name, m.platform, m.description, composite(m), m.needs);
      } else {
        t.add(m.name, m.platform, m.description, composite(m), m.needs);
      }
    }
    auto has = [&](const std::string& n) {
      return std::any_of(merged.begin(), merged.end(), [&](const Merged& m) { return m.name == n && !m.runs.empty(); });
    };
    if (has("native-cuda"))
      t.set_default(Platform::gpu, "native-cuda");
    else if (has("kokkos@Cuda"))
      t.set_default(Platform::gpu, "kokkos@Cuda");
    if (has("kokkos@OpenMP")) t.set_default(Platform::cpu, "kokkos@OpenMP");
    if (has("kokkos@Serial")) t.set_default(Platform::cpu1, "kokkos@Serial");
  }

 private:
  std::string all_names() const {
    std::string s;
    for (const auto& f : families_) s += (s.empty() ? "" : ",") + f->name();
    return s;
  }
  bool is_selected(const std::string& name) const {
    for (std::size_t i = 0; i < families_.size(); ++i)
      if (families_[i]->name() == name) return selected_[i];
    return false;
  }

  std::vector<std::unique_ptr<VideoKernel>> families_;
  std::vector<bool> selected_;
};

}  // namespace

std::unique_ptr<driver::Workload> make_video_workload() { return std::make_unique<VideoWorkload>(); }

}  // namespace tessera::video
