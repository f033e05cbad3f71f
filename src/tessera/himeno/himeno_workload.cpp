// The himeno workload for the driver: iters Jacobi sweeps of the Himeno
// benchmark per timed call, validated against plain serial loops (the gosa of
// every sweep and the final p).
#include "tessera/himeno/himeno_workload.hpp"

#include "tessera/core/timer.hpp"
#include "tessera/core/validate.hpp"
#include "tessera/himeno/himeno.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <iostream>
#include <limits>
#include <optional>
#include <sstream>

namespace tessera::himeno {

using driver::KernelResult;
using driver::MemoryNeed;
using driver::Options;
using driver::OptionSpec;
using driver::Platform;
using driver::RunSettings;
using driver::UsageError;
using driver::VariantInfo;

namespace {

// The reference's arrays: flat, (i, j, k) with k fastest, as in the C code.
template <class S>
struct HostArrays {
  Grid g;
  S omega = S(0.8);
  std::vector<S> a[4], b[3], c[3], p, bnd, wrk1, wrk2;

  template <class Init>
  HostArrays(const Grid& grid, const Init& init) : g(grid) {
    const std::size_t n = std::size_t(g.points());
    for (auto* v : {&a[0], &a[1], &a[2], &a[3], &b[0], &b[1], &b[2], &c[0], &c[1], &c[2], &p, &bnd, &wrk1, &wrk2})
      v->resize(n);
    const std::int64_t plane = std::int64_t(g.jmax) * g.kmax;
    Kokkos::parallel_for(
        "tessera::himeno::reference_inputs", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, n),
        [&](std::size_t x) {
          impl::PointInit<S> v;
          init.template at<S>(int(std::int64_t(x) / plane), std::int64_t(x), v);
          for (int m = 0; m < 4; ++m) a[m][x] = v.a[m];
          for (int m = 0; m < 3; ++m) b[m][x] = v.b[m], c[m][x] = v.c[m];
          p[x] = wrk2[x] = v.p;
          bnd[x] = v.bnd;
          wrk1[x] = v.wrk1;
        });
    Kokkos::fence();
  }
};

// One sweep of jacobi() in himenoBMTxps.c, gosa summed in A by one
// accumulator; then p and wrk2 swap (the C code copies wrk2 into p).
template <class A, class S>
A reference_sweep(HostArrays<S>& h) {
  const std::int64_t sj = h.g.kmax, si = std::int64_t(h.g.jmax) * h.g.kmax;
  const S *a0 = h.a[0].data(), *a1 = h.a[1].data(), *a2 = h.a[2].data(), *a3 = h.a[3].data();
  const S *b0 = h.b[0].data(), *b1 = h.b[1].data(), *b2 = h.b[2].data();
  const S *c0 = h.c[0].data(), *c1 = h.c[1].data(), *c2 = h.c[2].data();
  const S *bnd = h.bnd.data(), *wrk1 = h.wrk1.data();
  S* wrk2 = h.wrk2.data();
  const S omega = h.omega;
  A gosa = 0;
  for (int i = 1; i < h.g.imax - 1; ++i)
    for (int j = 1; j < h.g.jmax - 1; ++j)
      for (int k = 1; k < h.g.kmax - 1; ++k) {
        const std::int64_t x = i * si + j * sj + k;
        const S* p = h.p.data() + x;
        const S s0 = a0[x] * p[si] + a1[x] * p[sj] + a2[x] * p[1] +
                     b0[x] * (p[si + sj] - p[si - sj] - p[-si + sj] + p[-si - sj]) +
                     b1[x] * (p[sj + 1] - p[-sj + 1] - p[sj - 1] + p[-sj - 1]) +
                     b2[x] * (p[si + 1] - p[-si + 1] - p[si - 1] + p[-si - 1]) + c0[x] * p[-si] + c1[x] * p[-sj] +
                     c2[x] * p[-1] + wrk1[x];
        const S ss = (s0 * a3[x] - p[0]) * bnd[x];
        gosa += A(ss) * A(ss);
        wrk2[x] = p[0] + omega * ss;
      }
  std::swap(h.p, h.wrk2);
  return gosa;
}

// NaN into the interior of v (a free function: nvcc takes no device lambda in
// a private member function).
template <class ExecSpace, class View>
void poison_interior(const ExecSpace& exec, const View& v) {
  using S = typename View::non_const_value_type;
  const S nan = std::numeric_limits<S>::quiet_NaN();
  const int imax = int(v.extent(0)), jmax = int(v.extent(1)), kmax = int(v.extent(2));
  Kokkos::parallel_for(
      "tessera::himeno::poison", impl::range3(exec, 1, kmax - 1, jmax - 1, imax - 1),
      KOKKOS_LAMBDA(int k, int j, int i) { v(i, j, k) = nan; });
}

// What the variants are checked against: double-summed gosa of every sweep,
// the final p, and max |p| (the scale of the rounding bounds).
struct Reference {
  std::vector<double> gosa, p;
  double pmax = 0;
};

template <class S>
double max_abs(const std::vector<S>& v) {
  double m = 0;
  for (const S x : v) m = std::max(m, double(std::abs(x)));
  return m;
}

enum class Precision { double_, float_, mixed };

class HimenoWorkload final : public driver::Workload {
 public:
  std::string name() const override { return "himeno"; }
  std::string description() const override {
    return "Himeno benchmark: Jacobi sweeps of a 19-point Poisson stencil (34 flops, 14 words per point)";
  }
  std::vector<OptionSpec> options() const override {
    return {{"size", "XS|S|M|L|XL|IxJxK", "S",
             "grid points with boundary: XS 32x32x64, S 64x64x128, M 128x128x256, L 256x256x512, XL 512x512x1024"},
            {"iters", "N", "10", "Jacobi sweeps per timed call"},
            {"precision", "double|float|mixed", "float",
             "storage + gosa sum: double/double, float/float (the benchmark's), float/double (the paper's Table VII)"},
            {"init", "benchmark|random", "benchmark",
             "initial state: the benchmark's (initmt) or random coefficient fields and p from --seed"}};
  }
  std::vector<VariantInfo> variants() const override {
    std::vector<VariantInfo> v = {{"serial-reference", Platform::cpu1, "plain C++ loops of himenoBMTxps.c, one thread"}};
#if defined(KOKKOS_ENABLE_SERIAL)
    v.push_back({"kokkos-mdrange@Serial", Platform::cpu1, "portable MDRange kernel, Serial backend"});
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
    v.push_back({"kokkos-mdrange@OpenMP", Platform::cpu, "portable MDRange kernel, OpenMP backend"});
    v.push_back({"kokkos-teamscratch@OpenMP", Platform::cpu, "portable 3-plane team-scratch kernel, OpenMP backend"});
#endif
#if defined(KOKKOS_ENABLE_CUDA)
    v.push_back({"kokkos-mdrange@Cuda", Platform::gpu, "portable MDRange kernel, Cuda backend"});
    v.push_back({"kokkos-teamscratch@Cuda", Platform::gpu, "portable 3-plane team-scratch kernel, Cuda backend"});
#endif
#if TESSERA_HAS_CUDA_NATIVE
    v.push_back({"native-cuda", Platform::gpu,
                 "native CUDA, one thread per point, caches do the reuse (what tessera::himeno picks on Cuda)"});
    v.push_back({"native-cuda-march", Platform::gpu, "native CUDA, i-marching columns, p reused in registers"});
    v.push_back({"native-cuda-fused2", Platform::gpu, "native CUDA, two sweeps per pass over memory (temporal blocking)"});
#endif
    return v;
  }
  void configure(const Options& opts) override {
    try {
      grid_ = parse_grid(opts.get("size", "S"));
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--size expects XS, S, M, L, XL or IxJxK (grid points, each 3 to 65536): ") +
                       e.what());
    }
    size_name_ = opts.get("size", "S");
    iters_ = int(opts.get_int("iters", 10, 1, 1000000));
    const std::string prec = opts.get("precision", "float");
    if (prec == "double") precision_ = Precision::double_;
    else if (prec == "float") precision_ = Precision::float_;
    else if (prec == "mixed") precision_ = Precision::mixed;
    else throw UsageError("--precision expects double, float or mixed, got '" + prec + "'");
    const std::string init = opts.get("init", "benchmark");
    if (init != "benchmark" && init != "random")
      throw UsageError("--init expects benchmark or random, got '" + init + "'");
    random_ = init == "random";
    ref_.reset();
  }
  std::string problem_summary() const override {
    std::ostringstream s;
    const Grid& g = grid_;
    s << "grid " << g.str() << (size_name_ == g.str() ? "" : " (size " + size_name_ + ")") << ", "
      << g.imax - 2 << "x" << g.jmax - 2 << "x" << g.kmax - 2 << " interior points, " << iters_ << " sweeps, "
      << storage_name() << " storage with " << accum_name() << " gosa sum, ";
    if (random_) {
      s << "random initial state (--seed); final gosa depends on the seed";
    } else {
      // The runner prints this before prepare(); the benchmark's inputs do
      // not depend on the seed, so the reference can be computed here.
      reference(0);
      s << "benchmark initial state; final gosa " << std::scientific << std::setprecision(6) << ref_->gosa.back()
        << " (reference, double sum)";
    }
    return s.str();
  }
  MemoryNeed memory_need() const override {
    // Host: one variant's 14 arrays (or the reference's), the reference's
    // final p in double, a host copy of a GPU variant's p. Device: 14 arrays.
    const double n = double(grid_.points()), w = double(word());
    return {(15 * w + 8) * n, 14 * w * n + 64.0 * iters_};
  }

  void prepare(std::uint64_t seed) override {
    if (random_ && (!ref_ || seed != seed_)) ref_.reset();
    seed_ = seed;
    reference(seed);
  }

  std::vector<KernelResult> run(const std::string& variant, const RunSettings& rs) override {
    switch (precision_) {
      case Precision::double_: return {run_typed<double, double>(variant, rs)};
      case Precision::float_: return {run_typed<float, float>(variant, rs)};
      case Precision::mixed: return {run_typed<float, double>(variant, rs)};
    }
    return {};
  }

 private:
  std::size_t word() const { return precision_ == Precision::double_ ? sizeof(double) : sizeof(float); }
  const char* storage_name() const { return precision_ == Precision::double_ ? "double" : "float"; }
  const char* accum_name() const { return precision_ == Precision::float_ ? "float" : "double"; }

  template <class Fn>
  auto with_init(std::uint64_t seed, Fn&& fn) const {
    return random_ ? fn(impl::RandomInit{seed}) : fn(impl::BenchmarkInit{grid_.imax});
  }

  // The reference run (serial loops, gosa summed in double), computed once.
  const Reference& reference(std::uint64_t seed) const {
    if (ref_) return *ref_;
    if (precision_ == Precision::double_) ref_ = compute_reference<double>(seed);
    else ref_ = compute_reference<float>(seed);
    return *ref_;
  }
  template <class S>
  Reference compute_reference(std::uint64_t seed) const {
    return with_init(seed, [&](const auto& init) {
      HostArrays<S> h(grid_, init);
      Reference r;
      r.pmax = max_abs(h.p);
      for (int n = 0; n < iters_; ++n) r.gosa.push_back(reference_sweep<double>(h));
      r.pmax = std::max(r.pmax, max_abs(h.p));
      r.p.assign(h.p.begin(), h.p.end());
      return r;
    });
  }

  // Checks a run's gosa history and final p against the reference. Bounds
  // (docs/himeno.md): a sweep's rounding differs between evaluation orders
  // (FMA contraction on GPUs) by at most about K eps max|p| per point, and
  // sweeps do not amplify differences (|1 - omega bnd| + omega bnd a3 sum|coef|
  // <= 1 for both initial states), so after n sweeps p agrees to K n eps
  // max|p|. ss is a small difference of O(max|p|) terms, so gosa = sum ss^2 is
  // checked by Cauchy-Schwarz: |d gosa| <= 2 e sqrt(N gosa) + N e^2 with e the
  // bound on ss (2 K n eps max|p|), plus the summation's own N eps(A) gosa.
  template <class S, class A>
  void check(KernelResult& r, const std::vector<double>& gosa, const S* p, const std::string& variant) const {
    constexpr double K = 32;
    const Reference& ref = *ref_;
    const double eps = std::numeric_limits<S>::epsilon(), n_pts = double(grid_.interior());
    r.tolerance = K * iters_ * eps;
    r.error = max_relative_error(p, ref.p.data(), ref.p.size());
    std::string worst = "final p";
    r.valid = r.error <= r.tolerance;
    for (int n = 0; n < iters_; ++n) {
      const double g = ref.gosa[n], e = 2 * K * (n + 1) * eps * ref.pmax;
      const double tol = n_pts * std::numeric_limits<A>::epsilon() * g + 2 * e * std::sqrt(n_pts * g) + n_pts * e * e;
      const double diff = std::abs(gosa[n] - g);
      if (!(diff <= tol)) {  // also catches NaN
        r.valid = false;
        r.error = g > 0 ? diff / g : diff;
        r.tolerance = g > 0 ? tol / g : tol;
        worst = "gosa of sweep " + std::to_string(n + 1);
        break;
      }
    }
    std::ostringstream note;
    note << std::scientific << std::setprecision(6) << "final gosa " << gosa.back() << " (reference "
         << ref.gosa.back() << ")";
    if (!r.valid) {
      note << "; " << worst << " differs: relative error " << r.error << " > tolerance " << r.tolerance;
      std::cerr << "himeno: variant " << variant << " FAILED validation: " << note.str() << "\n";
    }
    r.note = note.str();
  }

  KernelResult result_row() const {
    KernelResult r;
    r.kernel = "jacobi";
    r.ran = true;
    const double pts = double(grid_.interior()) * iters_;
    r.bytes = double(kWordsPerPoint) * double(word()) * pts;
    r.flops = double(kFlopsPerPoint) * pts;
    return r;
  }

  template <class S, class A>
  KernelResult run_typed(const std::string& variant, const RunSettings& rs) const {
    if (variant == "serial-reference") return run_serial<S, A>(rs);
#if defined(KOKKOS_ENABLE_SERIAL)
    if (variant == "kokkos-mdrange@Serial") return run_kokkos<Kokkos::Serial, S, A>(rs, Kernel::mdrange, variant);
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
    if (variant == "kokkos-mdrange@OpenMP") return run_kokkos<Kokkos::OpenMP, S, A>(rs, Kernel::mdrange, variant);
    if (variant == "kokkos-teamscratch@OpenMP")
      return run_kokkos<Kokkos::OpenMP, S, A>(rs, Kernel::teamscratch, variant);
#endif
#if defined(KOKKOS_ENABLE_CUDA)
    if (variant == "kokkos-mdrange@Cuda") return run_kokkos<Kokkos::Cuda, S, A>(rs, Kernel::mdrange, variant);
    if (variant == "kokkos-teamscratch@Cuda") return run_kokkos<Kokkos::Cuda, S, A>(rs, Kernel::teamscratch, variant);
#endif
#if TESSERA_HAS_CUDA_NATIVE
    // Native kernels sum gosa in double (also for --precision float).
    if (variant == "native-cuda") return run_kokkos<Kokkos::Cuda, S, A, double>(rs, Kernel::automatic, variant);
    if (variant == "native-cuda-march") return run_kokkos<Kokkos::Cuda, S, A, double>(rs, Kernel::native_march, variant);
    if (variant == "native-cuda-fused2") return run_fused2<S, A>(rs);
#endif
    throw UsageError("himeno: no variant '" + variant + "'");
  }

  template <class S, class A>
  KernelResult run_serial(const RunSettings& rs) const {
    KernelResult r = result_row();
    with_init(seed_, [&](const auto& init) {
      HostArrays<S> h(grid_, init);
      std::vector<double> gosa;
      for (int n = 0; n < iters_; ++n) gosa.push_back(double(reference_sweep<A>(h)));
      check<S, A>(r, gosa, h.p.data(), "serial-reference");
      // Timed calls go on from the state reached: the values do not change the work.
      r.time = time_repeats(HostClock{}, rs.warmup, rs.repeats, [&] {
        for (int n = 0; n < iters_; ++n) reference_sweep<A>(h);
      });
      return 0;
    });
    return r;
  }

  template <class ExecSpace, class S, class A, class G = A>
  KernelResult run_kokkos(const RunSettings& rs, Kernel kernel, const std::string& variant) const {
    using Mem = typename ExecSpace::memory_space;
    KernelResult r = result_row();
    ExecSpace exec;
    HimenoState<S, Mem> st(grid_);
    if (random_) initialize_random(exec, st, seed_);
    else initialize(exec, st);
    SweepOptions opt;
    opt.kernel = kernel;
    Kokkos::View<G*, Mem> gosa("himeno::gosa", iters_);
    // Validation run from the initial state; wrk2's interior is poisoned
    // before each sweep, so a point a kernel misses leaves NaN in p.
    for (int n = 0; n < iters_; ++n) {
      poison_interior(exec, st.wrk2);
      sweep(exec, st, Kokkos::subview(gosa, n), opt);
    }
    exec.fence();
    const auto gosa_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), gosa);
    const auto p_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), st.p);
    std::vector<double> history(gosa_host.data(), gosa_host.data() + iters_);
    check<S, A>(r, history, p_host.data(), variant);
    // Timed calls: iters queued sweeps each (no host sync between sweeps).
    r.time = time_repeats(exec, rs.warmup, rs.repeats, [&] {
      for (int n = 0; n < iters_; ++n) sweep(exec, st, Kokkos::subview(gosa, n), opt);
    });
    return r;
  }

#if TESSERA_HAS_CUDA_NATIVE
  // Temporal blocking: pairs of sweeps fused in one pass (an odd last sweep
  // runs alone); gosa of every sweep is kept.
  template <class S, class A>
  KernelResult run_fused2(const RunSettings& rs) const {
    KernelResult r = result_row();
    Kokkos::Cuda exec;
    HimenoState<S, Kokkos::CudaSpace> st(grid_);
    if (random_) initialize_random(exec, st, seed_);
    else initialize(exec, st);
    Kokkos::View<double*, Kokkos::CudaSpace> gosa("himeno::gosa", iters_ + 1);
    auto sweeps = [&](bool poison) {
      for (int n = 0; n < iters_;) {
        if (poison) poison_interior(exec, st.wrk2);
        native_cuda::HimenoFields<S> f;
        if (!impl::native_fields(st, f)) throw std::runtime_error("himeno: state layout unfit for native kernels");
        if (n + 1 < iters_) {
          native_cuda::himeno_sweeps_fused2_async(exec.cuda_stream(), f, st.omega, gosa.data() + n);
          n += 2;
        } else {
          native_cuda::himeno_sweep_async(exec.cuda_stream(), f, st.omega, native_cuda::HimenoKernel::march,
                                          gosa.data() + n);
          n += 1;
        }
        std::swap(st.p, st.wrk2);
      }
    };
    sweeps(true);
    exec.fence();
    const auto gosa_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), gosa);
    const auto p_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), st.p);
    std::vector<double> history(gosa_host.data(), gosa_host.data() + iters_);
    check<S, A>(r, history, p_host.data(), "native-cuda-fused2");
    r.time = time_repeats(exec, rs.warmup, rs.repeats, [&] { sweeps(false); });
    return r;
  }
#endif

  Grid grid_ = named_grid("S");
  std::string size_name_ = "S";
  int iters_ = 10;
  Precision precision_ = Precision::float_;
  bool random_ = false;
  std::uint64_t seed_ = 1;
  mutable std::optional<Reference> ref_;
};

}  // namespace

std::unique_ptr<driver::Workload> make_himeno_workload() { return std::make_unique<HimenoWorkload>(); }

}  // namespace tessera::himeno
