#pragma once
// Native CUDA tall-skinny kernels (Ernst, Hager, Thies, Wellein), templated on
// the scalar and the register tile only: M and N are run-time values with
// guards, so a handful of instantiations covers every shape 1..64.
//
// TSMTTSM (§3): each thread owns a TM x TN tile of C with the transposed
// mapping (tile (mi, ni) holds m = mi + tm MT, n = ni + tn NT, so neighbouring
// threads load neighbouring columns); a block holds G = 256 / tiles row
// groups; the K loop is a grid-stride loop with leap-frog prefetch (the next
// row's loads are issued before the current row's FMAs, §3.1). Reduction
// (§3.2): thread tiles are summed in shared memory (shared atomics when
// G > 1), then one global atomic per element of C per block. beta is applied
// by a separate kernel first, so beta = 0 never reads C.
// TSMM (§4): alpha C in shared memory (§4.2), tpr threads per row each
// computing NPT interleaved outputs, UNROLL rows per iteration reusing each
// shared load of C.
#include "common/reduce_workspace.cuh"
#include "tessera/tsm/tsm_native_cuda.hpp"
#include "tessera/tsm/tsm_table.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>

namespace tessera::native_cuda::tsm_detail {

using Index = std::int64_t;
constexpr int kBlock = 256;

// The stride, in 16-byte words, of a row pair of `words` words in a warp's
// shared buffer: odd, so that lanes reading one pair each hit distinct banks
// (the compile-time kernels of tsm_tsmm.cu and tsm_tsmttsm_d.cu).
constexpr int odd_stride(int words) { return words % 2 ? words : words + 1; }
using NativeConfigT = tsm::NativeConfig;

inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("tessera::tsm native: ") + what + ": " + cudaGetErrorString(e));
}

template <bool Conj>
__device__ __forceinline__ double conj_if(double x) { return x; }
template <bool Conj>
__device__ __forceinline__ zcomplex conj_if(const zcomplex& x) {
  if constexpr (Conj) return zcomplex(x.real(), -x.imag());
  else return x;
}

__device__ __forceinline__ void atomic_acc(double* p, double v) { atomicAdd(p, v); }
__device__ __forceinline__ void atomic_acc(zcomplex* p, const zcomplex& v) {
  double* d = reinterpret_cast<double*>(p);
  atomicAdd(d, v.real());
  atomicAdd(d + 1, v.imag());
}

template <class T>
__device__ __forceinline__ bool is_zero(const T& x) { return x == T(0); }

// X = beta X on a strided small matrix (beta = 0: zeros, X not read).
template <class T>
__global__ void scale_small(T* x, int rows, int cols, Index ldr, Index ldc, T beta) {
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= rows * cols) return;
  T* p = x + Index(e / cols) * ldr + Index(e % cols) * ldc;
  *p = is_zero(beta) ? T(0) : beta * *p;
}

// X = beta X on a row-major tall matrix (grid-stride).
template <class T>
__global__ void scale_tall(T* x, Index K, int N, Index ld, T beta) {
  const Index total = K * N;
  for (Index e = Index(blockIdx.x) * blockDim.x + threadIdx.x; e < total; e += Index(gridDim.x) * blockDim.x) {
    T* p = x + (e / N) * ld + e % N;
    *p = is_zero(beta) ? T(0) : beta * *p;
  }
}

// The current GPU's compute capability major (0 when there is none).
inline int cc_major() {
  static const int major = [] {
    int dev = 0, v = 0;
    if (cudaGetDevice(&dev) != cudaSuccess) return 0;
    if (cudaDeviceGetAttribute(&v, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess) return 0;
    return v;
  }();
  return major;
}
// FP64 tensor cores: m8n8k4 from sm_80, m16n8k{4,8,16} from sm_90.
inline bool has_dmma() { return cc_major() >= 8; }
inline bool has_dmma16() { return cc_major() >= 9; }

// Fig. 19 of the paper: the cost of the global reduction, measured by
// leaving it out (results invalid; benchmarks only).
inline bool skip_global_reduction() {
  static const bool yes = [] {
    const char* e = std::getenv("TESSERA_TSM_SKIP_GLOBAL_REDUCTION");
    return e && *e && *e != '0';
  }();
  return yes;
}

struct TsmttsmShape {
  int M, N, MT, NT, tiles, groups;
  Index K;
  bool skip_global;
};

template <class T, bool Conj, int TM, int TN>
__global__ void __launch_bounds__(kBlock) tsmttsm_kernel(TsmttsmShape s, const T* __restrict__ A, Index lda,
                                                         const T* __restrict__ B, Index ldb, T* C, Index ldcr,
                                                         Index ldcc, T alpha) {
  extern __shared__ double smem_raw[];
  T* part = reinterpret_cast<T*>(smem_raw);
  const int tid = threadIdx.x;
  const int tile = tid % s.tiles, g = tid / s.tiles;
  const int mi = tile / s.NT, ni = tile % s.NT;
  const bool active = g < s.groups;
  const int MN = s.M * s.N;
  if (s.groups > 1) {
    for (int e = tid; e < MN; e += blockDim.x) part[e] = T(0);
    __syncthreads();
  }

  T acc[TM][TN];
#pragma unroll
  for (int tm = 0; tm < TM; ++tm)
#pragma unroll
    for (int tn = 0; tn < TN; ++tn) acc[tm][tn] = T(0);

  const Index step = Index(gridDim.x) * s.groups;
  Index k = Index(blockIdx.x) * s.groups + g;
  if (active && k < s.K) {
    T a[TM], b[TN];
    auto load = [&](Index r, T(&x)[TM], T(&y)[TN]) {
      const T* ar = A + r * lda;
      const T* br = B + r * ldb;
#pragma unroll
      for (int tm = 0; tm < TM; ++tm) {
        const int m = mi + tm * s.MT;
        x[tm] = (TM == 1 || m < s.M) ? conj_if<Conj>(ar[m]) : T(0);
      }
#pragma unroll
      for (int tn = 0; tn < TN; ++tn) {
        const int n = ni + tn * s.NT;
        y[tn] = (TN == 1 || n < s.N) ? br[n] : T(0);
      }
    };
    load(k, a, b);
    while (true) {
      const Index kn = k + step;
      T an[TM], bn[TN];
      const bool more = kn < s.K;
      if (more) load(kn, an, bn);  // leap-frog: next row in flight during this row's FMAs
#pragma unroll
      for (int tm = 0; tm < TM; ++tm)
#pragma unroll
        for (int tn = 0; tn < TN; ++tn) acc[tm][tn] += a[tm] * b[tn];
      if (!more) break;
#pragma unroll
      for (int tm = 0; tm < TM; ++tm) a[tm] = an[tm];
#pragma unroll
      for (int tn = 0; tn < TN; ++tn) b[tn] = bn[tn];
      k = kn;
    }
  }

  if (s.groups == 1) {
    // One thread per tile: its partial goes straight to C, one atomic per element.
    if (active)
#pragma unroll
      for (int tm = 0; tm < TM; ++tm)
#pragma unroll
        for (int tn = 0; tn < TN; ++tn) {
          const int m = mi + tm * s.MT, n = ni + tn * s.NT;
          if (m < s.M && n < s.N && !s.skip_global) atomic_acc(C + m * ldcr + n * ldcc, alpha * acc[tm][tn]);
        }
    return;
  }
  if (active)
#pragma unroll
    for (int tm = 0; tm < TM; ++tm)
#pragma unroll
      for (int tn = 0; tn < TN; ++tn) {
        const int m = mi + tm * s.MT, n = ni + tn * s.NT;
        if (m < s.M && n < s.N) atomic_acc(part + m * s.N + n, acc[tm][tn]);
      }
  __syncthreads();
  if (s.skip_global) return;
  for (int e = tid; e < MN; e += blockDim.x) atomic_acc(C + (e / s.N) * ldcr + (e % s.N) * ldcc, alpha * part[e]);
}

inline int sm_count() {
  int dev = 0, n = 0;
  check(cudaGetDevice(&dev), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, dev), "cudaDeviceGetAttribute");
  return n;
}

// Benchmark knobs from the environment. An integer: its value where it is a
// whole number in [lo, hi], else nothing (unset, empty or malformed: the
// caller's default). A switch: off where its value starts with '0'.
inline std::optional<long> env_integer(const char* name, long lo, long hi) {
  const char* e = std::getenv(name);
  if (!e || !*e) return std::nullopt;
  char* end = nullptr;
  const long v = std::strtol(e, &end, 10);
  if (*end != '\0' || v < lo || v > hi) return std::nullopt;
  return v;
}
inline bool env_switched_off(const char* name) {
  const char* e = std::getenv(name);
  return e && *e == '0';
}

// The grid of a persistent launch that wants `want` blocks: at most the
// blocks the SMs hold at once (per_sm each), whose loops step through the
// rest. TESSERA_TSM_GRID_WAVES = w (benchmarks) allows w times as many, 0
// every block `want`.
inline Index launch_grid(Index want, int per_sm) {
  static const long waves = env_integer("TESSERA_TSM_GRID_WAVES", 0, 1024).value_or(1);
  const Index resident = Index(std::max(per_sm, 1)) * sm_count();
  return std::clamp<Index>(waves == 0 ? want : std::min<Index>(want, resident * waves), 1, 0x7fffffff);
}

// The grid of the TSMM kernels whose blocks set up little (alpha C of at
// most 100 elements, or in registers): every block `want`, each one pass over
// its rows. On an H200 these ran 1.11-1.44x their persistent launch (complex
// 1 x 1, 2 x 2, 3 x 17, 1 x 16, 1 x 64; double M = N <= 4 and 3 x 17; why is
// open: docs/perf/tsm.md, "TSMM in one pass"). TESSERA_TSM_SINGLE_PASS = 0
// (benchmarks) launches them persistent.
inline Index single_pass_grid(Index want, int per_sm) {
  static const bool on = !env_switched_off("TESSERA_TSM_SINGLE_PASS");
  return on ? std::clamp<Index>(want, 1, 0x7fffffff) : launch_grid(want, per_sm);  // (loops cover any rest)
}

// Work order of a persistent launch's warps over items (a kernel's units of
// work, in row order). Static: warp w of W takes items w, w + W, w + 2 W...
// Tickets: chunks of `per` consecutive items; a warp's first chunk is its own
// (w), the others come in order from a counter (W + its count), so that the
// resident warps work on neighbouring rows, as a one-pass grid's do. The next
// ticket is taken a chunk ahead: the atomic's latency hides behind a chunk.
struct RowTickets {
  unsigned long long* counter = nullptr;  // zero at the launch
  int per = 0;
};

class WarpItems {
 public:
  __device__ WarpItems(RowTickets t, Index warp, Index warps) : t_(t), warps_(warps), left_(t.per) {
    item_ = t_.counter ? warp * t_.per : warp;
    if (t_.counter && threadIdx.x % 32 == 0) pending_ = atomicAdd(t_.counter, 1ull);
  }
  __device__ Index item() const { return item_; }
  __device__ bool tickets() const { return t_.counter != nullptr; }
  // The next item (warp-uniform; the whole warp calls it). True where it is
  // the static stride or the next one of a chunk, false at a new chunk.
  __device__ bool advance() {
    if (!t_.counter) return item_ += warps_, true;
    if (--left_ > 0) return ++item_, true;
    const unsigned long long c = __shfl_sync(0xffffffffu, pending_, 0);
    if (threadIdx.x % 32 == 0) pending_ = atomicAdd(t_.counter, 1ull);
    left_ = t_.per;
    item_ = (warps_ + Index(c)) * t_.per;
    return false;
  }

 private:
  RowTickets t_;
  Index warps_, item_;
  int left_;
  unsigned long long pending_ = 0;
};

// The tickets of a tensor-core TSMM launch of `grid` blocks whose rows want
// `want`: chunks of `per` items (tsm::tsmm_ticket_items) where a warp gets at
// least kTicketChunks of them, else the static order. Below that the counter
// cost more than the order gained on an H200 (double 16 x 16 at 2 chunks a
// warp 0.92x, complex 16 x 16 0.96x; at 8 chunks 1.03x, double 64 x 64 1.07x).
// TESSERA_TSM_TICKETS (benchmarks, read at every launch so that a probe can
// switch it): 0 the static order, n chunks of n items wherever the grid loops.
constexpr Index kTicketChunks = 4;
inline RowTickets row_tickets(cudaStream_t stream, int per, Index want, Index grid) {
  Index chunks = kTicketChunks;
  if (const auto v = env_integer("TESSERA_TSM_TICKETS", 0, 4096)) per = int(*v), chunks = 0;
  // (a warp's items: about want / grid of them)
  if (per == 0 || want <= grid || want < chunks * per * grid) return {};
  unsigned long long* counter = stream_counter(stream);
  check(cudaMemsetAsync(counter, 0, sizeof(unsigned long long), stream), "cudaMemsetAsync (tickets)");
  return {counter, per};
}

template <class Kernel>
void allow_smem(Kernel k, std::size_t bytes) {
  if (bytes > 48 * 1024)
    check(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)), "cudaFuncSetAttribute");
}

// The blocks of `threads` with `smem` bytes of dynamic shared memory that an
// SM holds, with the kernel's shared-memory carveout cut to what they need.
// Kokkos sets cudaFuncCachePreferShared device-wide (Kokkos_Cuda_Instance.cpp),
// which gives every kernel the largest carveout and leaves L1, which also
// holds the lines of loads in flight, 28 KiB of an SM's 256; the same TSMM
// kernel ran 9% longer in a Kokkos process than without (an H200, Nsight
// Compute, same grid and DRAM bytes). The occupancy is taken with no
// preference, then the carveout set to fit that many blocks.
// TESSERA_TSM_FIT_CARVEOUT = 0 (benchmarks) leaves the carveout alone.
template <class Kernel>
int resident_blocks(Kernel k, int threads, std::size_t smem) {
  static const bool fit = !env_switched_off("TESSERA_TSM_FIT_CARVEOUT");
  allow_smem(k, smem);
  if (fit) check(cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout, -1), "carveout");
  int per_sm = 0;
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, threads, smem), "occupancy");
  if (!fit) return per_sm;
  cudaFuncAttributes a{};
  check(cudaFuncGetAttributes(&a, k), "cudaFuncGetAttributes");
  int dev = 0, sm_smem = 0, reserved = 0;
  check(cudaGetDevice(&dev), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&sm_smem, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev), "attribute");
  check(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, dev), "attribute");
  const std::size_t need = std::size_t(std::max(per_sm, 1)) * (smem + a.sharedSizeBytes + std::size_t(reserved));
  const int percent = int(std::min<std::size_t>(100, (need * 100 + sm_smem - 1) / std::max(sm_smem, 1)));
  check(cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout, percent), "carveout");
  return per_sm;
}

template <class T>
void scale_c(cudaStream_t stream, T* C, int M, int N, Index ldcr, Index ldcc, T beta) {
  if (beta == T(1)) return;
  scale_small<T><<<(M * N + kBlock - 1) / kBlock, kBlock, 0, stream>>>(C, M, N, ldcr, ldcc, beta);
  check(cudaGetLastError(), "scale launch");
}

template <class T, bool Conj, int TM, int TN>
void launch_tsmttsm(cudaStream_t stream, int M, int N, Index K, T alpha, const T* A, Index lda, const T* B, Index ldb,
                    T* C, Index ldcr, Index ldcc) {
  TsmttsmShape s;
  s.M = M;
  s.N = N;
  s.K = K;
  s.MT = (M + TM - 1) / TM;
  s.NT = (N + TN - 1) / TN;
  s.tiles = s.MT * s.NT;
  s.skip_global = skip_global_reduction();
  if (s.tiles > kBlock) throw std::logic_error("tessera::tsm native: tile too small for this shape");
  s.groups = kBlock / s.tiles;
  const int threads = std::min(kBlock, (s.groups * s.tiles + 31) / 32 * 32);
  const std::size_t smem = s.groups > 1 ? std::size_t(M) * N * sizeof(T) : 0;
  auto kernel = tsmttsm_kernel<T, Conj, TM, TN>;
  const int per_sm = resident_blocks(kernel, threads, smem);
  // Enough blocks to fill the GPU, fewer when K is small (each thread gets at least 4 rows).
  const Index want = (K + Index(s.groups) * 4 - 1) / (Index(s.groups) * 4);
  const Index grid = launch_grid(want, per_sm);
  kernel<<<unsigned(grid), threads, smem, stream>>>(s, A, lda, B, ldb, C, ldcr, ldcc, alpha);
  check(cudaGetLastError(), "tsmttsm launch");
}

template <class T, int NPT, int UNROLL>
__global__ void __launch_bounds__(kBlock) tsmm_kernel(int M, int N, Index K, int tpr, int groups,
                                                      const T* __restrict__ A, Index lda, const T* __restrict__ C,
                                                      Index ldcr, Index ldcc, T alpha, T beta, T* B, Index ldb) {
  extern __shared__ double smem_raw[];
  T* c = reinterpret_cast<T*>(smem_raw);
  const int tid = threadIdx.x;
  for (int e = tid; e < M * N; e += blockDim.x) c[e] = alpha * C[(e / N) * ldcr + (e % N) * ldcc];
  __syncthreads();
  const int lane = tid % tpr, g = tid / tpr;
  if (g >= groups) return;
  const Index step = Index(gridDim.x) * groups * UNROLL;
  for (Index k0 = (Index(blockIdx.x) * groups + g) * UNROLL; k0 < K; k0 += step) {
    T acc[UNROLL][NPT];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u)
#pragma unroll
      for (int j = 0; j < NPT; ++j) acc[u][j] = T(0);
    for (int m = 0; m < M; ++m) {
      T a[UNROLL];
#pragma unroll
      for (int u = 0; u < UNROLL; ++u) a[u] = k0 + u < K ? A[(k0 + u) * lda + m] : T(0);
#pragma unroll
      for (int j = 0; j < NPT; ++j) {
        const int n = lane + j * tpr;
        const T cv = n < N ? c[m * N + n] : T(0);
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) acc[u][j] += a[u] * cv;
      }
    }
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) {
      if (k0 + u >= K) break;
      T* row = B + (k0 + u) * ldb;
#pragma unroll
      for (int j = 0; j < NPT; ++j) {
        const int n = lane + j * tpr;
        if (n < N) row[n] = is_zero(beta) ? acc[u][j] : acc[u][j] + beta * row[n];
      }
    }
  }
}

template <class T, int NPT, int UNROLL>
void launch_tsmm(cudaStream_t stream, int M, int N, Index K, T alpha, const T* A, Index lda, const T* C, Index ldcr,
                 Index ldcc, T beta, T* B, Index ldb) {
  const int tpr = (N + NPT - 1) / NPT;
  const int groups = kBlock / tpr;
  const int threads = std::min(kBlock, (groups * tpr + 31) / 32 * 32);
  const std::size_t smem = std::size_t(M) * N * sizeof(T);
  auto kernel = tsmm_kernel<T, NPT, UNROLL>;
  const int per_sm = resident_blocks(kernel, threads, smem);
  const Index rows_per_block = Index(groups) * UNROLL;
  const Index want = (K + rows_per_block - 1) / rows_per_block;
  const Index grid = tsm::tsmm_single_pass(M, N) ? single_pass_grid(want, per_sm) : launch_grid(want, per_sm);
  kernel<<<unsigned(grid), threads, smem, stream>>>(M, N, K, tpr, groups, A, lda, C, ldcr, ldcc, alpha, beta, B, ldb);
  check(cudaGetLastError(), "tsmm launch");
}

template <class T>
void scale_b(cudaStream_t stream, T* B, int N, Index K, Index ldb, T beta) {
  if (beta == T(1) || K == 0) return;
  const Index blocks = std::min<Index>((K * N + kBlock - 1) / kBlock, Index(sm_count()) * 8);
  scale_tall<T><<<unsigned(blocks), kBlock, 0, stream>>>(B, K, N, ldb, beta);
  check(cudaGetLastError(), "scale launch");
}

// The register-tile kernel for a shape (GPUs without FP64 tensor cores).
inline NativeConfigT register_config(bool tsmttsm, bool complex, int M, int N) {
  NativeConfigT c;
  const int d = std::max(M, N);
  if (tsmttsm)
    c.tile = d <= 2 ? 1 : d <= 8 ? 2 : (complex || d <= 32) ? 4 : 8;
  else
    c.outputs = N <= 8 ? 1 : N <= 32 ? 2 : 4;
  return c;
}

// The configuration of a shape: the active table's entry (TESSERA_TSM_TABLE,
// loaded once for this GPU model), else the shipped default (tsm_table.cpp);
// a tensor-core choice becomes the register kernel below sm_80.
inline NativeConfigT config_for(bool tsmttsm, bool complex, int M, int N) {
  static const std::string gpu = [] {
    int dev = 0;
    cudaDeviceProp p{};
    if (cudaGetDevice(&dev) != cudaSuccess || cudaGetDeviceProperties(&p, dev) != cudaSuccess) return std::string();
    return std::string(p.name);
  }();
  tsm::init_table_from_environment(gpu);
  const NativeConfigT c = tsm::choose_config(tsmttsm, complex, M, N);
  if (c.mma > 0 && !has_dmma()) return register_config(tsmttsm, complex, M, N);
  if (!tsmttsm && c.mma == 2 && !has_dmma16()) {
    if (complex) return register_config(tsmttsm, complex, M, N);  // complex TSMM has no m8n8k4 form
    NativeConfigT m8 = c;
    m8.mma = 1;
    return m8;
  }
  return c;
}

// Complex TSMM on the FP64 tensor cores (tsm_tsmm_z.cu; c: mma 2 with its tiles and products, sm_90).
void launch_tsmm_z_mma16(cudaStream_t stream, const NativeConfigT& c, int M, int N, Index K, zcomplex alpha,
                         const zcomplex* A, Index lda, const zcomplex* C, Index ldcr, Index ldcc, zcomplex beta,
                         zcomplex* B, Index ldb);

// Complex TSMTTSM as the real one of 2M x 2N on the double staged kernel that c names (tsm_tsmttsm_d.cu;
// c.real, sm_80), beta already applied to C.
void launch_tsmttsm_real(cudaStream_t stream, const NativeConfigT& c, bool conj, int M, int N, Index K,
                         zcomplex alpha, const zcomplex* A, Index lda, const zcomplex* B, Index ldb, zcomplex* C,
                         Index ldcr, Index ldcc);

}  // namespace tessera::native_cuda::tsm_detail
