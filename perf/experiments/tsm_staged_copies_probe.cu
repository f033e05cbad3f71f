// Probe: the staged TSMTTSM kernel (tsmttsm_staged_kernel, the library's
// backends/cuda/tsm/tsm_mma.cuh) on its own, C = A^T B for the shapes given,
// with each shape's default tiles (tsm::default_config; the staged defaults
// this probe instantiates: double 2 x 2, 4 x 4 and strips of 2 x 5 / 2 x 6,
// complex 2 x 2). Prints the median of 7 launches (CUDA events, after 2) and
// GB/s of A and B, and a hash of C's bits at K = 100003 and at the timed K:
// two builds of this probe from two versions of the header (stage copies,
// fragment loads) then show both their speed and whether their sums are the
// same, bit for bit. Findings: docs/perf/tsm.md, "Native TSMTTSM: the stage
// copies of rows of 32 and 64 pieces".
// Built with the cuda flavour and -DTESSERA_BUILD_EXPERIMENTS=ON:
//   build/cuda/perf/experiments/tsm_staged_copies_probe TAG out.csv d64x64 z32x32 ...
// (TAG names the build in the output; d = double, z = complex; K = 2^31 / (16 max(M, N)) elements of 8 bytes
// for double, half as many rows for complex).
#include "tessera/tsm/tsm_table.hpp"
#include "tsm/tsm_mma.cuh"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

using namespace tessera::native_cuda::tsm_detail;
using tessera::native_cuda::zcomplex;

void ck(cudaError_t e, int line) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "tsm_staged_copies_probe: %s (line %d)\n", cudaGetErrorString(e), line);
  std::exit(1);
}
#define CK(x) ck((x), __LINE__)

// Values in [-0.5, 0.5) from a hash of the index (the same on every run).
__global__ void fill(double* p, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    unsigned x = unsigned(i) * 2654435761u ^ seed;
    x ^= x >> 13;
    x *= 0x5bd1e995u;
    x ^= x >> 15;
    p[i] = (x & 0xffff) / 65536.0 - 0.5;
  }
}

// The shape's default kernel (tsm::default_config), where it is one of the staged ones instantiated here.
enum class Staged { none, complex2x2, double4x4, double2x5, double2x6, double2x2 };
Staged default_staged(bool complex, int M, int N) {
  const auto c = tessera::tsm::default_config(true, complex, M, N);
  if (c.stages != 3 || c.real) return Staged::none;  // (a complex product as a real one: not built here)
  if (complex) return c.mma == 2 ? Staged::complex2x2 : Staged::none;
  if (c.mma == 4) return Staged::double4x4;
  if (c.mma != 2) return Staged::none;
  return c.tiles == 5 ? Staged::double2x5 : c.tiles == 6 ? Staged::double2x6 : Staged::double2x2;
}

void launch(Staged k, int M, int N, long K, const double* A, const double* B, double* C) {
  switch (k) {
    case Staged::complex2x2:
      return launch_tsmttsm_staged<zcomplex, false, 2>(0, M, N, K, zcomplex(1.0),
                                                       reinterpret_cast<const zcomplex*>(A), M,
                                                       reinterpret_cast<const zcomplex*>(B), N,
                                                       reinterpret_cast<zcomplex*>(C), N, 1);
    case Staged::double4x4: return launch_tsmttsm_staged<double, false, 4>(0, M, N, K, 1.0, A, M, B, N, C, N, 1);
    case Staged::double2x5: return launch_tsmttsm_staged<double, false, 2, 5>(0, M, N, K, 1.0, A, M, B, N, C, N, 1);
    case Staged::double2x6: return launch_tsmttsm_staged<double, false, 2, 6>(0, M, N, K, 1.0, A, M, B, N, C, N, 1);
    case Staged::double2x2: return launch_tsmttsm_staged<double, false, 2>(0, M, N, K, 1.0, A, M, B, N, C, N, 1);
    case Staged::none: break;
  }
}

unsigned long long fnv1a(const std::vector<double>& v) {
  unsigned long long h = 1469598103934665603ull;
  const auto* p = reinterpret_cast<const unsigned char*>(v.data());
  for (size_t i = 0; i < v.size() * sizeof(double); ++i) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: tsm_staged_copies_probe TAG OUT.csv SHAPE... (SHAPE: d64x64, z32x32, ...)\n");
    return 2;
  }
  std::FILE* csv = std::fopen(argv[2], "a");
  if (!csv) {
    std::fprintf(stderr, "tsm_staged_copies_probe: cannot open %s\n", argv[2]);
    return 2;
  }
  for (int a = 3; a < argc; ++a) {
    char t = 0;
    int M = 0, N = 0;
    if (std::sscanf(argv[a], "%c%dx%d", &t, &M, &N) != 3 || (t != 'd' && t != 'z') || M < 1 || M > 64 || N < 1 ||
        N > 64) {
      std::fprintf(stderr, "tsm_staged_copies_probe: bad shape '%s' (d or z, then MxN in 1..64)\n", argv[a]);
      return 2;
    }
    const int e = t == 'z' ? 2 : 1;  // doubles an element
    const Staged kernel = default_staged(e == 2, M, N);
    if (kernel == Staged::none) {
      std::fprintf(stderr, "tsm_staged_copies_probe: %s: its default kernel is not a staged one built here\n",
                   argv[a]);
      return 2;
    }
    const long K = (1L << 31) / (16L * std::max(M, N) * e);
    double *A, *B, *C;
    CK(cudaMalloc(&A, 8ul * e * K * M));
    CK(cudaMalloc(&B, 8ul * e * K * N));
    CK(cudaMalloc(&C, 8ul * e * M * N));
    fill<<<1024, 256>>>(A, size_t(e) * K * M, 1);
    fill<<<1024, 256>>>(B, size_t(e) * K * N, 2);
    auto go = [&](long k) { launch(kernel, M, N, k, A, B, C); };
    unsigned long long hash[2];
    for (int i = 0; i < 2; ++i) {
      CK(cudaMemset(C, 0, 8ul * e * M * N));
      go(i == 0 ? 100003L : K);
      std::vector<double> h(size_t(e) * M * N);
      CK(cudaMemcpy(h.data(), C, 8ul * e * M * N, cudaMemcpyDeviceToHost));
      hash[i] = fnv1a(h);
    }
    cudaEvent_t t0, t1;
    CK(cudaEventCreate(&t0));
    CK(cudaEventCreate(&t1));
    std::vector<float> ms;
    for (int r = 0; r < 9; ++r) {
      CK(cudaMemsetAsync(C, 0, 8ul * e * M * N));
      CK(cudaEventRecord(t0));
      go(K);
      CK(cudaEventRecord(t1));
      CK(cudaEventSynchronize(t1));
      float x = 0;
      CK(cudaEventElapsedTime(&x, t0, t1));
      if (r >= 2) ms.push_back(x);
    }
    CK(cudaGetLastError());
    std::sort(ms.begin(), ms.end());
    const double med = ms[ms.size() / 2], gbs = 8.0 * e * K * (M + N) / med / 1e6;
    std::printf("%s %s %.4f ms %.0f GB/s hash %016llx %016llx\n", argv[1], argv[a], med, gbs, hash[0], hash[1]);
    std::fprintf(csv, "%s,%c,%d,%d,%ld,%.4f,%.0f,%016llx,%016llx\n", argv[1], t, M, N, K, med, gbs, hash[0], hash[1]);
    CK(cudaEventDestroy(t0));
    CK(cudaEventDestroy(t1));
    CK(cudaFree(A));
    CK(cudaFree(B));
    CK(cudaFree(C));
  }
  std::fclose(csv);
  return 0;
}
