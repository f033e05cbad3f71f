// Gluon one-event-per-thread kernel: time per event against the events in
// flight per SM, the event set-up alone (prepare_event) and the 2-lane
// kernel, float and double, the toy gluon set (the timing hardly depends on
// the set). Built with -DTESSERA_BUILD_EXPERIMENTS=ON in a Kokkos Cuda build;
// run: gluon_events_in_flight_probe [EVENTS=3e7 as an integer] [N...]
// (GLUON_PROBE_FINE=1: the library's kernel and counts per SM 160..320 only).
// Data and findings: docs/perf/gluon.md ("Events in flight sized to the L1").
#include "gluon_probe_common.hpp"

#include <cstdio>
#include <cstdlib>

using namespace tessera::gluon;
using gluon_probe::Exec;
using gluon_probe::Mem;
using gluon_probe::median_seconds;

// The library's thread kernel body with W workers in blocks of B (128 as in
// the library; 32 for counts per SM between multiples of 128).
template <class T, int B = 128>
double capped(const Exec& exec, const EventConfig<T>& cfg, const PdfGrid<T, Mem>& pdf, std::uint64_t count,
              std::uint64_t W) {
  Kokkos::View<double*, Mem> part("part", W);
  using Policy = Kokkos::RangePolicy<Exec, Kokkos::LaunchBounds<B, 1>, Kokkos::IndexType<std::int64_t>>;
  Kokkos::parallel_for("capped", Policy(exec, 0, std::int64_t(W)), KOKKOS_LAMBDA(std::int64_t i) {
    BergsScratch<T, T> scratch;
    Neumaier sw;
    for (std::uint64_t e = std::uint64_t(i); e < count; e += W) sw.add(double(generate_event(cfg, pdf, 7, e, scratch).weight));
    part(i) = sw.value();
  });
  double s = 0;
  Kokkos::parallel_reduce("sum", Kokkos::RangePolicy<Exec>(exec, 0, W),
                          KOKKOS_LAMBDA(std::size_t i, double& a) { a += part(i); }, s);
  return s;
}

template <class T>
void run(int n, std::uint64_t N, const PdfGridHost& h) {
  EventConfig<T> c;
  c.n = n;
  finalize(c);
  const auto g = make_pdf_grid<T, Mem>(h);
  Exec exec;
  const char* p = sizeof(T) == 4 ? "float" : "double";
  const std::uint64_t sms = std::uint64_t(exec.concurrency()) / 2048;
  auto report = [&](const char* what, int x, double s) { std::printf("n=%d %s %s%d %.3f ns\n", n, p, what, x, s / N * 1e9); };
  report("library-thread", impl::thread_events_per_sm(n, int(sizeof(T))),
         median_seconds([&] { impl::integrate_thread_kokkos(exec, c, g, 7, 0, N); }, 3));
  if (std::getenv("GLUON_PROBE_FINE")) {  // events per SM in steps of 32 around the library's count
    for (int per_sm : {160, 192, 224, 256, 288, 320})
      report("events-per-sm-b32-", per_sm, median_seconds([&] { capped<T, 32>(exec, c, g, N, sms * per_sm); }, 3));
    return;
  }
  report("lanes", 2, median_seconds([&] { impl::integrate_lanes_kokkos(exec, c, g, 7, 0, N, 2); }, 3));
  for (int per_sm : {128, 256, 384, 512, 640, 768, 1024})
    report("events-per-sm", per_sm, median_seconds([&] { capped(exec, c, g, N, sms * per_sm); }, 3));
  // The set-up alone: draw, cuts, PDFs, no recursion.
  const std::uint64_t W = impl::worker_count(exec, N);
  Kokkos::View<double*, Mem> part("part", W);
  report("setup-only", 0, median_seconds([&] {
           Kokkos::parallel_for("setup", Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, std::int64_t(W)),
                                KOKKOS_LAMBDA(std::int64_t i) {
                                  Vec4<T> k[max_gluons], eps[max_gluons];
                                  int ord[max_gluons];
                                  T pre;
                                  double a = 0;
                                  for (std::uint64_t e = std::uint64_t(i); e < N; e += W) {
                                    const auto r = prepare_event(c, g, 7, e, k, eps, ord, pre);
                                    a += double(pre) + double(eps[ord[n - 1]][1]) + (r.accepted ? 1.0 : 0.0);
                                  }
                                  part(i) = a;
                                });
         }, 3));
}

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    const auto h = toy_gluon_set();
    const std::uint64_t N = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 30000000ull;
    std::vector<int> ns;
    for (int i = 2; i < argc; ++i) ns.push_back(std::atoi(argv[i]));
    if (ns.empty()) ns = {6, 7, 8, 9};
    for (int n : ns) {
      run<float>(n, N, h);
      run<double>(n, N, h);
    }
  }
  Kokkos::finalize();
}
