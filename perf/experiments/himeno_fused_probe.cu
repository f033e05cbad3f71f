// Probe: the library's two-sweep (temporal blocking) kernels, each first
// checked against two sweeps on the CPU on random fields (with the segment
// count the library picks, down to one-plane segments on small grids), then
// timed at L and XL beside the library's single sweep (jacobi_vec), with the
// segment count the library picks (kn::fused2_segments, "auto") and with
// fixed segment lengths:
//   point     jacobi_fused2: a point per thread, 32 x 16 threads, 30 x 14
//             outputs, the coefficients held in registers for sweep 2;
//   point-pf  the same prefetching the next plane's coefficients (held in
//             shared memory for sweep 2) and p (L1): what the library runs
//             in double, and in float when rows are not aligned pairs;
//   k2        jacobi_fused2_k2: two k points per thread, 64 x 16 tile (float;
//             it spills in double at 128 registers);
//   k2-pf     k2 prefetching the coefficients (held in shared memory) with
//             p staged in shared memory: what the library runs in float;
//   waves     point-pf's tiles in persistent blocks that start each wave of
//             tiles together (jacobi_fused2_waves): what the library runs
//             from kn::kWavesMin waves of blocks;
//   k2-waves  the same of k2-pf's tiles (float).
// The register versions are the library's fallback on GPUs with less shared
// memory per block. Candidates measured here and dropped are in
// docs/perf/himeno.md and in the kPrefetch comment of himeno_kernels.cuh.
// GB/s effective = 14 words x interior points x sweeps / time; blocks/SM from
// the occupancy calculator with the carve-out the library sets.
// Built with the cuda flavour and -DTESSERA_BUILD_EXPERIMENTS=ON (perf/README.md):
// build/cuda/perf/experiments/himeno_fused_probe [I J K]; by hand: nvcc -O3 -arch=sm_90
// -std=c++17 -I src -I backends/cuda perf/experiments/himeno_fused_probe.cu -o probe.
#include "probe_common.cuh"

#include "himeno/himeno_kernels.cuh"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>

namespace nc = tessera::native_cuda;
namespace kn = tessera::native_cuda::kernels;

template <class T>
struct Variant {
  const char* name;
  kn::Fused2Kernel<T> kernel;  // one block per tile-segment, or
  kn::Fused2WavesKernel<T> waves;  // persistent blocks over the same tile-segments
  int tile_k;  // outputs per tile along k
  bool pairs;  // needs kn::pairs_fit
  int smem;    // dynamic shared memory per block
  int blocks = 0;  // per SM (configure)
};

template <class T>
std::vector<Variant<T>> variants() {
  std::vector<Variant<T>> v = {
      {"point", kn::jacobi_fused2<T>, nullptr, kn::kTbK - 2, false, 0},
      {"point-pf", kn::jacobi_fused2<T, true>, nullptr, kn::kTbK - 2, false, kn::held_bytes<T>()},
      {"waves", nullptr, kn::jacobi_fused2_waves<T, false>, kn::kTbK - 2, false, kn::held_bytes<T>()}};
  if constexpr (sizeof(T) == 4) {  // k2 spills in double
    v.push_back({"k2", kn::jacobi_fused2_k2<T>, nullptr, kn::kK2Out, true, 0});
    v.push_back({"k2-pf", kn::jacobi_fused2_k2<T, true>, nullptr, kn::kK2Out, true, kn::held_bytes<kn::V2<T>>()});
    v.push_back({"k2-waves", nullptr, kn::jacobi_fused2_waves<T, true>, kn::kK2Out, true, kn::held_bytes<kn::V2<T>>()});
  }
  return v;
}

// The library's attributes (kn::fused2_configure); returns the blocks per SM
// the device will run (0: the variant's shared memory does not fit).
template <class T>
int configure(Variant<T>& v) {
  if (v.waves) CK(kn::fused2_configure(v.waves, v.smem, v.blocks));
  else CK(kn::fused2_configure(v.kernel, v.smem, v.blocks));
  return v.blocks;
}

template <class T>
struct Arrays {
  std::vector<T*> a;  // 12 coefficients (a0..a3 b0..b2 c0..c2 wrk1 bnd), p, wrk2
  nc::HimenoFields<T> f{};
  long long n = 0;
  double* partial = nullptr;  // per-block partials (the most any kernel here launches)
  unsigned* done = nullptr;
  unsigned* finished = nullptr;  // jacobi_fused2_waves' count of finished items
  double* gosa = nullptr;
  int sms = 0;
  Arrays(int I, int J, int K) : a(14), n((long long)I * J * K) {
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    for (auto& x : a) CK(cudaMalloc(&x, n * sizeof(T)));
    f = {a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12], a[13],
         (long long)J * K, K, I, J, K};
    // The most blocks a launch here has: the per-tile kernels' grids, or the
    // persistent kernels' resident blocks (at most 32 per SM).
    const long long blocks = std::max((long long)((K + 31) / 32) * ((J + 7) / 8) * I, 32LL * sms);
    CK(cudaMalloc(&partial, 2 * sizeof(double) * blocks));
    CK(cudaMalloc(&done, sizeof(unsigned)));
    CK(cudaMemset(done, 0, sizeof(unsigned)));
    CK(cudaMalloc(&finished, sizeof(unsigned)));
    CK(cudaMemset(finished, 0, sizeof(unsigned)));
    CK(cudaMalloc(&gosa, 2 * sizeof(double)));
  }
  ~Arrays() {
    for (auto x : a) cudaFree(x);
    cudaFree(partial), cudaFree(done), cudaFree(finished), cudaFree(gosa);
  }
  // segments: 0 cuts the planes as fused2_segments picks. A waves variant
  // runs the same tile-segments in exactly the resident blocks.
  void launch(const Variant<T>& v, T omega, int segments = 0) const {
    dim3 grid = kn::fused2_grid(f, v.tile_k, v.blocks * sms);
    if (segments > 0) grid.z = segments;
    const dim3 block(kn::kTbK, kn::kTbJ);
    if (v.waves) {  // as the library: a cooperative launch of the resident blocks
      CK(kn::launch_fused2_waves(v.waves, grid, unsigned(v.blocks * sms), v.smem, cudaStream_t(0), f, omega, partial,
                                 done, gosa, finished));
    } else {
      v.kernel<<<grid, block, v.smem>>>(f, omega, partial, done, gosa);
    }
  }
  // The library's single sweep (16 bytes of k per thread, chunk order).
  void single(T omega) const {
    const int per_block = 32 * kn::Vec16<T>::n;
    tessera::himeno::ChunkOrder order{(f.nk + per_block - 1) / per_block, (f.nj - 2 + kn::kVecJ - 1) / kn::kVecJ,
                                      f.ni - 2, 0};
    order.cj = tessera::himeno::chunk_tiles(f.nk, kn::kVecJ, sizeof(T), order.njt);
    const unsigned blocks = unsigned(order.nkt) * unsigned(order.njt) * unsigned(order.ni);
    kn::jacobi_vec<T><<<blocks, dim3(32, kn::kVecJ)>>>(f, omega, order, partial);
  }
};

// Random fields as the library's initialize_random (a in [0.5, 1.5), b in
// [-0.25, 0.25), a3 = 1 / (sum |a|, |c|, 4 |b|), bnd 0 at one point in 8).
template <class T>
std::vector<std::vector<T>> random_fields(long long n, unsigned seed) {
  std::vector<std::vector<T>> h(13, std::vector<T>(n));
  unsigned s = seed;
  auto u = [&] { return (s = s * 1664525u + 1013904223u) / 4294967296.0; };
  for (long long x = 0; x < n; ++x) {
    double sum = 0;
    for (int m : {0, 1, 2, 7, 8, 9}) sum += std::fabs(h[m][x] = T(0.5 + u()));
    for (int m : {4, 5, 6}) sum += 4 * std::fabs(h[m][x] = T(0.5 * u() - 0.25));
    h[3][x] = T(1.0 / sum);
    h[10][x] = T(0.2 * u() - 0.1);
    h[11][x] = u() < 0.125 ? T(0) : T(1);
    h[12][x] = T(u());
  }
  return h;
}

// Two sweeps on the CPU in T, the listing's term order; returns p after
// sweep 2 (boundary: p) and both gosas (summed in double).
template <class T>
std::vector<T> two_sweeps(const std::vector<std::vector<T>>& h, int I, int J, int K, T omega, double g[2]) {
  const long long si = (long long)J * K, sj = K;
  std::vector<T> p = h[12], w = h[12];
  for (int s = 0; s < 2; ++s) {
    g[s] = 0;
    for (int i = 1; i < I - 1; ++i)
      for (int j = 1; j < J - 1; ++j)
        for (int k = 1; k < K - 1; ++k) {
          const long long c = i * si + j * sj + k;
          const auto P = [&](int di, int dj, int dk) { return p[c + di * si + dj * sj + dk]; };
          const auto q = [&](int m) { return h[m][c]; };
          const T s0 = q(0) * P(1, 0, 0) + q(1) * P(0, 1, 0) + q(2) * P(0, 0, 1) +
                       q(4) * (P(1, 1, 0) - P(1, -1, 0) - P(-1, 1, 0) + P(-1, -1, 0)) +
                       q(5) * (P(0, 1, 1) - P(0, -1, 1) - P(0, 1, -1) + P(0, -1, -1)) +
                       q(6) * (P(1, 0, 1) - P(-1, 0, 1) - P(1, 0, -1) + P(-1, 0, -1)) + q(7) * P(-1, 0, 0) +
                       q(8) * P(0, -1, 0) + q(9) * P(0, 0, -1) + q(10);
          const T ss = (s0 * q(3) - P(0, 0, 0)) * q(11);
          w[c] = p[c] + omega * ss;
          g[s] += double(ss) * double(ss);
        }
    std::swap(p, w);
    w = p;
  }
  return p;
}

// Each variant against two CPU sweeps on random fields; false on a mismatch.
template <class T>
bool validate(int I, int J, int K) {
  const long long n = (long long)I * J * K;
  const auto h = random_fields<T>(n, 12345u);
  double g_ref[2];
  const T omega = T(0.8);
  const std::vector<T> ref = two_sweeps(h, I, J, K, omega, g_ref);
  Arrays<T> d(I, J, K);
  for (int m = 0; m < 13; ++m) CK(cudaMemcpy(d.a[m], h[m].data(), n * sizeof(T), cudaMemcpyHostToDevice));
  bool ok = true;
  for (auto v : variants<T>()) {
    if (!configure(v) || (v.pairs && !kn::pairs_fit(d.f))) continue;
    CK(cudaMemcpy(d.a[13], h[12].data(), n * sizeof(T), cudaMemcpyHostToDevice));  // wrk2 carries p's boundary
    d.launch(v, omega);
    CK(cudaDeviceSynchronize());
    std::vector<T> out(n);
    double g[2];
    CK(cudaMemcpy(out.data(), d.a[13], n * sizeof(T), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(g, d.gosa, sizeof g, cudaMemcpyDeviceToHost));
    double err = 0;
    for (long long x = 0; x < n; ++x) err = std::max(err, std::fabs(double(out[x]) - double(ref[x])));
    const double tol = 64 * double(std::numeric_limits<T>::epsilon());
    const bool good = err <= tol && std::fabs(g[0] - g_ref[0]) <= 1e-3 * g_ref[0] &&
                      std::fabs(g[1] - g_ref[1]) <= 1e-3 * g_ref[1];
    std::printf("  check %-10s %s %dx%dx%d: max |p2 - ref| %.2e (tol %.1e), gosa %.6e %.6e (ref %.6e %.6e) %s\n",
                v.name, sizeof(T) == 4 ? "float " : "double", I, J, K, err, tol, g[0], g[1], g_ref[0], g_ref[1],
                good ? "ok" : "FAILED");
    ok = ok && good;
  }
  return ok;
}

template <class T>
void bench(int I, int J, int K) {
  Arrays<T> d(I, J, K);
  for (int m = 0; m < 14; ++m) fill<<<(d.n + 255) / 256, 256>>>(d.a[m], d.n, 77u * m);
  const double gb = 14.0 * sizeof(T) * double(I - 2) * (J - 2) * (K - 2) * 1e-9;  // one sweep, 14 words
  const T omega = T(0.8);
  if (!kn::vector_fits(d.f)) {
    std::printf("  %dx%dx%d: rows are not whole 16-byte vectors, no single sweep to compare with\n", I, J, K);
    return;
  }
  const float ms1 = median_ms([&] { d.single(omega); });
  std::printf("  %s %dx%dx%d: single sweep %7.3f ms %6.0f GB/s", sizeof(T) == 4 ? "float " : "double", I, J, K, ms1,
              gb / (ms1 * 1e-3));
  std::printf("\n");
  for (auto v : variants<T>()) {
    if (!configure(v) || (v.pairs && !kn::pairs_fit(d.f))) continue;
    std::printf("    %-9s %d/SM:", v.name, v.blocks);
    for (int seg : {0, 32, 48, 64}) {
      if (seg > I - 2) break;
      const int n = seg ? (I - 2 + seg - 1) / seg : 0;
      const float ms = median_ms([&] { d.launch(v, omega, n); });
      std::printf(" %s%d %.0f (%.2fx)", seg ? "seg" : "auto", seg, 2 * gb / (ms * 1e-3), 2 * ms1 / ms);
    }
    std::printf("\n");
  }
}

int main(int argc, char** argv) {
  int I, J, K;
  if (!probe_grid(argc, argv, I, J, K)) return 2;
  CK(cudaFuncSetAttribute(kn::jacobi_vec<float>, cudaFuncAttributePreferredSharedMemoryCarveout, 0));
  CK(cudaFuncSetAttribute(kn::jacobi_vec<double>, cudaFuncAttributePreferredSharedMemoryCarveout, 0));
  bool ok = true;
  for (auto g : {std::array<int, 3>{9, 17, 36}, std::array<int, 3>{70, 31, 134}, std::array<int, 3>{5, 40, 200},
                 std::array<int, 3>{40, 20, 65}, std::array<int, 3>{100, 130, 260}}) {  // the last: several waves
    ok = validate<float>(g[0], g[1], g[2]) && ok;
    ok = validate<double>(g[0], g[1], g[2]) && ok;
  }
  if (!ok) {
    std::printf("a variant failed its check: no timings\n");
    return 1;
  }
  bench<float>(I, J, K);
  bench<double>(I, J, K);
  if (argc != 4) {
    bench<float>(512, 512, 1024);
    bench<double>(512, 512, 1024);
  }
  return 0;
}
