// Where does the host B-spline prefilter's time go: the two-pass path's row
// pass (8-bit in, float coefficients out, 5 bytes a pixel), its column pass
// (the plane read and written in place, 8 bytes a pixel), both (13 bytes a
// pixel), against a plain copy of the plane (8 bytes a pixel) in the same
// process; and the one-pass prefilter (bspline_host_fused.hpp: 5 bytes a
// pixel) beside them, on whole rows (the default) and in column strips of
// 1024 samples, with its largest difference from the two-pass path.
// The library's own host functions on Kokkos' default host execution space,
// median of 9 after one warm-up, GB/s at the bytes counted (write-allocate
// reads not counted, as for the copy).
// Built with -DTESSERA_BUILD_EXPERIMENTS=ON (host or cuda flavour):
// bspline_prefilter_passes_probe [W H] (default 7680 4320); threads as
// OMP_NUM_THREADS. Findings: docs/perf/video.md (CPU B-spline prefilter).
#include "tessera/video/impl/bspline_kokkos.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

using Exec = Kokkos::DefaultHostExecutionSpace;
using namespace tessera::video::impl;

int main(int argc, char** argv) {
  int W = 7680, H = 4320;
  if (argc == 3) W = std::atoi(argv[1]), H = std::atoi(argv[2]);
  if ((argc != 1 && argc != 3) || W < 64 || H < 64 || W > 32768 || H > 32768) {
    std::fprintf(stderr, "usage: %s [W H], each 64 to 32768\n", argv[0]);
    return 2;
  }
  Kokkos::initialize(argc, argv);
  {
    using Plane = Kokkos::View<float**, Kokkos::LayoutRight, Kokkos::HostSpace>;
    Kokkos::View<std::uint8_t**, Kokkos::LayoutRight, Kokkos::HostSpace> in("in", H, W);
    Plane coef("coef", H, W), a("a", H, W), b("b", H, W);
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x) in(y, x) = std::uint8_t((x * 7 + y * 13 + (x * y) % 5) & 255);
    Exec exec;
    auto median_ms = [&](auto&& f) {
      std::vector<double> v;
      f();
      exec.fence();
      for (int r = 0; r < 9; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        f();
        exec.fence();
        v.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
      }
      std::sort(v.begin(), v.end());
      return v[v.size() / 2];
    };
    const std::int64_t n = std::int64_t(W) * H;
    const float* src = a.data();
    float* dst = b.data();
    const double copy = median_ms([&] {
      Kokkos::parallel_for(Kokkos::RangePolicy<Exec>(exec, 0, n), [=](std::int64_t i) { dst[i] = src[i]; });
    });
    const double rows = median_ms([&] { bspline_prefilter_rows_kokkos(exec, in, coef); });
    const double cols = median_ms([&] { bspline_prefilter_cols_kokkos(exec, coef); });
    const double both = median_ms(
        [&] { bspline_prefilter_kokkos(exec, in, coef, BsplineHostStores::automatic, BsplineHostPath::two_pass); });
    double one = -1, one_err = -1, one_rows = -1, strips_ms = -1;
#if TESSERA_HOST_X86
    // The one-pass prefilter's row filter alone, 8 rows at a time into
    // buffers of the thread's own (no column work, nothing written to the plane).
    if (tessera::host_avx2_fma()) {
      using Policy = Kokkos::TeamPolicy<Exec>;
      const std::size_t bytes = std::size_t(2 * kFusedGroup) * W * sizeof(float);
      const std::uint8_t* s8 = in.data();
      const int groups = (H + kFusedGroup - 1) / kFusedGroup;
      const int teams = 4 * Exec().concurrency();
      one_rows = median_ms([&] {
        Kokkos::parallel_for(Policy(exec, teams, 1).set_scratch_size(1, Kokkos::PerTeam(bytes)),
                             [=](const Policy::member_type& team) {
                               float* buf = static_cast<float*>(team.team_scratch(1).get_shmem(bytes));
                               const int q = team.league_rank();
                               for (int g = q * groups / teams; g < (q + 1) * groups / teams; ++g) {
                                 const std::uint8_t* r[kFusedGroup];
                                 float* o[kFusedGroup];
                                 for (int i = 0; i < kFusedGroup; ++i) {
                                   r[i] = s8 + std::int64_t(std::min(g * kFusedGroup + i, H - 1)) * W;
                                   o[i] = buf + std::int64_t(i) * W;
                                 }
                                 bspline_rows8_avx2(r, o, buf + std::int64_t(kFusedGroup) * W, W, 36.0f);
                               }
                             });
      });
    }
#endif
    if (bspline_prefilter_fused_host(exec, in, a, BsplineHostStores::automatic)) {
      // Column strips of 1024 samples beside the default whole rows.
      strips_ms = median_ms([&] { bspline_prefilter_fused_host(exec, in, a, BsplineHostStores::automatic, 0, 1024); });
      one = median_ms([&] { bspline_prefilter_fused_host(exec, in, a, BsplineHostStores::automatic); });
      bspline_prefilter_kokkos(exec, in, coef, BsplineHostStores::automatic, BsplineHostPath::two_pass);
      exec.fence();
      double md = 0, mv = 0;
      for (std::int64_t i = 0; i < n; ++i) {
        md = std::max(md, double(std::fabs(a.data()[i] - coef.data()[i])));
        mv = std::max(mv, double(std::fabs(coef.data()[i])));
      }
      one_err = md / mv;
    }
    auto line = [&](const char* what, double ms, double bytes_px) {
      std::printf("%-11s %8.3f ms %7.1f GB/s at %2.0f B/px  %5.1f%% of the copy's rate\n", what, ms,
                  bytes_px * double(n) / ms * 1e-6, bytes_px, 100.0 * (bytes_px / ms) / (8.0 / copy));
    };
    std::printf("%d x %d, %d host threads (%s)\n", W, H, Exec().concurrency(), Exec::name());
    line("copy", copy, 8);
    line("rows", rows, 5);
    line("columns", cols, 8);
    line("prefilter", both, 13);
    if (one >= 0) {
      line("one pass", one, 5);
      line("  strips", strips_ms, 5);
      if (one_rows >= 0) line("  its rows", one_rows, 1);
      std::printf("            (%.2fx the two passes; largest difference from them: %.1e of the largest value)\n",
                  both / one, one_err);
    }
  }
  Kokkos::finalize();
  return 0;
}
