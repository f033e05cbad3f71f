// Native TSMM, double and complex: 1, 2 or 4 outputs per thread, two rows per iteration;
// double also on the tensor cores (m8n8k4, or m16n8k4 on sm_90); complex on
// the tensor cores in tsm_tsmm_z.cu.
#include "tsm/tsm_mma.cuh"

#include <type_traits>

namespace tessera::native_cuda {

namespace tsm_detail {

// TSMM, double: a warp computes 8 rows of B per iteration; M up to 64 (16 k4 steps).
constexpr int kMmaMaxSteps = 16, kMmaMaxTiles = 8;

template <int MaxSteps>
__global__ void __launch_bounds__(256)
    tsmm_mma_kernel(int M, int N, Index K, int ldsc, const double* __restrict__ A, Index lda,
                    const double* __restrict__ C, Index ldcr, Index ldcc, double alpha, double beta, double* B,
                    Index ldb, bool vec2) {
  extern __shared__ double smem_raw[];
  double* c = smem_raw;  // ceil4(M) rows x ldsc, alpha C, zero-padded
  const int steps = (M + 3) / 4, ntiles = (N + 7) / 8;
  for (int e = threadIdx.x; e < steps * 4 * ldsc; e += blockDim.x) {
    const int m = e / ldsc, n = e % ldsc;
    c[e] = (m < M && n < N) ? alpha * C[m * ldcr + n * ldcc] : 0.0;
  }
  __syncthreads();
  const int lane = threadIdx.x % 32, r = lane & 3, q = lane >> 2;
  const Index warps = Index(gridDim.x) * (blockDim.x / 32);
  Index k0 = (Index(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32) * 8;
  if (k0 >= K) return;
  double a[MaxSteps];
  auto load = [&](Index kb, double(&x)[MaxSteps]) {
    const Index row = kb + q;
    const double* ar = A + row * lda;
#pragma unroll
    for (int t = 0; t < MaxSteps; ++t)
      if (t < steps) x[t] = (row < K && 4 * t + r < M) ? __ldg(ar + 4 * t + r) : 0.0;
  };
  load(k0, a);
  while (true) {
    const Index kn = k0 + warps * 8;
    double an[MaxSteps];
    const bool more = kn < K;
    if (more) load(kn, an);  // leap-frog: the next row block in flight during these DMMAs
    const Index row = k0 + q;
    double* br = B + row * ldb;
    // All of the row block's output tiles at once: independent accumulators
    // keep the DMMAs of one k4 step from waiting on each other.
    double d[kMmaMaxTiles][2];
#pragma unroll
    for (int nt = 0; nt < kMmaMaxTiles; ++nt) d[nt][0] = d[nt][1] = 0.0;
#pragma unroll
    for (int t = 0; t < MaxSteps; ++t)
      if (t < steps)
#pragma unroll
        for (int nt = 0; nt < kMmaMaxTiles; ++nt)
          if (nt < ntiles) dmma(d[nt][0], d[nt][1], a[t], c[(4 * t + r) * ldsc + nt * 8 + q]);
    if (row < K)
#pragma unroll
      for (int nt = 0; nt < kMmaMaxTiles; ++nt) {
        const int n = nt * 8 + 2 * r;
        if (vec2 && n + 1 < N) {  // one 16-byte store for the pair
          double2 v = make_double2(d[nt][0], d[nt][1]);
          if (beta != 0.0) {
            const double2 o = *reinterpret_cast<const double2*>(br + n);
            v.x += beta * o.x;
            v.y += beta * o.y;
          }
          *reinterpret_cast<double2*>(br + n) = v;
          continue;
        }
        if (n < N) br[n] = beta == 0.0 ? d[nt][0] : d[nt][0] + beta * br[n];
        if (n + 1 < N) br[n + 1] = beta == 0.0 ? d[nt][1] : d[nt][1] + beta * br[n + 1];
      }
    if (!more) break;
#pragma unroll
    for (int t = 0; t < MaxSteps; ++t) a[t] = an[t];
    k0 = kn;
  }
}

inline void launch_tsmm_mma(cudaStream_t stream, int M, int N, Index K, double alpha, const double* A, Index lda,
                            const double* C, Index ldcr, Index ldcc, double beta, double* B, Index ldb) {
  const int ntiles = (N + 7) / 8;
  const int ldsc = ntiles * 8 + (ntiles * 8 % 16 == 8 ? 12 : 4);  // = 4 mod 16
  const std::size_t smem = std::size_t((M + 3) / 4 * 4) * ldsc * sizeof(double);
  const int threads = 256;
  auto kernel = tsmm_mma_kernel<kMmaMaxSteps>;
  const int per_sm = resident_blocks(kernel, threads, smem);
  const Index rows_per_block = Index(threads / 32) * 8 * 2;
  const Index want = (K + rows_per_block - 1) / rows_per_block;
  const Index grid = launch_grid(want, per_sm);
  const bool vec2 = reinterpret_cast<std::uintptr_t>(B) % 16 == 0 && ldb % 2 == 0;
  kernel<<<unsigned(grid), threads, smem, stream>>>(M, N, K, ldsc, A, lda, C, ldcr, ldcc, alpha, beta, B, ldb, vec2);
  check(cudaGetLastError(), "tsmm (tensor cores) launch");
}

// Blocks an SM the staged m16n8k4 kernel is compiled for: two where the
// plain one fits 128 registers (staged at MaxU = MaxNT = 4 it took 166, one
// block an SM: two blocks with 48 bytes of spills ran 1.05-1.15x at M = N =
// 17..25, 0.96x at 31), else one.
constexpr int tsmm_mma16_staged_min_blocks(int max_u, int max_nt) { return max_u <= 4 && max_u * max_nt <= 16 ? 2 : 1; }

// Doubles a warp's A stage holds (StagesA): 16 rows of A at row stride 8 U,
// or, where wider, the 16 x N rows of B that StageOut puts there. One
// definition for the kernel's layout and the launcher's shared memory.
__host__ __device__ constexpr int tsmm_stage_a_doubles(int U, int N, bool stage_out) {
  return 16 * (stage_out && N > 8 * U ? N : 8 * U);
}

// TSMM StageOut epilogue: rows rb.. of B (fragments d of a warp's 16 rows)
// through the warp's buffer wb of 16 rows x N (16-byte aligned), then written
// as consecutive elements: whole 32-byte sectors a store where ldb == N.
// vec_b: ldb == N and B 16-byte aligned (rb N is even, so the run is too).
template <int MaxNT>
__device__ __forceinline__ void tsmm_store_rows_staged(const double (&d)[MaxNT][4], double* wb, int N, int NT,
                                                       Index K, Index rb, double* B, Index ldb, double beta,
                                                       bool vec_b) {
  const int lane = threadIdx.x % 32, g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int h = 0; h < 2; ++h)
#pragma unroll
    for (int nt = 0; nt < MaxNT; ++nt) {
      const int n = 8 * nt + 2 * t;
      if (nt < NT && n < N) {
        wb[(g + 8 * h) * N + n] = d[nt][2 * h];
        if (n + 1 < N) wb[(g + 8 * h) * N + n + 1] = d[nt][2 * h + 1];
      }
    }
  __syncwarp();
  const int rows = int(K - rb < 16 ? K - rb : 16), count = rows * N;
  double* bo = B + rb * ldb;
  if (ldb == N) {  // the rows are one run of memory
    if (vec_b) {   // 16-byte pieces, then an odd last element
      const double2* w2 = reinterpret_cast<const double2*>(wb);
      double2* b2 = reinterpret_cast<double2*>(bo);
      for (int e = lane; e < count / 2; e += 32) {
        double2 v = w2[e];
        if (beta != 0.0) {
          const double2 o = b2[e];
          v.x += beta * o.x;
          v.y += beta * o.y;
        }
        b2[e] = v;
      }
      if (count % 2 == 1 && lane == 0)
        bo[count - 1] = beta == 0.0 ? wb[count - 1] : wb[count - 1] + beta * bo[count - 1];
    } else {
      for (int e = lane; e < count; e += 32) bo[e] = beta == 0.0 ? wb[e] : wb[e] + beta * bo[e];
    }
  } else {  // rows ldb apart: the same consecutive elements, row by row
    const int dq = 32 / N, dr = 32 % N;
    int row = lane / N, col = lane % N;
    for (int e = lane; e < count; e += 32) {
      double* o = bo + row * ldb + col;
      *o = beta == 0.0 ? wb[e] : wb[e] + beta * *o;
      row += dq, col += dr;
      if (col >= N) col -= N, ++row;
    }
  }
  __syncwarp();  // the buffer is written again for the next rows
}

// A warp's cp.async copy of rows rb .. rb + 15 of A in 8-byte pieces, rows of
// P pieces, 32 < P <= 64 (odd M from 33, or rows not 16-byte aligned): lane
// l copies pieces l and l + 32 of each row into st (row stride S; an odd row's
// offsets XOR swz, a bit below 32). Rows past K are zero-filled, the padding
// columns are not copied. A copy costs a pointer step, a guard and the
// cp.async: the flat (row, piece) walk of narrower rows took 1.5x the kernel's
// instructions at M = N = 63, where rows ran 1.10x faster (47, 55: 1.09x,
// 41: 1.03x, 33, 35: the same on an H200). At 32 pieces and fewer, where
// the flat walk's warp copies are whole sectors, rows ran 0.95-1.05x in
// double and 0.92-0.99x in the complex kernel: the flat walk stays there.
__device__ __forceinline__ void copy_wide_rows_async(double* st, int S, int swz, const double* A, Index lda,
                                                     Index rb, Index K, int P) {
  const int lane = threadIdx.x % 32;
  if (rb < K) {
    const int rows = K - rb < 16 ? int(K - rb) : 16;
    const bool second = lane + 32 < P;
    const double* src = A + rb * lda + lane;
    for (int r = 0; r < 16; ++r, src += lda) {
      const bool ok = r < rows;
      double* d = st + r * S + (lane ^ (r & 1) * swz);
      cp_async(d, ok ? src : A, 8, ok ? 8 : 0);
      if (second) cp_async(d + 32, ok ? src + 32 : A, 8, ok ? 8 : 0);
    }
  }
  cp_async_commit();  // (an empty group past K keeps the wait counts uniform)
}

// alpha C's element (m, n) for the m16n8k4 kernels: alpha C[m][n], or, where a complex TSMM runs as the real
// one of 2M x 2N (tsm::NativeConfig::real), entry (m % 2, n % 2) of the real 2 x 2 block (x, y; -y, x) of
// x + iy = alpha C[m / 2][n / 2] (complex, C's strides in complex elements): a row (.., a.re, a.im, ..) of A
// times it gives (.., re(a (x + iy)), im(a (x + iy)), ..).
struct AlphaC {
  double re = 0, im = 0;
  bool complex = false;
  AlphaC(double a) : re(a) {}
  AlphaC(zcomplex a) : re(a.real()), im(a.imag()), complex(true) {}
  __device__ __forceinline__ double operator()(const double* C, int m, int n, Index ldcr, Index ldcc) const {
    if (!complex) return re * C[m * ldcr + n * ldcc];
    const double2 v = reinterpret_cast<const double2*>(C)[(m >> 1) * ldcr + (n >> 1) * ldcc];
    const double x = re * v.x - im * v.y, y = re * v.y + im * v.x;
    const int e = m & 1, f = n & 1;
    return e == f ? x : e ? -y : y;
  }
};

// TSMM, double, sm_90: a warp computes 16 rows of B per iteration with
// m16n8k4, half the shared-memory loads per row of the 8-row kernel above and
// twice its tensor rate. The inner index is permuted so that a lane's A
// elements are contiguous: unit u (8 columns of A), lane t = l % 4 and j < 2
// take column 8u + 2t + j (one 16-byte load per row and unit); the block
// stores alpha C in that fragment order,
// cf[((u NT + nt) 32 + l) 2 + j] = alpha C[8u + 2t + j][8nt + l/4], so every
// fragment load is one conflict-free 16-byte load. A sum over a permuted index
// is the same sum. MaxU x MaxNT bounds ceil(M/8) x ceil(N/8) (registers); the
// next 16 rows' loads are in flight during the DMMAs (leap-frog). Exact:
// M = 8 MaxU and N = 8 MaxNT, so the unit and tile counts, the fragment
// offsets and the guards are compile-time (the square shapes 40..64: 1-4%
// faster than run-time counts; at 32 the run-time kernel's 126 registers keep
// two blocks an SM, the exact one's 188 one, and both run alike).
// StageOut (odd N from 11, N = 2 mod 4 from 14; tsmm_mma16_stage_out): a
// warp puts its 16 rows of B in its own shared buffer and writes them back in
// consecutive elements, whole 32-byte sectors a store. The fragment stores
// write a row's 8-column pieces in 8-byte halves from two instructions at odd
// N, where rows are 8-byte aligned; odd M = N in 11..31 ran 1.3-1.6x the time
// of their even neighbours. Staged: 1.19-1.50x at odd 11..31 but 17 (1.04x),
// 1.01-1.21x at 33..57, 0.98x at 63; slower at 9 (0.84x) (an H200,
// same-process probe). At N = 2 mod 4 a row is 16 bytes off a sector at every
// other row, so a quarter warp's 64-byte piece spans three sectors: staged,
// 1.06x at 14 and 1.10-1.16x at 26..54 (A staged) once the fitted carve-out
// and the row tickets were in (0.85-0.99x before them); slower at 6 and 10,
// and at 18 and 22 unless A is staged too (0.95x alone, 1.07x both).
// StagesA > 0 (M not a multiple of 8, tsmm_mma16_stage_a): A reaches the
// warp by cp.async in whole sectors into StagesA shared buffers of its own,
// and the fragments are read from there. The register kernel loads such A in
// 8-byte halves of its fragments, and its next rows wait in registers: 174-253
// of them from M = 33, one block an SM; staged, at most 167.
template <int MaxU, int MaxNT, bool Exact, bool StageOut, int StagesA = 0>
__device__ __forceinline__ void tsmm_mma16_body(int M, int N, Index K, const double* __restrict__ A, Index lda,
                                                const double* __restrict__ C, Index ldcr, Index ldcc, AlphaC alpha,
                                                double beta, double* B, Index ldb, bool vec_a, bool vec_b,
                                                RowTickets tk) {
  extern __shared__ double smem_raw[];
  double* cf = smem_raw;
  if constexpr (Exact) M = 8 * MaxU, N = 8 * MaxNT;
  const int U = Exact ? MaxU : (M + 7) / 8, NT = Exact ? MaxNT : (N + 7) / 8;
  for (int e = threadIdx.x; e < U * NT * 64; e += blockDim.x) {
    const int j = e & 1, l = (e >> 1) & 31, nt = (e >> 6) % NT, u = (e >> 6) / NT;
    const int m = 8 * u + 2 * (l & 3) + j, n = 8 * nt + (l >> 2);
    cf[e] = (m < M && n < N) ? alpha(C, m, n, ldcr, ldcc) : 0.0;
  }
  __syncthreads();
  const int lane = threadIdx.x % 32, g = lane >> 2, t = lane & 3;
  const Index warps = Index(gridDim.x) * (blockDim.x / 32);
  WarpItems items(tk, Index(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32, warps);  // items: 16 rows
  Index r0 = items.item() * 16;
  if (r0 >= K) return;
  const double2* cf2 = reinterpret_cast<const double2*>(cf);
  const bool whole_b = vec_b && N % 8 == 0 && beta == 0.0;
  // The 16 rows' products from fragments frag(h, u) of A (rows g + 8h, columns 8u + 2t, +1).
  auto multiply = [&](double(&d)[MaxNT][4], auto frag) {
#pragma unroll
    for (int nt = 0; nt < MaxNT; ++nt) d[nt][0] = d[nt][1] = d[nt][2] = d[nt][3] = 0.0;
#pragma unroll
    for (int u = 0; u < MaxU; ++u)
      if (u < U) {
        const double2 a0 = frag(0, u), a1 = frag(1, u);
#pragma unroll
        for (int nt = 0; nt < MaxNT; ++nt)
          if (nt < NT) {
            const double2 b = cf2[(u * NT + nt) * 32 + lane];
            dmma16(d[nt], a0.x, a1.x, b.x);
            dmma16(d[nt], a0.y, a1.y, b.y);
          }
      }
  };
  // Rows rb.. of B from the fragments d; wb: the warp's 16 x N buffer (StageOut).
  auto store = [&](const double(&d)[MaxNT][4], Index rb, double* wb) {
    if constexpr (StageOut) {
      tsmm_store_rows_staged<MaxNT>(d, wb, N, NT, K, rb, B, ldb, beta, vec_b);
    } else if (whole_b && rb + 16 <= K) {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        double2* br = reinterpret_cast<double2*>(B + (rb + g + 8 * h) * ldb + 2 * t);
#pragma unroll
        for (int nt = 0; nt < MaxNT; ++nt)
          if (nt < NT) br[4 * nt] = make_double2(d[nt][2 * h], d[nt][2 * h + 1]);
      }
    } else {
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const Index row = rb + g + 8 * h;
        if (row >= K) continue;
        double* br = B + row * ldb;
#pragma unroll
        for (int nt = 0; nt < MaxNT; ++nt) {
          const int n = 8 * nt + 2 * t;
          if (nt >= NT || n >= N) continue;
          double v0 = d[nt][2 * h], v1 = d[nt][2 * h + 1];
          if (vec_b && n + 1 < N) {  // one 16-byte store for the pair
            if (beta != 0.0) {
              const double2 o = *reinterpret_cast<const double2*>(br + n);
              v0 += beta * o.x;
              v1 += beta * o.y;
            }
            *reinterpret_cast<double2*>(br + n) = make_double2(v0, v1);
            continue;
          }
          br[n] = beta == 0.0 ? v0 : v0 + beta * br[n];
          if (n + 1 < N) br[n + 1] = beta == 0.0 ? v1 : v1 + beta * br[n + 1];
        }
      }
    }
  };
  if constexpr (StagesA > 0) {
    // A through StagesA buffers of the warp's own (cp.async), 16 rows of A a
    // stage at row stride S = 8 U. At odd U the 16-byte fragment loads of a
    // quarter warp (rows g and g + 1) meet no bank twice; at even U an odd
    // row's 16-byte pairs are swapped in fours (column ^ 8) to the same end. A
    // stage also holds the 16 x N rows of B of StageOut once its fragments
    // are read. A row is copied in pieces of w doubles (16 bytes where every
    // row is 16-byte aligned), consecutive lanes on consecutive pieces, so
    // that a warp copy is whole sectors of a packed A whatever M; rows of more
    // than 32 pieces a lane a column (copy_wide_rows_async). The padding
    // columns are not copied: the last unit's fragments there are zeroed
    // (0 x NaN).
    const int S = 8 * U, swz = U % 2 == 0 ? 8 : 0, ss = tsmm_stage_a_doubles(U, N, StageOut);
    double* ws = smem_raw + U * NT * 64 + (threadIdx.x / 32) * StagesA * ss;
    const int w = vec_a && M % 2 == 0 ? 2 : 1, P = M / w;  // pieces a row
    const int drow = 32 / P, dcol = 32 % P, row_l = lane / P, col_l = lane % P;
    auto issue = [&](Index rb, double* st) {
      if constexpr (MaxU == 8)  // (P > 32 needs M > 32)
        if (P > 32) return copy_wide_rows_async(st, S, swz, A, lda, rb, K, P);
      if (rb < K)
        for (int p = lane, row = row_l, c = col_l; p < 16 * P; p += 32) {
          const Index gr = rb + row;
          const bool ok = gr < K;  // rows past K are zero-filled
          cp_async(st + row * S + (c * w ^ (row & 1) * swz), A + (ok ? gr * lda + c * w : 0), 8 * w, ok ? 8 * w : 0);
          c += dcol, row += drow;
          if (c >= P) c -= P, ++row;
        }
      cp_async_commit();  // (an empty group past K keeps the wait counts uniform)
    };
    Index ahead[StagesA];  // the rows of the stages in flight, ahead[0] = r0
    ahead[0] = r0;
#pragma unroll
    for (int s = 1; s < StagesA; ++s) items.advance(), ahead[s] = items.item() * 16;
#pragma unroll
    for (int s = 0; s < StagesA - 1; ++s) issue(ahead[s], ws + s * ss);
    const int m_last = 8 * (U - 1) + 2 * t, x8 = (g & 1) * swz;
    for (int it = 0;; ++it) {
      issue(ahead[StagesA - 1], ws + ((it + StagesA - 1) % StagesA) * ss);
      cp_async_wait<StagesA - 1>();
      __syncwarp();
      double* st = ws + (it % StagesA) * ss;
      // unit u of a swapped row at 8 (u ^ 1): 8 u + x8 for even u, 8 u - x8 for odd
      const double *sa_even = st + g * S + 2 * t + x8, *sa_odd = sa_even - 2 * x8;
      double d[MaxNT][4];
      multiply(d, [&](int h, int u) {
        double2 v = *reinterpret_cast<const double2*>((u % 2 == 0 ? sa_even : sa_odd) + 8 * h * S + 8 * u);
        if (u == U - 1) {
          if (m_last >= M) v.x = 0.0;
          if (m_last + 1 >= M) v.y = 0.0;
        }
        return v;
      });
      __syncwarp();  // every lane's fragments read: the stage may take B
      store(d, r0, st);
      __syncwarp();  // and the stage is copied into again
#pragma unroll
      for (int s = 0; s + 1 < StagesA; ++s) ahead[s] = ahead[s + 1];
      items.advance(), ahead[StagesA - 1] = items.item() * 16;
      r0 = ahead[0];
      if (r0 >= K) break;
    }
    cp_async_wait<0>();
    return;
  } else {
    // Whole units of A with 16-byte access: the common case takes unguarded
    // loads (warp-uniform choice per 16 rows).
    const bool whole_a = vec_a && M % 8 == 0;
    double2 a[2][MaxU];
    auto load = [&](Index rb, double2(&x)[2][MaxU]) {
      if (whole_a && rb + 16 <= K) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const double2* ar = reinterpret_cast<const double2*>(A + (rb + g + 8 * h) * lda + 2 * t);
#pragma unroll
          for (int u = 0; u < MaxU; ++u)
            if (u < U) x[h][u] = __ldg(ar + 4 * u);
        }
        return;
      }
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const Index row = rb + g + 8 * h;
        const double* ar = A + row * lda + 2 * t;
#pragma unroll
        for (int u = 0; u < MaxU; ++u)
          if (u < U) {
            const int m = 8 * u + 2 * t;
            x[h][u].x = row < K && m < M ? __ldg(ar + 8 * u) : 0.0;
            x[h][u].y = row < K && m + 1 < M ? __ldg(ar + 8 * u + 1) : 0.0;
          }
      }
    };
    load(r0, a);
    double* wb = smem_raw + U * NT * 64 + (threadIdx.x / 32) * 16 * N;
    while (true) {
      items.advance();
      const Index rn = items.item() * 16;
      const bool more = rn < K;
      double2 an[2][MaxU];
      if (more) load(rn, an);
      double d[MaxNT][4];
      multiply(d, [&](int h, int u) { return a[h][u]; });
      store(d, r0, wb);
      if (!more) break;
#pragma unroll
      for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int u = 0; u < MaxU; ++u) a[h][u] = an[h][u];
      r0 = rn;
    }
  }
}

template <int MaxU, int MaxNT, bool Exact = false>
__global__ void __launch_bounds__(256)
    tsmm_mma16_kernel(int M, int N, Index K, const double* __restrict__ A, Index lda, const double* __restrict__ C,
                      Index ldcr, Index ldcc, AlphaC alpha, double beta, double* B, Index ldb, bool vec_a,
                      bool vec_b, RowTickets tk) {
  tsmm_mma16_body<MaxU, MaxNT, Exact, false>(M, N, K, A, lda, C, ldcr, ldcc, alpha, beta, B, ldb, vec_a, vec_b, tk);
}
template <int MaxU, int MaxNT>
__global__ void __launch_bounds__(256, tsmm_mma16_staged_min_blocks(MaxU, MaxNT))
    tsmm_mma16_staged_kernel(int M, int N, Index K, const double* __restrict__ A, Index lda,
                             const double* __restrict__ C, Index ldcr, Index ldcc, AlphaC alpha, double beta,
                             double* B, Index ldb, bool vec_a, bool vec_b, RowTickets tk) {
  tsmm_mma16_body<MaxU, MaxNT, false, true>(M, N, K, A, lda, C, ldcr, ldcc, alpha, beta, B, ldb, vec_a, vec_b, tk);
}
template <int MaxU, int MaxNT, bool StageOut, int StagesA, int Threads>
__global__ void __launch_bounds__(Threads, Threads == 256 ? 2 : 1)
    tsmm_mma16_stage_a_kernel(int M, int N, Index K, const double* __restrict__ A, Index lda,
                              const double* __restrict__ C, Index ldcr, Index ldcc, AlphaC alpha, double beta,
                              double* B, Index ldb, bool vec_a, bool vec_b, RowTickets tk) {
  tsmm_mma16_body<MaxU, MaxNT, false, StageOut, StagesA>(M, N, K, A, lda, C, ldcr, ldcc, alpha, beta, B, ldb,
                                                         vec_a, vec_b, tk);
}

// A through shared memory in the m16n8k4 kernel (StagesA): at M not a
// multiple of 8, odd from 11 and even from 26, where it ran 1.03-1.40x the
// register loads on an H200 (0.93-0.97x at 9, 10, 14 and 18), and at 18 and
// 22, where with B staged too it ran 1.10-1.13x B staged alone (the sweep of
// 2026-11-30 in docs/perf/tsm.md; 14 and 10 0.97x and 1.02x). From M = 33 in
// blocks of 12 warps (at most 167 registers, one block an SM): 1.08-1.17x two
// blocks of 8 at 33..39, 1.13-1.45x one of 8 at 41..63, where the stages'
// shared memory leaves room for no second block. (Three blocks of 8 an SM at
// M, N <= 16, 85 registers: 0.90-0.97x.)
constexpr int kTsmmStagesA = 2;
// Benchmark knobs: TESSERA_TSM_STAGE_A = 0 keeps A in registers everywhere, 2 stages it at every M not a
// multiple of 8; TESSERA_TSM_STAGE_OUT = 0 never stages B's rows, 2 stages them at every N not a multiple of 4
// from 5. Unset or 1: the defaults.
inline bool tsmm_mma16_stage_a(int M) {
  static const long mode = env_integer("TESSERA_TSM_STAGE_A", 0, 2).value_or(1);
  if (M % 8 == 0 || mode == 0) return false;
  return mode == 2 || M >= (M % 2 == 1 ? 11 : M % 4 == 2 ? 18 : 26);
}
inline bool tsmm_mma16_stage_out(int N) {
  static const long mode = env_integer("TESSERA_TSM_STAGE_OUT", 0, 2).value_or(1);
  if (N % 4 == 0 || mode == 0) return false;
  return N >= (mode == 2 ? 5 : N % 2 == 1 ? 11 : 14);
}

template <int MaxU, int MaxNT, bool Exact = false>
void launch_tsmm_mma16_as(cudaStream_t stream, int M, int N, Index K, AlphaC alpha, const double* A, Index lda,
                          const double* C, Index ldcr, Index ldcc, double beta, double* B, Index ldb) {
  const bool vec_a = reinterpret_cast<std::uintptr_t>(A) % 16 == 0 && lda % 2 == 0;
  const bool aligned_b = reinterpret_cast<std::uintptr_t>(B) % 16 == 0;
  const bool stage = !Exact && tsmm_mma16_stage_out(N);  // (exact shapes are multiples of 8)
  const bool stage_a = !Exact && tsmm_mma16_stage_a(M);
  // (TESSERA_TSM_WIDE_A = 0, benchmarks: blocks of 8 warps there too.)
  static const bool wide_ok = !env_switched_off("TESSERA_TSM_WIDE_A");
  const bool wide_a = wide_ok && stage_a && MaxU == 8 && M > 32;
  const int threads = wide_a ? 384 : 256, warps = threads / 32;
  // Staged rows take 16-byte pieces when the run of rows starts 16-byte aligned; the fragment stores need
  // every row so.
  const bool vec_b = aligned_b && (stage ? ldb == N : ldb % 2 == 0);
  const int U = (M + 7) / 8;
  // alpha C's fragments, then a warp's A stages or its buffer of B's rows
  const int per_warp = stage_a ? kTsmmStagesA * tsmm_stage_a_doubles(U, N, stage) : stage ? 16 * N : 0;
  const std::size_t smem = (std::size_t(U) * ((N + 7) / 8) * 64 + std::size_t(warps) * per_warp) * sizeof(double);
  auto go = [&](auto kernel) {
    const int per_sm = resident_blocks(kernel, threads, smem);
    const Index rows_per_block = Index(warps) * 16;
    const Index want = (K + rows_per_block - 1) / rows_per_block;
    const Index grid = launch_grid(want, per_sm);
    const RowTickets tk = row_tickets(stream, tsm::tsmm_ticket_items(false, M, N), want, grid);
    kernel<<<unsigned(grid), threads, smem, stream>>>(M, N, K, A, lda, C, ldcr, ldcc, alpha, beta, B, ldb, vec_a,
                                                       vec_b, tk);
  };
  constexpr int wide = MaxU == 8 ? 384 : 256;  // (only MaxU = 8 is ever wide: one kernel otherwise)
  if constexpr (Exact)
    go(tsmm_mma16_kernel<MaxU, MaxNT, true>);
  else if (wide_a)
    stage ? go(tsmm_mma16_stage_a_kernel<MaxU, MaxNT, true, kTsmmStagesA, wide>)
          : go(tsmm_mma16_stage_a_kernel<MaxU, MaxNT, false, kTsmmStagesA, wide>);
  else if (stage_a)
    stage ? go(tsmm_mma16_stage_a_kernel<MaxU, MaxNT, true, kTsmmStagesA, 256>)
          : go(tsmm_mma16_stage_a_kernel<MaxU, MaxNT, false, kTsmmStagesA, 256>);
  else if (stage)
    go(tsmm_mma16_staged_kernel<MaxU, MaxNT>);
  else
    go(tsmm_mma16_kernel<MaxU, MaxNT, false>);
  check(cudaGetLastError(), "tsmm (tensor cores, m16n8k4) launch");
}

// Register bounds (units of A, tiles of B) by M and by N: 16, 32 or 64.
template <int MaxU>
void launch_tsmm_mma16_n(cudaStream_t stream, int M, int N, Index K, AlphaC alpha, const double* A, Index lda,
                         const double* C, Index ldcr, Index ldcc, double beta, double* B, Index ldb) {
  if (N <= 16) return launch_tsmm_mma16_as<MaxU, 2>(stream, M, N, K, alpha, A, lda, C, ldcr, ldcc, beta, B, ldb);
  if (N <= 32) return launch_tsmm_mma16_as<MaxU, 4>(stream, M, N, K, alpha, A, lda, C, ldcr, ldcc, beta, B, ldb);
  launch_tsmm_mma16_as<MaxU, 8>(stream, M, N, K, alpha, A, lda, C, ldcr, ldcc, beta, B, ldb);
}
// The shapes with an exact m16n8k4 body (M = N = 40, 48, 56, 64).
constexpr bool tsmm_mma16_exact(int M, int N) { return M == N && M % 8 == 0 && M >= 40 && M <= 64; }

inline void launch_tsmm_mma16(cudaStream_t stream, int M, int N, Index K, AlphaC alpha, const double* A, Index lda,
                              const double* C, Index ldcr, Index ldcc, double beta, double* B, Index ldb) {
  if (tsmm_mma16_exact(M, N))
    switch (M / 8) {
      case 5: return launch_tsmm_mma16_as<5, 5, true>(stream, M, N, K, alpha, A, lda, C, ldcr, ldcc, beta, B, ldb);
      case 6: return launch_tsmm_mma16_as<6, 6, true>(stream, M, N, K, alpha, A, lda, C, ldcr, ldcc, beta, B, ldb);
      case 7: return launch_tsmm_mma16_as<7, 7, true>(stream, M, N, K, alpha, A, lda, C, ldcr, ldcc, beta, B, ldb);
      case 8: return launch_tsmm_mma16_as<8, 8, true>(stream, M, N, K, alpha, A, lda, C, ldcr, ldcc, beta, B, ldb);
      default: break;
    }
  if (M <= 16) return launch_tsmm_mma16_n<2>(stream, M, N, K, alpha, A, lda, C, ldcr, ldcc, beta, B, ldb);
  if (M <= 32) return launch_tsmm_mma16_n<4>(stream, M, N, K, alpha, A, lda, C, ldcr, ldcc, beta, B, ldb);
  launch_tsmm_mma16_n<8>(stream, M, N, K, alpha, A, lda, C, ldcr, ldcc, beta, B, ldb);
}

// TSMM, double, the smallest shapes (tsmm_small_shape: M, N at compile
// time, rows contiguous, 16-byte aligned). A warp takes 32 pairs of rows at a
// time: their M x 32 16-byte words of A are read coalesced (the next chunk's
// in flight during this one's FMAs, leap-frog), transposed through the warp's
// shared memory so that each lane holds its pair's rows, and the lane's N
// words of B go back the same way, to coalesced 16-byte stores (lane-strided
// 16-byte loads and stores straight from registers measured 15% (2 x 2) to
// 3.3x (3 x 17) slower on the H100). alpha C in registers, or (CS) in the
// block's shared memory, read as broadcasts, where its M N doubles would cost
// the registers of more warps. Rows past the last whole chunk are done one
// per lane by the first warp.
template <int M, int N>
struct SmallTsmm {
  static constexpr int SA = odd_stride(M), SB = odd_stride(N);
  static constexpr int words = 32 * (SA > SB ? SA : SB);  // 16-byte words of shared memory per warp
  static constexpr int c_words = (M * N + 1) / 2;         // alpha C's (CS) ahead of the warps'
};

template <int M, int N, bool CS>
__global__ void __launch_bounds__(256)
    tsmm_small_kernel(Index K, const double* __restrict__ A, const double* __restrict__ C, Index ldcr, Index ldcc,
                      double alpha, double beta, double* B) {
  using S = SmallTsmm<M, N>;
  extern __shared__ double2 stage_raw[];
  const int lane = threadIdx.x % 32;
  double2* ws = stage_raw + (CS ? S::c_words : 0) + (threadIdx.x / 32) * S::words;
  // (Read through volatile: loaded where used, not hoisted out of the loop into the registers saved.)
  volatile double* cs = reinterpret_cast<double*>(stage_raw);
  double c[CS ? 1 : M][CS ? 1 : N];
  if constexpr (CS) {
    for (int i = threadIdx.x; i < M * N; i += blockDim.x) cs[i] = alpha * __ldg(C + (i / N) * ldcr + (i % N) * ldcc);
    __syncthreads();
  } else {
#pragma unroll
    for (int m = 0; m < M; ++m)
#pragma unroll
      for (int n = 0; n < N; ++n) c[m][n] = alpha * __ldg(C + m * ldcr + n * ldcc);
  }
  auto cv = [&](int m, int n) {
    if constexpr (CS) return double(cs[m * N + n]);
    else return c[m][n];
  };
  // One row x to one row y (the rows past the whole chunks).
  auto row_out = [&](const double* x, double* y) {
#pragma unroll
    for (int n = 0; n < N; ++n) {
      double v = 0;
#pragma unroll
      for (int m = 0; m < M; ++m) v += x[m] * cv(m, n);
      y[n] = v;
    }
  };
  const Index chunks = K / 64, warps = Index(gridDim.x) * (blockDim.x / 32);
  const Index w0 = Index(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32;
  if (w0 == 0)  // the rows past the whole chunks, one per lane
    for (Index r = chunks * 64 + lane; r < K; r += 32) {
      double y[N];
      row_out(A + r * M, y);
#pragma unroll
      for (int n = 0; n < N; ++n) B[r * N + n] = beta == 0.0 ? y[n] : y[n] + beta * B[r * N + n];
    }
  const double2* A2 = reinterpret_cast<const double2*>(A);
  double2* B2 = reinterpret_cast<double2*>(B);
  Index ch = w0;
  if (ch >= chunks) return;
  double2 x[M], xn[M];
#pragma unroll
  for (int i = 0; i < M; ++i) x[i] = __ldg(A2 + ch * 32 * M + i * 32 + lane);
  while (true) {
    const Index next = ch + warps;
    const bool more = next < chunks;
    if (more)
#pragma unroll
      for (int i = 0; i < M; ++i) xn[i] = __ldg(A2 + next * 32 * M + i * 32 + lane);
    // Word f = 32 i + lane of the chunk is word f % M of pair f / M (with
    // M = 1 the lane's own: no staging).
    double a[2 * M];
    if constexpr (M == 1) {
      a[0] = x[0].x, a[1] = x[0].y;
    } else {
#pragma unroll
      for (int i = 0; i < M; ++i) {
        const int f = i * 32 + lane;
        ws[(f / M) * S::SA + f % M] = x[i];
      }
      __syncwarp();
#pragma unroll
      for (int i = 0; i < M; ++i) {
        const double2 v = ws[lane * S::SA + i];
        a[2 * i] = v.x, a[2 * i + 1] = v.y;
      }
      __syncwarp();
    }
    // The pair's 2N outputs (row 0's N, then row 1's), two columns of both
    // rows at a time, each alpha C element read once; a 16-byte word goes to
    // the warp buffer as soon as both its doubles are done, so that the 2N
    // sums are never all live at once (11..15: 128-174 registers).
    double y[2 * N];
#pragma unroll
    for (int n = 0; n < N; n += 2) {
      const int w = n + 1 < N ? 2 : 1;  // columns in this step
      double v[2][2] = {};
#pragma unroll
      for (int m = 0; m < M; ++m)
#pragma unroll
        for (int q = 0; q < w; ++q) {
          const double cm = cv(m, n + q);
          v[0][q] += a[m] * cm;
          v[1][q] += a[M + m] * cm;
        }
#pragma unroll
      for (int q = 0; q < w; ++q) y[n + q] = v[0][q], y[N + n + q] = v[1][q];
      if constexpr (N > 1) {
        // Output e (row e / N, column e % N) is done once `cols` columns are.
        auto done = [](int e, int cols) { return e % N < cols; };
#pragma unroll
        for (int j = 0; j < N; ++j)
          if (done(2 * j, n + w) && done(2 * j + 1, n + w) && !(done(2 * j, n) && done(2 * j + 1, n)))
            ws[lane * S::SB + j] = make_double2(y[2 * j], y[2 * j + 1]);
      }
    }
    if constexpr (N > 1) __syncwarp();
#pragma unroll
    for (int j = 0; j < N; ++j) {
      const int f = j * 32 + lane;
      double2 v = N > 1 ? ws[(f / N) * S::SB + f % N] : make_double2(y[0], y[1]);
      double2* dst = B2 + ch * 32 * N + f;
      if (beta != 0.0) {
        const double2 o = *dst;
        v.x += beta * o.x;
        v.y += beta * o.y;
      }
      *dst = v;
    }
    if constexpr (N > 1) __syncwarp();
    if (!more) break;
#pragma unroll
    for (int i = 0; i < M; ++i) x[i] = xn[i];
    ch = next;
  }
}

// Where the compile-time kernel keeps alpha C in shared memory by default: from M = N = 7 (an H200: 100.1%
// of copy at 7, 89.5% with it in registers; ties at 5, 6).
constexpr bool tsmm_small_c_shared(int M, int N) { return M == N && M >= 7; }

// Benchmark knobs: TESSERA_TSM_SMALL_THREADS = threads a block (32..256 by 32; default 256 below M = 5, else
// 128); TESSERA_TSM_SMALL_C = 0 keeps alpha C in registers, 2 in shared memory, at every small shape (unset or
// 1: the default, tsmm_small_c_shared).
template <int M, int N, bool CS>
void launch_tsmm_small_as(cudaStream_t stream, Index K, double alpha, const double* A, const double* C, Index ldcr,
                          Index ldcc, double beta, double* B) {
  static const int threads =
      int(env_integer("TESSERA_TSM_SMALL_THREADS", 32, 256).value_or(M >= 5 ? 128 : 256)) / 32 * 32;
  using S = SmallTsmm<M, N>;
  const std::size_t smem = (std::size_t(threads / 32) * S::words + (CS ? S::c_words : 0)) * sizeof(double2);
  auto kernel = tsmm_small_kernel<M, N, CS>;
  const int per_sm = resident_blocks(kernel, threads, smem);
  // At least two chunks a warp, so that the leap-frog has a next chunk.
  const Index want = (K / 64 + 2 * (threads / 32) - 1) / (2 * (threads / 32));
  const Index grid = single_pass_grid(want, per_sm);
  kernel<<<unsigned(grid), threads, smem, stream>>>(K, A, C, ldcr, ldcc, alpha, beta, B);
  check(cudaGetLastError(), "tsmm (small shape) launch");
}
template <int M, int N>
void launch_tsmm_small_as(cudaStream_t stream, Index K, double alpha, const double* A, const double* C, Index ldcr,
                          Index ldcc, double beta, double* B) {
  static const long mode = env_integer("TESSERA_TSM_SMALL_C", 0, 2).value_or(1);
  // Past 10 x 10 alpha C would not fit in registers: only the shared-memory form is compiled.
  if constexpr (M * N > 100)
    launch_tsmm_small_as<M, N, true>(stream, K, alpha, A, C, ldcr, ldcc, beta, B);
  else if (mode == 2 || (mode == 1 && tsmm_small_c_shared(M, N)))
    launch_tsmm_small_as<M, N, true>(stream, K, alpha, A, C, ldcr, ldcc, beta, B);
  else
    launch_tsmm_small_as<M, N, false>(stream, K, alpha, A, C, ldcr, ldcc, beta, B);
}

// Runs the compile-time kernel when the shape has one and the rows are
// contiguous and 16-byte aligned; false otherwise.
inline bool launch_tsmm_small(cudaStream_t stream, int M, int N, Index K, double alpha, const double* A, Index lda,
                              const double* C, Index ldcr, Index ldcc, double beta, double* B, Index ldb) {
  if (!tsm::tsmm_small_shape(M, N) || lda != M || ldb != N || reinterpret_cast<std::uintptr_t>(A) % 16 != 0 ||
      reinterpret_cast<std::uintptr_t>(B) % 16 != 0)
    return false;
  switch (N == 17 ? 17 : M) {
    case 1: launch_tsmm_small_as<1, 1>(stream, K, alpha, A, C, ldcr, ldcc, beta, B); break;
    case 2: launch_tsmm_small_as<2, 2>(stream, K, alpha, A, C, ldcr, ldcc, beta, B); break;
    case 3: launch_tsmm_small_as<3, 3>(stream, K, alpha, A, C, ldcr, ldcc, beta, B); break;
    case 4: launch_tsmm_small_as<4, 4>(stream, K, alpha, A, C, ldcr, ldcc, beta, B); break;
    case 5: launch_tsmm_small_as<5, 5>(stream, K, alpha, A, C, ldcr, ldcc, beta, B); break;
    case 6: launch_tsmm_small_as<6, 6>(stream, K, alpha, A, C, ldcr, ldcc, beta, B); break;
    case 7: launch_tsmm_small_as<7, 7>(stream, K, alpha, A, C, ldcr, ldcc, beta, B); break;
    case 8: launch_tsmm_small_as<8, 8>(stream, K, alpha, A, C, ldcr, ldcc, beta, B); break;
    case 9: launch_tsmm_small_as<9, 9>(stream, K, alpha, A, C, ldcr, ldcc, beta, B); break;
    case 10: launch_tsmm_small_as<10, 10>(stream, K, alpha, A, C, ldcr, ldcc, beta, B); break;
    case 11: launch_tsmm_small_as<11, 11>(stream, K, alpha, A, C, ldcr, ldcc, beta, B); break;
    case 12: launch_tsmm_small_as<12, 12>(stream, K, alpha, A, C, ldcr, ldcc, beta, B); break;
    case 13: launch_tsmm_small_as<13, 13>(stream, K, alpha, A, C, ldcr, ldcc, beta, B); break;
    case 14: launch_tsmm_small_as<14, 14>(stream, K, alpha, A, C, ldcr, ldcc, beta, B); break;
    case 15: launch_tsmm_small_as<15, 15>(stream, K, alpha, A, C, ldcr, ldcc, beta, B); break;
    default: launch_tsmm_small_as<3, 17>(stream, K, alpha, A, C, ldcr, ldcc, beta, B); break;
  }
  return true;
}

// Complex TSMM as the real one of 2M x 2N (tsm::NativeConfig::real): A and B are rows of 2M and 2N doubles,
// alpha C the 2 x 2 real blocks that AlphaC reads. The real kernel's beta is real: a beta with an imaginary
// part scales B first (a second pass over B).
inline void launch_tsmm_real(cudaStream_t stream, int M, int N, Index K, zcomplex alpha, const zcomplex* A, Index lda,
                             const zcomplex* C, Index ldcr, Index ldcc, zcomplex beta, zcomplex* B, Index ldb) {
  double beta_re = beta.real();
  if (beta.imag() != 0.0) {
    scale_b(stream, B, N, K, ldb, beta);
    beta_re = 1.0;
  }
  launch_tsmm_mma16(stream, 2 * M, 2 * N, K, AlphaC(alpha), reinterpret_cast<const double*>(A), 2 * lda,
                    reinterpret_cast<const double*>(C), ldcr, ldcc, beta_re, reinterpret_cast<double*>(B), 2 * ldb);
}

}  // namespace tsm_detail

namespace {
template <class T>
void run(cudaStream_t stream, int M, int N, std::int64_t K, T alpha, const T* A, std::int64_t lda, const T* C,
         std::int64_t ldcr, std::int64_t ldcc, T beta, T* B, std::int64_t ldb) {
  using namespace tsm_detail;
  if (K == 0) return;
  if (alpha == T(0)) {
    scale_b(stream, B, N, K, ldb, beta);
    return;
  }
  const auto c = config_for(false, !std::is_same_v<T, double>, M, N);
  if constexpr (std::is_same_v<T, double>) {
    if (c.mma == 2) return launch_tsmm_mma16(stream, M, N, K, alpha, A, lda, C, ldcr, ldcc, beta, B, ldb);
    if (c.mma == 1) return launch_tsmm_mma(stream, M, N, K, alpha, A, lda, C, ldcr, ldcc, beta, B, ldb);
    if (c.outputs == 1 && launch_tsmm_small(stream, M, N, K, alpha, A, lda, C, ldcr, ldcc, beta, B, ldb)) return;
    // Rows the compile-time kernel does not take at its shapes past the register kernel's single pass (11..15).
    if (c.outputs == 1 && tsm::tsmm_small_shape(M, N) && !tsm::tsmm_single_pass(M, N))
      return launch_tsmm_mma16(stream, M, N, K, alpha, A, lda, C, ldcr, ldcc, beta, B, ldb);
  } else if (c.real == 1) {
    return launch_tsmm_real(stream, M, N, K, alpha, A, lda, C, ldcr, ldcc, beta, B, ldb);
  } else if (c.mma == 2) {
    return launch_tsmm_z_mma16(stream, c, M, N, K, alpha, A, lda, C, ldcr, ldcc, beta, B, ldb);
  }
  switch (c.outputs) {
    case 1: launch_tsmm<T, 1, 2>(stream, M, N, K, alpha, A, lda, C, ldcr, ldcc, beta, B, ldb); break;
    case 2: launch_tsmm<T, 2, 2>(stream, M, N, K, alpha, A, lda, C, ldcr, ldcc, beta, B, ldb); break;
    default: launch_tsmm<T, 4, 2>(stream, M, N, K, alpha, A, lda, C, ldcr, ldcc, beta, B, ldb); break;
  }
}
}  // namespace

void tsm_tsmm(cudaStream_t stream, int M, int N, std::int64_t K, double alpha, const double* A, std::int64_t lda,
              const double* C, std::int64_t ldcr, std::int64_t ldcc, double beta, double* B, std::int64_t ldb) {
  run(stream, M, N, K, alpha, A, lda, C, ldcr, ldcc, beta, B, ldb);
}
void tsm_tsmm(cudaStream_t stream, int M, int N, std::int64_t K, zcomplex alpha, const zcomplex* A,
              std::int64_t lda, const zcomplex* C, std::int64_t ldcr, std::int64_t ldcc, zcomplex beta,
              zcomplex* B, std::int64_t ldb) {
  run(stream, M, N, K, alpha, A, lda, C, ldcr, ldcc, beta, B, ldb);
}

std::string tsm_native_config(bool tsmttsm, bool complex, int M, int N) {
  const auto c = tsm_detail::config_for(tsmttsm, complex, M, N);
  if (c.real == 1)
    return "the real product of " + std::to_string(2 * M) + "x" + std::to_string(2 * N) +
           " (a complex element a 2 x 2 real block) on the double " +
           (tsmttsm ? "tensor-core kernel with cp.async stages (" + tsm::config_name(true, c) + ")"
                    : std::string("m16n8k4 kernel"));
  if (c.mma > 0 && tsmttsm)
    return "tsmttsm FP64 tensor cores (DMMA m8n8k4), a warp per " + std::to_string(8 * c.mma) + "x" +
           std::to_string(c.tiles ? 8 * c.tiles : 8 * c.mma) + " block of C, " +
           (c.edge ? "the rows past the last multiple of 16 by FMA, " : "") +
           (c.stages ? "rows staged by a " + std::to_string(c.stages) + "-stage cp.async pipeline" : "leap-frog") +
           ", shared-memory block sum";
  if (c.mma == 2 && complex)
    return "tsmm FP64 tensor cores (DMMA m16n8k4), " + std::to_string(c.products) +
           " real products a complex one, 16 rows x " + std::to_string(8 * c.tiles) +
           " columns per warp, alpha C in shared memory in fragment order" +
           (c.stages ? ", A staged by a " + std::to_string(c.stages) + "-stage cp.async pipeline" : "");
  if (c.mma == 2)
    return std::string("tsmm FP64 tensor cores (DMMA m16n8k4), 16 rows per warp, alpha C in shared memory in "
                       "fragment order") +
           (tsm_detail::tsmm_mma16_exact(M, N) ? ", shape at compile time" : "");
  if (!tsmttsm && !complex && c.outputs == 1 && tsm::tsmm_small_shape(M, N))
    return "tsmm " + std::to_string(M) + "x" + std::to_string(N) +
           " at compile time (contiguous rows), 32 row pairs a warp transposed through shared memory (coalesced "
           "16-byte loads and stores), alpha C " +
           (tsm_detail::tsmm_small_c_shared(M, N) ? "in shared memory" : "in registers");
  if (c.mma > 0) return "tsmm FP64 tensor cores (DMMA m8n8k4), 8 rows per warp, alpha C in shared memory";
  if (tsmttsm && !complex && c.mma == 0 && c.tile == 1 && tsm::tsmttsm_small_shape(M, N))
    return "tsmttsm " + std::to_string(M) + "x" + std::to_string(N) +
           " at compile time (contiguous rows), rows through cp.async stages in shared memory, 2 to 16 "
           "lanes a row pair (odd sides) or row (even) each with a tile of C in registers, shared-memory block sum";
  if (tsmttsm)
    return "tsmttsm tile " + std::to_string(c.tile) + "x" + std::to_string(c.tile) +
           ", leap-frog, shared-memory block sum";
  return "tsmm " + std::to_string(c.outputs) + " outputs per thread, 2 rows unrolled, C in shared memory";
}

}  // namespace tessera::native_cuda
