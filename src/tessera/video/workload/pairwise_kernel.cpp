// The pairwise family of the video workload: P(i, j) = sum_k (F(i,k) - D(j,k))^2
// for m x l and n x l float matrices (benchmark m = n = 8192, l = 256), the
// tiled kernel and the GEMM form, checked in double on a sample of entries
// (every entry of a few rows and columns plus random ones).
#include "tessera/config.hpp"
#include "tessera/core/random.hpp"
#include "tessera/core/timer.hpp"
#include "tessera/video/pairwise.hpp"
#include "tessera/video/workload/video_kernel.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
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
using Mat = Kokkos::View<float**, Kokkos::LayoutRight, Mem>;
using HostMat = Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

struct Sample {
  int i, j;
  double ref, scale;  // scale: ||f||^2 + ||d||^2 (the GEMM form's error scale)
};

class PairwiseKernel final : public VideoKernel {
 public:
  std::string name() const override { return "pairwise"; }
  std::vector<OptionSpec> options() const override {
    return {{"m", "M", "8192", "pairwise: rows of F"},
            {"n", "N", "8192", "pairwise: rows of D"},
            {"l", "L", "256", "pairwise: features per row"}};
  }
  void configure(const Options& opts) override {
    m_ = opts.get_int("m", 8192, 1, 1 << 20);
    n_ = opts.get_int("n", 8192, 1, 1 << 20);
    l_ = opts.get_int("l", 256, 1, 1 << 16);
    if (m_ * n_ > (1LL << 32)) throw UsageError("pairwise: m x n over 2^32 entries");
  }
  std::string problem_summary() const override {
    std::ostringstream s;
    s << "pairwise " << m_ << " x " << n_ << " distances of " << l_ << " features, float";
    return s.str();
  }
  std::vector<Parameter> parameters() const override {
    return {{"pairwise_m", m_}, {"pairwise_n", n_}, {"pairwise_l", l_}, {"pairwise_precision", std::string("float")}};
  }
  MemoryNeed memory_need() const override {
    const double f = 4.0 * (m_ + n_) * l_, p = 4.0 * m_ * n_;
    return {f + p, f + p + 4.0 * (m_ + n_)};
  }
  void prepare(std::uint64_t seed, Progress& progress) override {
    progress.message("pairwise: inputs and a sampled double reference");
    F_.resize(std::size_t(m_) * l_);
    D_.resize(std::size_t(n_) * l_);
    for (std::size_t i = 0; i < F_.size(); ++i) F_[i] = float(random_uniform(seed, i, 0.0, 1.0));
    for (std::size_t i = 0; i < D_.size(); ++i) D_[i] = float(random_uniform(seed ^ 0x44ull, i, 0.0, 1.0));
    samples_.clear();
    auto add = [&](long long i, long long j) {
      double s = 0, fn = 0, dn = 0;
      for (long long c = 0; c < l_; ++c) {
        const double f = F_[i * l_ + c], d = D_[j * l_ + c];
        s += (f - d) * (f - d);
        fn += f * f;
        dn += d * d;
      }
      samples_.push_back({int(i), int(j), s, fn + dn});
    };
    // Whole first and last rows and columns (tile edges), then random entries.
    for (long long j = 0; j < n_; ++j) add(0, j), add(m_ - 1, j);
    for (long long i = 0; i < m_; ++i) add(i, 0), add(i, n_ - 1);
    for (std::uint64_t s = 0; s < 20000; ++s)
      add((long long)(random_uniform(seed ^ 0x5a, 2 * s) * m_), (long long)(random_uniform(seed ^ 0x5a, 2 * s + 1) * n_));
  }

  void declare_variants(VariantTable& t) override {
    t.add("serial-reference", Platform::cpu1, "pairwise: plain loops, one thread",
          [this](const RunSettings& rs) { return run_serial(rs); });
    t.add_portable("kokkos-tiled", "pairwise: 16 x 16 tiles of P, features in chunks of 16 through team scratch",
                   [this](auto tag) -> Runner {
                     using E = typename decltype(tag)::space;
                     return [this](const RunSettings& rs) { return run_kokkos<E>(rs, PairwiseAlgorithm::tiled); };
                   });
    t.add_portable("kokkosblas-gemm",
                   "pairwise GEMM form ||f||^2 + ||d||^2 - 2 F D^T by KokkosBlas::gemm (cuBLAS on Cuda), clamped at 0",
                   [this](auto tag) -> Runner {
                     using E = typename decltype(tag)::space;
                     return [this](const RunSettings& rs) { return run_kokkos<E>(rs, PairwiseAlgorithm::gemm); };
                   });
    const char* native =
        "pairwise native CUDA: 128 x 128 tiles, 8 x 8 outputs per thread (tessera::video's pick on Cuda)";
    const char* fused = "pairwise GEMM form in one native CUDA kernel: the same tiles, f.d by FFMA, norms and clamp fused";
#if TESSERA_HAS_CUDA_NATIVE
    t.add_native("native-cuda-tiled", Platform::gpu, native,
                 [this](const RunSettings& rs) { return run_kokkos<Kokkos::Cuda>(rs, PairwiseAlgorithm::automatic); },
                 "");
    t.add_native("native-cuda-gemm", Platform::gpu, fused,
                 [this](const RunSettings& rs) { return run_kokkos<Kokkos::Cuda>(rs, PairwiseAlgorithm::gemm_fused); },
                 "");
#else
    t.add_native("native-cuda-tiled", Platform::gpu, native, {},
                 "native CUDA kernels: a Cuda build with TESSERA_ENABLE_CUDA_NATIVE");
    t.add_native("native-cuda-gemm", Platform::gpu, fused, {},
                 "native CUDA kernels: a Cuda build with TESSERA_ENABLE_CUDA_NATIVE");
#endif
    t.set_default(Platform::gpu, TESSERA_HAS_CUDA_NATIVE ? "native-cuda-tiled" : "kokkos-tiled@Cuda");
    t.set_default(Platform::cpu, "kokkos-tiled@OpenMP");
  }

  // Public: nvcc allows no device lambdas in private members.
  template <class E>
  std::vector<KernelResult> run_kokkos(const RunSettings& rs_in, PairwiseAlgorithm a) const {
    const RunSettings rs = one_thread_capped<E>(rs_in, 3.0 * double(m_) * n_ * l_);
    E exec;
    using Mem = typename E::memory_space;
    Mat<Mem> F(Kokkos::view_alloc(Kokkos::WithoutInitializing, "F"), m_, l_);
    Mat<Mem> D(Kokkos::view_alloc(Kokkos::WithoutInitializing, "D"), n_, l_);
    Mat<Mem> P(Kokkos::view_alloc(Kokkos::WithoutInitializing, "P"), m_, n_);
    Kokkos::deep_copy(exec, F, HostMat(const_cast<float*>(F_.data()), m_, l_));
    Kokkos::deep_copy(exec, D, HostMat(const_cast<float*>(D_.data()), n_, l_));
    const auto stats = time_repeats(exec, rs.warmup, rs.repeats, [&] { pairwise_distance(exec, F, D, P, a); });
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), P);
    return {result(stats, h.data(), a == PairwiseAlgorithm::gemm || a == PairwiseAlgorithm::gemm_fused)};
  }

 private:
  KernelResult result(const TimingStats& stats, const float* P, bool gemm) const {
    KernelResult r;
    r.kernel = "pairwise";
    r.ran = true;
    r.time = stats;
    // Direct: subtract, multiply, add per term. GEMM form: a multiply-add per
    // term and the norms (each form's own arithmetic, so % of FMA compares).
    r.flops = gemm ? 2.0 * double(m_) * n_ * l_ + 2.0 * double(m_ + n_) * l_ : 3.0 * double(m_) * n_ * l_;
    r.bytes = 4.0 * (double(m_ + n_) * l_ + double(m_) * n_);
    r.working_set = r.bytes;
    r.bound = driver::Bound::roofline;
    r.arith = driver::Arith::fp32;
    r.traffic = driver::Traffic::copy;
    // Direct: relative to the entry (a sum of l non-negative terms). GEMM form:
    // relative to ||f||^2 + ||d||^2, the size of the terms that cancel.
    double err = 0;
    for (const auto& s : samples_) {
      const double got = P[std::size_t(s.i) * n_ + s.j];
      const double e = std::abs(got - s.ref) / (gemm ? s.scale : std::max(s.ref, 1e-30));
      err = std::max(err, std::isnan(got) ? std::numeric_limits<double>::infinity() : e);
    }
    r.error = err;
    r.tolerance = std::max(1e-5, 1.2e-7 * double(l_));  // float rounding of l terms, 2 u each
    r.valid = err <= r.tolerance;
    r.note = std::to_string(samples_.size()) + " entries checked in double";
    double mean = 0;
    for (const auto& s : samples_) mean += P[std::size_t(s.i) * n_ + s.j];
    r.observables.push_back({"mean sampled distance^2", mean / double(samples_.size()), "", -1});
    return r;
  }

  std::vector<KernelResult> run_serial(const RunSettings& rs) const {
    std::vector<float> P(std::size_t(m_) * n_);
    auto once = [&] {
      for (long long i = 0; i < m_; ++i)
        for (long long j = 0; j < n_; ++j) {
          float s = 0;
          for (long long c = 0; c < l_; ++c) {
            const float d = F_[i * l_ + c] - D_[j * l_ + c];
            s += d * d;
          }
          P[i * n_ + j] = s;
        }
    };
    std::vector<double> times;
    for (int i = 0; i < std::min(rs.repeats, 2); ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      once();
      times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
    auto r = result(summarize(times), P.data(), false);
    r.note += ", plain loops, at most 2 repeats";
    return {r};
  }

  long long m_ = 8192, n_ = 8192, l_ = 256;
  std::vector<float> F_, D_;
  std::vector<Sample> samples_;
};

}  // namespace

std::unique_ptr<VideoKernel> make_pairwise_kernel() { return std::make_unique<PairwiseKernel>(); }

}  // namespace tessera::video
