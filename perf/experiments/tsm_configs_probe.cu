// Probe: every compiled native configuration usable at a shape (tsm::compiled_configs), forced through the
// table and run through the library's native entry (native_cuda::tsm_tsmttsm / tsm_tsmm: the kernels, launch
// settings and beta handling that tessera::tsm uses on Cuda, without Kokkos), in one process. `tessera tune tsm`
// does this for M = N; this probe takes any M x N (the thin-side defaults of tsm_table.cpp came from it).
// Prints, per configuration, the median of 7 launches (CUDA events, after 3), GB/s of the tall operands, and
// whether C (TSMTTSM) or B (TSMM) at K = 100003 equals an exact host reference bit for bit (column
// c_at_k100003; inputs are multiples of 2^-16 in [0.5, 1.5), so every partial sum is exact in double, whatever
// the order). Each configuration is timed twice more: with inputs of full random mantissas in [-1, 1) (as
// `compare`'s), and with those and the tall operands 128 bytes past an allocation's start (as a Kokkos View's
// data; --offset BYTES, a multiple of 16 up to 4096, moves them elsewhere).
// --default runs the shape's default configuration only; --tickets 0,1,4 runs each configuration with each value of
// TESSERA_TSM_TICKETS (the warps' work order, tsm_kernels.cuh); --k K sets the rows. TSM_PROBE_PREFER_SHARED=1 sets
// cudaFuncCachePreferShared device-wide first, as Kokkos::initialize does.
// Built with the cuda flavour and -DTESSERA_BUILD_EXPERIMENTS=ON:
//   build/cuda/perf/experiments/tsm_configs_probe [--offset BYTES] [--default] [--tickets LIST] [--k K] SHAPE...
// SHAPE: kernel (t TSMTTSM "T", c TSMTTSM "C", m TSMM), type (d, z), MxN: tz3x17 cz1x64 td3x17 mz24x48. K as in
// `compare tsm --sweep`: 2^29 · 2 / (M + N) rows for double, 2^28 · 2 / (M + N) for complex; beta = 0, alpha = 1.
// Findings: docs/perf/tsm.md, "Complex products as real ones of twice the sides", "Thin sides" and "TSMM in one
// pass" (with TESSERA_TSM_GRID_WAVES and TESSERA_TSM_SINGLE_PASS set), "Work in row order".
#include "probe_common.cuh"
#include "tessera/tsm/tsm_native_cuda.hpp"
#include "tessera/tsm/tsm_table.hpp"

namespace {

using namespace tessera;
using zc = native_cuda::zcomplex;

struct Shape {
  bool tsmm = false, conj = false, complex = false;
  int M = 0, N = 0;
};

// The first kr rows' product on the host, in double: C = A^T B (or A^H B) for TSMTTSM, B = A C (X the small
// M x N matrix C) for TSMM. Exact for these inputs (a sum of at most 100003 products of 17-bit mantissas).
std::vector<double> reference(const Shape& s, const double* A, const double* X, long kr) {
  const int e = s.complex ? 2 : 1;
  const long x_rows = s.tsmm ? s.M : kr, out_rows = s.tsmm ? kr : s.M;
  std::vector<double> ha(size_t(e) * kr * s.M), hx(size_t(e) * x_rows * s.N), out(size_t(e) * out_rows * s.N, 0.0);
  CK(cudaMemcpy(ha.data(), A, 8ul * ha.size(), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(hx.data(), X, 8ul * hx.size(), cudaMemcpyDeviceToHost));
  for (long r = 0; r < kr; ++r)
    for (int m = 0; m < s.M; ++m)
      for (int n = 0; n < s.N; ++n) {
        const double* a = &ha[e * (r * s.M + m)];
        const double* x = &hx[e * ((s.tsmm ? m : r) * s.N + n)];
        double* o = &out[e * ((s.tsmm ? r : m) * s.N + n)];
        if (!s.complex) {
          o[0] += a[0] * x[0];
          continue;
        }
        const double ai = (s.conj ? -1 : 1) * a[1];
        o[0] += a[0] * x[0] - ai * x[1];
        o[1] += a[0] * x[1] + ai * x[0];
      }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: tsm_configs_probe SHAPE... (SHAPE: tz3x17, cz1x64, td3x17, mz24x48, ...)\n");
    return 2;
  }
  std::vector<Shape> shapes;
  std::vector<const char*> names;
  int offset_bytes = 128;
  bool default_only = false;
  long k_rows = 0;
  std::vector<std::string> tickets{""};  // "": the environment's TESSERA_TSM_TICKETS
  for (int a = 1; a < argc; ++a) {
    if (std::string(argv[a]) == "--k") {  // rows (else as in `compare tsm --sweep`)
      if (a + 1 == argc || std::sscanf(argv[a + 1], "%ld", &k_rows) != 1 || k_rows < 1 || k_rows > (1L << 30))
        return std::fprintf(stderr, "tsm_configs_probe: --k takes 1..2^30 rows\n"), 2;
      ++a;
      continue;
    }
    if (std::string(argv[a]) == "--default") {
      default_only = true;
      continue;
    }
    if (std::string(argv[a]) == "--tickets") {  // TESSERA_TSM_TICKETS values, each config run with each
      if (a + 1 == argc) return std::fprintf(stderr, "tsm_configs_probe: --tickets takes a list\n"), 2;
      tickets.clear();
      for (std::string v, l = argv[++a]; !l.empty();) {
        const auto c = l.find(',');
        v = l.substr(0, c), l = c == std::string::npos ? "" : l.substr(c + 1);
        tickets.push_back(v);
      }
      continue;
    }
    if (std::string(argv[a]) == "--offset") {
      if (a + 1 == argc || std::sscanf(argv[a + 1], "%d", &offset_bytes) != 1 || offset_bytes < 0 ||
          offset_bytes > 4096 || offset_bytes % 16) {
        std::fprintf(stderr, "tsm_configs_probe: --offset takes a multiple of 16 bytes in 0..4096\n");
        return 2;
      }
      ++a;
      continue;
    }
    char k = 0, t = 0;
    Shape s;
    if (std::sscanf(argv[a], "%c%c%dx%d", &k, &t, &s.M, &s.N) != 4 || (k != 't' && k != 'c' && k != 'm') ||
        (t != 'd' && t != 'z') || s.M < 1 || s.M > 64 || s.N < 1 || s.N > 64) {
      std::fprintf(stderr, "tsm_configs_probe: bad shape '%s' (t, c or m; d or z; then MxN in 1..64)\n", argv[a]);
      return 2;
    }
    s.tsmm = k == 'm';
    s.conj = k == 'c';
    s.complex = t == 'z';
    shapes.push_back(s);
    names.push_back(argv[a]);
  }
  if (shapes.empty()) {
    std::fprintf(stderr, "tsm_configs_probe: no shape given\n");
    return 2;
  }
  // As Kokkos::initialize does on Cuda (Kokkos_Cuda_Instance.cpp): every kernel then prefers the largest
  // shared-memory carveout unless its own attribute says otherwise.
  if (const char* e = std::getenv("TSM_PROBE_PREFER_SHARED"); e && *e == '1')
    CK(cudaDeviceSetCacheConfig(cudaFuncCachePreferShared));
  std::printf("shape,configuration,median_ms,gbs,c_at_k100003,default,random_ms,random_gbs,offset_ms,offset_gbs,"
              "offset_bytes\n");
  for (std::size_t a = 0; a < shapes.size(); ++a) {
    const Shape& s = shapes[a];
    const int e = s.complex ? 2 : 1;
    const long K = k_rows ? k_rows : 2 * (s.complex ? 1L << 28 : 1L << 29) / (s.M + s.N), kr = std::min(K, 100003L);
    double *A, *B, *C, *A0, *B0;  // A0, B0: the allocations; A, B at their start or offset_bytes on
    CK(cudaMalloc(&A0, 8ul * e * K * s.M + offset_bytes));
    CK(cudaMalloc(&B0, 8ul * e * K * s.N + offset_bytes));
    A = A0, B = B0;
    CK(cudaMalloc(&C, 8ul * e * s.M * s.N));
    // (values in [0.5, 1.5), multiples of 2^-16: C's partial sums at K = 100003 are exact in double)
    const auto blocks = [](long long n) { return unsigned((n + 255) / 256); };
    fill<<<blocks(e * K * s.M), 256>>>(A, e * K * s.M, 1);
    fill<<<blocks(e * K * s.N), 256>>>(B, e * K * s.N, 2);
    fill<<<blocks(e * s.M * s.N), 256>>>(C, e * s.M * s.N, 3);
    CK(cudaDeviceSynchronize());
    const std::vector<double> ref = reference(s, A, s.tsmm ? C : B, kr);
    // TSMTTSM: C = A^T B; TSMM: B = A C (C the small matrix).
    auto run = [&](long k) {
      if (!s.tsmm && s.complex)
        native_cuda::tsm_tsmttsm(0, s.conj, s.M, s.N, k, zc(1.0), reinterpret_cast<const zc*>(A), s.M,
                                 reinterpret_cast<const zc*>(B), s.N, zc(0.0), reinterpret_cast<zc*>(C), s.N, 1);
      else if (!s.tsmm)
        native_cuda::tsm_tsmttsm(0, false, s.M, s.N, k, 1.0, A, s.M, B, s.N, 0.0, C, s.N, 1);
      else if (s.complex)
        native_cuda::tsm_tsmm(0, s.M, s.N, k, zc(1.0), reinterpret_cast<const zc*>(A), s.M,
                              reinterpret_cast<const zc*>(C), s.N, 1, zc(0.0), reinterpret_cast<zc*>(B), s.N);
      else
        native_cuda::tsm_tsmm(0, s.M, s.N, k, 1.0, A, s.M, C, s.N, 1, 0.0, B, s.N);
    };
    const auto def = tsm::default_config(!s.tsmm, s.complex, s.M, s.N);
    std::vector<tsm::NativeConfig> configs;
    std::vector<std::string> labels;
    for (const auto& c : tsm::compiled_configs(!s.tsmm, s.complex))
      if (tsm::config_usable(!s.tsmm, s.complex, s.M, s.N, c) &&
          (!default_only || tsm::config_name(!s.tsmm, c) == tsm::config_name(!s.tsmm, def)))
        for (const auto& t : tickets) {
          configs.push_back(c);
          labels.push_back(t);
        }
    std::size_t now = 0;  // the run whose configuration `use` sets
    auto use = [&](const tsm::NativeConfig& c) {
      if (!labels[now].empty()) setenv("TESSERA_TSM_TICKETS", labels[now].c_str(), 1);
      tsm::TableEntry en;
      en.tsmttsm = !s.tsmm;
      en.complex = s.complex;
      en.m = s.M;
      en.n = s.N;
      en.config = c;
      tsm::set_active_table(tsm::Table{"", {en}});
    };
    std::vector<const char*> checks;
    std::vector<double> exact_ms, random_ms, offset_ms;
    for (now = 0; now < configs.size(); ++now) {
      const auto& c = configs[now];
      use(c);
      run(kr);
      std::vector<double> got(ref.size());
      CK(cudaMemcpy(got.data(), s.tsmm ? B : C, 8ul * got.size(), cudaMemcpyDeviceToHost));
      checks.push_back(got == ref ? "exact" : "WRONG");
      exact_ms.push_back(median_ms([&] { run(K); }, 7));
    }
    for (int pass = 0; pass < 2; ++pass) {  // at the allocations' start, then offset_bytes on
      A = A0 + pass * (offset_bytes / 8), B = B0 + pass * (offset_bytes / 8);
      fill_random<<<blocks(e * K * s.M), 256>>>(A, e * K * s.M, 11);
      fill_random<<<blocks(e * K * s.N), 256>>>(B, e * K * s.N, 12);
      fill_random<<<blocks(e * s.M * s.N), 256>>>(C, e * s.M * s.N, 13);
      CK(cudaDeviceSynchronize());
      for (now = 0; now < configs.size(); ++now) {
        use(configs[now]);
        (pass ? offset_ms : random_ms).push_back(median_ms([&] { run(K); }, 7));
      }
    }
    const double bytes = 8.0 * e * K * (s.M + s.N);
    for (std::size_t i = 0; i < configs.size(); ++i) {
      const std::string cname = tsm::config_name(!s.tsmm, configs[i]);
      const bool is_default = cname == tsm::config_name(!s.tsmm, def);
      const std::string name = cname + (labels[i].empty() ? "" : " tickets " + labels[i]);
      std::printf("%s,%s,%.4f,%.0f,%s,%s,%.4f,%.0f,%.4f,%.0f,%d\n", names[a], name.c_str(), exact_ms[i],
                  bytes / exact_ms[i] / 1e6, checks[i], is_default ? "yes" : "", random_ms[i],
                  bytes / random_ms[i] / 1e6, offset_ms[i], bytes / offset_ms[i] / 1e6, offset_bytes);
    }
    std::fflush(stdout);
    tsm::set_active_table(tsm::Table{});
    CK(cudaFree(A0));
    CK(cudaFree(B0));
    CK(cudaFree(C));
  }
  return 0;
}
