// Benchmark of the library's CPU Himeno kernels (Kokkos OpenMP, Google
// Benchmark): the rows single sweep against two sweeps per pass
// (kokkos-fused2) with the tile the library picks and with other tile heights,
// each with the AVX2 copy of the row loop (what the library runs where the CPU
// has AVX2) and the baseline x86-64 copy. One iteration is two sweeps (one
// fused2 pass, two rows sweeps); the counter GB/s is effective: 14 words x
// interior points x 2 sweeps / time. The repetitions run in random order
// (--benchmark_enable_random_interleaving) so that the machine's noise hits
// every candidate alike; a summary table after the run gives, per size and
// precision, each candidate's median ms/sweep, GB/s and speed-up over rows.
//   build/<flavour>/perf/bench/himeno_cpu_bench [size ...] [--kokkos-threads=N] [--benchmark_...]
// (sizes: XS..XL or IxJxK; default M L; defaults --benchmark_repetitions=5
// --benchmark_enable_random_interleaving=true
// --benchmark_report_aggregates_only=true, each can be overridden; e.g.
// --benchmark_filter=L/double to run one grid). Set OMP_PROC_BIND=spread
// OMP_PLACES=cores. The states of every size and precision stay allocated
// for the whole run (L double: 3.8 GB). Results: docs/perf/himeno.md
// ("CPU temporal blocking", measured 2026-11-24).
#include "tessera/himeno/himeno.hpp"
#include "tessera/himeno/impl/himeno_kokkos_fused.hpp"

#include <Kokkos_Core.hpp>
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

using namespace tessera::himeno;

template <class S>
void use_copy(bool baseline) {
#ifdef TESSERA_HIMENO_ROWS_ISA
  impl::rows_chunk_active<S>() = impl::rows_chunk_fn<S>(baseline ? impl::RowsIsa::baseline : impl::rows_isa());
#else
  (void)baseline;
#endif
}

// One initialised state per size and precision, shared by its candidates
// (released before Kokkos is finalised).
template <class S>
std::map<std::string, std::unique_ptr<HimenoState<S, Kokkos::HostSpace>>>& states() {
  static std::map<std::string, std::unique_ptr<HimenoState<S, Kokkos::HostSpace>>> m;
  return m;
}

template <class S>
HimenoState<S, Kokkos::HostSpace>& state_for(const std::string& size) {
  auto& s = states<S>()[size];
  if (!s) {
    s = std::make_unique<HimenoState<S, Kokkos::HostSpace>>(parse_grid(size));
    initialize(Kokkos::OpenMP(), *s);
  }
  return *s;
}

struct Candidate {
  std::string name;
  bool fused;
  int tile_j, tile_k;  // 0: the library's choice
  bool baseline;       // the baseline x86-64 copy of the row loop
};

template <class S>
void run(benchmark::State& st, const std::string& size, const Candidate& c) {
  const Kokkos::OpenMP exec;
  auto& s = state_for<S>(size);
  const Grid g = s.grid;
  const double bytes = kWordsPerPoint * sizeof(S) * double(g.imax - 2) * (g.jmax - 2) * (g.kmax - 2);
  SweepOptions opt;
  opt.kernel = Kernel::rows;
  opt.tile_j = c.tile_j;
  opt.tile_k = c.tile_k;
  Kokkos::View<double*, Kokkos::HostSpace> gosa2("gosa2", 2);
  use_copy<S>(c.baseline);
  double check = 0;  // gosa of what this candidate computed: finite or the run is an error
  for (auto _ : st) {
    if (c.fused) {
      sweep2(exec, s, gosa2, opt);
    } else {
      check += sweep<double>(exec, s, opt);
      check += sweep<double>(exec, s, opt);
    }
    exec.fence();
  }
  if (c.fused) check += gosa2(1);
  use_copy<S>(false);
  if (!std::isfinite(check)) st.SkipWithError("gosa is not finite");
  st.counters["GB/s"] = benchmark::Counter(2 * bytes / 1e9, benchmark::Counter::kIsIterationInvariantRate);
}

template <class S>
void register_size(const std::string& size) {
  const Grid g = parse_grid(size);
  const auto t = impl::fused_tiles(Kokkos::OpenMP(), g.imax - 2, g.jmax, g.kmax, SweepOptions{});
  const std::string tile = std::to_string(t.j) + "x" + std::to_string(t.k);
  std::vector<Candidate> cands = {{"rows", false, 0, 0, false},
                                  {"rows_baseline", false, 0, 0, true},
                                  {"fused2_" + tile + "_library", true, 0, 0, false},
                                  {"fused2_" + tile + "_library_baseline", true, 0, 0, true}};
  // Other tiles: rows along j (whole k rows), and the library's rows on half rows.
  for (int j : {4, 6, 8, 12, 16, 32})
    if ((j != t.j || t.k != g.kmax - 2) && j <= g.jmax - 2)
      cands.push_back({"fused2_" + std::to_string(j) + "_rows", true, j, g.kmax - 2, false});
  const int half = (g.kmax - 1) / 2;
  cands.push_back({"fused2_" + std::to_string(t.j) + "x" + std::to_string(half), true, t.j, half, false});
  const std::string prefix = size + "/" + (sizeof(S) == 4 ? "float" : "double") + "/";
  for (const auto& c : cands)
    benchmark::RegisterBenchmark((prefix + c.name).c_str(), [size, c](benchmark::State& st) { run<S>(st, size, c); })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
}

// A run that stopped with an error: Google Benchmark before 1.8 says
// error_occurred, 1.8 and later say skipped.
template <class R>
auto run_failed(const R& r, int) -> decltype(bool(r.error_occurred)) {
  return r.error_occurred;
}
template <class R>
bool run_failed(const R& r, long) {
  return bool(r.skipped);
}

// The console report, then one summary table: per size and precision, each
// candidate's median time per sweep, GB/s and speed-up over rows.
class SummaryReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const auto& r : runs) {
      if (run_failed(r, 0)) continue;
      const bool median = r.run_type == Run::RT_Aggregate && r.aggregate_name == "median";
      const bool single = r.run_type == Run::RT_Iteration && r.repetitions == 1;
      if (!median && !single) continue;
      const auto gbs = r.counters.find("GB/s");
      rows_.push_back({r.run_name.function_name, r.GetAdjustedRealTime() / 2,
                       gbs == r.counters.end() ? 0.0 : double(gbs->second.value)});
    }
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    std::sort(rows_.begin(), rows_.end(), [](const Row& a, const Row& b) { return a.name < b.name; });
    std::printf("\n%-44s %12s %10s %8s\n", "size/precision/candidate (median)", "ms/sweep", "GB/s", "x rows");
    for (const auto& r : rows_) {
      const std::string group = r.name.substr(0, r.name.rfind('/') + 1);
      double rows_ms = 0;
      for (const auto& o : rows_)
        if (o.name == group + "rows") rows_ms = o.ms;
      std::printf("%-44s %12.2f %10.1f %7.2fx\n", r.name.c_str(), r.ms, r.gbs, rows_ms > 0 ? rows_ms / r.ms : 0.0);
    }
  }

 private:
  struct Row {
    std::string name;
    double ms, gbs;
  };
  std::vector<Row> rows_;
};

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);  // takes the --kokkos-* arguments out of argv
  // Defaults first, so that the same flags given on the command line win.
  std::vector<char*> args = {argv[0]};
  std::string defaults[] = {"--benchmark_repetitions=5", "--benchmark_enable_random_interleaving=true",
                            "--benchmark_report_aggregates_only=true"};
  for (auto& d : defaults) args.push_back(d.data());
  for (int a = 1; a < argc; ++a) args.push_back(argv[a]);
  int n = int(args.size());
  benchmark::Initialize(&n, args.data());  // takes the --benchmark_* arguments out
  std::vector<std::string> sizes(args.begin() + 1, args.begin() + n);
  if (sizes.empty()) sizes = {"M", "L"};
  try {
    for (const auto& sz : sizes) parse_grid(sz);  // bad sizes fail before any run
  } catch (const std::exception& e) {
    std::fprintf(stderr, "himeno_cpu_bench: %s\n", e.what());
    return 2;
  }
#ifdef TESSERA_HIMENO_ROWS_ISA
  const char* isa = impl::rows_isa_name(impl::rows_isa());
#else
  const char* isa = "portable";
#endif
  std::printf("himeno CPU bench: %d OpenMP threads, row loop copy %s\n", Kokkos::OpenMP().concurrency(), isa);
  for (const auto& sz : sizes) {
    register_size<float>(sz);
    register_size<double>(sz);
  }
  SummaryReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  states<float>().clear();
  states<double>().clear();
  return 0;
}
