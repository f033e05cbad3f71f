// The gluon workload for the driver: sigma(pp -> gg -> (n-2) gluons) with jet
// cuts by Monte Carlo (Giele, Stavenga, Winter). Every variant generates the
// same events (Philox streams keyed by the seed and the event index); each is
// validated on the first events against a double-precision host loop, then
// timed on the whole run. Time per event = run time / generated events
// (the paper's Table 2 measure); flops from the recursion's vertex count.
#include "tessera/gluon/workload/gluon_workload.hpp"

#include "tessera/config.hpp"
#include "tessera/core/timer.hpp"
#include "tessera/driver/mpi_session.hpp"
#include "tessera/driver/workload_helpers.hpp"
#include "tessera/gluon/gluon.hpp"
#include "tessera/gluon/gluon_lhagrid.hpp"
#if TESSERA_HAS_CUDA_NATIVE
#include "tessera/gluon/gluon_native_cuda.hpp"
#endif
#include "tessera/gluon/workload/gluon_run_output.hpp"
#include "tessera/driver/results.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <type_traits>

namespace tessera::gluon {

using driver::KernelResult;
using driver::MemoryNeed;
using driver::Options;
using driver::OptionSpec;
using driver::Parameter;
using driver::Platform;
using driver::Precision;
using driver::Progress;
using driver::RunSettings;
using driver::Runner;
using driver::UsageError;
using driver::VariantTable;

namespace {

// Events of the validation sample (the first events of the stream).
constexpr std::uint64_t kValidationEvents = 2048;
// The running sigma's first chunk (fewer events only where the run is small).
constexpr std::uint64_t kMinChunk = 1 << 20;
// Events of the gauge profile (--output; host, in the run's precision).
constexpr std::uint64_t kGaugeEvents = 4096;

// Paper Table 2 (float; Tesla C1060, and one thread of a 3 GHz Phenom II X4
// 940): time per event in seconds for n = 4 .. 12.
constexpr double kPaperGpu[] = {2.975e-8, 4.438e-8, 8.551e-8, 2.304e-7, 3.546e-7, 4.274e-7, 6.817e-7, 9.750e-7, 1.356e-6};
constexpr double kPaperCpu[] = {8.753e-6, 1.247e-5, 1.966e-5, 3.047e-5, 4.736e-5, 7.263e-5, 1.044e-4, 1.529e-4, 2.129e-4};

// Where the running sigma is recorded: the stream is run in chunks, each
// twice the one before (points at N/2^k, ..., N/2, N: a log axis, as the
// convergence plots of paper Fig. 3), at least 4 where N allows.
std::vector<std::uint64_t> chunk_ends(std::uint64_t N) {
  int K = 1;
  while (K < 24 && (N >> K) >= kMinChunk) ++K;
  K = std::max(K, 4);
  std::vector<std::uint64_t> ends;
  for (int j = K - 1; j >= 0; --j)
    if ((N >> j) > 0 && (ends.empty() || (N >> j) > ends.back())) ends.push_back(N >> j);
  return ends;
}

class GluonWorkload final : public driver::Workload {
 public:
  std::string name() const override { return "gluon"; }
  std::string description() const override {
    return "multi-gluon Monte Carlo: leading-colour Berends-Giele gg -> (n-2) g, RAMBO, PDFs, jet cuts (Giele, "
           "Stavenga, Winter)";
  }
  std::vector<OptionSpec> options() const override {
    return {{"n", "N", "6", "gluons (2 -> n-2), 4 to " + std::to_string(max_gluons)},
            {"events", "COUNT", "1e6", "events generated (1e8 notation accepted)"},
            {"pdf", "NAME|PATH", "lh-lo-toy",
             "PDF set: 'lh-lo-toy' (built-in LO DGLAP evolution of the Les Houches benchmark input), 'toy' "
             "(built-in gluon, not evolved), an lhagrid1 set name (LHAPDF_DATA_PATH) or its directory"},
            {"sqrt-s", "GEV", "14000", "hadronic centre-of-mass energy"},
            {"preset", "table3|fig4", "table3", "cuts and scale: table3 (mu = MZ, pT > 20, |eta| < 2.5, dR > 0.4), "
                                                "fig4 (mu = HT, pT > 60, |eta| < 2, dR > 0.4)"},
            {"pt-min", "GEV", "", "jet pT cut (overrides the preset)"},
            {"eta-max", "X", "", "jet |eta| cut (overrides the preset)"},
            {"dr-min", "X", "", "jet Delta R cut (overrides the preset)"},
            {"skip-failed", "", "", "skip the matrix element of events failing the cuts (the paper computes it)"},
            {"lanes", "L", "0", "lanes per event of the kokkos-lanes variant on a GPU: 1, 2, 4, 8, 16 or 32 (0: "
                                "the library's choice for n and the precision)"},
            {"precision", "float|double", "float", "arithmetic of the event kernels (sums are compensated doubles)"},
            {"output", "FILE.h5", "", "write sigma, the running sigma, the HT and min dR distributions and the gauge "
                                      "profile (HDF5, and FILE.csv beside it)"}};
  }

  void configure(const Options& opts) override {
    n_ = int(opts.get_int("n", 6, 4, max_gluons));
    events_ = opts.get_count("events", 1000000, 1, 1LL << 50);
    pdf_name_ = opts.get("pdf", "lh-lo-toy");
    sqrt_s_ = opts.get_double("sqrt-s", 14000.0, 1e-300, 1e7);
    preset_ = driver::get_choice(opts, "preset", {"table3", "fig4"}, "table3");
    precision_ = driver::get_precision(opts, "precision", {Precision::f32, Precision::f64}, Precision::f32);
    cfg_ = preset<double>(preset_, n_, sqrt_s_);
    if (opts.has("pt-min")) cfg_.pt_min = opts.get_double("pt-min", 20, 1e-6, 1e7);
    if (opts.has("eta-max")) cfg_.eta_max = opts.get_double("eta-max", 2.5, 1e-6, 100);
    if (opts.has("dr-min")) cfg_.dr_min = opts.get_double("dr-min", 0.4, 0, 100);
    cfg_.skip_failed = opts.has("skip-failed");
    lanes_ = int(opts.get_int("lanes", 0, 0, 32));
    if (lanes_ & (lanes_ - 1))
      throw UsageError("gluon: --lanes must be 0 or a power of two up to 32, got " + std::to_string(lanes_));
    output_ = opts.get("output");
    if (!output_.empty()) check_run_output_path(output_, opts);
    try {
      EventConfig<double> c = cfg_;
      finalize(c);
      pdf_ = load_pdf(pdf_name_);
      check_pdf_range(c, pdf_);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }

  std::string problem_summary() const override {
    std::ostringstream s;
    s << "gg -> " << n_ - 2 << " gluons at sqrt(s) = " << sqrt_s_ << " GeV, " << events_ << " events, preset "
      << preset_ << " (pT > " << cfg_.pt_min << ", |eta| < " << cfg_.eta_max << ", dR > " << cfg_.dr_min
      << "), PDF " << pdf_.name << ", " << driver::precision_name(precision_);
    if (driver::world_size() > 1) s << ", " << driver::world_size() << " MPI ranks";
    return s.str();
  }
  std::vector<Parameter> parameters() const override {
    return {{"n", (long long)n_},
            {"events", events_},
            {"pdf", pdf_.name},
            {"sqrt_s_gev", sqrt_s_},
            {"preset", preset_},
            {"pt_min_gev", double(cfg_.pt_min)},
            {"eta_max", double(cfg_.eta_max)},
            {"dr_min", double(cfg_.dr_min)},
            {"skip_failed", (long long)cfg_.skip_failed},
            {"precision", std::string(driver::precision_name(precision_))}};
  }
  MemoryNeed memory_need() const override {
    const double grid = 8.0 * (pdf_.xg.size() + pdf_.x.size() + pdf_.q.size() + 2 * pdf_.as_q.size());
    // Partials: at most a few hundred thousand workers of 24 bytes.
    return {grid + 24.0 * (1 << 20), grid + 24.0 * (1 << 20)};
  }
  std::vector<std::string> demo_arguments() const override { return {"--n", "5", "--events", "2e5"}; }

  // compare: the paper's Table 2 beside this run: time per event of the best
  // valid GPU and CPU variants, the paper's C1060 and CPU columns, the ratios
  // and the gains G = T_CPU / T_GPU.
  void print_summary(const driver::Report& report, std::ostream& out) const override {
    if (report.command != "compare") return;
    auto per_event = [&](const driver::Row& row) { return row.result.time.median / double(events_); };
    const driver::Row* best[2] = {nullptr, nullptr};  // GPU, CPU (one thread or all)
    for (const auto& row : report.rows) {
      if (!row.result.ran || !row.result.valid || !(row.result.time.median > 0)) continue;
      const driver::Row*& b = best[row.platform == Platform::gpu ? 0 : 1];
      if (!b || per_event(row) < per_event(*b)) b = &row;
    }
    const bool paper = n_ <= 12;
    const double pg = paper ? kPaperGpu[n_ - 4] : 0, pc = paper ? kPaperCpu[n_ - 4] : 0;
    const double tg = best[0] ? per_event(*best[0]) : 0, tc = best[1] ? per_event(*best[1]) : 0;
    auto num = [](double v, int digits, const char* unit) {
      if (!(v > 0)) return std::string("-");
      std::ostringstream s;
      s << std::setprecision(digits) << (unit[0] ? std::scientific : std::defaultfloat) << v << unit;
      return s.str();
    };
    out << "\nPaper Table 2 (Giele, Stavenga, Winter; float; Tesla C1060, one thread of a 3 GHz Phenom II) beside this "
           "run ("
        << driver::precision_name(precision_) << "), time per event:\n";
    out << std::right << std::setw(4) << "n" << std::setw(13) << "T_GPU ours" << std::setw(13) << "T_GPU C1060"
        << std::setw(12) << "C1060/ours" << std::setw(13) << "T_CPU ours" << std::setw(13) << "T_CPU paper"
        << std::setw(12) << "paper/ours" << std::setw(10) << "G ours" << std::setw(10) << "G paper" << "\n";
    out << std::setw(4) << n_ << std::setw(13) << num(tg, 3, " s") << std::setw(13) << num(pg, 3, " s")
        << std::setw(12) << num(tg > 0 && pg > 0 ? pg / tg : 0, 3, "") << std::setw(13) << num(tc, 3, " s")
        << std::setw(13) << num(pc, 3, " s") << std::setw(12) << num(tc > 0 && pc > 0 ? pc / tc : 0, 3, "")
        << std::setw(10) << num(tg > 0 && tc > 0 ? tc / tg : 0, 3, "") << std::setw(10)
        << num(pg > 0 ? pc / pg : 0, 3, "") << "\n";
    out << "ours: GPU " << (best[0] ? best[0]->variant : std::string("none")) << ", CPU "
        << (best[1] ? best[1]->variant + " [" + driver::platform_id(best[1]->platform) + "]" : std::string("none"))
        << (paper ? "" : "; the paper stops at n = 12") << "\n";
  }

  void prepare(std::uint64_t seed, Progress& progress) override {
    seed_ = seed;
    progress.message("reference weights of the first " + std::to_string(kValidationEvents) + " events (double)");
    EventConfig<double> c = cfg_;
    finalize(c);
    const auto g = make_pdf_grid<double, Kokkos::HostSpace>(pdf_);
    ref_ = SigmaResult{};
    BergsScratch<double, double> s;
    const std::uint64_t nv = std::min<std::uint64_t>(kValidationEvents, std::uint64_t(events_));
    for (std::uint64_t e = 0; e < nv; ++e) {
      const EventResult<double> r = generate_event(c, g, seed, e, s);
      ref_.sum_w += r.weight;
      ref_.sum_w2 += double(r.weight) * r.weight;
      ref_.accepted += r.accepted;
    }
    ref_.generated = nv;
  }

 protected:
  void declare_variants(VariantTable& t) override {
    t.add("serial-reference", Platform::cpu1, "plain loop over events, one thread",
          [this](const RunSettings& rs) { return run_serial(rs); });
    t.add_portable("kokkos", "tessera::gluon::integrate: one event per thread, on a GPU several lanes an event "
                             "from n = 12 (float) / 9 (double)",
                   [this](auto tag) -> Runner {
                     using E = typename decltype(tag)::space;
                     return [this](const RunSettings& rs) { return run_kokkos<E>(rs, Kind::library); };
                   });
    t.add_portable("kokkos-thread", "one event per thread (RangePolicy), compensated per-thread sums",
                   [this](auto tag) -> Runner {
                     using E = typename decltype(tag)::space;
                     return [this](const RunSettings& rs) { return run_kokkos<E>(rs, Kind::thread); };
                   });
    t.add_portable("kokkos-team", "a team per event, currents in team scratch, level L on n-L threads",
                   [this](auto tag) -> Runner {
                     using E = typename decltype(tag)::space;
                     return [this](const RunSettings& rs) { return run_kokkos<E>(rs, Kind::team); };
                   });
    t.add_portable("kokkos-lanes", "an event on 2-4 lanes of a warp (1 on the CPU), currents in team scratch",
                   [this](auto tag) -> Runner {
                     using E = typename decltype(tag)::space;
                     return [this](const RunSettings& rs) { return run_kokkos<E>(rs, Kind::lanes); };
                   });
    const char* native = "native CUDA: one event per thread, block reductions (slower than kokkos@Cuda, which "
                         "tessera::gluon runs on Cuda)";
#if TESSERA_HAS_CUDA_NATIVE
    t.add_native("native-cuda", Platform::gpu, native,
                 [this](const RunSettings& rs) { return run_kokkos<Kokkos::Cuda>(rs, Kind::native); }, "");
#else
    t.add_native("native-cuda", Platform::gpu, native, {},
                 "native CUDA kernels: a Cuda build with TESSERA_ENABLE_CUDA_NATIVE");
#endif
    t.set_default(Platform::gpu, "kokkos@Cuda");
    t.set_default(Platform::cpu, "kokkos@OpenMP");
    t.set_default(Platform::cpu1, "kokkos@Serial");
  }

 public:
  enum class Kind { library, thread, team, native, lanes };

  KernelResult base_result() const {
    KernelResult r;
    r.kernel = "events";
    r.bound = driver::Bound::compute;
    r.arith = precision_ == Precision::f32 ? driver::Arith::fp32 : driver::Arith::fp64;
    r.flops = double(events_) * bg_flops(n_);
    r.bytes = 0;
    r.working_set = 8.0 * pdf_.xg.size();
    return r;
  }

  // Validation: the variant's sum of weights over the first events against
  // the double host loop (the same events). In float an event next to a cut
  // may fall on the other side: a few accepted events may differ.
  void validate(KernelResult& r, const SigmaResult& v) const {
    const bool f32 = precision_ == Precision::f32;
    r.tolerance = f32 ? 1e-2 : 1e-9;
    const double denom = std::abs(ref_.sum_w) > 0 ? std::abs(ref_.sum_w) : 1.0;
    r.error = std::abs(v.sum_w - ref_.sum_w) / denom;
    if (!(r.error == r.error)) r.error = 1e300;
    const std::uint64_t dacc = v.accepted > ref_.accepted ? v.accepted - ref_.accepted : ref_.accepted - v.accepted;
    const bool acc_ok = dacc <= (f32 ? 2 + ref_.generated / 500 : 0);
    r.valid = r.error <= r.tolerance && acc_ok;
    if (!acc_ok)
      r.note = "accepted " + std::to_string(v.accepted) + " of the validation events, reference " +
               std::to_string(ref_.accepted);
  }

  // sigma last: a run's last line is its cross section.
  void observe(KernelResult& r, const SigmaResult& s) const {
    r.observables = {{"events_generated", double(s.generated), "", -1},
                     {"events_accepted", double(s.accepted), "", -1},
                     {"time_per_event", r.time.median / double(s.generated), "s", -1},
                     {"sigma", s.sigma(), "pb", s.error()}};
  }

  // This rank's part [first, first + count) of the events [begin, end): the
  // ranks take consecutive, disjoint ranges.
  static void rank_range(std::uint64_t begin, std::uint64_t end, std::uint64_t& first, std::uint64_t& count) {
    const std::uint64_t P = std::uint64_t(driver::world_size()), r = std::uint64_t(driver::world_rank());
    const std::uint64_t q = (end - begin) / P, m = (end - begin) % P;
    first = begin + q * r + std::min(r, m);
    count = q + (r < m ? 1 : 0);
  }

  // Timed passes over the whole stream, chunk by chunk (chunk_ends): every
  // rank runs its part of each chunk and the sums are added over the ranks,
  // so sigma does not depend on the number of ranks beyond rounding. After
  // each chunk the running sigma goes to the progress bar and to `running`
  // (the last pass's is kept). Returns the last pass's result.
  template <class Exec, class Run>
  SigmaResult timed_passes(const Exec& exec, const RunSettings& rs, KernelResult& r, Run&& run,
                           std::vector<SigmaResult>& running) const {
    const auto ends = chunk_ends(std::uint64_t(events_));
    const int passes = rs.warmup + rs.repeats;
    const double total = double(passes) * double(events_);
    int pass_no = 0;
    SigmaResult s;
    r.time = time_repeats(exec, rs.warmup, rs.repeats, [&] {
      running.clear();
      s = SigmaResult{};
      std::uint64_t begin = 0;
      for (const std::uint64_t end : ends) {
        std::uint64_t first, count;
        rank_range(begin, end, first, count);
        SigmaResult c = count ? run(first, count) : SigmaResult{};
        if (driver::world_size() > 1) {
          c.sum_w = driver::world_sum(c.sum_w);
          c.sum_w2 = driver::world_sum(c.sum_w2);
          c.accepted = std::uint64_t(driver::world_sum(double(c.accepted)));
        }
        c.generated = end - begin;
        s += c;
        running.push_back(s);
        rs.progress->update("gluon events", double(pass_no) * double(events_) + double(end), total,
                            "pass " + std::to_string(pass_no + 1) + "/" + std::to_string(passes) + ": " +
                                driver::observable_text({"sigma", s.sigma(), "pb", s.error()}));
        begin = end;
      }
      ++pass_no;
    });
    rs.progress->finish("gluon events");
    return s;
  }

  template <class T>
  EventConfig<T> config() const {
    EventConfig<T> c;
    c.n = cfg_.n;
    c.sqrt_s = T(cfg_.sqrt_s);
    c.pt_min = T(cfg_.pt_min);
    c.eta_max = T(cfg_.eta_max);
    c.dr_min = T(cfg_.dr_min);
    c.scale = cfg_.scale;
    c.mu_fixed = T(cfg_.mu_fixed);
    c.flat_x = cfg_.flat_x;
    c.skip_failed = cfg_.skip_failed;
    finalize(c);
    return c;
  }

  // The distributions' bins: HT from its smallest accepted value ((n-2) pT_min)
  // to 8 times that (harder events are summed apart), min Delta R over every
  // value an accepted event can have.
  Binning ht_binning() const {
    const double lo = (n_ - 2) * cfg_.pt_min;
    return {lo, 8 * lo, 56};
  }
  Binning dr_binning() const {
    const double pi = 3.14159265358979323846, hi = std::sqrt(4 * cfg_.eta_max * cfg_.eta_max + pi * pi);
    return {cfg_.dr_min, std::max(hi, cfg_.dr_min + 1), 40};
  }

  // --output: the distributions over every event of the run on the
  // variant's space (each rank its range, summed over the ranks), the gauge
  // profile of the stream's first events on the host in the run's precision;
  // rank 0 writes the files. Nothing is written for a run that failed its check.
  template <class E, class T>
  void write_output(const E& exec, const EventConfig<T>& c, const std::string& variant, const KernelResult& r,
                    const SigmaResult& s, const std::vector<SigmaResult>& running, Progress& progress) const {
    if (output_.empty()) return;
    if (!r.valid) {
      progress.message("not writing " + output_ + ": the variant failed its check");
      return;
    }
    progress.message("distributions and gauge profile for " + output_);
    RunOutput o;
    o.n = n_;
    o.sqrt_s = sqrt_s_;
    o.pt_min = cfg_.pt_min;
    o.eta_max = cfg_.eta_max;
    o.dr_min = cfg_.dr_min;
    o.pdf = pdf_.name;
    o.preset = preset_;
    o.precision = driver::precision_name(precision_);
    o.variant = variant;
    o.seed = seed_;
    o.sigma = s;
    o.running = running;
    std::uint64_t first, count;
    rank_range(0, std::uint64_t(events_), first, count);
    if (count) {
      o.hist = histograms(exec, c, make_pdf_grid<T, typename E::memory_space>(pdf_), seed_, first, count,
                          ht_binning(), dr_binning());
    } else {
      for (auto [d, b] : {std::pair{&o.hist.ht, ht_binning()}, std::pair{&o.hist.dr, dr_binning()}}) {
        d->binning = b;
        d->w.assign(b.bins, 0.0), d->w2.assign(b.bins, 0.0), d->count.assign(b.bins, 0.0);
      }
    }
    if (driver::world_size() > 1)
      for (Distribution* d : {&o.hist.ht, &o.hist.dr}) {
        for (auto* v : {&d->w, &d->w2, &d->count})
          for (double& x : *v) x = driver::world_sum(x);
        for (double* x : {&d->outside_w, &d->outside_w2, &d->outside_count}) *x = driver::world_sum(*x);
      }
    o.hist.generated = std::uint64_t(events_);
    if (driver::world_rank() != 0) return;
    o.gauge = gauge_profile(c, make_pdf_grid<T, Kokkos::HostSpace>(pdf_), seed_, 0,
                            std::min<std::uint64_t>(kGaugeEvents, std::uint64_t(events_)));
    write_run_output(output_, o);
  }

  std::vector<KernelResult> run_serial(const RunSettings& rs) const {
    return driver::dispatch_real(precision_, [&](auto types) {
      using T = typename decltype(types)::storage;
      const EventConfig<T> c = config<T>();
      const auto g = make_pdf_grid<T, Kokkos::HostSpace>(pdf_);
      auto loop = [&](std::uint64_t first, std::uint64_t count) {
        SigmaResult s;
        Neumaier sw, sw2;
        BergsScratch<T, T> scratch;
        for (std::uint64_t e = first; e < first + count; ++e) {
          const EventResult<T> r = generate_event(c, g, seed_, e, scratch);
          sw.add(double(r.weight));
          sw2.add(double(r.weight) * double(r.weight));
          s.accepted += r.accepted;
        }
        s.sum_w = sw.value();
        s.sum_w2 = sw2.value();
        s.generated = count;
        return s;
      };
      KernelResult r = base_result();
      r.ran = true;
      validate(r, loop(0, ref_.generated));
      std::vector<SigmaResult> running;
      const SigmaResult s = timed_passes(HostClock{}, rs, r, loop, running);
      observe(r, s);
      write_output(Kokkos::DefaultHostExecutionSpace(), c, "serial-reference", r, s, running, *rs.progress);
      return std::vector<KernelResult>{r};
    });
  }

  template <class E>
  std::vector<KernelResult> run_kokkos(const RunSettings& rs, Kind kind) const {
    return driver::dispatch_real(precision_, [&](auto types) {
      using T = typename decltype(types)::storage;
      const EventConfig<T> c = config<T>();
      const auto g = make_pdf_grid<T, typename E::memory_space>(pdf_);
      E exec;
      auto run = [&](std::uint64_t first, std::uint64_t count) {
        if (kind == Kind::thread) return impl::integrate_thread_kokkos(exec, c, g, seed_, first, count);
        if (kind == Kind::team) return impl::integrate_team_kokkos(exec, c, g, seed_, first, count);
        if (kind == Kind::lanes) return impl::integrate_lanes_kokkos(exec, c, g, seed_, first, count, lanes_);
#if TESSERA_HAS_CUDA_NATIVE
        if constexpr (std::is_same_v<E, Kokkos::Cuda>)
          if (kind == Kind::native) return native_cuda::gluon_integrate(exec.cuda_stream(), c, g, seed_, first, count);
#endif
        return integrate(exec, c, g, seed_, first, count);
      };
      KernelResult r = base_result();
      r.ran = true;
      validate(r, run(0, ref_.generated));
      std::vector<SigmaResult> running;
      const SigmaResult s = timed_passes(exec, rs, r, run, running);
      observe(r, s);
      const char* kinds[] = {"kokkos@", "kokkos-thread@", "kokkos-team@", "native-cuda", "kokkos-lanes@"};
      write_output(exec, c, kind == Kind::native ? std::string(kinds[3]) : kinds[int(kind)] + std::string(E::name()), r, s,
                   running, *rs.progress);
      if ((is_device_space_v<E> && kind == Kind::lanes) ||
          (kind == Kind::library && impl::uses_lanes_kernel<E>(n_, int(sizeof(T))))) {
        // The lanes kernel's analogue of the paper's Table 1.
        const auto sh = impl::lanes_shape<T, E>(n_, kind == Kind::lanes ? lanes_ : 0);
        r.note = std::to_string(sh.lanes) + " lanes per event; a team of " + std::to_string(sh.groups * sh.lanes) +
                 " threads draws as many events and evaluates " + std::to_string(sh.groups) + " at once, " +
                 std::to_string(sh.group_bytes) + " B of team scratch each";
      } else if (is_device_space_v<E> && (kind == Kind::library || kind == Kind::thread)) {
        // The thread kernel's: events in flight capped to what the L1 holds.
        r.note = "1 thread per event; " + std::to_string(impl::thread_events_per_sm(n_, int(sizeof(T)))) +
                 " events in flight per SM, " + std::to_string(impl::thread_scratch_bytes(n_, int(sizeof(T)))) +
                 " B of cached scratch each";
      }
#if TESSERA_HAS_CUDA_NATIVE
      if constexpr (std::is_same_v<E, Kokkos::Cuda>) {
        if (kind == Kind::native) {
          // The analogue of the paper's Table 1: one event per thread.
          const auto li = native_cuda::gluon_launch_info(int(sizeof(T)));
          r.note = std::to_string(li.threads_per_block * li.blocks_per_sm) + " events per SM (" +
                   std::to_string(li.blocks_per_sm) + " blocks of " + std::to_string(li.threads_per_block) +
                   " on " + std::to_string(li.sm_count) + " SMs), 1 thread per event, " +
                   std::to_string(li.local_bytes_per_thread) + " B local scratch and " +
                   std::to_string(li.registers_per_thread) + " registers per event";
        }
      }
#endif
      return std::vector<KernelResult>{r};
    });
  }

 private:
  int n_ = 6;
  int lanes_ = 0;
  long long events_ = 1000000;
  std::string pdf_name_ = "lh-lo-toy", preset_ = "table3";
  double sqrt_s_ = 14000;
  Precision precision_ = Precision::f32;
  EventConfig<double> cfg_;
  PdfGridHost pdf_;
  std::uint64_t seed_ = 0;
  SigmaResult ref_;
  std::string output_;
};

}  // namespace

std::unique_ptr<driver::Workload> make_gluon_workload() { return std::make_unique<GluonWorkload>(); }

}  // namespace tessera::gluon
