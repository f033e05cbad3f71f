// Probe: can FP64 tensor cores carry complex TSMM (B = alpha A C + beta B,
// A K x M, C M x N, B K x N, complex double, row-major) to the roofline on
// this GPU? (It could: the library's complex TSMM, then its register kernel
// at 38-67% of R, now runs these kernels with a prefetch across row blocks
// and dense 64-byte row pieces, backends/cuda/tsm/tsm_tsmm_z.cu; findings in
// docs/perf/tsm.md, "Complex TSMM on the FP64 tensor cores".)
//
// Kernels (a warp per 16 rows and up to GT 8-column tiles of B; N > 8 GT
// splits a row block's columns between consecutive warps, which read its A
// rows the second time from L1):
//   mma4-GT    four real products a step (m16n8k4): re += Ar Cr - Ai Ci,
//              im += Ar Ci + Ai Cr (A's imaginary parts negated once a step);
//   gauss-GT   three real products (P1 = Ar Cr, P2 = Ai Ci, P3 = (Ar + Ai)
//              (Cr + Ci); re = P1 - P2, im = P3 - P1 - P2): a quarter fewer
//              DMMAs, 12 instead of 8 accumulators a tile.
// The inner index is permuted as in the library's double kernel: unit u
// (8 columns of A), lane t = l % 4 and step j < 2 take column 8u + 2t + j,
// so a lane's two complex values of a unit are 32 contiguous bytes; alpha C
// is stored in shared memory in fragment order (16-byte conflict-free loads).
// A is read a unit at a time with the next unit's loads in flight.
// Every kernel's B is checked against a one-thread-per-element kernel in
// double; cuBLAS ZGEMM (the column-major reinterpretation) runs beside.
// GB/s = 16 K (M + N) / time (+16 K N when beta != 0), against a copy kernel
// of this run; TFLOP/s = 8 M N K / time.
// Built with the cuda flavour and -DTESSERA_BUILD_EXPERIMENTS=ON:
// build/cuda/perf/experiments/tsm_tsmm_z_probe [M ...] [--csv PATH]; by hand:
// nvcc -O3 -arch=sm_90 -std=c++17 perf/experiments/tsm_tsmm_z_probe.cu -lcublas -o probe.
#include "probe_common.cuh"

#include <cublas_v2.h>
#include <cuComplex.h>

#include <cstring>
#include <functional>
#include <string>

namespace {

using Index = long long;

__host__ __device__ inline double2 cmul(double2 a, double2 b) {
  return make_double2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

struct Shape {
  int M, N, U, NT, G;  // units of A, 8-column tiles of B, warps a row block
  Index K;
};

// cs[0]: real parts, cs[1]: imaginary parts, cs[2]: their sums (gauss only):
// cs[p][(u NT + nt) 32 + l] = (v(8u + 2t, 8nt + g), v(8u + 2t + 1, 8nt + g)), v = alpha C.
__device__ void stage_c(const Shape& s, const double2* C, double2 alpha, double2* sm, bool sums) {
  const int n_frag = s.U * s.NT * 32;
  for (int e = threadIdx.x; e < n_frag; e += blockDim.x) {
    const int l = e & 31, nt = (e >> 5) % s.NT, u = (e >> 5) / s.NT;
    const int t = l & 3, g = l >> 2, n = 8 * nt + g;
    double2 v[2];
    for (int j = 0; j < 2; ++j) {
      const int m = 8 * u + 2 * t + j;
      v[j] = (m < s.M && n < s.N) ? cmul(alpha, C[Index(m) * s.N + n]) : make_double2(0.0, 0.0);
    }
    sm[e] = make_double2(v[0].x, v[1].x);
    sm[n_frag + e] = make_double2(v[0].y, v[1].y);
    if (sums) sm[2 * n_frag + e] = make_double2(v[0].x + v[0].y, v[1].x + v[1].y);
  }
}

// A's values of unit u for rows r0 + g (h = 0) and r0 + g + 8 (h = 1).
__device__ __forceinline__ void load_unit(const Shape& s, const double2* __restrict__ A, Index r0, int u, int g,
                                          int t, double2 (&a)[2][2]) {
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const Index row = r0 + g + 8 * h;
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      const int m = 8 * u + 2 * t + j;
      a[h][j] = (row < s.K && m < s.M) ? __ldg(A + row * s.M + m) : make_double2(0.0, 0.0);
    }
  }
}

__device__ __forceinline__ void store_tile(const Shape& s, double2* B, Index r0, int nt, int g, int t,
                                           const double (&re)[4], const double (&im)[4], double2 beta) {
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const Index row = r0 + g + 8 * h;
    if (row >= s.K) continue;
#pragma unroll
    for (int jj = 0; jj < 2; ++jj) {
      const int n = 8 * nt + 2 * t + jj;
      if (n >= s.N) continue;
      double2 v = make_double2(re[2 * h + jj], im[2 * h + jj]);
      double2* p = B + row * s.N + n;
      if (beta.x != 0.0 || beta.y != 0.0) {
        const double2 o = cmul(beta, *p);
        v.x += o.x, v.y += o.y;
      }
      *p = v;
    }
  }
}

template <int GT, bool Gauss>
__global__ void __launch_bounds__(256)
    tsmm_z(Shape s, const double2* __restrict__ A, const double2* __restrict__ C, double2 alpha, double2 beta,
           double2* B) {
  extern __shared__ double2 sm[];
  stage_c(s, C, alpha, sm, Gauss);
  __syncthreads();
  const int n_frag = s.U * s.NT * 32;
  const double2* cr = sm;
  const double2* ci = sm + n_frag;
  const double2* cs = sm + 2 * n_frag;
  const int lane = threadIdx.x % 32, g = lane >> 2, t = lane & 3;
  const Index items = (s.K + 15) / 16 * s.G;
  const Index stride = Index(gridDim.x) * (blockDim.x / 32);
  for (Index it = Index(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32; it < items; it += stride) {
    const Index r0 = it / s.G * 16;
    const int nt0 = int(it % s.G) * GT;
    constexpr int kAcc = Gauss ? 3 : 2;
    double acc[GT][kAcc][4];
#pragma unroll
    for (int x = 0; x < GT; ++x)
#pragma unroll
      for (int p = 0; p < kAcc; ++p) acc[x][p][0] = acc[x][p][1] = acc[x][p][2] = acc[x][p][3] = 0.0;
    double2 a[2][2], an[2][2];
    load_unit(s, A, r0, 0, g, t, a);
    for (int u = 0; u < s.U; ++u) {
      if (u + 1 < s.U) load_unit(s, A, r0, u + 1, g, t, an);
#pragma unroll
      for (int x = 0; x < GT; ++x) {
        const int nt = nt0 + x;
        if (nt >= s.NT) break;
        const int f = (u * s.NT + nt) * 32 + lane;
        const double2 vr = cr[f], vi = ci[f];
#pragma unroll
        for (int j = 0; j < 2; ++j) {
          const double br = j ? vr.y : vr.x, bi = j ? vi.y : vi.x;
          if constexpr (Gauss) {
            const double bs = j ? cs[f].y : cs[f].x;
            mma1684(acc[x][0], a[0][j].x, a[1][j].x, br);
            mma1684(acc[x][1], a[0][j].y, a[1][j].y, bi);
            mma1684(acc[x][2], a[0][j].x + a[0][j].y, a[1][j].x + a[1][j].y, bs);
          } else {
            mma1684(acc[x][0], a[0][j].x, a[1][j].x, br);
            mma1684(acc[x][0], -a[0][j].y, -a[1][j].y, bi);
            mma1684(acc[x][1], a[0][j].x, a[1][j].x, bi);
            mma1684(acc[x][1], a[0][j].y, a[1][j].y, br);
          }
        }
      }
      if (u + 1 < s.U)
#pragma unroll
        for (int h = 0; h < 2; ++h) a[h][0] = an[h][0], a[h][1] = an[h][1];
    }
#pragma unroll
    for (int x = 0; x < GT; ++x) {
      const int nt = nt0 + x;
      if (nt >= s.NT) break;
      double re[4], im[4];
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        if constexpr (Gauss) {
          re[q] = acc[x][0][q] - acc[x][1][q];
          im[q] = acc[x][2][q] - acc[x][0][q] - acc[x][1][q];
        } else {
          re[q] = acc[x][0][q];
          im[q] = acc[x][1][q];
        }
      }
      store_tile(s, B, r0, nt, g, t, re, im, beta);
    }
  }
}

// One thread an element, double: B = alpha A C + beta B0.
__global__ void reference(int M, int N, Index K, const double2* A, const double2* C, double2 alpha, double2 beta,
                          const double2* B0, double2* B) {
  const Index e = Index(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= K * N) return;
  const Index row = e / N;
  const int n = int(e % N);
  double2 s = make_double2(0.0, 0.0);
  for (int m = 0; m < M; ++m) {
    const double2 p = cmul(A[row * M + m], C[Index(m) * N + n]);
    s.x += p.x, s.y += p.y;
  }
  s = cmul(alpha, s);
  const double2 o = cmul(beta, B0[e]);
  B[e] = make_double2(s.x + o.x, s.y + o.y);
}

__global__ void copy(const double2* __restrict__ x, double2* __restrict__ y, Index n) {
  for (Index i = Index(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += Index(gridDim.x) * blockDim.x) y[i] = x[i];
}

__global__ void max_rel(const double2* x, const double2* ref, Index n, double* out) {
  __shared__ double d[256], r[256];
  double md = 0, mr = 0;
  for (Index i = Index(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += Index(gridDim.x) * blockDim.x) {
    md = fmax(md, fmax(fabs(x[i].x - ref[i].x), fabs(x[i].y - ref[i].y)));
    mr = fmax(mr, fmax(fabs(ref[i].x), fabs(ref[i].y)));
  }
  d[threadIdx.x] = md, r[threadIdx.x] = mr;
  __syncthreads();
  for (int w = 128; w > 0; w /= 2) {
    if (threadIdx.x < w) d[threadIdx.x] = fmax(d[threadIdx.x], d[threadIdx.x + w]), r[threadIdx.x] = fmax(r[threadIdx.x], r[threadIdx.x + w]);
    __syncthreads();
  }
  if (threadIdx.x == 0) out[2 * blockIdx.x] = d[0], out[2 * blockIdx.x + 1] = r[0];
}

double check(const double2* x, const double2* ref, Index n) {
  const int blocks = 264;
  double* dev = nullptr;
  CK(cudaMalloc(&dev, 2 * blocks * sizeof(double)));
  max_rel<<<blocks, 256>>>(x, ref, n, dev);
  std::vector<double> h(2 * blocks);
  CK(cudaMemcpy(h.data(), dev, h.size() * sizeof(double), cudaMemcpyDeviceToHost));
  CK(cudaFree(dev));
  double md = 0, mr = 0;
  for (int b = 0; b < blocks; ++b) md = std::max(md, h[2 * b]), mr = std::max(mr, h[2 * b + 1]);
  return mr > 0 ? md / mr : md;
}

int sm_count() {
  int dev = 0, n = 0;
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev));
  return n;
}

// Sets the kernel's shared-memory limit and its grid once; returns its launch
// (nothing else between the timing events).
template <int GT, bool Gauss>
std::function<void()> prepare(const Shape& s, const double2* A, const double2* C, double2 alpha, double2 beta,
                              double2* B, int& regs) {
  auto k = tsmm_z<GT, Gauss>;
  const std::size_t smem = std::size_t(Gauss ? 3 : 2) * s.U * s.NT * 32 * sizeof(double2);
  if (smem > 48 * 1024) CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  int per_sm = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, 256, smem));
  cudaFuncAttributes at{};
  CK(cudaFuncGetAttributes(&at, k));
  regs = at.numRegs;
  const Index items = (s.K + 15) / 16 * s.G;
  const unsigned grid =
      unsigned(std::max<Index>(1, std::min<Index>((items + 7) / 8, Index(std::max(per_sm, 1)) * sm_count())));
  return [=] { k<<<grid, 256, smem>>>(s, A, C, alpha, beta, B); };
}

struct Variant {
  std::string name;
  int gt;
  bool gauss;
};

void run_case(int M, int N, Index K, bool with_beta, cublasHandle_t h, FILE* csv) {
  const Index na = K * M, nb = K * N, nc = Index(M) * N;
  double2 *A, *C, *B, *B0, *R;
  CK(cudaMalloc(&A, na * sizeof(double2)));
  CK(cudaMalloc(&C, nc * sizeof(double2)));
  CK(cudaMalloc(&B, nb * sizeof(double2)));
  CK(cudaMalloc(&B0, nb * sizeof(double2)));
  CK(cudaMalloc(&R, nb * sizeof(double2)));
  fill<double><<<unsigned((2 * na + 255) / 256), 256>>>(reinterpret_cast<double*>(A), 2 * na, 1u);
  fill<double><<<unsigned((2 * nc + 255) / 256), 256>>>(reinterpret_cast<double*>(C), 2 * nc, 2u);
  fill<double><<<unsigned((2 * nb + 255) / 256), 256>>>(reinterpret_cast<double*>(B0), 2 * nb, 3u);
  const double2 alpha = make_double2(0.75, -0.5);
  const double2 beta = with_beta ? make_double2(0.5, 0.25) : make_double2(0.0, 0.0);
  reference<<<unsigned((nb + 255) / 256), 256>>>(M, N, K, A, C, alpha, beta, B0, R);
  CK(cudaGetLastError());

  const double bytes = 16.0 * double(K) * (M + N) + (with_beta ? 16.0 * double(K) * N : 0.0);
  const double flops = 8.0 * M * N * double(K);
  const float copy_ms = median_ms([&] { copy<<<sm_count() * 8, 256>>>(A, B, std::min(na, nb)); });
  const double copy_gbs = 2.0 * 16.0 * double(std::min(na, nb)) / copy_ms * 1e-6;

  auto report = [&](const std::string& name, float ms, double err, int regs) {
    const double gbs = bytes / ms * 1e-6, tf = flops / ms * 1e-9;
    std::printf("%-10s M=%2d N=%2d K=%-9lld beta=%d %8.4f ms %7.1f GB/s (%5.1f%% of copy) %6.2f TFLOP/s err %.1e%s regs %d\n",
                name.c_str(), M, N, K, int(with_beta), ms, gbs, 100.0 * gbs / copy_gbs, tf, err,
                err < 1e-12 ? "" : " WRONG", regs);
    if (csv)
      std::fprintf(csv, "%s,%d,%d,%lld,%d,%.5f,%.1f,%.2f,%.3f,%.2e,%d,%.1f\n", name.c_str(), M, N, K, int(with_beta),
                   ms, gbs, 100.0 * gbs / copy_gbs, tf, err, regs, copy_gbs);
  };

  const int NT = (N + 7) / 8;
  for (const Variant& v : {Variant{"mma4-2", 2, false}, Variant{"mma4-4", 4, false}, Variant{"gauss-2", 2, true},
                           Variant{"gauss-4", 4, true}}) {
    Shape s{M, N, (M + 7) / 8, NT, (NT + v.gt - 1) / v.gt, K};
    int regs = 0;
    const auto go = v.gauss ? (v.gt == 2 ? prepare<2, true>(s, A, C, alpha, beta, B, regs)
                                         : prepare<4, true>(s, A, C, alpha, beta, B, regs))
                            : (v.gt == 2 ? prepare<2, false>(s, A, C, alpha, beta, B, regs)
                                         : prepare<4, false>(s, A, C, alpha, beta, B, regs));
    // beta != 0 reads B: restore it before the checked call and time on whatever is there.
    CK(cudaMemcpy(B, B0, nb * sizeof(double2), cudaMemcpyDeviceToDevice));
    go();
    CK(cudaGetLastError());
    const double err = check(B, R, nb);
    report(v.name, median_ms(go), err, regs);
  }
  // cuBLAS: row-major B (K x N) = A C is column-major B^T (N x K) = C^T (N x M) A^T (M x K).
  {
    CK(cudaMemcpy(B, B0, nb * sizeof(double2), cudaMemcpyDeviceToDevice));
    const cuDoubleComplex al = make_cuDoubleComplex(alpha.x, alpha.y), be = make_cuDoubleComplex(beta.x, beta.y);
    auto go = [&] {
      cublasZgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, int(K), M, &al, reinterpret_cast<const cuDoubleComplex*>(C), N,
                  reinterpret_cast<const cuDoubleComplex*>(A), M, &be, reinterpret_cast<cuDoubleComplex*>(B), N);
    };
    go();
    CK(cudaGetLastError());
    const double err = check(B, R, nb);
    report("cublas", median_ms(go), err, 0);
  }
  for (auto* p : {A, C, B, B0, R}) CK(cudaFree(p));
}

}  // namespace

int main(int argc, char** argv) {
  FILE* csv = nullptr;
  std::vector<int> ms;
  for (int i = 1; i < argc; ++i) {
    bool matched = false;
    if (!probe_csv_option(argc, argv, i, csv, matched)) return 2;
    if (!matched) {
      const int m = std::atoi(argv[i]);
      if (m < 1 || m > 64) {
        std::fprintf(stderr, "usage: %s [M ...] [--csv PATH], M = N in 1..64\n", argv[0]);
        return 2;
      }
      ms.push_back(m);
    }
  }
  if (ms.empty()) ms = {4, 8, 16, 24, 32, 48, 64};
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "cublasCreate failed\n");
    return 1;
  }
  if (csv) std::fprintf(csv, "variant,M,N,K,beta,ms,GBs,pct_copy,TFLOPs,max_rel_err,regs,copy_GBs\n");
  // Shapes the tests do not reach with whole units: a check at odd sizes first.
  run_case(13, 21, 1031, true, h, nullptr);
  run_case(3, 17, 4099, false, h, nullptr);
  for (int M : ms) run_case(M, M, (Index(1) << 26) / M, false, h, csv);  // 1 GiB of A
  cublasDestroy(h);
  if (csv) std::fclose(csv);
  return 0;
}
