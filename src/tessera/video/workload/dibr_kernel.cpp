// The dibr family of the video workload: depth propagation of an 800x600
// depth map (Table 5) into a second camera, by an atomic z-buffer and by the
// sort + segmented-min method; every variant must match the serial loop bit
// for bit.
#include "tessera/core/random.hpp"
#include "tessera/core/timer.hpp"
#include "tessera/video/dibr.hpp"
#include "tessera/video/video_io.hpp"
#include "tessera/video/workload/video_workload.hpp"

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstring>
#include <limits>

namespace tessera::video {
namespace {

using driver::KernelResult;
using driver::Options;
using driver::Platform;
using driver::Runner;
using driver::RunSettings;

// The serial reference: the same projection, a plain min per target pixel.
void propagate_serial(const std::vector<float>& depth, int h, int w, const CameraRig& rig, std::vector<float>& out) {
  std::vector<std::uint32_t> z(std::size_t(h) * w, kDepthUnknownBits);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      int tx, ty;
      std::uint32_t b;
      if (dibr_project(rig, x, y, depth[std::size_t(y) * w + x], w, h, tx, ty, b)) {
        auto& t = z[std::size_t(ty) * w + tx];
        t = std::min(t, b);
      }
    }
  out.resize(z.size());
  for (std::size_t i = 0; i < z.size(); ++i) out[i] = depth_from_bits(z[i]);
}

class DibrKernel final : public VideoKernel {
 public:
  std::string name() const override { return "dibr"; }
  std::vector<driver::OptionSpec> options() const override {
    return {{"dibr-size", "WxH", "800x600", "depth propagation: depth map and colour view size (Table 5: 800x600)"}};
  }
  void configure(const Options& opts) override {
    size_ = parse_plane_size("dibr-size", opts.get("dibr-size", "800x600"));
    VideoFormat f;
    f.width = size_.width;
    f.height = size_.height;
    try {
      f.validate();
    } catch (const FormatError& e) {
      throw driver::UsageError(std::string("--dibr-size: ") + e.what());
    }
  }
  std::string problem_summary() const override {
    return "dibr " + std::to_string(size_.width) + "x" + std::to_string(size_.height) + " depth into a second view";
  }
  std::vector<driver::Parameter> parameters() const override {
    return {{"dibr_width", (long long)size_.width}, {"dibr_height", (long long)size_.height}};
  }
  driver::MemoryNeed memory_need() const override {
    const double n = double(size_.width) * size_.height;
    return {n * 24, n * 20};
  }
  void prepare(std::uint64_t seed, driver::Progress& progress) override {
    progress.message("dibr: synthetic depth map and reference");
    const int w = size_.width, h = size_.height;
    depth_.assign(std::size_t(w) * h, 0.0f);
    // A wall at 8 m, a floor rising towards the camera, three spheres in
    // front; 5% of the pixels unknown.
    const double f = 700.0 * w / 800.0;
    const double cx = (w - 1) / 2.0, cy = (h - 1) / 2.0;
    double sph[3][4];
    for (int s = 0; s < 3; ++s) {
      sph[s][0] = random_uniform(seed, 10 + 4 * s, -1.5, 1.5);
      sph[s][1] = random_uniform(seed, 11 + 4 * s, -0.8, 0.8);
      sph[s][2] = random_uniform(seed, 12 + 4 * s, 3.0, 6.0);
      sph[s][3] = random_uniform(seed, 13 + 4 * s, 0.4, 1.0);
    }
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const double rx = (x - cx) / f, ry = (y - cy) / f;  // ray (rx, ry, 1)
        double d = 8.0;
        if (ry > 0.05) d = std::min(d, 1.5 / ry);  // floor 1.5 m below the camera
        for (auto& s : sph) {  // nearest intersection with a sphere
          const double b = rx * s[0] + ry * s[1] + s[2], a = rx * rx + ry * ry + 1;
          const double c = s[0] * s[0] + s[1] * s[1] + s[2] * s[2] - s[3] * s[3];
          const double disc = b * b - a * c;
          if (disc > 0) d = std::min(d, (b - std::sqrt(disc)) / a);
        }
        const bool hole = random_uniform(seed, 1000 + std::uint64_t(y) * w + x) < 0.05;
        depth_[std::size_t(y) * w + x] = hole ? 0.0f : float(d);
      }
    rig_.source = rig_.target = {f, f, cx, cy};
    const double yaw = 2.0 * 3.141592653589793 / 180;  // the colour camera: 2 degrees yaw, 20 cm baseline
    const double R[9] = {std::cos(yaw), 0, std::sin(yaw), 0, 1, 0, -std::sin(yaw), 0, std::cos(yaw)};
    std::copy(R, R + 9, rig_.R);
    rig_.t[0] = -0.2;
    rig_.t[1] = 0.01;
    rig_.t[2] = 0.05;
    propagate_serial(depth_, h, w, rig_, ref_);
  }
  void declare_variants(driver::VariantTable& t) override {
    t.add("serial-reference", Platform::cpu1, "plain loop, min per target pixel",
          [this](const RunSettings& rs) { return run_serial(rs); });
    t.add_portable("kokkos", "portable kernels: atomic min on the depth bits",
                   [this](auto tag) -> Runner {
                     using E = typename decltype(tag)::space;
                     return [this](const RunSettings& rs) { return run_views<E>(rs, Method::portable_atomic); };
                   });
    t.add_portable("kokkos-sorted", "portable kernels without atomics: sort by target pixel, segmented min",
                   [this](auto tag) -> Runner {
                     using E = typename decltype(tag)::space;
                     return [this](const RunSettings& rs) { return run_views<E>(rs, Method::portable_sorted); };
                   });
    const char* native = "native CUDA kernels: atomicMin z-buffer (what propagate_depth_atomic selects on Cuda)";
    const char* native_sorted =
        "native CUDA kernels without atomics: CUB radix sort by target pixel, segmented min (what "
        "propagate_depth_sorted selects on Cuda)";
#if TESSERA_HAS_CUDA_NATIVE
    t.add_native("native-cuda", Platform::gpu, native,
                 [this](const RunSettings& rs) { return run_views<Kokkos::Cuda>(rs, Method::public_atomic); }, "");
    t.add_native("native-cuda-sorted", Platform::gpu, native_sorted,
                 [this](const RunSettings& rs) { return run_views<Kokkos::Cuda>(rs, Method::public_sorted); }, "");
#else
    t.add_native("native-cuda", Platform::gpu, native, {},
                 "native CUDA kernels: a Cuda build with TESSERA_ENABLE_CUDA_NATIVE");
    t.add_native("native-cuda-sorted", Platform::gpu, native_sorted, {},
                 "native CUDA kernels: a Cuda build with TESSERA_ENABLE_CUDA_NATIVE");
#endif
  }

 private:
  enum class Method { portable_atomic, public_atomic, portable_sorted, public_sorted };

  KernelResult row(const std::string& kernel) const {
    const double n = double(size_.width) * size_.height;
    KernelResult r;
    r.kernel = kernel;
    r.bytes = kernel == "dibr-sorted" ? 4 * n + 8 * n * 4 + 4 * n : 4 * n + 4 * n + 8 * n + 8 * n;
    r.flops = 40 * n;  // back-projection, 3x3 transform, projection (double)
    r.bound = driver::Bound::memory;
    r.traffic = driver::Traffic::copy;
    r.arith = driver::Arith::fp64;
    r.working_set = r.bytes;
    r.tolerance = 0;  // pixels that differ in any bit
    return r;
  }
  void check(KernelResult& r, const std::vector<float>& out) const {
    long long bad = 0, known = 0;
    for (std::size_t i = 0; i < out.size(); ++i) {
      bad += std::memcmp(&out[i], &ref_[i], sizeof(float)) != 0;
      known += out[i] > 0;
    }
    r.error = double(bad);
    r.valid = bad == 0;
    r.observables.push_back({"known_fraction", double(known) / double(out.size()), ""});
  }

  std::vector<KernelResult> run_serial(const RunSettings& rs) const {
    auto r = row("dibr");
    std::vector<float> out;
    r.ran = true;
    r.time = time_repeats(HostClock{}, rs.warmup, rs.repeats,
                          [&] { propagate_serial(depth_, size_.height, size_.width, rig_, out); });
    check(r, out);
    return {r};
  }

  template <class E>
  std::vector<KernelResult> run_views(const RunSettings& rs, Method m) const {
    using M = typename E::memory_space;
    const int h = size_.height, w = size_.width;
    E exec;
    Kokkos::View<float**, Kokkos::LayoutRight, M> d("dibr::depth", h, w), out("dibr::out", h, w);
    Kokkos::deep_copy(d, Kokkos::View<const float**, Kokkos::LayoutRight, Kokkos::HostSpace,
                                      Kokkos::MemoryTraits<Kokkos::Unmanaged>>(depth_.data(), h, w));
    Kokkos::deep_copy(out, std::numeric_limits<float>::quiet_NaN());
    const bool sorted = m == Method::portable_sorted || m == Method::public_sorted;
    auto r = row(sorted ? "dibr-sorted" : "dibr");
    r.ran = true;
    if (sorted) {
      Kokkos::View<std::uint64_t*, M> keys("dibr::keys", std::size_t(h) * w);
      if (m == Method::public_sorted)
        r.time = time_repeats(exec, rs.warmup, rs.repeats, [&] { propagate_depth_sorted(exec, d, keys, out, rig_); });
      else
        r.time = time_repeats(exec, rs.warmup, rs.repeats, [&] { impl::dibr_sorted_kokkos(exec, d, keys, out, rig_); });
    } else {
      Kokkos::View<std::uint32_t**, Kokkos::LayoutRight, M> z("dibr::zbuf", h, w);
      if (m == Method::public_atomic)
        r.time = time_repeats(exec, rs.warmup, rs.repeats, [&] { propagate_depth_atomic(exec, d, z, out, rig_); });
      else
        r.time = time_repeats(exec, rs.warmup, rs.repeats, [&] { impl::dibr_atomic_kokkos(exec, d, z, out, rig_); });
    }
    exec.fence();
    auto ho = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
    check(r, std::vector<float>(ho.data(), ho.data() + ho.size()));
    return {r};
  }

  PlaneSize size_{800, 600};
  std::vector<float> depth_, ref_;
  CameraRig rig_;
};

}  // namespace

std::unique_ptr<VideoKernel> make_dibr_kernel() { return std::make_unique<DibrKernel>(); }

}  // namespace tessera::video
