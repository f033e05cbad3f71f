// The himeno workload for the driver: iters Jacobi sweeps of the Himeno
// benchmark per timed call, validated against plain serial loops (the gosa of
// every sweep and the final p).
#include "tessera/himeno/himeno_workload.hpp"

#include "tessera/core/timer.hpp"
#include "tessera/core/validate.hpp"
#include "tessera/driver/mpi_session.hpp"
#include "tessera/driver/results.hpp"
#include "tessera/himeno/himeno.hpp"
#if TESSERA_HAS_HDF5
#include "tessera/himeno/himeno_checkpoint.hpp"
#endif
#if TESSERA_HAS_MPI
#include "tessera/himeno/himeno_mpi.hpp"
#endif

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
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

// The reference's arrays: flat, (i, j, k) with k fastest, as in the C code;
// global planes [g0, g1) of the grid (all of them by default).
template <class S>
struct HostArrays {
  Grid g;  // the planes held: (g1 - g0) x jmax x kmax
  S omega = S(0.8);
  std::vector<S> a[4], b[3], c[3], p, bnd, wrk1, wrk2;

  template <class Init>
  HostArrays(const Grid& grid, const Init& init) : HostArrays(grid, 0, grid.imax, init) {}
  template <class Init>
  HostArrays(const Grid& grid, int g0, int g1, const Init& init) : g{g1 - g0, grid.jmax, grid.kmax} {
    const std::size_t n = std::size_t(g.points());
    for (auto* v : {&a[0], &a[1], &a[2], &a[3], &b[0], &b[1], &b[2], &c[0], &c[1], &c[2], &p, &bnd, &wrk1, &wrk2})
      v->resize(n);
    const std::int64_t plane = std::int64_t(g.jmax) * g.kmax;
    Kokkos::parallel_for(
        "tessera::himeno::reference_inputs", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, n),
        [&](std::size_t x) {
          impl::PointInit<S> v;
          init.template at<S>(int(std::int64_t(x) / plane) + g0, std::int64_t(x) + g0 * plane, v);
          for (int m = 0; m < 4; ++m) a[m][x] = v.a[m];
          for (int m = 0; m < 3; ++m) b[m][x] = v.b[m], c[m][x] = v.c[m];
          p[x] = wrk2[x] = v.p;
          bnd[x] = v.bnd;
          wrk1[x] = v.wrk1;
        });
    Kokkos::fence();
  }
};

// One sweep of jacobi() in himenoBMTxps.c, gosa summed in A over planes
// [gosa_lo, gosa_hi) (default: all); then p and wrk2 swap (the C code copies
// wrk2 into p). One thread and one accumulator, as the C code (the timed
// serial-reference); threaded: planes on the host threads, a sum per plane,
// added in plane order (the validation reference: XL in seconds, not minutes).
template <class A, class S>
A reference_sweep(HostArrays<S>& h, int gosa_lo = 0, int gosa_hi = 1 << 30, bool threaded = false) {
  const std::int64_t sj = h.g.kmax, si = std::int64_t(h.g.jmax) * h.g.kmax;
  const S *a0 = h.a[0].data(), *a1 = h.a[1].data(), *a2 = h.a[2].data(), *a3 = h.a[3].data();
  const S *b0 = h.b[0].data(), *b1 = h.b[1].data(), *b2 = h.b[2].data();
  const S *c0 = h.c[0].data(), *c1 = h.c[1].data(), *c2 = h.c[2].data();
  const S *bnd = h.bnd.data(), *wrk1 = h.wrk1.data(), *p0 = h.p.data();
  S* wrk2 = h.wrk2.data();
  const S omega = h.omega;
  const int jmax = h.g.jmax, kmax = h.g.kmax;
  auto plane = [=](int i, A& gosa) {
    for (int j = 1; j < jmax - 1; ++j)
      for (int k = 1; k < kmax - 1; ++k) {
        const std::int64_t x = i * si + j * sj + k;
        const S* p = p0 + x;
        const S s0 = a0[x] * p[si] + a1[x] * p[sj] + a2[x] * p[1] +
                     b0[x] * (p[si + sj] - p[si - sj] - p[-si + sj] + p[-si - sj]) +
                     b1[x] * (p[sj + 1] - p[-sj + 1] - p[sj - 1] + p[-sj - 1]) +
                     b2[x] * (p[si + 1] - p[-si + 1] - p[si - 1] + p[-si - 1]) + c0[x] * p[-si] + c1[x] * p[-sj] +
                     c2[x] * p[-1] + wrk1[x];
        const S ss = (s0 * a3[x] - p[0]) * bnd[x];
        if (i >= gosa_lo && i < gosa_hi) gosa += A(ss) * A(ss);
        wrk2[x] = p[0] + omega * ss;
      }
  };
  A gosa = 0;
  if (threaded) {
    std::vector<A> part(std::size_t(h.g.imax), A(0));
    Kokkos::parallel_for("tessera::himeno::reference_sweep",
                         Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(1, h.g.imax - 1),
                         [&](int i) { plane(i, part[std::size_t(i)]); });
    Kokkos::fence();
    for (const A& g : part) gosa += g;
  } else {
    for (int i = 1; i < h.g.imax - 1; ++i) plane(i, gosa);
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

#if !TESSERA_HAS_HDF5
struct CheckpointInfo {  // never filled without HDF5 (--restart is refused)
  int sweeps = 0;
  std::vector<double> gosa;
};
#endif

// Two instances of an execution space for halo/compute overlap: two streams
// on CUDA (created once, kept for the process), the one instance elsewhere.
template <class ExecSpace>
std::pair<ExecSpace, ExecSpace> overlap_instances() {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda>) {
    static cudaStream_t streams[2] = {nullptr, nullptr};
    if (!streams[0])
      for (auto& st : streams)
        if (cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking) != cudaSuccess)
          throw std::runtime_error("himeno: cudaStreamCreate failed");
    return {Kokkos::Cuda(streams[0]), Kokkos::Cuda(streams[1])};
  }
#endif
  return {ExecSpace(), ExecSpace()};
}

// Median of repeats timed across all ranks: a barrier, then the slowest
// rank's time (each call of f ends with its work complete).
template <class F>
TimingStats time_repeats_world(int warmup, int repeats, F&& f) {
  for (int i = 0; i < warmup; ++i) f();
  std::vector<double> t;
  for (int i = 0; i < repeats; ++i) {
    driver::world_barrier();
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(driver::world_max(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()));
  }
  return summarize(std::move(t));
}

// The first count values of a rank-1 View (any memory), as doubles on the host.
template <class View>
std::vector<double> first_values(const View& v, int count) {
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  return std::vector<double>(h.data(), h.data() + count);
}

// How a variant advances its state: advance(n, limit) performs sweeps n, ...
// (at most up to limit) and returns how many; history(count) gives the
// global gosa of sweeps [0, count) (collective under MPI).
struct Stepper {
  std::function<int(int, int)> advance;
  std::function<std::vector<double>(int)> history;
};

class HimenoWorkload final : public driver::Workload {
 public:
  std::string name() const override { return "himeno"; }
  std::string description() const override {
    return "Himeno benchmark: Jacobi sweeps of a 19-point Poisson stencil (34 flops, 14 words per point)";
  }
  std::vector<OptionSpec> options() const override {
    return {{"size", "XS|S|M|L|XL|IxJxK", "S",
             "grid points with boundary: XS 32x32x64, S 64x64x128, M 128x128x256, L 256x256x512, XL 512x512x1024 "
             "(under MPI: the whole grid, split in slabs along i)"},
            {"iters", "N", "10", "Jacobi sweeps per timed call"},
            {"precision", "double|float|mixed", "float",
             "storage + gosa sum: double/double, float/float (the benchmark's), float/double (the paper's Table VII)"},
            {"init", "benchmark|random", "benchmark",
             "initial state: the benchmark's (initmt) or random coefficient fields and p from --seed"},
            {"overlap", "on|off", "on", "several MPI ranks: exchange halos while the interior planes are swept"},
            {"output", "FILE.h5", "", "write the final p and the gosa history (HDF5, one file; restartable)"},
            {"checkpoint-every", "N", "", "also write the state to --output after every N sweeps"},
            {"restart", "FILE.h5", "", "continue from a state written by --output (same size, precision, init)"}};
  }
  std::vector<VariantInfo> variants() const override {
    // Several MPI ranks: only the variants that run on a slab with halos.
    const bool one_rank = driver::world_size() == 1;
    std::vector<VariantInfo> v;
    if (one_rank) v.push_back({"serial-reference", Platform::cpu1, "plain C++ loops of himenoBMTxps.c, one thread"});
#if defined(KOKKOS_ENABLE_SERIAL)
    v.push_back({"kokkos-mdrange@Serial", Platform::cpu1, "portable MDRange kernel, Serial backend"});
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
    v.push_back({"kokkos-mdrange@OpenMP", Platform::cpu, "portable MDRange kernel, OpenMP backend"});
    v.push_back({"kokkos-teamscratch@OpenMP", Platform::cpu, "portable 3-plane team-scratch kernel, OpenMP backend"});
    v.push_back({"kokkos-rows@OpenMP", Platform::cpu, "portable k-row kernel the compiler vectorises, OpenMP backend"});
    if (one_rank)
      v.push_back({"kokkos-fused2@OpenMP", Platform::cpu,
                   "portable fused-rows kernel, two sweeps per pass over memory (temporal blocking), OpenMP backend"});
#endif
#if defined(KOKKOS_ENABLE_CUDA)
    v.push_back({"kokkos-mdrange@Cuda", Platform::gpu, "portable MDRange kernel, Cuda backend"});
    v.push_back({"kokkos-teamscratch@Cuda", Platform::gpu, "portable 3-plane team-scratch kernel, Cuda backend"});
    v.push_back({"kokkos-pointwise@Cuda", Platform::gpu,
                 "portable one-point-per-item kernel, warps on 128-byte lines, Cuda backend"});
#endif
#if TESSERA_HAS_CUDA_NATIVE
    v.push_back({"native-cuda-naive", Platform::gpu,
                 "native CUDA, one thread per point from k = 1, caches do the reuse (the paper's first rung)"});
    v.push_back({"native-cuda-march", Platform::gpu, "native CUDA, i-marching columns, p reused in registers"});
    v.push_back({"native-cuda-aligned", Platform::gpu,
                 "native CUDA, one thread per point, warps on 128-byte lines"});
    v.push_back({"native-cuda", Platform::gpu,
                 "native CUDA, 16 bytes of k per thread (float4/double2), warps on 512-byte lines "
                 "(what tessera::himeno picks on Cuda)"});
    if (one_rank)
      v.push_back({"native-cuda-fused2", Platform::gpu,
                   "native CUDA, two sweeps per pass over memory (temporal blocking)"});
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
    prec_name_ = opts.get("precision", "float");
    if (prec_name_ == "double") precision_ = Precision::double_;
    else if (prec_name_ == "float") precision_ = Precision::float_;
    else if (prec_name_ == "mixed") precision_ = Precision::mixed;
    else throw UsageError("--precision expects double, float or mixed, got '" + prec_name_ + "'");
    const std::string init = opts.get("init", "benchmark");
    if (init != "benchmark" && init != "random")
      throw UsageError("--init expects benchmark or random, got '" + init + "'");
    random_ = init == "random";
    const std::string overlap = opts.get("overlap", "on");
    if (overlap != "on" && overlap != "off") throw UsageError("--overlap expects on or off, got '" + overlap + "'");
    overlap_ = overlap == "on";
    try {
      slab_ = slab_decomposition(grid_, driver::world_size(), driver::world_rank());
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--size: ") + e.what());
    }
    configure_state_files(opts);
    ref_.reset();
  }
  std::string problem_summary() const override {
    std::ostringstream s;
    const Grid& g = grid_;
    s << "grid " << g.str() << (size_name_ == g.str() ? "" : " (size " + size_name_ + ")") << ", "
      << g.imax - 2 << "x" << g.jmax - 2 << "x" << g.kmax - 2 << " interior points, " << iters_ << " sweeps, "
      << storage_name() << " storage with " << accum_name() << " gosa sum, ";
    if (slab_.ranks > 1)
      s << slab_.ranks << " MPI ranks (slabs of " << (g.imax - 2) / slab_.ranks << ".." << slab_.planes()
        << " planes along i, halo overlap " << (overlap_ ? "on" : "off") << "), ";
    if (restart_info_) s << "restarted at sweep " << restart_info_->sweeps << ", ";
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
    // Host: one variant's 14 arrays (or the reference's, on the planes the
    // owned ones depend on), the reference's owned p in double, a host copy
    // of p. Device: 14 arrays of the slab.
    const double w = double(word()), plane = double(grid_.jmax) * grid_.kmax;
    const double local = double(slab_.local.points());
    const double cone = plane * std::min<double>(grid_.imax, slab_.local.imax + 2.0 * iters_);
    return {15 * w * std::max(local, cone) + 8 * local, 14 * w * local + 64.0 * iters_};
  }

  void prepare(std::uint64_t seed) override {
    if (random_ && (!ref_ || seed != seed_)) ref_.reset();
    seed_ = seed;
    reference(seed);
  }

  std::vector<KernelResult> run(const std::string& variant, const RunSettings& rs) override {
    KernelResult r;
    switch (precision_) {
      case Precision::double_: r = run_typed<double, double>(variant, rs); break;
      case Precision::float_: r = run_typed<float, float>(variant, rs); break;
      case Precision::mixed: r = run_typed<float, double>(variant, rs); break;
    }
    // The benchmark's own score: himenoBMTxps.c's mflops(), 34 flops per
    // interior point and sweep over the measured time.
    if (r.time.median > 0) {
      std::ostringstream m;
      m << std::fixed << std::setprecision(1) << "; MFLOPS (himenoBMTxps) " << r.flops / r.time.median * 1e-6;
      r.note += m.str();
    }
    return {r};
  }

 private:
  std::size_t word() const { return precision_ == Precision::double_ ? sizeof(double) : sizeof(float); }
  const char* storage_name() const { return precision_ == Precision::double_ ? "double" : "float"; }
  const char* accum_name() const { return precision_ == Precision::float_ ? "float" : "double"; }

  // --output, --checkpoint-every, --restart: checked here, before anything runs.
  void configure_state_files(const Options& opts) {
    output_ = opts.get("output");
    restart_ = opts.get("restart");
    checkpoint_every_ = 0;
    restart_info_.reset();
    if (opts.has("checkpoint-every")) {
      if (output_.empty()) throw UsageError("--checkpoint-every needs --output (the file the state is written to)");
      checkpoint_every_ = int(opts.get_int("checkpoint-every", 0, 1, 1000000));
    }
    if (output_.empty() && restart_.empty()) return;
#if TESSERA_HAS_HDF5
    if (!output_.empty()) driver::check_output_path(output_);
    if (restart_.empty()) return;
    CheckpointInfo info;
    try {
      info = read_checkpoint_info(restart_);
    } catch (const CheckpointError& e) {
      throw UsageError(std::string("--restart: ") + e.what());
    }
    const std::string init = random_ ? "random" : "benchmark";
    const auto seed = std::uint64_t(opts.get_int("seed", 1, 0, (1LL << 62)));
    auto mismatch = [&](const std::string& what, const std::string& file, const std::string& run) {
      return UsageError("--restart: '" + restart_ + "' holds " + what + " " + file + ", this run has " + run);
    };
    if (info.grid.imax != grid_.imax || info.grid.jmax != grid_.jmax || info.grid.kmax != grid_.kmax)
      throw mismatch("grid", info.grid.str(), grid_.str());
    if (info.precision != prec_name_) throw mismatch("precision", info.precision, prec_name_);
    if (info.init != init) throw mismatch("init", info.init, init);
    if (random_ && info.seed != seed) throw mismatch("seed", std::to_string(info.seed), std::to_string(seed));
    if (info.sweeps >= iters_)
      throw UsageError("--restart: '" + restart_ + "' is at sweep " + std::to_string(info.sweeps) + "; --iters " +
                       std::to_string(iters_) + " leaves nothing to run");
    restart_info_ = std::move(info);
#else
    throw UsageError("--output/--restart: this Tessera build has no HDF5 (TESSERA_ENABLE_HDF5)");
#endif
  }

  template <class Fn>
  auto with_init(std::uint64_t seed, Fn&& fn) const {
    return random_ ? fn(impl::RandomInit{seed}) : fn(impl::BenchmarkInit{grid_.imax});
  }

  // The reference run (serial loops, gosa summed in double), computed once.
  // Under MPI each rank computes its owned planes from the planes they
  // depend on after iters sweeps (iters more either side), and the gosa
  // parts are summed over ranks.
  const Reference& reference(std::uint64_t seed) const {
    if (ref_) return *ref_;
    if (precision_ == Precision::double_) ref_ = compute_reference<double>(seed);
    else ref_ = compute_reference<float>(seed);
    return *ref_;
  }
  template <class S>
  Reference compute_reference(std::uint64_t seed) const {
    const int g0 = std::max(0, slab_.first - 1 - iters_), g1 = std::min(grid_.imax, slab_.end + 1 + iters_);
    const int own_lo = slab_.first - g0, own_hi = slab_.end - g0;
    return with_init(seed, [&](const auto& init) {
      HostArrays<S> h(grid_, g0, g1, init);
      Reference r;
      r.pmax = max_abs(h.p);
      for (int n = 0; n < iters_; ++n)
        r.gosa.push_back(driver::world_sum(reference_sweep<double>(h, own_lo, own_hi, true)));
      r.pmax = driver::world_max(std::max(r.pmax, max_abs(h.p)));
      const std::size_t plane = std::size_t(grid_.jmax) * grid_.kmax;
      r.p.assign(h.p.begin() + own_lo * plane, h.p.begin() + own_hi * plane);
      return r;
    });
  }

  // Checks a run's gosa history and final p (this rank's owned planes)
  // against the reference. Bounds (docs/himeno.md): a sweep's rounding
  // differs between evaluation orders (FMA contraction on GPUs) by at most
  // about K eps max|p| per point, and sweeps do not amplify differences
  // (|1 - omega bnd| + omega bnd a3 sum|coef| <= 1 for both initial states),
  // so after n sweeps p agrees to K n eps max|p|. ss is a small difference of
  // O(max|p|) terms, so gosa = sum ss^2 is checked by Cauchy-Schwarz:
  // |d gosa| <= 2 e sqrt(N gosa) + N e^2 with e the bound on ss (2 K n eps
  // max|p|), plus the summation's own N eps(A) gosa.
  template <class S, class A>
  void check(KernelResult& r, const std::vector<double>& gosa, const S* p_owned, const std::string& variant) const {
    constexpr double K = 32;
    const Reference& ref = *ref_;
    const double eps = std::numeric_limits<S>::epsilon(), n_pts = double(grid_.interior());
    r.tolerance = K * iters_ * eps;
    r.error = driver::world_max(max_relative_error(p_owned, ref.p.data(), ref.p.size()));
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
      if (driver::world_rank() == 0)
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
    if (variant == "kokkos-rows@OpenMP") return run_kokkos<Kokkos::OpenMP, S, A>(rs, Kernel::rows, variant);
    if (variant == "kokkos-fused2@OpenMP") return run_kokkos<Kokkos::OpenMP, S, A>(rs, Kernel::rows, variant, true);
#endif
#if defined(KOKKOS_ENABLE_CUDA)
    if (variant == "kokkos-mdrange@Cuda") return run_kokkos<Kokkos::Cuda, S, A>(rs, Kernel::mdrange, variant);
    if (variant == "kokkos-teamscratch@Cuda") return run_kokkos<Kokkos::Cuda, S, A>(rs, Kernel::teamscratch, variant);
    if (variant == "kokkos-pointwise@Cuda") return run_kokkos<Kokkos::Cuda, S, A>(rs, Kernel::pointwise, variant);
#endif
#if TESSERA_HAS_CUDA_NATIVE
    // Native kernels sum gosa in double (also for --precision float).
    if (variant == "native-cuda") return run_kokkos<Kokkos::Cuda, S, A, double>(rs, Kernel::automatic, variant);
    if (variant == "native-cuda-march") return run_kokkos<Kokkos::Cuda, S, A, double>(rs, Kernel::native_march, variant);
    if (variant == "native-cuda-naive") return run_kokkos<Kokkos::Cuda, S, A, double>(rs, Kernel::native_naive, variant);
    if (variant == "native-cuda-aligned") return run_kokkos<Kokkos::Cuda, S, A, double>(rs, Kernel::native_aligned, variant);
    if (variant == "native-cuda-fused2")
      return run_kokkos<Kokkos::Cuda, S, A, double>(rs, Kernel::automatic, variant, true);
#endif
    throw UsageError("himeno: no variant '" + variant + "'");
  }

  template <class S, class A>
  KernelResult run_serial(const RunSettings& rs) const {
    if (!output_.empty() || !restart_.empty())
      throw UsageError("--output/--restart: the serial reference keeps no state file; pick a Kokkos or native variant");
    KernelResult r = result_row();
    with_init(seed_, [&](const auto& init) {
      HostArrays<S> h(grid_, init);
      std::vector<double> gosa;
      for (int n = 0; n < iters_; ++n) gosa.push_back(double(reference_sweep<A>(h)));
      check<S, A>(r, gosa, h.p.data() + std::size_t(grid_.jmax) * grid_.kmax, "serial-reference");
      // Timed calls go on from the state reached: the values do not change the work.
      r.time = time_repeats(HostClock{}, rs.warmup, rs.repeats, [&] {
        for (int n = 0; n < iters_; ++n) reference_sweep<A>(h);
      });
      return 0;
    });
    return r;
  }

  template <class ExecSpace, class S, class Mem>
  void initial_state(const ExecSpace& exec, HimenoState<S, Mem>& st) const {
    if (random_) initialize_random(exec, st, seed_, slab_);
    else initialize(exec, st, slab_);
  }

  // The state of a --restart file: p (halos included), wrk2 = p. Returns the
  // sweeps already done.
  template <class ExecSpace, class S, class Mem>
  int restore(const ExecSpace& exec, HimenoState<S, Mem>& st) const {
#if TESSERA_HAS_HDF5
    if (!restart_info_) return 0;
    auto host = Kokkos::create_mirror_view(Kokkos::HostSpace(), st.p);
    read_checkpoint_field(restart_, *restart_info_, slab_, host.data());
    Kokkos::deep_copy(exec, st.p, host);
    Kokkos::deep_copy(exec, st.wrk2, st.p);
    exec.fence();
    return restart_info_->sweeps;
#else
    (void)exec, (void)st;
    return 0;
#endif
  }

  // Writes the state after `sweeps` sweeps to --output (collective).
  template <class S, class Mem>
  void save(const HimenoState<S, Mem>& st, const std::vector<double>& history, int sweeps,
            const std::string& variant) const {
#if TESSERA_HAS_HDF5
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), st.p);
    CheckpointInfo info;
    info.grid = grid_;
    info.precision = prec_name_;
    info.init = random_ ? "random" : "benchmark";
    info.seed = random_ ? seed_ : 0;
    info.omega = double(st.omega);
    info.sweeps = sweeps;
    info.variant = variant;
    info.gosa.assign(history.begin(), history.begin() + sweeps);
    write_checkpoint(output_, info, slab_, host.data());
#else
    (void)st, (void)history, (void)sweeps, (void)variant;
#endif
  }

  // The validation run: from the initial (or restarted) state to iters
  // sweeps, wrk2's interior poisoned before every step (a point a kernel
  // misses leaves NaN in p), checkpoints and --output written on the way;
  // then the check against the reference.
  template <class ExecSpace, class S, class A, class Mem>
  void validation_run(const ExecSpace& exec, HimenoState<S, Mem>& st, int first, const Stepper& step,
                      KernelResult& r, const std::string& variant) const {
    const std::vector<double> prior = restart_info_ ? restart_info_->gosa : std::vector<double>{};
    auto history = [&](int count) {
      std::vector<double> h = step.history(count);
      std::copy(prior.begin(), prior.begin() + std::min<std::size_t>(prior.size(), count), h.begin());
      return h;
    };
    for (int n = first; n < iters_;) {
      int limit = iters_;
      if (checkpoint_every_) limit = std::min(limit, (n / checkpoint_every_ + 1) * checkpoint_every_);
      poison_interior(exec, st.wrk2);
      exec.fence();
      n += step.advance(n, limit);
      if (checkpoint_every_ && n % checkpoint_every_ == 0 && n < iters_) save(st, history(n), n, variant);
    }
    exec.fence();
    const std::vector<double> gosa = history(iters_);
    if (!output_.empty()) save(st, gosa, iters_, variant);
    const auto p_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), st.p);
    check<S, A>(r, gosa, p_host.data() + std::size_t(grid_.jmax) * grid_.kmax, variant);
  }

  template <class ExecSpace, class S, class A, class G = A>
  // fused: pairs of sweeps in one pass (sweep2, temporal blocking; one rank);
  // a sweep left alone before a checkpoint or at the end runs alone, with the
  // same kernel choice.
  KernelResult run_kokkos(const RunSettings& rs, Kernel kernel, const std::string& variant,
                          bool fused = false) const {
    using Mem = typename ExecSpace::memory_space;
    KernelResult r = result_row();
    ExecSpace exec;
    HimenoState<S, Mem> st(slab_.local);
    initial_state(exec, st);
    const int first = restore(exec, st);
    SweepOptions opt;
    opt.kernel = kernel;
    if (slab_.ranks == 1) {
      Kokkos::View<G*, Mem> gosa("himeno::gosa", iters_);
      auto advance = [&](int n, int limit) {  // sweeps n (and n + 1 when fused), up to limit
        if (fused && n + 1 < limit) {
          sweep2(exec, st, Kokkos::subview(gosa, std::make_pair(n, n + 2)), opt);
          return 2;
        }
        sweep(exec, st, Kokkos::subview(gosa, n), opt);
        return 1;
      };
      Stepper step;
      step.advance = advance;
      step.history = [&](int count) { return first_values(gosa, count); };
      validation_run<ExecSpace, S, A>(exec, st, first, step, r, variant);
      // Timed calls: iters queued sweeps each (no host sync between sweeps),
      // going on from the state reached: the values do not change the work.
      r.time = time_repeats(exec, rs.warmup, rs.repeats, [&] {
        for (int n = 0; n < iters_;) n += advance(n, iters_);
      });
      return r;
    }
#if TESSERA_HAS_MPI
    const auto [compute, halo] = overlap_instances<ExecSpace>();
    SlabOptions so;
    so.overlap = overlap_;
    so.sweep = opt;
    SlabJacobi<ExecSpace, S, Mem, G> jac(MPI_COMM_WORLD, slab_, st, compute, halo, iters_, so);
    Stepper step;
    step.advance = [&](int n, int) {
      jac.sweep(n);
      return 1;
    };
    step.history = [&](int count) { return jac.gosa_history(count); };
    validation_run<ExecSpace, S, A>(exec, st, first, step, r, variant);
    r.time = time_repeats_world(rs.warmup, rs.repeats, [&] {
      for (int n = 0; n < iters_; ++n) jac.sweep(n);
    });
    // The exchange alone, for what the overlap hides.
    const TimingStats ex = time_repeats_world(1, std::max(3, rs.repeats), [&] { jac.exchange(); });
    std::ostringstream note;
    note << "; halo exchange alone " << std::fixed << std::setprecision(1) << ex.median * 1e6 << " us/sweep ("
         << (jac.staged() ? "staged through host memory" : "MPI on the arrays") << "), overlap "
         << (overlap_ ? "on" : "off");
    r.note += note.str();
    return r;
#else
    throw UsageError("himeno: several ranks need a build with MPI");
#endif
  }

  Grid grid_ = named_grid("S");
  std::string size_name_ = "S", prec_name_ = "float";
  int iters_ = 10;
  Precision precision_ = Precision::float_;
  bool random_ = false, overlap_ = true;
  Slab slab_ = slab_decomposition(named_grid("S"), 1, 0);
  std::string output_, restart_;
  int checkpoint_every_ = 0;
  std::optional<CheckpointInfo> restart_info_;
  std::uint64_t seed_ = 1;
  mutable std::optional<Reference> ref_;
};

}  // namespace

std::unique_ptr<driver::Workload> make_himeno_workload() { return std::make_unique<HimenoWorkload>(); }

}  // namespace tessera::himeno
