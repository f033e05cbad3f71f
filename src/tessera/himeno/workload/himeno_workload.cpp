// The himeno workload for the driver: iters Jacobi sweeps of the Himeno
// benchmark per timed call, validated against plain serial loops (the gosa of
// every sweep and the final p).
#include "tessera/himeno/workload/himeno_workload.hpp"

#include "tessera/core/timer.hpp"
#include "tessera/driver/mpi_session.hpp"
#include "tessera/driver/results.hpp"
#include "tessera/driver/workload_helpers.hpp"
#include "tessera/himeno/himeno.hpp"
#include "tessera/himeno/workload/himeno_reference.hpp"
#include "tessera/himeno/workload/himeno_run_support.hpp"
#include "tessera/himeno/workload/himeno_state_files.hpp"
#include "tessera/himeno/workload/himeno_validation.hpp"
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
using driver::Parameter;
using driver::Precision;
using driver::Progress;
using driver::Runner;
using driver::VariantTable;

namespace workload {

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
  void configure(const Options& opts) override {
    try {
      grid_ = parse_grid(opts.get("size", "S"));
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--size expects XS, S, M, L, XL or IxJxK (grid points, each 3 to 65536): ") +
                       e.what());
    }
    size_name_ = opts.get("size", "S");
    iters_ = int(opts.get_int("iters", 10, 1, 1000000));
    precision_ = driver::get_precision(opts, "precision", {Precision::f64, Precision::f32, Precision::mixed},
                                       Precision::f32);
    prec_name_ = driver::precision_name(precision_);
    random_ = driver::get_choice(opts, "init", {"benchmark", "random"}, "benchmark") == "random";
    overlap_ = driver::get_choice(opts, "overlap", {"on", "off"}, "on") == "on";
    try {
      slab_ = slab_decomposition(grid_, driver::world_size(), driver::world_rank());
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--size: ") + e.what());
    }
    files_ = read_state_file_options(
        opts, {grid_, prec_name_, random_ ? "random" : "benchmark", opts.get_uint64("seed", 1), iters_});
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
    if (files_.restart_info) s << "restarted at sweep " << files_.restart_info->sweeps << ", ";
    if (random_) {
      s << "random initial state (--seed); final gosa depends on the seed";
    } else {
      // The benchmark's inputs do not depend on the seed: the reference can
      // be computed here when prepare() has not done it.
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

  std::vector<Parameter> parameters() const override {
    std::vector<Parameter> p = {{"grid", grid_.str()},          {"imax", (long long)grid_.imax},
                                {"jmax", (long long)grid_.jmax},  {"kmax", (long long)grid_.kmax},
                                {"iters", (long long)iters_},     {"precision", std::string(prec_name_)},
                                {"storage", std::string(storage_name())}, {"gosa_sum", std::string(accum_name())},
                                {"init", std::string(random_ ? "random" : "benchmark")},
                                {"ranks", (long long)slab_.ranks}};
    if (slab_.ranks > 1) p.push_back({"overlap", std::string(overlap_ ? "on" : "off")});
    if (files_.restart_info) p.push_back({"restart_sweep", (long long)files_.restart_info->sweeps});
    return p;
  }
  std::vector<std::string> demo_arguments() const override {
    return {"--size", "S", "--iters", "4", "--repeats", "3", "--warmup", "1"};
  }

  void prepare(std::uint64_t seed, Progress& progress) override {
    if (random_ && (!ref_ || seed != seed_)) ref_.reset();
    seed_ = seed;
    progress_ = &progress;
    reference(seed);
    progress_ = &Progress::none();
  }

 private:
  // A Runner from f(Types<S, A>{}, settings): the precision chosen at
  // configure() picks the types; the row gets the benchmark's own score.
  template <class F>
  Runner typed(F f) {
    return [this, f](const RunSettings& rs) {
      KernelResult r = driver::dispatch_real(precision_, [&](auto ty) { return f(ty, rs); });
      // himenoBMTxps.c's mflops(): 34 flops per interior point and sweep over the measured time.
      if (r.time.median > 0) {
        std::ostringstream m;
        m << std::fixed << std::setprecision(1) << "; MFLOPS (himenoBMTxps) " << r.flops / r.time.median * 1e-6;
        r.note += m.str();
      }
      return std::vector<KernelResult>{r};
    };
  }
  // The factory of a portable variant's runners, one per execution space.
  auto portable(Kernel kernel, const std::string& kind, bool fused = false) {
    return [this, kernel, kind, fused](auto tag) -> Runner {
      using E = typename decltype(tag)::space;
      const std::string name = kind + "@" + E::name();
      return typed([this, kernel, name, fused](auto ty, const RunSettings& rs) {
        using T = decltype(ty);
        return run_kokkos<E, typename T::storage, typename T::accum>(rs, kernel, name, fused);
      });
    };
  }

 protected:
  void declare_variants(VariantTable& t) override {
    // Several MPI ranks: only the variants that run on a slab with halos.
    const bool one_rank = driver::world_size() == 1;
    if (one_rank)
      t.add("serial-reference", Platform::cpu1, "plain C++ loops of himenoBMTxps.c, one thread",
            typed([this](auto ty, const RunSettings& rs) {
              using T = decltype(ty);
              return run_serial<typename T::storage, typename T::accum>(rs);
            }));
    t.add_portable("kokkos-mdrange", "portable MDRange kernel", portable(Kernel::mdrange, "kokkos-mdrange"),
                   driver::all_spaces);
    t.add_portable("kokkos-teamscratch", "portable 3-plane team-scratch kernel",
                   portable(Kernel::teamscratch, "kokkos-teamscratch"), driver::openmp | driver::cuda);
    t.add_portable("kokkos-rows", "portable k-row kernel the compiler vectorises (what tessera::himeno picks on CPUs)",
                   portable(Kernel::rows, "kokkos-rows"), driver::host_spaces);
    if (one_rank)
      t.add_portable("kokkos-fused2", "portable fused-rows kernel, two sweeps per pass over memory (temporal blocking)",
                     portable(Kernel::rows, "kokkos-fused2", true), driver::openmp);
    t.add_portable("kokkos-pointwise", "portable one-point-per-item kernel, warps on 128-byte lines",
                   portable(Kernel::pointwise, "kokkos-pointwise"), driver::cuda);
    struct Native {
      const char* name;
      Kernel kernel;
      bool fused;
      const char* description;
    };
    std::vector<Native> natives = {
        {"native-cuda-naive", Kernel::native_naive, false,
         "native CUDA, one thread per point from k = 1, caches do the reuse (the paper's first rung)"},
        {"native-cuda-march", Kernel::native_march, false, "native CUDA, i-marching columns, p reused in registers"},
        {"native-cuda-aligned", Kernel::native_aligned, false,
         "native CUDA, one thread per point, warps on 128-byte lines"},
        {"native-cuda", Kernel::automatic, false,
         "native CUDA, 16 bytes of k per thread (float4/double2), warps on 512-byte lines "
         "(what tessera::himeno picks on Cuda)"}};
    if (one_rank)
      natives.push_back({"native-cuda-fused2", Kernel::automatic, true,
                         "native CUDA, two sweeps per pass over memory (temporal blocking)"});
    for (const auto& n : natives) {
#if TESSERA_HAS_CUDA_NATIVE
      // Native kernels sum gosa in double (also for --precision float).
      const std::string name = n.name;
      const Kernel kernel = n.kernel;
      const bool fused = n.fused;
      t.add_native(n.name, Platform::gpu, n.description, typed([this, name, kernel, fused](auto ty, const RunSettings& rs) {
                     using T = decltype(ty);
                     return run_kokkos<Kokkos::Cuda, typename T::storage, typename T::accum, double>(rs, kernel, name,
                                                                                                     fused);
                   }),
                   "");
#else
      t.add_native(n.name, Platform::gpu, n.description, {}, "a Cuda build with TESSERA_ENABLE_CUDA_NATIVE");
#endif
    }
    t.set_default(Platform::gpu, TESSERA_HAS_CUDA_NATIVE ? "native-cuda" : "kokkos-pointwise@Cuda");
    t.set_default(Platform::cpu, "kokkos-rows@OpenMP");
    t.set_default(Platform::cpu1, "kokkos-rows@Serial");
  }

 private:
  std::size_t word() const { return precision_ == Precision::f64 ? sizeof(double) : sizeof(float); }
  const char* storage_name() const { return precision_ == Precision::f64 ? "double" : "float"; }
  const char* accum_name() const { return precision_ == Precision::f32 ? "float" : "double"; }

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
    if (precision_ == Precision::f64) ref_ = compute_reference<double>(seed);
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
      for (int n = 0; n < iters_; ++n) {
        r.gosa.push_back(driver::world_sum(reference_sweep<double>(h, own_lo, own_hi, true)));
        progress_->update("himeno reference", n + 1, iters_);
      }
      progress_->finish("himeno reference");
      r.pmax = driver::world_max(std::max(r.pmax, max_abs(h.p)));
      const std::size_t plane = std::size_t(grid_.jmax) * grid_.kmax;
      r.p.assign(h.p.begin() + own_lo * plane, h.p.begin() + own_hi * plane);
      return r;
    });
  }

  template <class S, class A>
  void check(KernelResult& r, const std::vector<double>& gosa, const S* p_owned) const {
    check_run<S, A>(r, *ref_, gosa, p_owned, double(grid_.interior()), iters_);
  }

  KernelResult result_row() const {
    KernelResult r;
    r.kernel = "jacobi";
    r.ran = true;
    const double pts = double(grid_.interior()) * iters_;
    r.bytes = double(kWordsPerPoint) * double(word()) * pts;
    r.flops = double(kFlopsPerPoint) * pts;
    r.bound = driver::Bound::memory;
    r.arith = precision_ == Precision::f64 ? driver::Arith::fp64 : driver::Arith::fp32;
    r.working_set = double(kWordsPerPoint) * double(word()) * double(slab_.local.points());
    return r;
  }

  template <class S, class A>
  KernelResult run_serial(const RunSettings& rs) const {
    if (!files_.output.empty() || !files_.restart.empty())
      throw UsageError("--output/--restart: the serial reference keeps no state file; pick a Kokkos or native variant");
    KernelResult r = result_row();
    with_init(seed_, [&](const auto& init) {
      HostArrays<S> h(grid_, init);
      std::vector<double> gosa;
      for (int n = 0; n < iters_; ++n) gosa.push_back(double(reference_sweep<A>(h)));
      check<S, A>(r, gosa, h.p.data() + std::size_t(grid_.jmax) * grid_.kmax);
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
    if (!files_.restart_info) return 0;
    auto host = Kokkos::create_mirror_view(Kokkos::HostSpace(), st.p);
    read_checkpoint_field(files_.restart, *files_.restart_info, slab_, host.data());
    Kokkos::deep_copy(exec, st.p, host);
    Kokkos::deep_copy(exec, st.wrk2, st.p);
    exec.fence();
    return files_.restart_info->sweeps;
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
    write_checkpoint(files_.output, info, slab_, host.data());
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
    const std::vector<double> prior = files_.restart_info ? files_.restart_info->gosa : std::vector<double>{};
    auto history = [&](int count) {
      std::vector<double> h = step.history(count);
      std::copy(prior.begin(), prior.begin() + std::min<std::size_t>(prior.size(), count), h.begin());
      return h;
    };
    for (int n = first; n < iters_;) {
      int limit = iters_;
      if (files_.checkpoint_every) limit = std::min(limit, (n / files_.checkpoint_every + 1) * files_.checkpoint_every);
      poison_interior(exec, st.wrk2);
      exec.fence();
      n += step.advance(n, limit);
      if (files_.checkpoint_every && n % files_.checkpoint_every == 0 && n < iters_) save(st, history(n), n, variant);
    }
    exec.fence();
    const std::vector<double> gosa = history(iters_);
    if (!files_.output.empty()) save(st, gosa, iters_, variant);
    const auto p_host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), st.p);
    check<S, A>(r, gosa, p_host.data() + std::size_t(grid_.jmax) * grid_.kmax);
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
  Precision precision_ = Precision::f32;
  bool random_ = false, overlap_ = true;
  Slab slab_ = slab_decomposition(named_grid("S"), 1, 0);
  StateFiles files_;
  std::uint64_t seed_ = 1;
  mutable std::optional<Reference> ref_;
  Progress* progress_ = &Progress::none();  // prepare()'s, while it computes the reference
};

}  // namespace workload

std::unique_ptr<driver::Workload> make_himeno_workload() { return std::make_unique<workload::HimenoWorkload>(); }

}  // namespace tessera::himeno
