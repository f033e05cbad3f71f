// Probe: the paper's Fig. 17 (Ernst, Hager, Thies, Wellein, §5.3) on this
// GPU: is the native register-tile TSMTTSM (C = A^T B, double, A K x M and
// B K x N row-major, M = N) limited by memory latency with the few warps its
// registers allow? Each kernel is timed against the number of blocks
// launched (a few grids with fewer blocks than SMs, then 1, 2, ... blocks per
// SM up to the most any flavour keeps resident), in four flavours of one
// kernel that mirrors the library's (backends/cuda/tsm/tsm_kernels.cuh:
// 256 threads, transposed mapping, grid-stride K loop with leap-frog loads,
// shared-memory block sum, one global atomic per element of C per block):
//   real          the correct kernel, TM x TN accumulators per thread, no
//                 guards on m < M, n < N (the tiles divide M and N, as in
//                 the paper's generated kernels);
//   real-guarded  the same with the library's run-time guards, which hold
//                 their state in registers (fewer resident warps);
//   reg-reduced   real's loads and FMAs summed into two accumulators (wrong
//                 on purpose): fewer registers, so more warps fit per SM;
//   L1-resident   reg-reduced reading row k / 2^16 instead of row k (wrong on
//                 purpose): the same loop and instructions, loads hit in L1.
// Tiles 4x8 and 8x8 at M = N = 32 and 64, K = 2^29 / M (8 GiB of operands).
// The real kernels are first checked against a host loop at a small K.
// GB/s = 8 (M + N) K / time; % against 3.0 TB/s and against the copy and
// read-only kernels measured in the same run; warps/SM = the resident warps
// (occupancy calculator and grid) averaged over the SMs.
// Built with the cuda flavour and -DTESSERA_BUILD_EXPERIMENTS=ON (perf/README.md):
// build/cuda/perf/experiments/tsm_occupancy_probe [--csv PATH] [--reps N]
// [--elems-log2 E]; by hand: nvcc -O3 -arch=sm_90 -std=c++17
// perf/experiments/tsm_occupancy_probe.cu -o probe.
#include "probe_common.cuh"

#include <cmath>
#include <string>

namespace {

using Index = long long;
constexpr int kBlock = 256;
// L1-resident flavour: a power of two so the division is one shift, as cheap
// as the real kernel's addressing; every block reads the same few rows.
constexpr unsigned long long kL1Div = 1ull << 16;
constexpr double kRefGBs = 3000;  // the H100's copy bandwidth, for a fixed yardstick

enum Flavour { kReal, kGuarded, kReduced, kL1, kFlavours };
const char* const kFlavourName[] = {"real", "real-guarded", "reg-reduced", "L1-resident"};

struct Shape {
  int M, N, MT, NT, tiles, groups;
  Index K;
};

template <int TM, int TN, int Fl>
__global__ void __launch_bounds__(kBlock)
    tsmttsm(Shape s, const double* __restrict__ A, const double* __restrict__ B, double* C) {
  extern __shared__ double part[];
  const int tid = threadIdx.x;
  const int tile = tid % s.tiles, g = tid / s.tiles;
  const int mi = tile / s.NT, ni = tile % s.NT;
  const bool active = g < s.groups;
  const int MN = s.M * s.N;
  if (s.groups > 1) {
    for (int e = tid; e < MN; e += blockDim.x) part[e] = 0;
    __syncthreads();
  }

  constexpr bool correct = Fl == kReal || Fl == kGuarded, guard = Fl == kGuarded;
  constexpr int NA = correct ? TM * TN : 2;
  double acc[NA];
#pragma unroll
  for (int x = 0; x < NA; ++x) acc[x] = 0;

  const Index step = Index(gridDim.x) * s.groups;
  Index k = Index(blockIdx.x) * s.groups + g;
  if (active && k < s.K) {
    double a[TM], b[TN];
    auto load = [&](Index r, double(&x)[TM], double(&y)[TN]) {
      if (Fl == kL1) r = Index((unsigned long long)r / kL1Div);
      const double* ar = A + r * s.M;
      const double* br = B + r * s.N;
#pragma unroll
      for (int tm = 0; tm < TM; ++tm) {
        const int m = mi + tm * s.MT;
        x[tm] = !guard || m < s.M ? ar[m] : 0.0;
      }
#pragma unroll
      for (int tn = 0; tn < TN; ++tn) {
        const int n = ni + tn * s.NT;
        y[tn] = !guard || n < s.N ? br[n] : 0.0;
      }
    };
    load(k, a, b);
    while (true) {
      const Index kn = k + step;
      double an[TM], bn[TN];
      const bool more = kn < s.K;
      if (more) load(kn, an, bn);  // leap-frog: next row in flight during this row's FMAs
#pragma unroll
      for (int tm = 0; tm < TM; ++tm)
#pragma unroll
        for (int tn = 0; tn < TN; ++tn) {
          // Without fast-math the compiler must keep every FMA of the two chains.
          if constexpr (correct) acc[tm * TN + tn] += a[tm] * b[tn];
          else acc[(tm * TN + tn) & 1] += a[tm] * b[tn];
        }
      if (!more) break;
#pragma unroll
      for (int tm = 0; tm < TM; ++tm) a[tm] = an[tm];
#pragma unroll
      for (int tn = 0; tn < TN; ++tn) b[tn] = bn[tn];
      k = kn;
    }
  }

  // The incorrect flavours add their one sum into the tile's first element:
  // it keeps the loop live and the epilogue's global atomics the same.
  if (s.groups == 1) {
    if (!active) return;
    if constexpr (correct) {
#pragma unroll
      for (int tm = 0; tm < TM; ++tm)
#pragma unroll
        for (int tn = 0; tn < TN; ++tn) {
          const int m = mi + tm * s.MT, n = ni + tn * s.NT;
          if (!guard || (m < s.M && n < s.N)) atomicAdd(C + m * s.N + n, acc[tm * TN + tn]);
        }
    } else {
      atomicAdd(C + mi * s.N + ni, acc[0] + acc[1]);
    }
    return;
  }
  if (active) {
    if constexpr (correct) {
#pragma unroll
      for (int tm = 0; tm < TM; ++tm)
#pragma unroll
        for (int tn = 0; tn < TN; ++tn) {
          const int m = mi + tm * s.MT, n = ni + tn * s.NT;
          if (!guard || (m < s.M && n < s.N)) atomicAdd(part + m * s.N + n, acc[tm * TN + tn]);
        }
    } else {
      atomicAdd(part + mi * s.N + ni, acc[0] + acc[1]);
    }
  }
  __syncthreads();
  for (int e = tid; e < MN; e += blockDim.x) atomicAdd(C + e, part[e]);
}

// The ceilings: 16-byte copy and read-only sum, grid-stride.
__global__ void copy2(const double2* __restrict__ a, double2* __restrict__ b, Index n) {
#pragma unroll 4
  for (Index x = blockIdx.x * Index(blockDim.x) + threadIdx.x; x < n; x += Index(gridDim.x) * blockDim.x) b[x] = a[x];
}

__global__ void read2(const double2* __restrict__ a, Index n, double* sink) {
  double s = 0;
#pragma unroll 4
  for (Index x = blockIdx.x * Index(blockDim.x) + threadIdx.x; x < n; x += Index(gridDim.x) * blockDim.x) {
    const double2 v = a[x];
    s += v.x + v.y;
  }
  if (s < 0) *sink = s;  // never true (fill is positive); the compiler cannot know
}

using Kernel = void (*)(Shape, const double*, const double*, double*);

struct Tile {
  int TM, TN;
  Kernel k[kFlavours];
};

const Tile kTiles[] = {
    {4, 8, {tsmttsm<4, 8, kReal>, tsmttsm<4, 8, kGuarded>, tsmttsm<4, 8, kReduced>, tsmttsm<4, 8, kL1>}},
    {8, 8, {tsmttsm<8, 8, kReal>, tsmttsm<8, 8, kGuarded>, tsmttsm<8, 8, kReduced>, tsmttsm<8, 8, kL1>}},
};

// The library's launch shape for M x N with a TM x TN tile (the tiles must
// divide M and N: only real-guarded checks m < M, n < N).
struct Launch {
  Shape s;
  int threads;
  size_t smem;
};

Launch launch_shape(int M, int N, Index K, int TM, int TN) {
  if (M % TM || N % TN) {
    std::fprintf(stderr, "tile %dx%d does not divide %dx%d\n", TM, TN, M, N);
    std::exit(1);
  }
  Launch l;
  l.s.M = M, l.s.N = N, l.s.K = K;
  l.s.MT = (M + TM - 1) / TM;
  l.s.NT = (N + TN - 1) / TN;
  l.s.tiles = l.s.MT * l.s.NT;
  l.s.groups = kBlock / l.s.tiles;
  l.threads = std::min(kBlock, (l.s.groups * l.s.tiles + 31) / 32 * 32);
  l.smem = l.s.groups > 1 ? size_t(M) * N * sizeof(double) : 0;
  return l;
}

struct KernelInfo {
  int regs, local, per_sm;  // registers per thread, local (spill) bytes, resident blocks per SM
};

KernelInfo info(Kernel k, const Launch& l) {
  cudaFuncAttributes a{};
  CK(cudaFuncGetAttributes(&a, k));
  KernelInfo i{a.numRegs, int(a.localSizeBytes), 0};
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&i.per_sm, k, l.threads, l.smem));
  return i;
}

// The real kernels against a host loop at a small K (rows left over per
// block, idle groups), with one block, a few, and a full GPU.
bool validate(int sms) {
  const Index K = 5003;
  bool ok = true;
  for (int M : {32, 64}) {
    const int N = M;
    double *A, *B, *C;
    CK(cudaMalloc(&A, K * M * sizeof(double)));
    CK(cudaMalloc(&B, K * N * sizeof(double)));
    CK(cudaMalloc(&C, M * N * sizeof(double)));
    fill<<<unsigned((K * M + 255) / 256), 256>>>(A, K * M, 11u);
    fill<<<unsigned((K * N + 255) / 256), 256>>>(B, K * N, 23u);
    std::vector<double> a(K * M), b(K * N), ref(M * N, 0.0), c(M * N);
    CK(cudaMemcpy(a.data(), A, a.size() * sizeof(double), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(b.data(), B, b.size() * sizeof(double), cudaMemcpyDeviceToHost));
    for (Index k = 0; k < K; ++k)
      for (int m = 0; m < M; ++m)
        for (int n = 0; n < N; ++n) ref[m * N + n] += a[k * M + m] * b[k * N + n];
    for (const Tile& t : kTiles) {
      const Launch l = launch_shape(M, N, K, t.TM, t.TN);
      for (int f : {kReal, kGuarded}) {
        const KernelInfo ki = info(t.k[f], l);
        for (int grid : {1, 7, std::max(1, ki.per_sm) * sms}) {
          CK(cudaMemset(C, 0, M * N * sizeof(double)));
          t.k[f]<<<grid, l.threads, l.smem>>>(l.s, A, B, C);
          CK(cudaGetLastError());
          CK(cudaMemcpy(c.data(), C, c.size() * sizeof(double), cudaMemcpyDeviceToHost));
          double err = 0;
          for (int e = 0; e < M * N; ++e) err = std::max(err, std::fabs(c[e] - ref[e]) / std::fabs(ref[e]));
          const bool good = err <= 1e-12;
          std::printf("  check %-12s M = N = %d, %dx%d, %5d blocks: max rel err %.1e %s\n", kFlavourName[f], M,
                      t.TM, t.TN, grid, err, good ? "ok" : "FAILED");
          ok = ok && good;
        }
      }
    }
    cudaFree(A), cudaFree(B), cudaFree(C);
  }
  return ok;
}

[[noreturn]] void usage_error(const char* prog, const std::string& what) {
  std::fprintf(stderr, "%s: %s (usage: %s [--csv PATH] [--reps N, 5..99] [--elems-log2 E, 16..29])\n", prog,
               what.c_str(), prog);
  std::exit(2);
}

int int_option(const char* prog, const char* name, const char* v, int lo, int hi) {
  char* end = nullptr;
  const long x = std::strtol(v, &end, 10);
  if (!*v || *end || x < lo || x > hi)
    usage_error(prog, std::string("bad value '") + v + "' for " + name);
  return int(x);
}

}  // namespace

int main(int argc, char** argv) {
  const char* prog = argv[0];
  std::string csv_path;
  int reps = 7, elems_log2 = 29;
  for (int i = 1; i < argc; ++i) {
    const std::string o = argv[i];
    if (o == "-h" || o == "--help") {
      std::printf("usage: %s [--csv PATH] [--reps N, 5..99] [--elems-log2 E, 16..29]\n", prog);
      return 0;
    }
    if (o == "--csv" || o == "--reps" || o == "--elems-log2") {
      if (i + 1 >= argc) usage_error(prog, o + " needs a value");
      const char* v = argv[++i];
      if (o == "--csv") csv_path = v;
      else if (o == "--reps") reps = int_option(prog, "--reps", v, 5, 99);
      else elems_log2 = int_option(prog, "--elems-log2", v, 16, 29);
    } else {
      usage_error(prog, "unknown option '" + o + "'");
    }
  }
  FILE* csv = nullptr;
  if (!csv_path.empty() && !(csv = std::fopen(csv_path.c_str(), "w")))
    usage_error(prog, "cannot write '" + csv_path + "'");

  int dev = 0, sms = 0;
  CK(cudaGetDevice(&dev));
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, dev));
  sms = prop.multiProcessorCount;
  std::printf("%s, %d SMs, %d registers and %zu KiB shared memory per SM\n", prop.name, sms, prop.regsPerMultiprocessor,
              prop.sharedMemPerMultiprocessor / 1024);

  if (!validate(sms)) {
    std::printf("a real kernel failed its check: no timings\n");
    return 1;
  }

  // A and B: 2^E doubles each, the same buffers for both M (K = 2^E / M).
  const Index elems = Index(1) << elems_log2;
  double *A, *B, *C, *sink;
  CK(cudaMalloc(&A, elems * sizeof(double)));
  CK(cudaMalloc(&B, elems * sizeof(double)));
  CK(cudaMalloc(&C, 64 * 64 * sizeof(double)));
  CK(cudaMalloc(&sink, sizeof(double)));
  CK(cudaMemset(C, 0, 64 * 64 * sizeof(double)));
  const unsigned fill_grid = unsigned((elems + 255) / 256);
  fill<<<fill_grid, 256>>>(A, elems, 1u);
  fill<<<fill_grid, 256>>>(B, elems, 2u);

  // Ceilings in this run: copy A -> B and a read of A (then B refilled).
  int copy_per_sm = 0, read_per_sm = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&copy_per_sm, copy2, 256, 0));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&read_per_sm, read2, 256, 0));
  const Index n2 = elems / 2;
  const double gb_op = elems * sizeof(double) * 1e-9;
  const float copy_ms = median_ms(
      [&] { copy2<<<copy_per_sm * sms, 256>>>((const double2*)A, (double2*)B, n2); }, reps);
  const float read_ms = median_ms([&] { read2<<<read_per_sm * sms, 256>>>((const double2*)A, n2, sink); }, reps);
  const double copy_gbs = 2 * gb_op / (copy_ms * 1e-3), read_gbs = gb_op / (read_ms * 1e-3);
  fill<<<fill_grid, 256>>>(B, elems, 2u);
  CK(cudaGetLastError());
  std::printf("ceilings: copy %.0f GB/s, read %.0f GB/s (%.2f GiB per operand); %% columns against %.1f TB/s, copy, "
              "read\n",
              copy_gbs, read_gbs, gb_op / 1.073741824, kRefGBs * 1e-3);

  if (csv)
    std::fprintf(csv,
                 "M,N,K,tile,flavour,blocks,blocks_per_sm,occ_blocks_per_sm,warps_per_sm,regs,local_bytes,waves,ms,"
                 "gbs,gflops,pct_3tbs,pct_copy,pct_read,copy_gbs,read_gbs\n");

  for (int M : {32, 64}) {
    const int N = M;
    const Index K = elems / M;
    const double gb = 8.0 * (M + N) * K * 1e-9, gflop = 2.0 * M * N * K * 1e-9;
    for (const Tile& t : kTiles) {
      const Launch l = launch_shape(M, N, K, t.TM, t.TN);
      KernelInfo ki[kFlavours];
      int most = 1;
      for (int f = 0; f < kFlavours; ++f) most = std::max(most, (ki[f] = info(t.k[f], l)).per_sm);
      // A few grids below one block per SM (1, 2, 4 warps per SM on average),
      // then every whole number of blocks per SM that some flavour keeps resident.
      std::vector<int> grids;
      for (int w : {1, 2, 4}) grids.push_back(std::max(1, sms * w * 32 / l.threads));
      for (int b = 1; b <= most; ++b) grids.push_back(b * sms);
      const int wpb = l.threads / 32;

      std::printf("\nM = N = %d, K = %lld, tile %dx%d: %d threads, %d row groups per block, %zu B shared\n", M, K, t.TM,
                  t.TN, l.threads, l.s.groups, l.smem);
      std::printf("  %-12s %6s %6s %3s %8s %4s %5s %5s %8s %7s %7s %6s %6s %6s\n", "flavour", "blocks", "blk/SM", "occ",
                  "warps/SM", "regs", "local", "waves", "ms", "GB/s", "Gflop/s", "%3TB/s", "%copy", "%read");
      int best_grid[2] = {0, 0};
      double best_gbs[2] = {0, 0}, best_warps[2] = {0, 0};
      for (int f = 0; f < kFlavours; ++f) {
        const KernelInfo& i = ki[f];
        for (int grid : grids) {
          const float ms = median_ms([&] { t.k[f]<<<grid, l.threads, l.smem>>>(l.s, A, B, C); }, reps);
          const double gbs = gb / (ms * 1e-3), gflops = gflop / (ms * 1e-3);
          const int resident = std::min(grid, std::max(i.per_sm, 1) * sms);
          const double warps = double(resident) * wpb / sms, per_sm = double(grid) / sms;
          const int waves = (grid + resident - 1) / resident;
          std::printf("  %-12s %6d %6.2f %3d %8.2f %4d %5d %5d %8.3f %7.0f %7.0f %6.1f %6.1f %6.1f\n",
                      kFlavourName[f], grid, per_sm, i.per_sm, warps, i.regs, i.local, waves, ms, gbs, gflops,
                      100 * gbs / kRefGBs, 100 * gbs / copy_gbs, 100 * gbs / read_gbs);
          if (csv)
            std::fprintf(csv, "%d,%d,%lld,%dx%d,%s,%d,%.4f,%d,%.4f,%d,%d,%d,%.4f,%.1f,%.1f,%.2f,%.2f,%.2f,%.1f,%.1f\n",
                         M, N, K, t.TM, t.TN, kFlavourName[f], grid, per_sm, i.per_sm, warps, i.regs, i.local,
                         waves, ms, gbs, gflops, 100 * gbs / kRefGBs, 100 * gbs / copy_gbs, 100 * gbs / read_gbs,
                         copy_gbs, read_gbs);
          if (f <= kGuarded && gbs > best_gbs[f]) best_gbs[f] = gbs, best_grid[f] = grid, best_warps[f] = warps;
        }
      }
      // The paper's green circles: the correct kernels' best points.
      for (int f : {kReal, kGuarded})
        std::printf("  best %-12s %5d blocks, %5.2f warps/SM, %.0f GB/s (%.1f%% of read)\n", kFlavourName[f],
                    best_grid[f], best_warps[f], best_gbs[f], 100 * best_gbs[f] / read_gbs);
    }
  }
  if (csv) std::fclose(csv);
  cudaFree(A), cudaFree(B), cudaFree(C), cudaFree(sink);
  return 0;
}
