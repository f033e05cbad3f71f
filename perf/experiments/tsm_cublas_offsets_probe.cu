// Probe: cuBLAS's TSMM (B = A C, row-major K x M times M x N, as the column-major B^T = C^T A^T) with the tall
// operands at the start of their allocations and 64, 128 and 256 bytes on (a Kokkos View's data lies 128 bytes
// past its allocation's start). Same K as `compare tsm --sweep`, inputs of full random mantissas, beta = 0;
// median of 7 launches (CUDA events, after 3), GB/s of the tall operands.
// Built with the cuda flavour and -DTESSERA_BUILD_EXPERIMENTS=ON:
//   build/cuda/perf/experiments/tsm_cublas_offsets_probe [z|d MxN]...   (default: z 1x64 z 3x17 d 1x64)
// Findings: docs/perf/tsm.md, "Thin sides".
#include <cublas_v2.h>

#include <string>

#include "probe_common.cuh"

namespace {

#define CB(x)                                                                     \
  do {                                                                            \
    if ((x) != CUBLAS_STATUS_SUCCESS) {                                           \
      std::fprintf(stderr, "%s:%d %s failed\n", __FILE__, __LINE__, #x);          \
      std::exit(1);                                                               \
    }                                                                             \
  } while (0)

struct Case {
  bool complex;
  int M, N;
};

}  // namespace

int main(int argc, char** argv) {
  std::vector<Case> cases;
  for (int a = 1; a < argc; a += 2) {
    Case c{std::string(argv[a]) == "z", 0, 0};
    if ((!c.complex && std::string(argv[a]) != "d") || a + 1 == argc ||
        std::sscanf(argv[a + 1], "%dx%d", &c.M, &c.N) != 2 || c.M < 1 || c.M > 64 || c.N < 1 || c.N > 64) {
      std::fprintf(stderr, "usage: tsm_cublas_offsets_probe [z|d MxN]... (M, N in 1..64)\n");
      return 2;
    }
    cases.push_back(c);
  }
  if (cases.empty()) cases = {{true, 1, 64}, {true, 3, 17}, {false, 1, 64}};
  cublasHandle_t h;
  CB(cublasCreate(&h));
  std::printf("type,m,n,k,offset_bytes,median_ms,gbs\n");
  for (const Case& c : cases) {
    const int e = c.complex ? 2 : 1;
    const long long K = 2 * (c.complex ? 1LL << 28 : 1LL << 29) / (c.M + c.N);
    char *a0, *b0, *c0;
    CK(cudaMalloc(&a0, 8ull * e * K * c.M + 256));
    CK(cudaMalloc(&b0, 8ull * e * K * c.N + 256));
    CK(cudaMalloc(&c0, 8ull * e * c.M * c.N));
    for (int off : {0, 64, 128, 256}) {
      double *A = reinterpret_cast<double*>(a0 + off), *B = reinterpret_cast<double*>(b0 + off);
      double* C = reinterpret_cast<double*>(c0);
      fill_random<<<unsigned((e * K * c.M + 255) / 256), 256>>>(A, e * K * c.M, 1);
      fill_random<<<unsigned((e * c.M * c.N + 255) / 256), 256>>>(C, e * c.M * c.N, 2);
      CK(cudaDeviceSynchronize());
      const float ms = median_ms(
          [&] {
            if (c.complex) {
              const cuDoubleComplex one{1, 0}, zero{0, 0};
              CB(cublasZgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, c.N, int(K), c.M, &one,
                             reinterpret_cast<cuDoubleComplex*>(C), c.N, reinterpret_cast<cuDoubleComplex*>(A), c.M,
                             &zero, reinterpret_cast<cuDoubleComplex*>(B), c.N));
            } else {
              const double one = 1, zero = 0;
              CB(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, c.N, int(K), c.M, &one, C, c.N, A, c.M, &zero, B, c.N));
            }
          },
          7);
      std::printf("%s,%d,%d,%lld,%d,%.4f,%.0f\n", c.complex ? "z" : "d", c.M, c.N, K, off, ms,
                  8.0 * e * K * (c.M + c.N) / ms / 1e6);
      std::fflush(stdout);
    }
    CK(cudaFree(a0));
    CK(cudaFree(b0));
    CK(cudaFree(c0));
  }
  CB(cublasDestroy(h));
  return 0;
}
