// Native TSMTTSM, double: the register tiles 1, 2, 4, 8 and the tensor-core warp tiles 1, 2, 4,
// fragments from global memory or from cp.async stages (there also warps of 2 x 5 and 2 x 6 tiles); the
// staged kernels also run complex products as real ones of twice the sides (tsm::NativeConfig::real).
#include "tsm/tsm_mma.cuh"

namespace tessera::native_cuda {

namespace tsm_detail {
namespace {
// TSMTTSM, double, the compile-time shapes (tsm::tsmttsm_small_shape; rows
// contiguous, 16-byte aligned). A warp takes P pairs of rows of A and B at a
// time (a chunk): its lanes copy their 16-byte words by cp.async into one of
// the warp's `stages` buffers (the next chunks in flight without registers),
// every pair's words at an odd stride. G = GM x GN lanes share a pair, each
// with a tile of MT rows and NT columns of C: MT x NT sums in registers (all
// M x N would not fit beside the rows from 9). Lane G q + g reads pair q's
// rows of A at columns gm MT ... and of B at columns gn NT ... (8-byte loads;
// B's whole rows in 16-byte loads where GN = 1) and adds both rows'
// products: no shuffles and no shared-memory traffic per product, one warp
// sum at the end. Even sides (R): the rows unpadded, no 32-byte source sector
// split over two 32-byte pieces of shared memory, and the G lanes take one
// row a step (rows M doubles apart already spread the banks). Rows past the
// whole chunks: G lanes a row in the first warp. One atomic per element and
// block.
template <int M, int N, int GM, int GN, int P>
struct SmallTsmttsm {
  static constexpr int G = GM * GN, MT = (M + GM - 1) / GM, NT = (N + GN - 1) / GN;
  static_assert(P * G % 32 == 0, "a chunk's pairs fill whole steps of the warp");
  static constexpr bool R = M % 2 == 0 && N % 2 == 0;  // rows of whole 16-byte words
  static constexpr int SA = R ? M : odd_stride(M), SB = R ? N : odd_stride(N);
  static constexpr int stage_words = P * (SA + SB);  // a buffer: P pairs of rows of A, then of B
  // Tiles past C's last column read past the last pair's rows of B: a pad after the buffers.
  static constexpr int pad_words = (GN * NT - N + 1) / 2 + 1;
  static_assert(2 * stage_words * 2 >= M * N, "two buffers of a warp hold its block-sum slot");
};

template <int M, int N, int GM, int GN, int P>
__global__ void __launch_bounds__(256)
    tsmttsm_small_kernel(Index K, int stages, double alpha, const double* __restrict__ A,
                         const double* __restrict__ B, double* C, Index ldcr, Index ldcc) {
  using S = SmallTsmttsm<M, N, GM, GN, P>;
  constexpr bool R = S::R;
  constexpr int SA = S::SA, SB = S::SB, stage_words = S::stage_words, G = S::G, MT = S::MT, NT = S::NT;
  extern __shared__ double2 stage_raw[];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, nw = blockDim.x / 32;
  const int g = lane % G, m0 = g / GN * MT, n0 = g % GN * NT;  // this lane's tile of C (may pass M, N)
  double2* ws = stage_raw + warp * stages * stage_words;
  const double2* A2 = reinterpret_cast<const double2*>(A);
  const double2* B2 = reinterpret_cast<const double2*>(B);
  const Index chunks = K / (2 * P), warps = Index(gridDim.x) * nw;
  const Index w0 = Index(blockIdx.x) * nw + warp;
  double acc[MT][NT] = {};
  // Chunk ch into buffer s; past the last chunk an empty group keeps the wait counts uniform.
  auto issue = [&](Index ch, int s) {
    if (ch < chunks) {
      double2* d = ws + s * stage_words;
#pragma unroll
      for (int i = 0; i < (P * M + 31) / 32; ++i) {
        const int f = i * 32 + lane;
        if (P * M % 32 == 0 || f < P * M) cp_async(d + (f / M) * SA + f % M, A2 + ch * P * M + f, 16, 16);
      }
#pragma unroll
      for (int j = 0; j < (P * N + 31) / 32; ++j) {
        const int f = j * 32 + lane;
        if (P * N % 32 == 0 || f < P * N)
          cp_async(d + P * SA + (f / N) * SB + f % N, B2 + ch * P * N + f, 16, 16);
      }
    }
    cp_async_commit();
  };
  // Row x of A (this lane's columns) times row y of B (its columns) into the sums (tiles past C's last row or
  // column sum whatever follows and are never stored).
  auto add_row = [&](const double* x, const double* y) {
#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
      for (int n = 0; n < NT; ++n) acc[i][n] = fma(x[i], y[n], acc[i][n]);
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
    for (int step = 0; step < (R ? 2 : 1) * P * G / 32; ++step) {
      const int q = step * (32 / G) + lane / G;  // a pair, or a row where R
      const double* pa = reinterpret_cast<const double*>(d) + (R ? q * M : 2 * q * SA) + m0;
      double x[2 * MT], y[2 * NT];
#pragma unroll
      for (int i = 0; i < MT; ++i) {
        x[i] = pa[i];
        if constexpr (!R) x[MT + i] = pa[M + i];
      }
      if constexpr (GN == 1) {
        const double2* rb = d + P * SA + (R ? q * (N / 2) : q * SB);
#pragma unroll
        for (int j = 0; j < (R ? N / 2 : N); ++j) {
          const double2 v = rb[j];
          y[2 * j] = v.x, y[2 * j + 1] = v.y;
        }
      } else {
        const double* pb = reinterpret_cast<const double*>(d + P * SA) + (R ? q * N : 2 * q * SB) + n0;
#pragma unroll
        for (int j = 0; j < NT; ++j) {
          y[j] = pb[j];
          if constexpr (!R) y[NT + j] = pb[N + j];
        }
      }
      add_row(x, y);
      if constexpr (!R) add_row(x + MT, y + NT);
    }
    s = s + 1 == stages ? 0 : s + 1;
  }
  if (w0 == 0)
    for (Index r = chunks * 2 * P + lane / G; r < K; r += 32 / G) {
      double x[MT], y[NT];
#pragma unroll
      for (int i = 0; i < MT; ++i) x[i] = m0 + i < M ? __ldg(A + r * M + m0 + i) : 0.0;
#pragma unroll
      for (int n = 0; n < NT; ++n) y[n] = n0 + n < N ? __ldg(B + r * N + n0 + n) : 0.0;
      add_row(x, y);
    }
  cp_async_wait<0>();
  __syncthreads();  // the buffers now hold the warps' sums
  double* sums = reinterpret_cast<double*>(stage_raw);
#pragma unroll
  for (int i = 0; i < MT; ++i)
#pragma unroll
    for (int n = 0; n < NT; ++n) {
      double v = acc[i][n];
#pragma unroll
      for (int o = 16; o >= G; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);  // over the lanes of this tile
      if (lane < G && m0 + i < M && n0 + n < N) sums[warp * M * N + (m0 + i) * N + n0 + n] = v;
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
template <int M, int N, int GM, int GN, int P>
void launch_tsmttsm_small_as(cudaStream_t stream, Index K, double alpha, const double* A, const double* B, double* C,
                             Index ldcr, Index ldcc) {
  using S = SmallTsmttsm<M, N, GM, GN, P>;
  static const int stages = int(env_integer("TESSERA_TSM_SMALL_STAGES", 2, 4).value_or(3));
  const std::size_t warp_bytes = std::size_t(stages) * S::stage_words * sizeof(double2);
  // (at most the warps whose buffers fit in a block's 227 KiB)
  static const int warps = int(env_integer("TESSERA_TSM_SMALL_THREADS", 32, 256).value_or(128)) / 32;
  static const int threads =
      std::min<int>(warps, int((232448 - S::pad_words * sizeof(double2)) / warp_bytes)) * 32;
  const std::size_t smem = std::size_t(threads / 32) * warp_bytes + S::pad_words * sizeof(double2);
  auto kernel = tsmttsm_small_kernel<M, N, GM, GN, P>;
  const int per_sm = resident_blocks(kernel, threads, smem);
  // At least two chunks a warp.
  const Index want = std::max<Index>(1, (K / (2 * P) + 2 * (threads / 32) - 1) / (2 * (threads / 32)));
  kernel<<<unsigned(launch_grid(want, per_sm)), threads, smem, stream>>>(K, stages, alpha, A, B, C, ldcr, ldcc);
  check(cudaGetLastError(), "tsmttsm (small shape) launch");
}

// Runs the compile-time kernel when the shape has one and the rows are contiguous and 16-byte aligned.
bool launch_tsmttsm_small(cudaStream_t stream, int M, int N, Index K, double alpha, const double* A, Index lda,
                          const double* B, Index ldb, double* C, Index ldcr, Index ldcc) {
  if (!tsm::tsmttsm_small_shape(M, N) || lda != M || ldb != N || reinterpret_cast<std::uintptr_t>(A) % 16 != 0 ||
      reinterpret_cast<std::uintptr_t>(B) % 16 != 0)
    return false;
  // The lanes a pair or row (GM x GN) and the pairs a chunk (P) at each shape (an H200, 2026-12-01,
  // M = N 9..31): two lanes hold M N / 2 sums; from 13 C's columns split too (2 x 2 ran 1.01x 4 x 2 at 13..18). With
  // 32 pairs a chunk the three buffers of a warp take 70 KiB at 23; from 24, 8 pairs give two blocks of 4 warps an SM
  // (1.01x 16 pairs at 25); 4 x 4 lanes to 31 (1.06x 8 x 4 at 27, 1.12x the warps at 31). Even sides store rows
  // unpadded (R): pairs padded by 16 bytes split source sectors in shared memory and L1 asked L2 for 1.49x the
  // sectors (rows: 1.07-1.18x at 10..30).
  const auto go = [&](auto f) {
    f(stream, K, alpha, A, B, C, ldcr, ldcc);
    return true;
  };
  switch (M) {
    case 7: return go(launch_tsmttsm_small_as<7, 7, 2, 1, 32>);
    case 9: return go(launch_tsmttsm_small_as<9, 9, 2, 1, 32>);
    case 10: return go(launch_tsmttsm_small_as<10, 10, 2, 1, 32>);
    case 11: return go(launch_tsmttsm_small_as<11, 11, 2, 1, 32>);
    case 12: return go(launch_tsmttsm_small_as<12, 12, 2, 1, 32>);
    case 13: return go(launch_tsmttsm_small_as<13, 13, 2, 2, 32>);
    case 14: return go(launch_tsmttsm_small_as<14, 14, 2, 2, 32>);
    case 15: return go(launch_tsmttsm_small_as<15, 15, 2, 2, 32>);
    case 16: return go(launch_tsmttsm_small_as<16, 16, 4, 4, 16>);
    case 17: return go(launch_tsmttsm_small_as<17, 17, 2, 2, 32>);
    case 18: return go(launch_tsmttsm_small_as<18, 18, 2, 2, 16>);
    case 19: return go(launch_tsmttsm_small_as<19, 19, 4, 2, 32>);
    case 20: return go(launch_tsmttsm_small_as<20, 20, 4, 2, 16>);
    case 21: return go(launch_tsmttsm_small_as<21, 21, 4, 4, 32>);
    case 22: return go(launch_tsmttsm_small_as<22, 22, 4, 4, 16>);
    case 23: return go(launch_tsmttsm_small_as<23, 23, 4, 4, 32>);
    case 24: return go(launch_tsmttsm_small_as<24, 24, 4, 4, 8>);
    case 25: return go(launch_tsmttsm_small_as<25, 25, 4, 4, 8>);
    case 26: return go(launch_tsmttsm_small_as<26, 26, 4, 4, 8>);
    case 27: return go(launch_tsmttsm_small_as<27, 27, 4, 4, 8>);
    case 28: return go(launch_tsmttsm_small_as<28, 28, 4, 4, 8>);
    case 30: return go(launch_tsmttsm_small_as<30, 30, 4, 4, 8>);
    case 31: return go(launch_tsmttsm_small_as<31, 31, 4, 4, 8>);
    default: return false;
  }
}

// The staged kernel that c names (c.stages > 0); complex_out, alpha_im: launch_tsmttsm_staged's.
void launch_staged_d(cudaStream_t stream, const NativeConfigT& c, int M, int N, Index K, double alpha,
                     const double* A, Index lda, const double* B, Index ldb, double* C, Index ldcr, Index ldcc,
                     int complex_out = 0, double alpha_im = 0) {
  const auto go = c.mma == 1                  ? launch_tsmttsm_staged<double, false, 1>
                  : c.mma == 4                ? launch_tsmttsm_staged<double, false, 4>
                  : c.edge && c.tiles == 4    ? launch_tsmttsm_staged<double, false, 2, 4, tsm::strip_edge_rows(4)>
                  : c.edge                    ? launch_tsmttsm_staged<double, false, 2, 5, tsm::strip_edge_rows(5)>
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
