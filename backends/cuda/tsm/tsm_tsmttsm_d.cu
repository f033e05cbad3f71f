// Native TSMTTSM, double: the register tiles 1, 2, 4, 8 and the tensor-core warp tiles 1, 2, 4,
// fragments from global memory or from cp.async stages (there also warps of 2 x 5 and 2 x 6 tiles); the
// staged kernels also run complex products as real ones of twice the sides (tsm::NativeConfig::real).
#include "tsm/tsm_mma.cuh"

namespace tessera::native_cuda {

namespace tsm_detail {
namespace {
// TSMTTSM, double, the compile-time shapes (tsm::tsmttsm_small_shape; rows
// contiguous, 16-byte aligned). A warp takes 32 pairs of rows of A and B at a
// time: each lane copies 16-byte words of them by cp.async into one of the
// warp's `stages` buffers (the next chunks in flight without registers),
// every pair's words at an odd stride. Two lanes share a pair, each with half
// of C's rows (MH of them) and all its columns: MH x N sums in registers
// (all M x N, 2 M N registers, would not fit beside the rows at 9 and 10).
// Lane 2q + h reads pair q's (then q + 16's) rows of A at columns h MH ...
// (8-byte loads) and of B whole (16-byte loads), without bank conflicts, and
// adds both rows' products: no shuffles and no shared-memory traffic per
// product, one warp sum at the end. Rows past the whole chunks: two lanes a
// row in the first warp. One atomic per element and block.
template <int M, int N>
struct SmallTsmttsm {
  static constexpr int SA = odd_stride(M), SB = odd_stride(N);
  static constexpr int stage_words = 32 * (SA + SB);  // a buffer: 32 pairs of rows of A, then of B
};

template <int M, int N>
__global__ void __launch_bounds__(256)
    tsmttsm_small_kernel(Index K, int stages, double alpha, const double* __restrict__ A,
                         const double* __restrict__ B, double* C, Index ldcr, Index ldcc) {
  constexpr int SA = SmallTsmttsm<M, N>::SA, SB = SmallTsmttsm<M, N>::SB;
  constexpr int stage_words = SmallTsmttsm<M, N>::stage_words, MH = (M + 1) / 2;
  extern __shared__ double2 stage_raw[];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, nw = blockDim.x / 32;
  const int h = lane % 2, m0 = h * MH;  // this lane's rows of C: m0 .. m0 + MH - 1 (below M)
  double2* ws = stage_raw + warp * stages * stage_words;
  const double2* A2 = reinterpret_cast<const double2*>(A);
  const double2* B2 = reinterpret_cast<const double2*>(B);
  const Index chunks = K / 64, warps = Index(gridDim.x) * nw;
  const Index w0 = Index(blockIdx.x) * nw + warp;
  double acc[MH][N] = {};
  // Chunk ch into buffer s; past the last chunk an empty group keeps the wait counts uniform.
  auto issue = [&](Index ch, int s) {
    if (ch < chunks) {
      double2* d = ws + s * stage_words;
#pragma unroll
      for (int i = 0; i < M; ++i) {
        const int f = i * 32 + lane;
        cp_async(d + (f / M) * SA + f % M, A2 + ch * 32 * M + f, 16, 16);
      }
#pragma unroll
      for (int j = 0; j < N; ++j) {
        const int f = j * 32 + lane;
        cp_async(d + 32 * SA + (f / N) * SB + f % N, B2 + ch * 32 * N + f, 16, 16);
      }
    }
    cp_async_commit();
  };
  // Row x of A (this lane's columns) times row y of B into the sums (at odd M the second half's last row of sums
  // is never stored: its x is whatever follows).
  auto add_row = [&](const double* x, const double* y) {
#pragma unroll
    for (int i = 0; i < MH; ++i)
#pragma unroll
      for (int n = 0; n < N; ++n) acc[i][n] = fma(x[i], y[n], acc[i][n]);
  };
  for (int s = 0; s < stages - 1; ++s) issue(w0 + s * warps, s);
  int s = 0;
  for (Index ch = w0; ch < chunks; ch += warps) {
    // Chunk ch's copies done (stages - 2 later groups may still fly), and every lane past its reads of the buffer
    // that the next copies fill.
    if (stages == 2) cp_async_wait<0>();
    else if (stages == 3) cp_async_wait<1>();
    else cp_async_wait<2>();
    __syncwarp();
    issue(ch + (stages - 1) * warps, s == 0 ? stages - 1 : s - 1);
    const double2* d = ws + s * stage_words;
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int q = half * 16 + lane / 2;
      const double* pa = reinterpret_cast<const double*>(d + q * SA) + m0;
      double x[2 * MH], y[2 * N];
#pragma unroll
      for (int i = 0; i < MH; ++i) {
        // (past the last column of an odd M: the next row's first, or the next pair's, or B's words)
        x[i] = pa[i];
        x[MH + i] = pa[M + i];
      }
#pragma unroll
      for (int j = 0; j < N; ++j) {
        const double2 v = d[32 * SA + q * SB + j];
        y[2 * j] = v.x, y[2 * j + 1] = v.y;
      }
      add_row(x, y);
      add_row(x + MH, y + N);
    }
    s = s + 1 == stages ? 0 : s + 1;
  }
  if (w0 == 0)
    for (Index r = chunks * 64 + lane / 2; r < K; r += 16) {
      double x[MH], y[N];
#pragma unroll
      for (int i = 0; i < MH; ++i) x[i] = m0 + i < M ? __ldg(A + r * M + m0 + i) : 0.0;
#pragma unroll
      for (int n = 0; n < N; ++n) y[n] = __ldg(B + r * N + n);
      add_row(x, y);
    }
  cp_async_wait<0>();
  __syncthreads();  // the buffers now hold the warps' sums
  double* sums = reinterpret_cast<double*>(stage_raw);
#pragma unroll
  for (int i = 0; i < MH; ++i)
#pragma unroll
    for (int n = 0; n < N; ++n) {
      double v = acc[i][n];
#pragma unroll
      for (int o = 16; o > 1; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);  // over the lanes of this half
      if (lane < 2 && m0 + i < M) sums[warp * M * N + (m0 + i) * N + n] = v;
    }
  __syncthreads();
  for (int e = threadIdx.x; e < M * N; e += blockDim.x) {
    double v = 0;
    for (int w = 0; w < nw; ++w) v += sums[w * M * N + e];
    atomicAdd(C + (e / N) * ldcr + (e % N) * ldcc, alpha * v);
  }
}

// Benchmark knobs: TESSERA_TSM_SMALL_THREADS (32..256 by 32, default 128) and TESSERA_TSM_SMALL_STAGES (2..4,
// default 3): threads a block, buffers a warp.
template <int M, int N>
void launch_tsmttsm_small_as(cudaStream_t stream, Index K, double alpha, const double* A, const double* B, double* C,
                             Index ldcr, Index ldcc) {
  static const int stages = int(env_integer("TESSERA_TSM_SMALL_STAGES", 2, 4).value_or(3));
  const std::size_t warp_bytes = std::size_t(stages) * SmallTsmttsm<M, N>::stage_words * sizeof(double2);
  // (at most the warps whose buffers fit in a block's 227 KiB)
  static const int warps = int(env_integer("TESSERA_TSM_SMALL_THREADS", 32, 256).value_or(128)) / 32;
  static const int threads = std::min<int>(warps, int(232448 / warp_bytes)) * 32;
  const std::size_t smem = std::size_t(threads / 32) * warp_bytes;
  auto kernel = tsmttsm_small_kernel<M, N>;
  const int per_sm = resident_blocks(kernel, threads, smem);
  // At least two chunks a warp.
  const Index want = std::max<Index>(1, (K / 64 + 2 * (threads / 32) - 1) / (2 * (threads / 32)));
  kernel<<<unsigned(launch_grid(want, per_sm)), threads, smem, stream>>>(K, stages, alpha, A, B, C, ldcr, ldcc);
  check(cudaGetLastError(), "tsmttsm (small shape) launch");
}

// Runs the compile-time kernel when the shape has one and the rows are contiguous and 16-byte aligned.
bool launch_tsmttsm_small(cudaStream_t stream, int M, int N, Index K, double alpha, const double* A, Index lda,
                          const double* B, Index ldb, double* C, Index ldcr, Index ldcc) {
  if (!tsm::tsmttsm_small_shape(M, N) || lda != M || ldb != N || reinterpret_cast<std::uintptr_t>(A) % 16 != 0 ||
      reinterpret_cast<std::uintptr_t>(B) % 16 != 0)
    return false;
  switch (M) {
    case 7: launch_tsmttsm_small_as<7, 7>(stream, K, alpha, A, B, C, ldcr, ldcc); break;
    case 9: launch_tsmttsm_small_as<9, 9>(stream, K, alpha, A, B, C, ldcr, ldcc); break;
    case 10: launch_tsmttsm_small_as<10, 10>(stream, K, alpha, A, B, C, ldcr, ldcc); break;
    case 11: launch_tsmttsm_small_as<11, 11>(stream, K, alpha, A, B, C, ldcr, ldcc); break;
    default: launch_tsmttsm_small_as<12, 12>(stream, K, alpha, A, B, C, ldcr, ldcc); break;
  }
  return true;
}

// The staged kernel that c names (c.stages > 0); complex_out, alpha_im: launch_tsmttsm_staged's.
void launch_staged_d(cudaStream_t stream, const NativeConfigT& c, int M, int N, Index K, double alpha,
                     const double* A, Index lda, const double* B, Index ldb, double* C, Index ldcr, Index ldcc,
                     int complex_out = 0, double alpha_im = 0) {
  const auto go = c.mma == 1     ? launch_tsmttsm_staged<double, false, 1>
                  : c.mma == 4   ? launch_tsmttsm_staged<double, false, 4>
                  : c.tiles == 5 ? launch_tsmttsm_staged<double, false, 2, 5>
                  : c.tiles == 6 ? launch_tsmttsm_staged<double, false, 2, 6>
                                 : launch_tsmttsm_staged<double, false, 2>;
  go(stream, M, N, K, alpha, A, lda, B, ldb, C, ldcr, ldcc, complex_out, alpha_im);
}
}  // namespace

void launch_tsmttsm_real(cudaStream_t stream, const NativeConfigT& c, bool conj, int M, int N, Index K,
                         zcomplex alpha, const zcomplex* A, Index lda, const zcomplex* B, Index ldb, zcomplex* C,
                         Index ldcr, Index ldcc) {
  launch_staged_d(stream, c, 2 * M, 2 * N, K, alpha.real(), reinterpret_cast<const double*>(A), 2 * lda,
                  reinterpret_cast<const double*>(B), 2 * ldb, reinterpret_cast<double*>(C), ldcr, ldcc,
                  conj ? kComplexC : kComplexT, alpha.imag());
}
}  // namespace tsm_detail

void tsm_tsmttsm(cudaStream_t stream, bool, int M, int N, std::int64_t K, double alpha, const double* A,
                 std::int64_t lda, const double* B, std::int64_t ldb, double beta, double* C, std::int64_t ldcr,
                 std::int64_t ldcc) {
  using namespace tsm_detail;
  scale_c(stream, C, M, N, ldcr, ldcc, beta);
  if (K == 0 || alpha == 0.0) return;
  auto c = config_for(true, false, M, N);
  if (c.mma == 0 && c.tile == 1 && tsm::tsmttsm_small_shape(M, N)) {
    if (launch_tsmttsm_small(stream, M, N, K, alpha, A, lda, B, ldb, C, ldcr, ldcc)) return;
    c = tsm::tsmttsm_double_warps(M, N);  // other layouts
  }
  if (c.stages > 0 && (c.mma == 1 || c.mma == 2 || c.mma == 4))
    return launch_staged_d(stream, c, M, N, K, alpha, A, lda, B, ldb, C, ldcr, ldcc);
  switch (c.mma) {
    case 1: return launch_tsmttsm_mma<double, false, 1>(stream, M, N, K, alpha, A, lda, B, ldb, C, ldcr, ldcc);
    case 2: return launch_tsmttsm_mma<double, false, 2>(stream, M, N, K, alpha, A, lda, B, ldb, C, ldcr, ldcc);
    case 4: return launch_tsmttsm_mma<double, false, 4>(stream, M, N, K, alpha, A, lda, B, ldb, C, ldcr, ldcc);
    default: break;
  }
  switch (c.tile) {
    case 1: launch_tsmttsm<double, false, 1, 1>(stream, M, N, K, alpha, A, lda, B, ldb, C, ldcr, ldcc); break;
    case 2: launch_tsmttsm<double, false, 2, 2>(stream, M, N, K, alpha, A, lda, B, ldb, C, ldcr, ldcc); break;
    case 4: launch_tsmttsm<double, false, 4, 4>(stream, M, N, K, alpha, A, lda, B, ldb, C, ldcr, ldcc); break;
    default: launch_tsmttsm<double, false, 8, 8>(stream, M, N, K, alpha, A, lda, B, ldb, C, ldcr, ldcc); break;
  }
}

}  // namespace tessera::native_cuda
