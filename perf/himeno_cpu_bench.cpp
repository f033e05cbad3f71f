// Benchmark of the library's CPU Himeno kernels (Kokkos OpenMP): the rows
// single sweep against two sweeps per pass (kokkos-fused2) with the tile the
// library picks and with other tile heights, each with the AVX2 copy of the
// row loop (what the library runs where the CPU has AVX2) and the baseline
// x86-64 copy. The candidates run interleaved, run by run, so the machine's
// noise hits all alike; median of the runs; GB/s effective = 14 words x
// interior points x sweeps / time.
//   build/<flavour>/perf/himeno_cpu_bench [runs] [size ...] [--kokkos-threads=N]
// (sizes: XS..XL or IxJxK; default M L). Set OMP_PROC_BIND=spread
// OMP_PLACES=cores. Results: docs/perf/himeno.md (2026-11-24).
#include "tessera/himeno/himeno.hpp"
#include "tessera/himeno/impl/himeno_kokkos_fused.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

namespace {

using namespace tessera::himeno;

struct Candidate {
  std::string name;
  bool fused;
  int tile_j, tile_k;  // 0: the library's choice
  bool baseline;  // the baseline x86-64 copy of the row loop
  std::vector<double> ms;
};

template <class S>
void use_copy(bool baseline) {
#ifdef TESSERA_HIMENO_ROWS_ISA
  impl::rows_chunk_active<S>() = impl::rows_chunk_fn<S>(baseline ? impl::RowsIsa::baseline : impl::rows_isa());
#else
  (void)baseline;
#endif
}

template <class S>
void bench(const std::string& size, int runs) {
  using Exec = Kokkos::OpenMP;
  const Exec exec;
  const Grid g = parse_grid(size);
  HimenoState<S, Kokkos::HostSpace> s(g);
  initialize(exec, s);
  const double points = double(g.imax - 2) * (g.jmax - 2) * (g.kmax - 2);
  const double bytes = kWordsPerPoint * sizeof(S) * points;
  const int sweeps = std::max(2, int(4e9 / bytes) / 2 * 2);  // ~4 GB per run, even
  const auto t = impl::fused_tiles(exec, g.imax - 2, g.jmax, g.kmax, SweepOptions{});
  std::vector<Candidate> cands = {{"rows", false, 0, 0, false, {}}, {"rows baseline", false, 0, 0, true, {}}};
  cands.push_back(
      {"fused2 " + std::to_string(t.j) + "x" + std::to_string(t.k) + " (library)", true, 0, 0, false, {}});
  cands.push_back({"fused2 library tile, baseline", true, 0, 0, true, {}});
  // Other tiles: rows along j (whole k rows), and the library's rows on half rows.
  for (int j : {4, 6, 8, 12, 16, 32})
    if ((j != t.j || t.k != g.kmax - 2) && j <= g.jmax - 2)
      cands.push_back({"fused2 " + std::to_string(j) + " rows", true, j, g.kmax - 2, false, {}});
  const int half = (g.kmax - 1) / 2;
  cands.push_back({"fused2 " + std::to_string(t.j) + "x" + std::to_string(half), true, t.j, half, false, {}});
  Kokkos::View<double*, Kokkos::HostSpace> gosa2("gosa2", 2);
  double check = 0;
  for (int r = 0; r <= runs; ++r)  // run 0 warms up
    for (auto& c : cands) {
      use_copy<S>(c.baseline);
      SweepOptions opt;
      opt.kernel = Kernel::rows;
      opt.tile_j = c.tile_j;
      opt.tile_k = c.tile_k;
      const auto t0 = std::chrono::steady_clock::now();
      if (c.fused) {
        for (int n = 0; n < sweeps; n += 2) sweep2(exec, s, gosa2, opt);
      } else {
        for (int n = 0; n < sweeps; ++n) check += sweep<double>(exec, s, opt);
      }
      exec.fence();
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      if (r > 0) c.ms.push_back(ms);
      if (c.fused) check += gosa2(1);
    }
  use_copy<S>(false);
  if (!std::isfinite(check)) throw std::runtime_error("gosa is not finite");
  const auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  const double rows_ms = median(cands[0].ms);
  for (const auto& c : cands) {
    const double m = median(c.ms);
    std::printf("%-12s %-6s %-34s %9.2f ms/sweep %8.1f GB/s %6.2fx rows  (runs %.1f..%.1f)\n", size.c_str(),
                sizeof(S) == 4 ? "float" : "double", c.name.c_str(), m / sweeps, bytes * sweeps / (m * 1e6),
                rows_ms / m, *std::min_element(c.ms.begin(), c.ms.end()) / sweeps,
                *std::max_element(c.ms.begin(), c.ms.end()) / sweeps);
    std::fflush(stdout);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard guard(argc, argv);  // takes the --kokkos-* arguments out of argv
  int runs = 5;
  std::vector<std::string> sizes;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    if (a == 1 && !arg.empty() && std::isdigit(static_cast<unsigned char>(arg[0])) && arg.find('x') == std::string::npos)
      runs = std::atoi(argv[a]);
    else
      sizes.push_back(arg);
  }
  if (runs < 1) {
    std::fprintf(stderr, "usage: %s [runs >= 1] [size ...] [--kokkos-threads=N]\n", argv[0]);
    return 2;
  }
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
  std::printf("himeno CPU bench: %d OpenMP threads, row loop copy %s, median of %d runs\n",
              Kokkos::OpenMP::concurrency(), isa, runs);
  for (const auto& sz : sizes) {
    bench<float>(sz, runs);
    bench<double>(sz, runs);
  }
  return 0;
}
