#pragma once
// FP64 tensor-core (DMMA, mma.sync m8n8k4) tall-skinny kernels for the wide
// shapes, where the register-tile kernels of tsm_kernels.cuh run out of FP64
// FMA issue slots: at M = N = 64 TSMTTSM needs 8 flop per byte, 24 TFLOP/s at
// 3 TB/s, 73% of the H100's FMA pipe but 36% of its DMMA rate.
//
// One m8n8k4 step: D(8x8) += A(8x4) B(4x8); lane l holds A[l/4][l%4],
// B[l%4][l/4] and D[l/4][2(l%4)], D[l/4][2(l%4)+1].
//
// TSMTTSM C = op(A)^T B: the product's inner index is the tall index k, so a
// lane's A fragment is A[k0 + l%4][m0 + l/4] and its B fragment
// B[k0 + l%4][n0 + l/4]: eight lanes read 64 contiguous bytes of one row, and
// both fragments come straight from global memory (no staging: each element
// is used by one warp of a K slice, or two where warps split N). A warp owns
// WT x WT tiles of C; the warps of a K slice cover C; a block holds several K
// slices, summed in shared memory, then one global atomic per element of C
// per block (the paper's §3.2 reduction). The K loop takes 8 rows (two k4
// steps) per iteration with the next 8 rows' loads in flight (leap-frog).
// Complex: four real products per tile, a tile's real and imaginary parts
// the two halves of one m16n8k4.
//
// TSMM B = alpha A C + beta B (its kernels are in tsm_tsmm.cu, the one file
// that launches them): the product's rows are the tall index, so a
// warp computes 8 rows of B at a time: A fragments A[k0 + l/4][m0 + l%4]
// (all of the row block's M columns held in registers, the next block's in
// flight), alpha C from shared memory (row stride = 4 mod 16 doubles: the
// four k rows and eight columns of a half-warp's fragment load fall in 16
// different 8-byte banks). On sm_90 the m16n8k4 kernel below replaces it.
#include "tsm/tsm_kernels.cuh"

#include <type_traits>

namespace tessera::native_cuda::tsm_detail {

__device__ __forceinline__ void dmma(double& d0, double& d1, double a, double b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
               : "+d"(d0), "+d"(d1)
               : "d"(a), "d"(b));
#else
  (void)d0, (void)d1, (void)a, (void)b;
  __trap();  // the host never selects these kernels below sm_80
#endif
}

// m16n8k4 (sm_90): D(16x8) += A(16x4) B(4x8) at twice m8n8k4's rate on the
// H100 (66 against 33 TFLOP/s, perf/experiments/tsm_dmma_probe.cu); lane l
// holds A[l/4][l%4] and A[l/4 + 8][l%4], B[l%4][l/4], and D[l/4][2(l%4) + j],
// D[l/4 + 8][2(l%4) + j].
__device__ __forceinline__ void dmma16(double (&d)[4], double a0, double a1, double b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
               : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
               : "d"(a0), "d"(a1), "d"(b));
#else
  (void)d, (void)a0, (void)a1, (void)b;
  __trap();  // the host never selects these kernels below sm_90
#endif
}

// m16n8k8 (sm_90, one DMMA.16x8x8): two k4 steps in one instruction; lane l holds A[l/4][l%4], A[l/4 + 8][l%4],
// A[l/4][l%4 + 4], A[l/4 + 8][l%4 + 4], B[l%4][l/4], B[l%4 + 4][l/4]; D as m16n8k4.
__device__ __forceinline__ void dmma16k8(double (&d)[4], double a0, double a1, double a2, double a3, double b0,
                                         double b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
      : "d"(a0), "d"(a1), "d"(a2), "d"(a3), "d"(b0), "d"(b1));
#else
  (void)d, (void)a0, (void)a1, (void)a2, (void)a3, (void)b0, (void)b1;
  __trap();  // the host never selects these kernels below sm_90
#endif
}

struct MmaShape {
  int M, N, warps_m, warps_n, slices;
  Index K;
  bool skip_global;
};

// Fragment values of one lane: double or complex. A complex tile's products on sm_90: one m16n8k4 takes A's
// real parts as its rows 0-7 and imaginary parts as rows 8-15 (the two doubles of the lane's 16-byte load, a
// register pair as loaded) against B's real parts, a second against B's imaginary parts; re = Ar Br - Ai Bi and
// im = Ar Bi + Ai Br are formed at the end. Gauss's three products (Ar Br, Ai Bi, (Ar + Ai)(Br + Bi)) on pairs
// of tiles took a quarter fewer DMMAs but register moves to pair the tiles' parts, and ran the same at 2 x 2
// tiles (an H200, 2026-11-29); the four products also give warps of one tile m16n8k4, where the pairs of
// tiles took m8n8k4.
template <class T>
struct Frag;
template <>
struct Frag<double> {
  double v;
};
template <>
struct Frag<zcomplex> {
  double re, im;  // conjugated (im negated) at load for "C"
};

template <class T>
struct Acc;
template <>
struct Acc<double> {
  double d0 = 0, d1 = 0;
};
template <>
struct Acc<zcomplex> {
  // re = A's real parts times B's real parts (lo) and A's imaginary parts times them (hi); im = the same
  // times B's imaginary parts; each {lo 2r, lo 2r + 1, hi 2r, hi 2r + 1}: one m16n8k4 accumulator.
  double re[4] = {0, 0, 0, 0}, im[4] = {0, 0, 0, 0};
};

template <bool Conj>
__device__ __forceinline__ void load_frag(Frag<double>& f, const double* p, bool ok) {
  f.v = ok ? __ldg(p) : 0.0;
}
template <bool Conj>
__device__ __forceinline__ void load_frag(Frag<zcomplex>& f, const zcomplex* p, bool ok) {
  double2 v = ok ? __ldg(reinterpret_cast<const double2*>(p)) : make_double2(0.0, 0.0);
  f.re = v.x;
  f.im = Conj ? -v.y : v.y;
}

// acc += a b on one 8x8 tile.
__device__ __forceinline__ void mma_acc(Acc<double>& c, const Frag<double>& a, const Frag<double>& b) {
  dmma(c.d0, c.d1, a.v, b.v);
}
__device__ __forceinline__ void mma_acc(Acc<zcomplex>& c, const Frag<zcomplex>& a, const Frag<zcomplex>& b) {
  dmma(c.re[0], c.re[1], a.re, b.re);
  dmma(c.re[2], c.re[3], a.im, b.re);
  dmma(c.im[0], c.im[1], a.re, b.im);
  dmma(c.im[2], c.im[3], a.im, b.im);
}
__device__ __forceinline__ double acc_value(const Acc<double>& c, int j) { return j ? c.d1 : c.d0; }
__device__ __forceinline__ zcomplex acc_value(const Acc<zcomplex>& c, int j) {
  return zcomplex(c.re[j] - c.im[2 + j], c.im[j] + c.re[2 + j]);
}

// acc[i][j] += a[i] b[j] over a warp's WT x WTN tiles of 8 x 8 (WTN = WT but
// in the staged double kernel's wide warps). On sm_90 with WT even, tiles i
// and i + 1 of a column take one m16n8k4 (rows i of a[i], rows 8 + i of
// a[i + 1], the same B fragment and accumulator layout): half the DMMA
// instructions at twice the rate per flop.
template <int WT, int WTN>
__device__ __forceinline__ void mma_block(Acc<double> (&acc)[WT][WTN], const Frag<double> (&a)[WT],
                                          const Frag<double> (&b)[WTN]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (WT % 2 == 0) {
#pragma unroll
    for (int i = 0; i < WT; i += 2)
#pragma unroll
      for (int j = 0; j < WTN; ++j) {
        double d[4] = {acc[i][j].d0, acc[i][j].d1, acc[i + 1][j].d0, acc[i + 1][j].d1};
        dmma16(d, a[i].v, a[i + 1].v, b[j].v);
        acc[i][j].d0 = d[0], acc[i][j].d1 = d[1], acc[i + 1][j].d0 = d[2], acc[i + 1][j].d1 = d[3];
      }
  } else
#endif
  {
#pragma unroll
    for (int i = 0; i < WT; ++i)
#pragma unroll
      for (int j = 0; j < WTN; ++j) mma_acc(acc[i][j], a[i], b[j]);
  }
}
template <int WT, int WTN>
__device__ __forceinline__ void mma_block(Acc<zcomplex> (&acc)[WT][WTN], const Frag<zcomplex> (&a)[WT],
                                          const Frag<zcomplex> (&b)[WTN]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#pragma unroll
  for (int i = 0; i < WT; ++i)
#pragma unroll
    for (int j = 0; j < WTN; ++j) {
      dmma16(acc[i][j].re, a[i].re, a[i].im, b[j].re);
      dmma16(acc[i][j].im, a[i].re, a[i].im, b[j].im);
    }
#else
#pragma unroll
  for (int i = 0; i < WT; ++i)
#pragma unroll
    for (int j = 0; j < WTN; ++j) mma_acc(acc[i][j], a[i], b[j]);
#endif
}

// The same over a k8 step (sm_90, m16n8k8): fragments of the step's k rows r (a0, b0) and r + 4 (a1, b1), tiles
// i, i + 1 paired as in mma_block.
template <int WT, int WTN>
__device__ __forceinline__ void mma_block8(Acc<double> (&acc)[WT][WTN], const Frag<double> (&a0)[WT],
                                           const Frag<double> (&a1)[WT], const Frag<double> (&b0)[WTN],
                                           const Frag<double> (&b1)[WTN]) {
  static_assert(WT % 2 == 0, "m16n8k8 pairs of tiles");
#pragma unroll
  for (int i = 0; i < WT; i += 2)
#pragma unroll
    for (int j = 0; j < WTN; ++j) {
      double d[4] = {acc[i][j].d0, acc[i][j].d1, acc[i + 1][j].d0, acc[i + 1][j].d1};
      dmma16k8(d, a0[i].v, a0[i + 1].v, a1[i].v, a1[i + 1].v, b0[j].v, b1[j].v);
      acc[i][j].d0 = d[0], acc[i][j].d1 = d[1], acc[i + 1][j].d0 = d[2], acc[i + 1][j].d1 = d[3];
    }
}

// Rows per K-loop iteration of a K slice: two k4 steps.
constexpr int kMmaRows = 8;

template <class T, bool Conj, int WT>
__global__ void __launch_bounds__(WT == 4 ? 256 : 512)
    tsmttsm_mma_kernel(MmaShape s, const T* __restrict__ A, Index lda, const T* __restrict__ B, Index ldb, T* C,
                       Index ldcr, Index ldcc, T alpha) {
  extern __shared__ double smem_raw[];
  T* part = reinterpret_cast<T*>(smem_raw);  // slices x M x N
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int wpg = s.warps_m * s.warps_n;
  const int slice = warp / wpg, w = warp % wpg;
  const int wm = w / s.warps_n, wn = w % s.warps_n;
  const int r = lane & 3, q = lane >> 2;

  int am[WT], bn[WT];
#pragma unroll
  for (int i = 0; i < WT; ++i) {
    am[i] = (wm * WT + i) * 8 + q;
    bn[i] = (wn * WT + i) * 8 + q;
  }
  Acc<T> acc[WT][WT];

  const Index step = Index(gridDim.x) * s.slices * kMmaRows;
  Index k = (Index(blockIdx.x) * s.slices + slice) * kMmaRows;
  if (k < s.K) {
    Frag<T> a[2][WT], b[2][WT];
    auto load = [&](Index k0, Frag<T>(&x)[2][WT], Frag<T>(&y)[2][WT]) {
#pragma unroll
      for (int u = 0; u < 2; ++u) {
        const Index row = k0 + 4 * u + r;
        const bool ok = row < s.K;
        const T* ar = A + row * lda;
        const T* br = B + row * ldb;
#pragma unroll
        for (int i = 0; i < WT; ++i) {
          load_frag<Conj>(x[u][i], ar + am[i], ok && am[i] < s.M);
          load_frag<false>(y[u][i], br + bn[i], ok && bn[i] < s.N);
        }
      }
    };
    load(k, a, b);
    while (true) {
      const Index kn = k + step;
      Frag<T> an[2][WT], bn2[2][WT];
      const bool more = kn < s.K;
      if (more) load(kn, an, bn2);  // leap-frog: the next 8 rows in flight during these DMMAs
#pragma unroll
      for (int u = 0; u < 2; ++u) mma_block(acc, a[u], b[u]);
      if (!more) break;
#pragma unroll
      for (int u = 0; u < 2; ++u)
#pragma unroll
        for (int i = 0; i < WT; ++i) {
          a[u][i] = an[u][i];
          b[u][i] = bn2[u][i];
        }
      k = kn;
    }
  }

  // This lane's elements of C: rows (wm WT + i) 8 + q, columns (wn WT + j) 8 + 2r + {0, 1}.
  const int MN = s.M * s.N;
  auto for_each_element = [&](auto&& f) {
#pragma unroll
    for (int i = 0; i < WT; ++i)
#pragma unroll
      for (int j = 0; j < WT; ++j)
#pragma unroll
        for (int e = 0; e < 2; ++e) {
          const int m = (wm * WT + i) * 8 + q, n = (wn * WT + j) * 8 + 2 * r + e;
          if (m < s.M && n < s.N) f(m, n, acc_value(acc[i][j], e));
        }
  };
  if (s.slices == 1) {
    if (!s.skip_global) for_each_element([&](int m, int n, const T& v) { atomic_acc(C + m * ldcr + n * ldcc, alpha * v); });
    return;
  }
  for_each_element([&](int m, int n, const T& v) { part[slice * MN + m * s.N + n] = v; });
  __syncthreads();
  for (int e = threadIdx.x; e < MN; e += blockDim.x) {
    T v = part[e];
    for (int g = 1; g < s.slices; ++g) v += part[g * MN + e];
    if (!s.skip_global) atomic_acc(C + (e / s.N) * ldcr + (e % s.N) * ldcc, alpha * v);
  }
}

template <class T, bool Conj, int WT>
void launch_tsmttsm_mma(cudaStream_t stream, int M, int N, Index K, T alpha, const T* A, Index lda, const T* B,
                        Index ldb, T* C, Index ldcr, Index ldcc) {
  MmaShape s;
  s.M = M;
  s.N = N;
  s.K = K;
  s.warps_m = (M + 8 * WT - 1) / (8 * WT);
  s.warps_n = (N + 8 * WT - 1) / (8 * WT);
  s.skip_global = skip_global_reduction();
  const int wpg = s.warps_m * s.warps_n;
  const int max_warps = WT == 4 ? 8 : 16;
  if (wpg > max_warps) throw std::logic_error("tessera::tsm native: tensor-core tile too small for this shape");
  s.slices = std::max(1, 8 / wpg);  // about 256 threads per block
  const int threads = s.slices * wpg * 32;
  const std::size_t smem = s.slices > 1 ? std::size_t(s.slices) * M * N * sizeof(T) : 0;
  auto kernel = tsmttsm_mma_kernel<T, Conj, WT>;
  const int per_sm = resident_blocks(kernel, threads, smem);
  // Enough blocks to fill the GPU, fewer when K is small (each slice gets at least 4 iterations).
  const Index rows_per_block = Index(s.slices) * kMmaRows * 4;
  const Index want = (K + rows_per_block - 1) / rows_per_block;
  const Index grid = launch_grid(want, per_sm);
  kernel<<<unsigned(grid), threads, smem, stream>>>(s, A, lda, B, ldb, C, ldcr, ldcc, alpha);
  check(cudaGetLastError(), "tsmttsm (tensor cores) launch");
}

// The same product with the tall operands staged through shared memory by a
// multi-stage cp.async pipeline (sm_80+): the bytes in flight per SM are then
// set by the stages (tens of KiB), not by the registers left after the
// accumulators, which limit the direct kernel at M, N > 32. A stage holds R
// rows of A and of B (row strides padded to 4 mod 16 doubles: the four rows of a
// fragment load start 32 bytes apart mod 128, so neither the 8-byte loads of 16
// lanes nor the 16-byte loads of 8 lanes meet in a bank); every warp of the block reads its
// fragments of a stage, the block's K slices taking alternate k4 steps. A warp
// owns WT x WTN tiles of 8 x 8: square, or with N in 33..48 a strip across all
// of N. The double strip (16 rows, WT = 2, WTN = 5 or 6) wastes no padded
// columns at N = 40 (square 16 x 16 warps cover 48) and takes 2 + WTN
// fragment loads for WTN m16n8k4 (the square warps 4 for 2), with 2 K slices
// where the square warps had 1: 1.15-1.21x at M = N = 36..48 on an H200. The
// complex strip (8 rows, WT = 1, WTN = 5 or 6): 1.58x at M = N = 40, 1.41x at
// 48 against the 2 x 2 warps, which pad 40 to 48 and hold 9 warps at 48
// (an H200; docs/perf/tsm.md).
__device__ __forceinline__ void cp_async(void* smem, const void* gmem, int bytes, int src_bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  if (bytes == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(d), "l"(gmem), "r"(src_bytes));
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(d), "l"(gmem), "r"(src_bytes));
#else
  (void)smem, (void)gmem, (void)bytes, (void)src_bytes;
  __trap();
#endif
}
__device__ __forceinline__ void cp_async_commit() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::);
#endif
}
template <int N>
__device__ __forceinline__ void cp_async_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
#endif
}

template <bool Conj>
__device__ __forceinline__ void shared_frag(Frag<double>& f, const double* p) {
  f.v = *p;
}
template <bool Conj>
__device__ __forceinline__ void shared_frag(Frag<zcomplex>& f, const zcomplex* p) {
  const double2 v = *reinterpret_cast<const double2*>(p);
  f.re = v.x;
  f.im = Conj ? -v.y : v.y;
}

// How the odd-row stage copies take a tall operand's rows (kernels with
// OddRows): 16- or 8-byte pieces, or kOddRows (double, odd width w >= 3,
// odd row stride, 16-byte aligned data): each row in (w - 1) / 2 16-byte
// pieces from its first 16-byte boundary and one 8-byte piece at its other
// end, an even row's last element, an odd row's first. Its shared row stride
// is odd too, so that a row starts on the same 16-byte parity in both
// memories. The other kernels copy every row in 8-byte pieces at odd widths.
constexpr int kOddRows = 1;

struct StagedShape {
  int M, N, warps_m, warps_n, slices, rows, lda_s, ldb_s;  // rows per stage; shared row strides (elements)
  Index K;
  bool skip_global, vec16;
  int copy_a, copy_b;  // OddRows kernels: 16, 8 (bytes a piece) or kOddRows
  // The k4 steps take alternate rows (8 rows: 0, 2, 4, 6 then 1, 3, 5, 7) where both shared strides are 2 mod 4
  // doubles (the rows whole sectors need at widths 2 mod 4; launch_tsmttsm_staged).
  bool split_rows = false;
  // Double kernels running a complex product as the real one of 2M x 2N (tsm::NativeConfig::real): 0 (a real
  // product), kComplexT or kComplexC; C then holds complex elements (strides in them), alpha = alpha_re + i alpha_im.
  int complex_out = 0;
  double alpha_im = 0;
  // Kernels with Edge > 0 (the double strips): the last `edge` rows of C, past the strips' 16 warps_m rows, by FMA.
  int edge = 0;
  // Kernels without the fragments ahead: the fragment pointers stepped a k4 step (TESSERA_TSM_STAGE_STEPPED = 0,
  // benchmarks, computes each step's row instead).
  bool stepped = true;
};
constexpr int kComplexT = 1, kComplexC = 2;

constexpr int kStages = 3;

// Threads a block of the staged kernel may have: 256 where a warp's accumulators take most of the registers
// (double 4 x 4 tiles; complex, 8 doubles a tile, from 6 tiles), else 512.
template <class T>
constexpr int staged_max_threads(int wt, int wtn) {
  return (sizeof(T) == sizeof(double) ? wt * wtn >= 16 : wt * wtn >= 6) ? 256 : 512;
}

// Edge > 0 (double strips with Prefetch): rows 16 warps_m .. M - 1 of C (s.edge of them, at most Edge a warp)
// by FMA beside the DMMAs: row 16 warps_m + wm + i warps_m of warp (wm, wn), i < Edge, on the B fragments the
// warp loads anyway (lane (q, r) holds B[k][n] of its k row and column n = tile + q) and one broadcast load of A
// a row and k step. At M = 33 the strips' DMMAs then cover 32 rows instead of 48.
template <class T, bool Conj, int WT, int WTN, bool OddRows, bool Prefetch = false, int Edge = 0, bool K8 = false>
__global__ void __launch_bounds__(staged_max_threads<T>(WT, WTN), K8 ? 65536 / 128 / staged_max_threads<T>(WT, WTN) : 1)
    tsmttsm_staged_kernel(StagedShape s, const T* __restrict__ A, Index lda, const T* __restrict__ B, Index ldb,
                          T* C, Index ldcr, Index ldcc, T alpha) {
  extern __shared__ double smem_raw[];
  T* stage0 = reinterpret_cast<T*>(smem_raw);
  const int stage_elems = s.rows * (s.lda_s + s.ldb_s);
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int wpg = s.warps_m * s.warps_n;
  const int slice = warp / wpg, w = warp % wpg;
  const int wm = w / s.warps_n, wn = w % s.warps_n;
  const int r = lane & 3, q = lane >> 2;

  // Zero the stages once: the padding columns are never copied and read as zeros.
  for (int e = threadIdx.x; e < kStages * stage_elems; e += blockDim.x) stage0[e] = T(0);
  __syncthreads();

  const Index chunks = (s.K + s.rows - 1) / s.rows;
  // Copies chunk c (rows c R ..) into stage buffer b; rows beyond K are zero-filled.
  const int bytes = s.vec16 ? 16 : 8;
  int per_a = s.M * int(sizeof(T)) / bytes, per_b = s.N * int(sizeof(T)) / bytes;
  if constexpr (OddRows) {
    auto pieces = [&](int width, int copy) { return copy == kOddRows ? (width - 1) / 2 : width * 8 / copy; };
    per_a = pieces(s.M, s.copy_a);
    per_b = pieces(s.N, s.copy_b);
  }
  // A stage is copied in 16-byte (or 8-byte) pieces. Rows of one or two whole warp instructions (per_a,
  // per_b 32 or 64): a warp a row, lane l on pieces l and l + 32, the pointers stepped a row at a time; the
  // loops over a row's pieces from 64-bit row addresses that this replaces took most of the kernel's
  // instructions at M = N = 64 (on an H200 1.25x at double 64 and complex 32, 1.03x at complex 64; outputs
  // bit-identical). Other widths: the flat (row, piece) order, consecutive threads on consecutive pieces so
  // that a warp instruction spans rows; each thread's start and step are the same for every stage (no
  // division per copy). (Rows along lanes at fewer than 32 pieces, lanes idle past the row's pieces, ran
  // 0.83-0.98x at most such shapes; complex 48, 48 pieces, 1.05x: docs/perf/tsm.md.)
  const bool warp_rows = !OddRows && per_a % 32 == 0 && per_b % 32 == 0 && per_a <= 64 && per_b <= 64;
  struct Walk {
    int r0, j0, dr, dj, per;
  };
  auto walk = [&](int per) {
    const int t = threadIdx.x, n = blockDim.x;
    return Walk{t / per, t % per, n / per, n % per, per};
  };
  const Walk wa = walk(per_a), wb = walk(per_b);
  auto copy_flat = [&](T* dst, int ld_s, const T* src, Index ld, const Walk& w, Index row0, int nb) {
    for (int rr = w.r0, j = w.j0; rr < s.rows;) {
      const Index row = row0 + rr;
      const bool ok = row < s.K;
      const char* g = reinterpret_cast<const char*>(src + (ok ? row : 0) * ld) + j * nb;
      cp_async(reinterpret_cast<char*>(dst + rr * ld_s) + j * nb, g, nb, ok ? nb : 0);
      rr += w.dr;
      j += w.dj;
      if (j >= w.per) j -= w.per, ++rr;
    }
  };
  // OddRows: a kOddRows operand's 16-byte pieces in one loop, uniform across
  // the warp (one loop with both sizes diverged and ran 1.3x slower on an
  // H200), then its 8-byte ones, a thread a row (rows are even from an even
  // chunk start); another operand as copy_flat in pieces of copy bytes.
  auto copy_odd = [&](T* dst, int ld_s, const T* src, Index ld, int width, int copy, const Walk& w, Index row0) {
    if (copy != kOddRows) return copy_flat(dst, ld_s, src, ld, w, row0, copy);
    for (int rr = w.r0, j = w.j0; rr < s.rows;) {
      const Index row = row0 + rr;
      const bool ok = row < s.K;
      const int off = 16 * j + 8 * (rr & 1);  // bytes into the row
      const char* g = reinterpret_cast<const char*>(src + (ok ? row : 0) * ld) + off;
      cp_async(reinterpret_cast<char*>(dst + rr * ld_s) + off, g, 16, ok ? 16 : 0);
      rr += w.dr;
      j += w.dj;
      if (j >= w.per) j -= w.per, ++rr;
    }
    for (int rr = threadIdx.x; rr < s.rows; rr += blockDim.x) {
      const Index row = row0 + rr;
      const bool ok = row < s.K;
      const int e = (rr & 1) ? 0 : width - 1;
      cp_async(dst + rr * ld_s + e, src + (ok ? row : 0) * ld + e, 8, ok ? 8 : 0);
    }
  };
  auto issue = [&](Index c, int b) {
    if (c < chunks) {
      T* sa = stage0 + b * stage_elems;
      T* sb = sa + s.rows * s.lda_s;
      const Index row0 = c * s.rows;
      if (warp_rows) {
        const int nw = blockDim.x / 32;
        const int rows_in = int(s.K - row0 < s.rows ? s.K - row0 : s.rows);
        const char* ga = reinterpret_cast<const char*>(A + (row0 + warp) * lda) + lane * bytes;
        const char* gb = reinterpret_cast<const char*>(B + (row0 + warp) * ldb) + lane * bytes;
        const Index ga_step = Index(nw) * lda * Index(sizeof(T)), gb_step = Index(nw) * ldb * Index(sizeof(T));
        char* da = reinterpret_cast<char*>(sa + warp * s.lda_s) + lane * bytes;
        char* db = reinterpret_cast<char*>(sb + warp * s.ldb_s) + lane * bytes;
        const int da_step = nw * s.lda_s * int(sizeof(T)), db_step = nw * s.ldb_s * int(sizeof(T));
        for (int rr = warp; rr < s.rows; rr += nw, ga += ga_step, gb += gb_step, da += da_step, db += db_step) {
          const bool ok = rr < rows_in;
          const int n = ok ? bytes : 0;
#pragma unroll
          for (int j = 0; j < 64; j += 32) {
            if (j < per_a) cp_async(da + j * bytes, ok ? ga + j * bytes : reinterpret_cast<const char*>(A), bytes, n);
            if (j < per_b) cp_async(db + j * bytes, ok ? gb + j * bytes : reinterpret_cast<const char*>(B), bytes, n);
          }
        }
      } else if constexpr (OddRows) {
        copy_odd(sa, s.lda_s, A, lda, s.M, s.copy_a, wa, row0);
        copy_odd(sb, s.ldb_s, B, ldb, s.N, s.copy_b, wb, row0);
      } else {
        copy_flat(sa, s.lda_s, A, lda, wa, row0, bytes);
        copy_flat(sb, s.ldb_s, B, ldb, wb, row0, bytes);
      }
    }
    cp_async_commit();  // an empty group past the end keeps the wait counts uniform
  };

  static_assert(Edge == 0 || (std::is_same_v<T, double> && WT == 2 && Prefetch), "edge rows: double strips");
  constexpr int EN = Edge > 0 ? Edge : 1;
  double eacc[EN][WTN] = {};
  int ecol[EN] = {};
  if constexpr (Edge > 0) {
#pragma unroll
    for (int i = 0; i < Edge; ++i) ecol[i] = s.M - s.edge + wm + i * s.warps_m;  // past M: padding, never stored
  }
  Acc<T> acc[WT][WTN];
  int am[WT], bn[WTN];
  constexpr int kWide = WT > WTN ? WT : WTN;
#pragma unroll
  for (int i = 0; i < kWide; ++i) {
    if (i < WT) am[i] = (wm * WT + i) * 8 + q;
    if (i < WTN) bn[i] = (wn * WTN + i) * 8 + q;
  }
  const Index step = gridDim.x;
  Index c = blockIdx.x;
#pragma unroll
  for (int st = 0; st < kStages - 1; ++st) issue(c + st * step, st);
  for (int b = 0; c < chunks; c += step, b = (b + 1) % kStages) {
    cp_async_wait<kStages - 2>();
    __syncthreads();  // chunk c has landed for every thread; stage (b - 1) is no longer read
    issue(c + (kStages - 1) * step, (b + kStages - 1) % kStages);
    const T* sa = stage0 + b * stage_elems;
    const T* sb = sa + s.rows * s.lda_s;
    const int steps = s.rows / 4;
    // A lane's fragments of one k row: pa, pb its row of the stage's A and B.
    auto load_at = [&](const T* pa, const T* pb, Frag<T>(&a)[WT], Frag<T>(&bb)[WTN], double(&ea)[EN]) {
#pragma unroll
      for (int i = 0; i < kWide; ++i) {
        if (i < WT) shared_frag<Conj>(a[i], pa + am[i]);
        if (i < WTN) shared_frag<false>(bb[i], pb + bn[i]);
      }
      if constexpr (Edge > 0) {
#pragma unroll
        for (int i = 0; i < Edge; ++i) ea[i] = reinterpret_cast<const double*>(pa)[ecol[i]];
      }
    };
    auto load = [&](int t, Frag<T>(&a)[WT], Frag<T>(&bb)[WTN], double(&ea)[EN]) {
      const int row = s.split_rows ? 8 * (t >> 1) + (t & 1) + 2 * r : 4 * t + r;
      load_at(sa + row * s.lda_s, sb + row * s.ldb_s, a, bb, ea);
    };
    auto step_mma = [&](const Frag<T>(&a)[WT], const Frag<T>(&bb)[WTN], const double(&ea)[EN]) {
      mma_block(acc, a, bb);
      if constexpr (Edge > 0) {
#pragma unroll
        for (int i = 0; i < Edge; ++i)
#pragma unroll
          for (int j = 0; j < WTN; ++j) eacc[i][j] = fma(ea[i], bb[j].v, eacc[i][j]);
      }
    };
    if constexpr (K8) {
      // k8 steps (m16n8k8, half the DMMAs of the k4 steps): rows 8u + r and 8u + r + 4 of step u (8u + 2r and
      // 8u + 2r + 1 with alternate rows), the slices on alternate steps, pointers stepped by a constant.
      static_assert(!Prefetch && Edge == 0, "k8 steps: the square warps without the fragments ahead");
      const int lo = s.split_rows ? 2 * r : r, hi = s.split_rows ? 1 : 4;
      const T* pa = sa + (8 * slice + lo) * s.lda_s;
      const T* pb = sb + (8 * slice + lo) * s.ldb_s;
      const int ha = hi * s.lda_s, hb = hi * s.ldb_s;
      const int da = 8 * s.slices * s.lda_s, db = 8 * s.slices * s.ldb_s;
      for (int u = slice; u < s.rows / 8; u += s.slices, pa += da, pb += db) {
        Frag<T> a0[WT], a1[WT], b0[WTN], b1[WTN];
        double none[EN];
        load_at(pa, pb, a0, b0, none);
        load_at(pa + ha, pb + hb, a1, b1, none);
        mma_block8(acc, a0, a1, b0, b1);
      }
    } else if constexpr (Prefetch) {
      // The next step's fragments loaded before this step's DMMAs.
      Frag<T> a0[WT], b0[WTN], a1[WT], b1[WTN];
      double e0[EN], e1[EN];
      int t = slice;
      if (t < steps) load(t, a0, b0, e0);
      for (; t < steps; t += 2 * s.slices) {
        const int t1 = t + s.slices;
        if (t1 < steps) load(t1, a1, b1, e1);
        step_mma(a0, b0, e0);
        if (t1 >= steps) break;
        if (t1 + s.slices < steps) load(t1 + s.slices, a0, b0, e0);
        step_mma(a1, b1, e1);
      }
    } else if (s.stepped && (!s.split_rows || s.slices % 2 == 0)) {
      // A slice's steps lie 4 slices rows apart in either row order (alternate rows: slices even): pointers
      // stepped by a constant, where the row of each step and its products took a chain of dependent integer
      // instructions before the fragment loads.
      const int row0 = s.split_rows ? 8 * (slice >> 1) + (slice & 1) + 2 * r : 4 * slice + r;
      const T* pa = sa + row0 * s.lda_s;
      const T* pb = sb + row0 * s.ldb_s;
      const int da = 4 * s.slices * s.lda_s, db = 4 * s.slices * s.ldb_s;
      for (int t = slice; t < steps; t += s.slices, pa += da, pb += db) {
        Frag<T> a[WT], bb[WTN];
        double ea[EN];
        load_at(pa, pb, a, bb, ea);
        step_mma(a, bb, ea);
      }
    } else {
      for (int t = slice; t < steps; t += s.slices) {
        Frag<T> a[WT], bb[WTN];
        double ea[EN];
        load(t, a, bb, ea);
        step_mma(a, bb, ea);
      }
    }
  }
  cp_async_wait<0>();
  __syncthreads();

  // Block sum through the (now free) stage buffers, then one global atomic per element.
  T* part = stage0;
  const int MN = s.M * s.N;
#pragma unroll
  for (int i = 0; i < WT; ++i)
#pragma unroll
    for (int j = 0; j < WTN; ++j)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int m = (wm * WT + i) * 8 + q, n = (wn * WTN + j) * 8 + 2 * r + e;
        if (m < s.M && n < s.N) part[slice * MN + m * s.N + n] = acc_value(acc[i][j], e);
      }
  if constexpr (Edge > 0) {
    // Each lane's edge sums cover its k rows (r): the four lanes of a column summed by shuffles.
#pragma unroll
    for (int i = 0; i < Edge; ++i)
#pragma unroll
      for (int j = 0; j < WTN; ++j) {
        double v = eacc[i][j];
        v += __shfl_xor_sync(0xffffffffu, v, 1);
        v += __shfl_xor_sync(0xffffffffu, v, 2);
        const int n = (wn * WTN + j) * 8 + q;
        if (r == 0 && ecol[i] < s.M && n < s.N) part[slice * MN + ecol[i] * s.N + n] = v;
      }
  }
  __syncthreads();
  if (s.skip_global) return;
  if constexpr (std::is_same_v<T, double>) {
    if (s.complex_out != 0) {
      // Complex element (m, n) from the real 2 x 2 block G of rows 2m, 2m + 1 and columns 2n, 2n + 1:
      // a^T b = (G00 - G11) + i (G01 + G10), a^H b = (G00 + G11) + i (G01 - G10).
      const double sg = s.complex_out == kComplexC ? 1.0 : -1.0;
      const int nc = s.N / 2;
      for (int e = threadIdx.x; e < MN / 4; e += blockDim.x) {
        const int m = e / nc, n = e % nc;
        double g[2][2];
#pragma unroll
        for (int i = 0; i < 2; ++i)
#pragma unroll
          for (int j = 0; j < 2; ++j) {
            const int x = (2 * m + i) * s.N + 2 * n + j;
            double v = part[x];
            for (int sl = 1; sl < s.slices; ++sl) v += part[sl * MN + x];
            g[i][j] = v;
          }
        const double re = g[0][0] + sg * g[1][1], im = g[0][1] - sg * g[1][0];
        double* p = C + 2 * (m * ldcr + n * ldcc);
        atomicAdd(p, alpha * re - s.alpha_im * im);
        atomicAdd(p + 1, alpha * im + s.alpha_im * re);
      }
      return;
    }
  }
  for (int e = threadIdx.x; e < MN; e += blockDim.x) {
    T v = part[e];
    for (int g = 1; g < s.slices; ++g) v += part[g * MN + e];
    atomic_acc(C + (e / s.N) * ldcr + (e % s.N) * ldcc, alpha * v);
  }
}

// Bytes per stage of the staged kernel. The blocks an SM holds are set by the
// kernel's registers; the stages share what shared memory those blocks leave,
// from 24 KiB up to 64 KiB a stage (wide complex rows: 2 KiB at M = N = 64, so
// 32 KiB is 12 rows, three k4 steps a warp between barriers). The floor was
// 32 KiB: where registers allow three blocks an SM (complex M = N = 16) it
// left room for two, 14-20% slower on an H200 (docs/perf/tsm.md).
// TESSERA_TSM_STAGE_BYTES overrides it (benchmarks).
template <class Kernel>
std::size_t staged_stage_bytes(Kernel kernel, int threads) {
  static const long forced = [] {
    const char* e = std::getenv("TESSERA_TSM_STAGE_BYTES");
    return e && *e ? std::strtol(e, nullptr, 10) : 0L;
  }();
  int dev = 0, per_sm_smem = 0, per_block = 0, blocks = 0;
  check(cudaGetDevice(&dev), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&per_sm_smem, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev), "attribute");
  check(cudaDeviceGetAttribute(&per_block, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev), "attribute");
  if (forced > 0) return std::min(std::size_t(forced), std::size_t(per_block) / kStages);
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, 0), "occupancy");
  const std::size_t lo = 24 * 1024, hi = 64 * 1024;
  if (blocks < 1) return lo;
  const std::size_t share = std::min<std::size_t>(per_block, per_sm_smem / blocks - 1024) / kStages;
  return std::max(lo, std::min(hi, share));
}

// complex_out, alpha_im: StagedShape's (a complex product as the real one of M x N, M and N even).
// Edge > 0: the double strips (WT 2) with the rows past the last multiple of 16 by FMA (at most Edge a strip;
// tsm::config_usable checks the shape).
template <class T, bool Conj, int WT, int WTN = WT, int Edge = 0>
void launch_tsmttsm_staged(cudaStream_t stream, int M, int N, Index K, T alpha, const T* A, Index lda, const T* B,
                           Index ldb, T* C, Index ldcr, Index ldcc, int complex_out = 0, double alpha_im = 0) {
  StagedShape s;
  s.complex_out = complex_out;
  s.alpha_im = alpha_im;
  s.M = M;
  s.N = N;
  s.K = K;
  s.warps_m = Edge > 0 ? M / (8 * WT) : (M + 8 * WT - 1) / (8 * WT);
  s.warps_n = (N + 8 * WTN - 1) / (8 * WTN);
  s.edge = Edge > 0 ? M - 8 * WT * s.warps_m : 0;
  if (Edge > 0 && (s.warps_m < 1 || s.edge > Edge * s.warps_m))
    throw std::logic_error("tessera::tsm native: too many edge rows for the strips");
  s.skip_global = skip_global_reduction();
  static const bool stepped = !env_switched_off("TESSERA_TSM_STAGE_STEPPED");
  s.stepped = stepped;
  const int wpg = s.warps_m * s.warps_n;
  if (wpg * 32 > staged_max_threads<T>(WT, WTN))
    throw std::logic_error("tessera::tsm native: tensor-core tile too small for this shape");
  s.slices = std::max(1, 8 / wpg);
  const int threads = s.slices * wpg * 32;
  // Padded widths: whole warp tiles, then 4 mod 16 doubles (32 mod 128 bytes).
  const int per_double = int(sizeof(T) / sizeof(double));
  auto cols_of = [](int w, int wt) { return (w + 8 * wt - 1) / (8 * wt) * 8 * wt; };  // every column a fragment reads
  auto padded = [&](int w, int wt) {
    int d = cols_of(w, wt) * per_double;
    d += (4 - d % 16 + 16) % 16;
    return d / per_double;
  };
  s.lda_s = padded(M, WT);
  s.ldb_s = padded(N, WTN);
  const auto aligned = [](const void* p, int bytes = 16) { return reinterpret_cast<std::uintptr_t>(p) % bytes == 0; };
  s.vec16 = aligned(A) && aligned(B) && (M * sizeof(T)) % 16 == 0 && (N * sizeof(T)) % 16 == 0 &&
            (lda * sizeof(T)) % 16 == 0 && (ldb * sizeof(T)) % 16 == 0;
  // Odd widths in double (warp tiles 2 and 4, the defaults' staged kernels): the odd-row copies, 1.2-1.4x
  // the 8-byte ones at odd M = N on an H200 (this form of the loops 1.04-1.14x more), odd shared strides
  // (5 mod 16: 2-way bank conflicts in some fragment loads, cheaper than 8-byte copies). Compiled apart: in
  // one kernel with the other copies they cost even shapes 3-6%.
  const auto copy_of = [&](const T* p, int w, Index ld) {
    if (!aligned(p)) return 8;
    if ((w * sizeof(T)) % 16 == 0 && (ld * sizeof(T)) % 16 == 0) return 16;
    return w >= 3 && w % 2 == 1 && ld % 2 == 1 ? kOddRows : 8;
  };
  s.copy_a = copy_of(A, M, lda);
  s.copy_b = copy_of(B, N, ldb);
  constexpr bool kOddKernel = std::is_same_v<T, double> && WT > 1;
  const bool odd = kOddKernel && (s.copy_a == kOddRows || s.copy_b == kOddRows);
  if (odd) {
    s.lda_s += s.copy_a == kOddRows;
    s.ldb_s += s.copy_b == kOddRows;
  }
  // Whole sectors (double, 32-byte aligned operands): a shared row stride congruent to the source's mod 4
  // doubles starts each row at its source row's offset within a 32-byte sector, so the 16-byte pieces of a
  // sector land in one 32-byte piece of shared memory. Where a stride split them (rows of 2 mod 4 doubles in
  // strides of 4 mod 16, odd rows of 3 mod 4 in strides of 5 mod 16), L1 asked L2 for 1.5x the sectors that
  // DRAM delivered (an H200, M = N = 34 and 50). Rows of 2 mod 4 doubles on both operands take strides of
  // 2 mod 4 with the k4 steps on alternate rows: a fragment load's four rows start 4 strides apart, 8 or 24
  // mod 32 banks. TESSERA_TSM_STAGE_SECTORS = 0 (benchmarks) keeps the strides above.
  static const bool whole_sectors = !env_switched_off("TESSERA_TSM_STAGE_SECTORS");
  if (std::is_same_v<T, double> && whole_sectors && aligned(A, 32) && aligned(B, 32)) {
    if (s.vec16 && lda % 4 == 2 && ldb % 4 == 2) {
      s.split_rows = true;
      s.lda_s = cols_of(M, WT) + 2;
      s.ldb_s = cols_of(N, WTN) + 2;
    } else if (odd) {
      s.lda_s += s.copy_a == kOddRows && lda % 4 == 3 ? 2 : 0;  // 7 mod 16
      s.ldb_s += s.copy_b == kOddRows && ldb % 4 == 3 ? 2 : 0;
    }
  }
  // k8 steps (m16n8k8) in double's square warps of even tiles (2 x 2, 4 x 4) on sm_90: half the DMMAs, the NOP
  // before each and the address arithmetic of the k4 steps, which bound the 4 x 4 warps (an H200, 2026-12-02:
  // 1.04-1.06x at even M = N 50..62, 1.00-1.03x at odd 49..63, 1.02x at 64, 1.03x at 29 on the 2 x 2 warps; a
  // tie at 16). ptxas holds them at 128 registers (2 blocks an SM of 256 threads). TESSERA_TSM_STAGE_K8 = 0
  // (benchmarks) keeps the k4 steps. (Complex 2 x 2 warps with k8 steps ran as with k4 steps at M = N = 25..32,
  // 0.99-1.02x, and spilled: not compiled; complex 25..32 runs as the real product on the 4 x 4 warps.)
  constexpr bool kK8able = std::is_same_v<T, double> && Edge == 0 && WT == WTN && (WT == 2 || WT == 4);
  static const bool k8_on = !env_switched_off("TESSERA_TSM_STAGE_K8") && has_dmma16();
  const bool k8 = kK8able && k8_on;
  auto go = [&](auto kernel) {
    // Stage size: a multiple of 4 slices' k4 steps (of 8 rows with alternate rows; 8 slices' rows for the k8
    // steps), about the bytes that staged_stage_bytes gives.
    const int row_bytes = (s.lda_s + s.ldb_s) * int(sizeof(T));
    const int unit = k8 ? 8 * s.slices : 4 * s.slices * (s.split_rows && s.slices % 2 ? 2 : 1);
    s.rows = std::max(unit, int(staged_stage_bytes(kernel, threads) / row_bytes) / unit * unit);
    const std::size_t stage_bytes = std::size_t(s.rows) * row_bytes;
    const std::size_t smem = std::max(kStages * stage_bytes, std::size_t(s.slices) * M * N * sizeof(T));
    const int per_sm = resident_blocks(kernel, threads, smem);
    const Index chunks = (K + s.rows - 1) / s.rows;
    const Index want = (chunks + 3) / 4;  // each block at least 4 chunks
    const Index grid = launch_grid(want, per_sm);
    kernel<<<unsigned(grid), threads, smem, stream>>>(s, A, lda, B, ldb, C, ldcr, ldcc, alpha);
  };
  // Next k step's fragments loaded before this step's DMMAs: only in the double 16-row strips (warp tiles
  // 2 x 3..4), which have one strip's worth of DMMAs per load and stalled on the loads: 1.10-1.13x at
  // M = N = 34, 36, 38, 40 on an H200. With 4 x 4 warp tiles (M = N = 64: 0.82x) and in complex (32: 0.93x)
  // the extra fragment registers cost more than the overlap gives. TESSERA_TSM_STAGE_PREFETCH = 0
  // (benchmarks) turns it off.
  auto with_rows = [&](auto pf, auto k8_steps) {
    constexpr bool kPf = decltype(pf)::value, kK8 = decltype(k8_steps)::value;
    if constexpr (kOddKernel) {
      if (odd) return go(tsmttsm_staged_kernel<T, Conj, WT, WTN, true, kPf, Edge, kK8>);
    }
    go(tsmttsm_staged_kernel<T, Conj, WT, WTN, false, kPf, Edge, kK8>);
  };
  if constexpr (kK8able) {
    if (k8) with_rows(std::false_type{}, std::true_type{});
    else with_rows(std::false_type{}, std::false_type{});
  } else if constexpr (Edge > 0) {
    with_rows(std::true_type{}, std::false_type{});  // (compiled with the prefetch only)
  } else if constexpr (std::is_same_v<T, double> && WT == 2 && WTN > 2) {
    static const bool prefetch = !env_switched_off("TESSERA_TSM_STAGE_PREFETCH");
    if (prefetch) with_rows(std::true_type{}, std::false_type{});
    else with_rows(std::false_type{}, std::false_type{});
  } else {
    with_rows(std::false_type{}, std::false_type{});
  }
  check(cudaGetLastError(), "tsmttsm (tensor cores, cp.async stages) launch");
}

}  // namespace tessera::native_cuda::tsm_detail
