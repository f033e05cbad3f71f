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

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
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
            {"precision", "float|double", "float", "arithmetic of the event kernels (sums are compensated doubles)"}};
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
    t.add_portable("kokkos", "one event per thread (RangePolicy), compensated per-thread sums",
                   [this](auto tag) -> Runner {
                     using E = typename decltype(tag)::space;
                     return [this](const RunSettings& rs) { return run_kokkos<E>(rs, Kind::thread); };
                   });
    t.add_portable("kokkos-team", "a team per event, currents in team scratch, level L on n-L threads",
                   [this](auto tag) -> Runner {
                     using E = typename decltype(tag)::space;
                     return [this](const RunSettings& rs) { return run_kokkos<E>(rs, Kind::team); };
                   });
    const char* native = "native CUDA: one event per thread, block reductions (what tessera::gluon selects on Cuda)";
#if TESSERA_HAS_CUDA_NATIVE
    t.add_native("native-cuda", Platform::gpu, native,
                 [this](const RunSettings& rs) { return run_kokkos<Kokkos::Cuda>(rs, Kind::api); }, "");
#else
    t.add_native("native-cuda", Platform::gpu, native, {},
                 "native CUDA kernels: a Cuda build with TESSERA_ENABLE_CUDA_NATIVE");
#endif
    t.set_default(Platform::gpu, TESSERA_HAS_CUDA_NATIVE ? "native-cuda" : "kokkos@Cuda");
    t.set_default(Platform::cpu, "kokkos@OpenMP");
    t.set_default(Platform::cpu1, "kokkos@Serial");
  }

 public:
  enum class Kind { thread, team, api };

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

  void observe(KernelResult& r, const SigmaResult& s) const {
    r.observables = {{"sigma", s.sigma(), "pb", s.error()},
                     {"events_generated", double(s.generated), "", -1},
                     {"events_accepted", double(s.accepted), "", -1},
                     {"time_per_event", r.time.median / double(s.generated), "s", -1}};
  }

  // MPI: the ranks generate consecutive, disjoint ranges of the one stream;
  // the sums are added over the ranks, so sigma does not depend on P beyond
  // rounding. One rank: the whole range.
  template <class Run>
  SigmaResult over_ranks(Run&& run) const {
    const std::uint64_t P = std::uint64_t(driver::world_size()), r = std::uint64_t(driver::world_rank());
    const std::uint64_t N = std::uint64_t(events_);
    const std::uint64_t q = N / P, m = N % P;
    const std::uint64_t b = q * r + (r < m ? r : m), e = b + q + (r < m ? 1 : 0);
    SigmaResult s = e > b ? run(b, e - b) : SigmaResult{};
    if (P == 1) return s;
    SigmaResult t;
    t.sum_w = driver::world_sum(s.sum_w);
    t.sum_w2 = driver::world_sum(s.sum_w2);
    t.accepted = std::uint64_t(driver::world_sum(double(s.accepted)));
    t.generated = N;
    return t;
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
      SigmaResult s;
      r.time = time_repeats(HostClock{}, rs.warmup, rs.repeats, [&] { s = over_ranks(loop); });
      observe(r, s);
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
        return integrate(exec, c, g, seed_, first, count);
      };
      KernelResult r = base_result();
      r.ran = true;
      validate(r, run(0, ref_.generated));
      SigmaResult s;
      r.time = time_repeats(exec, rs.warmup, rs.repeats, [&] { s = over_ranks(run); });
      observe(r, s);
#if TESSERA_HAS_CUDA_NATIVE
      if constexpr (std::is_same_v<E, Kokkos::Cuda>) {
        if (kind == Kind::api) {
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
  long long events_ = 1000000;
  std::string pdf_name_ = "lh-lo-toy", preset_ = "table3";
  double sqrt_s_ = 14000;
  Precision precision_ = Precision::f32;
  EventConfig<double> cfg_;
  PdfGridHost pdf_;
  std::uint64_t seed_ = 0;
  SigmaResult ref_;
};

}  // namespace

std::unique_ptr<driver::Workload> make_gluon_workload() { return std::make_unique<GluonWorkload>(); }

}  // namespace tessera::gluon
