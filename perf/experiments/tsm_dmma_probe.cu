// Probe: which FP64 tensor-core instruction, and which TSMM (B = alpha A C,
// double, A K x M and B K x N row-major, M = N) organisation around it, can
// carry the tall-skinny product at copy bandwidth on this GPU?
//
// Part 1, instruction rates: every warp issues chains of eight independent
// mma.sync f64 of one shape (m8n8k4, the sm_80 shape the library uses, and
// sm_90's m16n8k4, m16n8k8, m16n8k16) with operands in registers: TFLOP/s
// per shape against the FP64 FMA pipe (also measured).
//
// Part 2, TSMM at M = N = 16, 32, 64, K = 2^27 / M (1 GiB in, 1 GiB out):
//   lib-ld8     the library's kernel (backends/cuda/tsm/tsm_mma.cuh,
//               tsmm_mma_kernel, mirrored): m8n8k4, a warp per 8 rows,
//               alpha C in shared memory with row stride 8 mod 16 doubles;
//   lib-ld4     the same kernel with row stride 4 mod 16 (the stride 8 puts
//               rows r and r + 2 of a fragment load in one bank);
//   mKxP        a warp per 16 rows (m16n8kK), the inner index permuted so
//               that each lane's A elements of a step are contiguous (P
//               doubles: 16-byte loads), alpha C stored in shared memory in
//               fragment order (P doubles per lane per step and 8-column
//               tile: conflict-free 16-byte loads), leap-frog prefetch of the
//               next 16 rows (-nopf: without, more warps instead).
// Every kernel's B is checked against a naive one-thread-per-element kernel.
// GB/s = 8 K (M + N) / time, against a same-size copy kernel of this run.
// Built with the cuda flavour and -DTESSERA_BUILD_EXPERIMENTS=ON:
// build/cuda/perf/experiments/tsm_dmma_probe [--csv PATH]; by hand:
// nvcc -O3 -arch=sm_90 -std=c++17 perf/experiments/tsm_dmma_probe.cu -o probe.
#include "probe_common.cuh"

#include <cmath>
#include <cstring>
#include <string>

namespace {

using Index = long long;

__device__ __forceinline__ void mma884(double (&d)[2], double a, double b) {
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
               : "+d"(d[0]), "+d"(d[1])
               : "d"(a), "d"(b));
}
__device__ __forceinline__ void mma1688(double (&d)[4], double a0, double a1, double a2, double a3, double b0,
                                        double b1) {
#if __CUDA_ARCH__ >= 900
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
      : "d"(a0), "d"(a1), "d"(a2), "d"(a3), "d"(b0), "d"(b1));
#endif
}
__device__ __forceinline__ void mma16816(double (&d)[4], const double (&a)[8], const double (&b)[4]) {
#if __CUDA_ARCH__ >= 900
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7,%8,%9,%10,%11}, "
      "{%12,%13,%14,%15}, {%0,%1,%2,%3};\n"
      : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
      : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]), "d"(b[0]),
        "d"(b[1]), "d"(b[2]), "d"(b[3]));
#endif
}

// ---- Part 1: instruction rates ---------------------------------------------
enum RateShape { k884, k1684, k1688, k16816, kFma, kShapes };
const char* const kShapeName[] = {"m8n8k4", "m16n8k4", "m16n8k8", "m16n8k16", "fma"};
const double kShapeFlop[] = {2 * 8 * 8 * 4, 2 * 16 * 8 * 4, 2 * 16 * 8 * 8, 2 * 16 * 8 * 16, 2};

template <int S>
__global__ void __launch_bounds__(256) rate(int iters, double* out) {
  const double x = 1.0 + threadIdx.x * 1e-9;
  double a[8], b[4];
  for (int i = 0; i < 8; ++i) a[i] = x + i;
  for (int i = 0; i < 4; ++i) b[i] = 1e-7 * (x - i);
  double d[8][4] = {};
  for (int it = 0; it < iters; ++it)
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      if constexpr (S == k884) {
        double e[2] = {d[j][0], d[j][1]};
        mma884(e, a[j], b[0]);
        d[j][0] = e[0], d[j][1] = e[1];
      } else if constexpr (S == k1684) {
        mma1684(d[j], a[0], a[1], b[0]);
      } else if constexpr (S == k1688) {
        mma1688(d[j], a[0], a[1], a[2], a[3], b[0], b[1]);
      } else if constexpr (S == k16816) {
        mma16816(d[j], a, b);
      } else {
#pragma unroll
        for (int q = 0; q < 4; ++q) d[j][q] = fma(a[q], d[j][q], b[q]);
      }
    }
  double s = 0;
  for (int j = 0; j < 8; ++j)
    for (int q = 0; q < 4; ++q) s += d[j][q];
  if (s == 1234.5) out[0] = s;  // keeps the chains alive
}

// ---- Part 2: TSMM kernels -----------------------------------------------------
// The library's kernel, mirrored (compile-time M, N do not change it: its loops
// test t < steps and nt < ntiles, uniform across the warp).
template <int MaxSteps>
__global__ void __launch_bounds__(256)
    lib_kernel(int M, int N, Index K, int ldsc, const double* __restrict__ A, const double* __restrict__ C,
               double alpha, double* B) {
  extern __shared__ double smem_raw[];
  double* c = smem_raw;
  const int steps = (M + 3) / 4, ntiles = (N + 7) / 8;
  for (int e = threadIdx.x; e < steps * 4 * ldsc; e += blockDim.x) {
    const int m = e / ldsc, n = e % ldsc;
    c[e] = (m < M && n < N) ? alpha * C[m * N + n] : 0.0;
  }
  __syncthreads();
  const int lane = threadIdx.x % 32, r = lane & 3, q = lane >> 2;
  const Index warps = Index(gridDim.x) * (blockDim.x / 32);
  Index k0 = (Index(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32) * 8;
  if (k0 >= K) return;
  double a[MaxSteps];
  auto load = [&](Index kb, double(&x)[MaxSteps]) {
    const Index row = kb + q;
    const double* ar = A + row * M;
#pragma unroll
    for (int t = 0; t < MaxSteps; ++t)
      if (t < steps) x[t] = (row < K && 4 * t + r < M) ? __ldg(ar + 4 * t + r) : 0.0;
  };
  load(k0, a);
  while (true) {
    const Index kn = k0 + warps * 8;
    double an[MaxSteps];
    const bool more = kn < K;
    if (more) load(kn, an);
    const Index row = k0 + q;
    double* br = B + row * N;
    double d[8][2];
#pragma unroll
    for (int nt = 0; nt < 8; ++nt) d[nt][0] = d[nt][1] = 0.0;
#pragma unroll
    for (int t = 0; t < MaxSteps; ++t)
      if (t < steps)
#pragma unroll
        for (int nt = 0; nt < 8; ++nt)
          if (nt < ntiles) mma884(d[nt], a[t], c[(4 * t + r) * ldsc + nt * 8 + q]);
    if (row < K)
#pragma unroll
      for (int nt = 0; nt < 8; ++nt) {
        const int n = nt * 8 + 2 * r;
        if (n + 1 < N) *reinterpret_cast<double2*>(br + n) = make_double2(d[nt][0], d[nt][1]);
      }
    if (!more) break;
#pragma unroll
    for (int t = 0; t < MaxSteps; ++t) a[t] = an[t];
    k0 = kn;
  }
}

// A warp per 16 rows. Inner-index permutation: unit u (4P columns), lane
// t = lane % 4 and j < P take column 4P u + P t + j, so a lane's A elements of
// one unit are P contiguous doubles and alpha C's are stored by the block in
// that order: cf[((u NT + nt) 32 + lane) P + j] = alpha C[4P u + P t + j][8 nt + g].
// Inner products over a permuted index are the same sum.
template <int M, int N, int KS, int P, bool Prefetch>
__global__ void __launch_bounds__(256)
    m16_kernel(Index K, const double* __restrict__ A, const double* __restrict__ C, double alpha, double* B) {
  constexpr int U = M / (4 * P), NT = N / 8;
  extern __shared__ double cf[];
  for (int e = threadIdx.x; e < U * NT * 32 * P; e += blockDim.x) {
    const int j = e % P, lane = (e / P) % 32, nt = (e / (32 * P)) % NT, u = e / (32 * P * NT);
    const int g = lane >> 2, t = lane & 3;
    cf[e] = alpha * C[(4 * P * u + P * t + j) * N + 8 * nt + g];
  }
  __syncthreads();
  const int lane = threadIdx.x % 32, g = lane >> 2, t = lane & 3;
  const Index warps = Index(gridDim.x) * (blockDim.x / 32);
  Index r0 = (Index(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32) * 16;
  if (r0 >= K) return;
  double a[2][U][P];
  auto load = [&](Index rb, double(&x)[2][U][P]) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const double* ar = A + (rb + g + 8 * h) * M + P * t;
#pragma unroll
      for (int u = 0; u < U; ++u)
#pragma unroll
        for (int j = 0; j < P; j += 2) {
          const double2 v = __ldg(reinterpret_cast<const double2*>(ar + 4 * P * u + j));
          x[h][u][j] = v.x, x[h][u][j + 1] = v.y;
        }
    }
  };
  load(r0, a);
  const double2* cf2 = reinterpret_cast<const double2*>(cf);
  while (true) {
    const Index rn = r0 + warps * 16;
    const bool more = rn < K;
    double an[2][U][P];
    if constexpr (Prefetch)
      if (more) load(rn, an);
    double d[NT][4];
#pragma unroll
    for (int nt = 0; nt < NT; ++nt) d[nt][0] = d[nt][1] = d[nt][2] = d[nt][3] = 0.0;
#pragma unroll
    for (int u = 0; u < U; ++u)
#pragma unroll
      for (int nt = 0; nt < NT; ++nt) {
        double b[P];
#pragma unroll
        for (int j = 0; j < P; j += 2) {
          const double2 v = cf2[(((u * NT + nt) * 32 + lane) * P + j) / 2];
          b[j] = v.x, b[j + 1] = v.y;
        }
        if constexpr (KS == 4) {
#pragma unroll
          for (int j = 0; j < P; ++j) mma1684(d[nt], a[0][u][j], a[1][u][j], b[j]);
        } else if constexpr (KS == 8) {
#pragma unroll
          for (int j = 0; j < P; j += 2)
            mma1688(d[nt], a[0][u][j], a[1][u][j], a[0][u][j + 1], a[1][u][j + 1], b[j], b[j + 1]);
        } else {
          static_assert(P == 4, "m16n8k16 takes four doubles per lane");
          const double af[8] = {a[0][u][0], a[1][u][0], a[0][u][1], a[1][u][1],
                                a[0][u][2], a[1][u][2], a[0][u][3], a[1][u][3]};
          mma16816(d[nt], af, b);
        }
      }
#pragma unroll
    for (int nt = 0; nt < NT; ++nt) {
      double* br = B + (r0 + g) * N + 8 * nt + 2 * t;
      *reinterpret_cast<double2*>(br) = make_double2(d[nt][0], d[nt][1]);
      *reinterpret_cast<double2*>(br + 8 * N) = make_double2(d[nt][2], d[nt][3]);
    }
    if (!more) break;
    if constexpr (Prefetch) {
#pragma unroll
      for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int u = 0; u < U; ++u)
#pragma unroll
          for (int j = 0; j < P; ++j) a[h][u][j] = an[h][u][j];
    } else {
      load(rn, a);
    }
    r0 = rn;
  }
}

__global__ void naive(int M, int N, Index K, const double* A, const double* C, double alpha, double* B) {
  const Index e = Index(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= K * N) return;
  const Index k = e / N;
  const int n = int(e % N);
  double s = 0;
  for (int m = 0; m < M; ++m) s += A[k * M + m] * C[m * N + n];
  B[e] = alpha * s;
}

__global__ void copy(const double2* __restrict__ in, double2* __restrict__ out, Index n) {
  for (Index i = Index(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += Index(gridDim.x) * blockDim.x)
    out[i] = in[i];
}

int sms() {
  int dev = 0, n = 0;
  CK(cudaGetDevice(&dev));
  CK(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev));
  return n;
}

template <class Kernel>
int grid_for(Kernel k, std::size_t smem, int* regs) {
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  int per_sm = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, 256, smem));
  cudaFuncAttributes fa{};
  CK(cudaFuncGetAttributes(&fa, k));
  *regs = fa.numRegs;
  return std::max(per_sm, 1) * sms();
}

struct Row {
  std::string variant;
  int M, regs, blocks_per_sm;
  double ms, gbs, pct_copy, tflops, err;
};

template <int M>
void tsmm_case(std::vector<Row>& rows, FILE* csv) {
  constexpr int N = M;
  const Index K = (Index(1) << 27) / M;
  double *A, *C, *B, *R;
  CK(cudaMalloc(&A, sizeof(double) * K * M));
  CK(cudaMalloc(&B, sizeof(double) * K * N));
  CK(cudaMalloc(&R, sizeof(double) * K * N));
  CK(cudaMalloc(&C, sizeof(double) * M * N));
  fill<<<unsigned((K * M + 255) / 256), 256>>>(A, K * M, 17u);
  fill<<<unsigned((M * N + 255) / 256), 256>>>(C, M * N, 29u);
  const double alpha = 0.75;
  naive<<<unsigned((K * N + 255) / 256), 256>>>(M, N, K, A, C, alpha, R);
  CK(cudaDeviceSynchronize());
  std::vector<double> ref(K * N), got(K * N);
  CK(cudaMemcpy(ref.data(), R, sizeof(double) * K * N, cudaMemcpyDeviceToHost));
  const double bytes = 8.0 * K * (M + N), flop = 2.0 * M * N * K;
  // Copy of the same bytes: half in, half out.
  const Index n2 = K * (M + N) / 4;
  double *X, *Y;
  CK(cudaMalloc(&X, sizeof(double2) * n2));
  CK(cudaMalloc(&Y, sizeof(double2) * n2));
  fill<<<unsigned((2 * n2 + 255) / 256), 256>>>(X, 2 * n2, 3u);
  const float copy_ms = median_ms([&] { copy<<<sms() * 8, 256>>>((const double2*)X, (double2*)Y, n2); });
  const double copy_gbs = 2.0 * 16 * n2 / copy_ms * 1e-6;
  CK(cudaFree(X));
  CK(cudaFree(Y));
  auto record = [&](const std::string& name, int regs, int grid, float ms) {
    CK(cudaMemcpy(got.data(), B, sizeof(double) * K * N, cudaMemcpyDeviceToHost));
    double err = 0;
    for (Index i = 0; i < K * N; ++i) err = std::max(err, std::abs(got[i] - ref[i]) / (std::abs(ref[i]) + 1e-30));
    Row r{name, M, regs, grid / sms(), ms, bytes / ms * 1e-6, 0, flop / ms * 1e-9, err};
    r.pct_copy = 100.0 * r.gbs / copy_gbs;
    std::printf("%-14s M=N=%-3d regs %3d  blocks/SM %d  %8.4f ms  %7.0f GB/s  %5.1f%% of copy (%4.0f)  %6.2f TF/s  err %.1e\n",
                name.c_str(), M, regs, r.blocks_per_sm, ms, r.gbs, r.pct_copy, copy_gbs, r.tflops, err);
    if (csv)
      std::fprintf(csv, "tsmm,%s,%d,%d,%d,%.5f,%.1f,%.2f,%.3f,%.2e,%.1f\n", name.c_str(), M, regs, r.blocks_per_sm,
                   ms, r.gbs, r.pct_copy, r.tflops, err, copy_gbs);
    rows.push_back(r);
    CK(cudaMemset(B, 0xff, sizeof(double) * K * N));
  };
  for (int ld : {8, 4}) {
    const int ntiles = (N + 7) / 8, ldsc = ntiles * 8 + (ld - ntiles * 8 % 16 + 16) % 16;
    const std::size_t smem = std::size_t((M + 3) / 4 * 4) * ldsc * sizeof(double);
    int regs = 0;
    const int grid = grid_for(lib_kernel<16>, smem, &regs);
    const float ms =
        median_ms([&] { lib_kernel<16><<<grid, 256, smem>>>(M, N, K, ldsc, A, C, alpha, B); });
    record(ld == 8 ? "lib-ld8" : "lib-ld4", regs, grid, ms);
  }
  auto m16 = [&](auto kernel, const char* name, int P) {
    const std::size_t smem = std::size_t(M) * N * sizeof(double);
    (void)P;
    int regs = 0;
    const int grid = grid_for(kernel, smem, &regs);
    const float ms = median_ms([&] { kernel<<<grid, 256, smem>>>(K, A, C, alpha, B); });
    record(name, regs, grid, ms);
  };
  m16(m16_kernel<M, N, 4, 2, true>, "m4x2", 2);
  m16(m16_kernel<M, N, 8, 2, true>, "m8x2", 2);
  m16(m16_kernel<M, N, 8, 4, true>, "m8x4", 4);
  m16(m16_kernel<M, N, 16, 4, true>, "m16x4", 4);
  m16(m16_kernel<M, N, 8, 2, false>, "m8x2-nopf", 2);
  m16(m16_kernel<M, N, 16, 4, false>, "m16x4-nopf", 4);
  CK(cudaFree(A));
  CK(cudaFree(B));
  CK(cudaFree(C));
  CK(cudaFree(R));
}

}  // namespace

int main(int argc, char** argv) {
  FILE* csv = nullptr;
  for (int i = 1; i < argc; ++i) {
    bool matched = false;
    if (!probe_csv_option(argc, argv, i, csv, matched)) return 2;
    if (!matched) {
      std::fprintf(stderr, "usage: %s [--csv PATH]\n", argv[0]);
      return 2;
    }
  }
  cudaDeviceProp p{};
  CK(cudaGetDeviceProperties(&p, 0));
  std::printf("device: %s, %d SMs\n", p.name, p.multiProcessorCount);
  if (csv) std::fprintf(csv, "part,variant,M,regs,blocks_per_sm,ms,GBs,pct_copy,TFLOPs,max_rel_err,copy_GBs\n");
  double* out;
  CK(cudaMalloc(&out, sizeof(double)));
  const int iters = 4096;
  auto rate_of = [&](auto kernel, int s) {
    const int grid = sms() * 8;
    const float ms = median_ms([&] { kernel<<<grid, 256>>>(iters, out); }, 7);
    const double mult = s == kFma ? 4 : 1;  // the FMA chain does four per accumulator
    const double tf = double(grid) * 256 / 32 * iters * 8 * kShapeFlop[s] * mult / ms * 1e-9;
    const double tf_fma = s == kFma ? tf * 32 : tf;  // per-lane FMAs: the warp count above counts warps
    std::printf("rate %-9s %7.2f TFLOP/s\n", kShapeName[s], tf_fma);
    if (csv) std::fprintf(csv, "rate,%s,,,,%.4f,,,%.3f,,\n", kShapeName[s], ms, tf_fma);
  };
  rate_of(rate<k884>, k884);
  rate_of(rate<k1684>, k1684);
  rate_of(rate<k1688>, k1688);
  rate_of(rate<k16816>, k16816);
  rate_of(rate<kFma>, kFma);
  std::vector<Row> rows;
  tsmm_case<16>(rows, csv);
  tsmm_case<32>(rows, csv);
  tsmm_case<64>(rows, csv);
  if (csv) std::fclose(csv);
  return 0;
}
