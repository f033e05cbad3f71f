// The stream workload for the driver: variants, sizes, byte/flop counts and
// validation of copy (out = a), triad (out = b + s c) and sum (of a).
#include "tessera/stream/stream_workload.hpp"

#include "tessera/core/random.hpp"
#include "tessera/core/timer.hpp"
#include "tessera/core/validate.hpp"
#include "tessera/stream/stream.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace tessera::stream {

using driver::KernelResult;
using driver::MemoryNeed;
using driver::Options;
using driver::OptionSpec;
using driver::Platform;
using driver::RunSettings;
using driver::UsageError;
using driver::Parameter;
using driver::Progress;
using driver::Runner;
using driver::VariantTable;

long long stream_size_elements(const std::string& size) {
  if (size == "S") return 1LL << 22;
  if (size == "M") return 1LL << 25;
  if (size == "L") return 1LL << 27;
  if (size == "XL") return 1LL << 28;
  Options o;
  o.set("size", size);
  try {
    return o.get_int("size", 0, 1, 1LL << 32);
  } catch (const UsageError&) {
    throw UsageError("--size expects S, M, L, XL or a number of elements (1 to 2^32), got '" + size + "'");
  }
}

namespace {

constexpr double kScalar = 3.0;  // STREAM's triad scalar
constexpr double kEps = std::numeric_limits<double>::epsilon();

struct Inputs {
  std::vector<double> a, b, c, triad_ref;
  long double sum_ref = 0;
};

class StreamWorkload final : public driver::Workload {
 public:
  std::string name() const override { return "stream"; }
  std::string description() const override {
    return "STREAM copy (out = a), triad (out = b + 3 c) and sum (of a) in double: the measured bandwidth roofline";
  }
  std::vector<OptionSpec> options() const override {
    return {{"size", "S|M|L|XL|N", "M", "elements per array: S 2^22, M 2^25, L 2^27, XL 2^28, or a number"},
            {"kernels", "LIST", "copy,triad,sum", "kernels to run"}};
  }
  void configure(const Options& opts) override {
    n_ = stream_size_elements(opts.get("size", "M"));
    size_name_ = opts.get("size", "M");
    kernels_ = opts.get_list("kernels", "copy,triad,sum");
    if (kernels_.empty()) throw UsageError("--kernels needs at least one of copy, triad, sum");
    for (const auto& k : kernels_)
      if (k != "copy" && k != "triad" && k != "sum")
        throw UsageError("unknown stream kernel '" + k + "' (copy, triad, sum)");
  }
  std::string problem_summary() const override {
    std::ostringstream s;
    s << n_ << " doubles per array (" << (n_ * 8 >> 20) << " MiB, size " << size_name_ << "), kernels ";
    for (size_t i = 0; i < kernels_.size(); ++i) s << (i ? "," : "") << kernels_[i];
    return s.str();
  }
  MemoryNeed memory_need() const override {
    // Host: a, b, c, triad reference + one variant's four arrays; device: four arrays.
    return {8.0 * 8 * double(n_), 4.0 * 8 * double(n_)};
  }
  // copy/triad are the copy ceiling, sum the read-only one.
  std::vector<std::string> roofline_kernels() const override { return {"copy", "triad", "sum"}; }

  std::vector<Parameter> parameters() const override {
    std::string k;
    for (const auto& x : kernels_) k += (k.empty() ? "" : ",") + x;
    return {{"elements", n_}, {"size", size_name_}, {"kernels", k}, {"precision", std::string("double")}};
  }
  std::vector<std::string> demo_arguments() const override { return {"--size", "S", "--repeats", "5"}; }

  void prepare(std::uint64_t seed, Progress&) override {
    const std::size_t n = static_cast<std::size_t>(n_);
    in_.a.assign(n, 0.0);
    in_.b.assign(n, 0.0);
    in_.c.assign(n, 0.0);
    in_.triad_ref.assign(n, 0.0);
    double* a = in_.a.data();
    double* b = in_.b.data();
    double* c = in_.c.data();
    double* t = in_.triad_ref.data();
    Kokkos::parallel_for(
        "tessera::stream::inputs", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, n), [=](std::size_t i) {
          a[i] = random_uniform(seed, 3 * i, 0.5, 1.5);
          b[i] = random_uniform(seed, 3 * i + 1, 0.5, 1.5);
          c[i] = random_uniform(seed, 3 * i + 2, 0.5, 1.5);
          t[i] = b[i] + kScalar * c[i];
        });
    Kokkos::fence();
    long double s = 0;
    for (std::size_t i = 0; i < n; ++i) s += a[i];
    in_.sum_ref = s;
  }

 protected:
  void declare_variants(VariantTable& t) override {
    t.add("serial-reference", Platform::cpu1, "plain C++ loops, one thread",
          [this](const RunSettings& rs) { return run_serial(rs); });
    t.add_portable(
        "kokkos", "portable Kokkos kernels",
        [this](auto tag) -> Runner {
          using E = typename decltype(tag)::space;
          return [this](const RunSettings& rs) { return run_views<E>(rs, Portable{}); };
        });
    const char* native = "native CUDA kernels (what tessera::stream selects on Cuda)";
#if TESSERA_HAS_CUDA_NATIVE
    t.add_native("native-cuda", Platform::gpu, native,
                 [this](const RunSettings& rs) { return run_views<Kokkos::Cuda>(rs, PublicApi{}); }, "");
#else
    t.add_native("native-cuda", Platform::gpu, native, {}, "a Cuda build with TESSERA_ENABLE_CUDA_NATIVE");
#endif
    const char* memcpy = "vendor: cudaMemcpyAsync device to device (copy only)";
#if defined(KOKKOS_ENABLE_CUDA)
    t.add("cuda-memcpy", Platform::gpu, memcpy,
          [this](const RunSettings& rs) { return run_views<Kokkos::Cuda>(rs, CudaMemcpy{}); });
#else
    t.add("cuda-memcpy", Platform::gpu, memcpy, {}, "Kokkos' Cuda backend");
#endif
    t.set_default(Platform::gpu, TESSERA_HAS_CUDA_NATIVE ? "native-cuda" : "kokkos@Cuda");
    t.set_default(Platform::cpu, "kokkos@OpenMP");
    t.set_default(Platform::cpu1, "kokkos@Serial");
  }

 private:
  // The three ways a variant's kernels are called.
  struct Portable {
    static constexpr bool has_triad = true, has_sum = true;
    template <class E, class A, class C>
    void copy(const E& e, const A& a, const C& c) const { impl::copy_kokkos(e, a, c); }
    template <class E, class A, class B, class C>
    void triad(const E& e, const A& a, const B& b, const C& c, double s) const { impl::triad_kokkos(e, a, b, c, s); }
    template <class E, class A>
    double sum(const E& e, const A& a) const { return impl::sum_kokkos(e, a); }
  };
  struct PublicApi {
    static constexpr bool has_triad = true, has_sum = true;
    template <class E, class A, class C>
    void copy(const E& e, const A& a, const C& c) const { stream::copy(e, a, c); }
    template <class E, class A, class B, class C>
    void triad(const E& e, const A& a, const B& b, const C& c, double s) const { stream::triad(e, a, b, c, s); }
    template <class E, class A>
    double sum(const E& e, const A& a) const { return stream::sum(e, a); }
  };
#if defined(KOKKOS_ENABLE_CUDA)
  struct CudaMemcpy {
    static constexpr bool has_triad = false, has_sum = false;
    template <class A, class C>
    void copy(const Kokkos::Cuda& e, const A& a, const C& c) const {
      const cudaError_t err = cudaMemcpyAsync(c.data(), a.data(), a.span() * sizeof(double),
                                              cudaMemcpyDeviceToDevice, e.cuda_stream());
      if (err != cudaSuccess) throw std::runtime_error(std::string("cudaMemcpyAsync: ") + cudaGetErrorString(err));
    }
    template <class E, class A, class B, class C>
    void triad(const E&, const A&, const B&, const C&, double) const {}
    template <class E, class A>
    double sum(const E&, const A&) const { return 0; }
  };
#endif


  KernelResult result(const std::string& kernel) const {
    KernelResult r;
    r.kernel = kernel;
    const double n = double(n_);
    if (kernel == "copy") r.bytes = 16 * n, r.flops = 0, r.tolerance = 0;
    if (kernel == "triad") r.bytes = 24 * n, r.flops = 2 * n, r.tolerance = 4 * kEps;
    // Sums of n positive terms in another order: rounding grows like sqrt(n).
    if (kernel == "sum") r.bytes = 8 * n, r.flops = n, r.tolerance = 8 * kEps * std::sqrt(n);
    r.bound = driver::Bound::memory;
    r.traffic = kernel == "sum" ? driver::Traffic::read : driver::Traffic::copy;
    r.working_set = kernel == "copy" ? 16 * n : kernel == "triad" ? 24 * n : 8 * n;
    return r;
  }
  void check_sum(KernelResult& r, double s) const {
    r.error = std::abs(double((s - in_.sum_ref) / in_.sum_ref));
    if (!(r.error == r.error)) r.error = std::numeric_limits<double>::infinity();
    r.valid = r.error <= r.tolerance;
  }
  void check_array(KernelResult& r, const double* out, const double* ref) const {
    r.error = max_relative_error(out, ref, std::size_t(n_));
    r.valid = r.error <= r.tolerance;
  }

  std::vector<KernelResult> run_serial(const RunSettings& rs) const {
    const std::size_t n = std::size_t(n_);
    std::vector<double> out(n, std::numeric_limits<double>::quiet_NaN());
    const double* a = in_.a.data();
    const double* b = in_.b.data();
    const double* c = in_.c.data();
    double* o = out.data();
    std::vector<KernelResult> results;
    for (const auto& k : kernels_) {
      KernelResult r = result(k);
      r.ran = true;
      std::fill(out.begin(), out.end(), std::numeric_limits<double>::quiet_NaN());
      if (k == "copy") {
        r.time = time_repeats(HostClock{}, rs.warmup, rs.repeats, [&] {
          for (std::size_t i = 0; i < n; ++i) o[i] = a[i];
        });
        check_array(r, o, a);
      } else if (k == "triad") {
        r.time = time_repeats(HostClock{}, rs.warmup, rs.repeats, [&] {
          for (std::size_t i = 0; i < n; ++i) o[i] = b[i] + kScalar * c[i];
        });
        check_array(r, o, in_.triad_ref.data());
      } else {
        double s = 0;
        r.time = time_repeats(HostClock{}, rs.warmup, rs.repeats, [&] {
          double acc = 0;
          for (std::size_t i = 0; i < n; ++i) acc += a[i];
          s = acc;
        });
        check_sum(r, s);
      }
      results.push_back(r);
    }
    return results;
  }

  template <class ExecSpace, class Kernels>
  std::vector<KernelResult> run_views(const RunSettings& rs, const Kernels& kern) const {
    using Mem = typename ExecSpace::memory_space;
    using View = Kokkos::View<double*, Mem>;
    using Host = Kokkos::View<const double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    const std::size_t n = std::size_t(n_);
    ExecSpace exec;
    View a("stream::a", n), b("stream::b", n), c("stream::c", n), out("stream::out", n);
    Kokkos::deep_copy(a, Host(in_.a.data(), n));
    Kokkos::deep_copy(b, Host(in_.b.data(), n));
    Kokkos::deep_copy(c, Host(in_.c.data(), n));
    auto host_out = Kokkos::create_mirror_view(out);
    const double nan = std::numeric_limits<double>::quiet_NaN();

    std::vector<KernelResult> results;
    for (const auto& k : kernels_) {
      KernelResult r = result(k);
      const bool has = k == "copy" || (k == "triad" && Kernels::has_triad) || (k == "sum" && Kernels::has_sum);
      if (!has) {
        r.note = "not offered by this variant";
        results.push_back(r);
        continue;
      }
      r.ran = true;
      Kokkos::deep_copy(out, nan);  // poison: an element the kernel misses stays NaN
      if (k == "copy") {
        r.time = time_repeats(exec, rs.warmup, rs.repeats, [&] { kern.copy(exec, a, out); });
        Kokkos::deep_copy(host_out, out);
        check_array(r, host_out.data(), in_.a.data());
      } else if (k == "triad") {
        r.time = time_repeats(exec, rs.warmup, rs.repeats, [&] { kern.triad(exec, out, b, c, kScalar); });
        Kokkos::deep_copy(host_out, out);
        check_array(r, host_out.data(), in_.triad_ref.data());
      } else {
        double s = 0;
        r.time = time_repeats(exec, rs.warmup, rs.repeats, [&] { s = kern.sum(exec, a); });
        check_sum(r, s);
      }
      results.push_back(r);
    }
    return results;
  }

  long long n_ = 1LL << 25;
  std::string size_name_ = "M";
  std::vector<std::string> kernels_ = {"copy", "triad", "sum"};
  Inputs in_;
};

}  // namespace

std::unique_ptr<driver::Workload> make_stream_workload() { return std::make_unique<StreamWorkload>(); }

}  // namespace tessera::stream
