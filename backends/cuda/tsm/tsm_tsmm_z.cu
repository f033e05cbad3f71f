// Native TSMM, complex double, on the FP64 tensor cores (m16n8k4, sm_90):
// B = alpha A C + beta B with a complex product as real DMMAs, four
// (re += Ar Cr - Ai Ci, im += Ar Ci + Ai Cr) or Gauss's three (P1 = Ar Cr,
// P2 = Ai Ci, P3 = (Ar + Ai)(Cr + Ci); re = P1 - P2, im = P3 - P1 - P2: a
// quarter fewer DMMAs, 12 accumulators a tile instead of 8; on the H100 the
// tuned table takes four everywhere, docs/perf/tsm.md). A warp computes
// 16 rows of B and up to GT 8-column tiles of them; wider N splits a row
// block's tiles evenly between consecutive items (the second read of its A
// rows hits L1).
// Both the inner index and the output columns are permuted so that every
// warp load and store moves whole 32-byte sectors: unit u (8 columns of A),
// lane t = l % 4 and step j < 2 take column 8u + t + 4j (a load instruction
// reads 64 contiguous bytes of each of 8 rows), and fragment column c of a
// tile holds column c / 2 + 4 (c % 2), so a lane's outputs 2t + jj land in
// column t + 4jj (64 contiguous bytes a row a store). The pair layout of the
// double kernel (column 8u + 2t + j) left every 16-byte access with a 16-byte
// gap: 1 x 64 ran at 0.98 ms against 0.81, 3 x 17 at 1.17 against 0.92
// (docs/perf/tsm.md). alpha C sits in shared memory in fragment order, real
// parts, imaginary parts and (Gauss) their sums apart, each fragment one
// conflict-free 16-byte load.
// A is read P units a step (P = 2 for the 4-tile kernel) with the next
// step's units in flight, across items too (the last step's compute hides
// the next item's first loads); or (stages 3 or 4) a warp's rows of A reach
// its own shared buffers by cp.async, items ahead, where they fit (M <= 32).
// Measured against the complex register kernel and cuBLAS ZGEMM:
// perf/experiments/tsm_tsmm_z_probe.cu, docs/perf/tsm.md.
#include "tsm/tsm_mma.cuh"

namespace tessera::native_cuda::tsm_detail {

namespace {

// Warps a block (tsm::tsmm_z_stages_fit counts the stages of this many).
constexpr int kZWarps = 8;

struct ZShape {
  int M, N, U, NT, G, per;  // units of A, 8-column tiles of B, items a row block, tiles an item (<= GT)
  Index K, lda, ldb;
  int S;  // the staged kernel's row stride in A's stages (tsm::tsmm_z_stage_stride)
};

__device__ __forceinline__ double2 cmul2(double2 a, double2 b) {
  return make_double2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

// A's values of unit u for rows r0 + g (h = 0) and r0 + g + 8 (h = 1), zero past K and M.
__device__ __forceinline__ void load_z_unit(const ZShape& s, const double2* __restrict__ A, Index r0, int u, int g,
                                            int t, double2 (&a)[2][2]) {
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const Index row = r0 + g + 8 * h;
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      const int m = 8 * u + t + 4 * j;
      a[h][j] = (row < s.K && m < s.M) ? __ldg(A + row * s.lda + m) : make_double2(0.0, 0.0);
    }
  }
}

// P units of A for rows r0 + g, r0 + g + 8 from unit u on (load_z_unit each).
template <int P>
__device__ __forceinline__ void load_z_units(const ZShape& s, const double2* __restrict__ A, Index r0, int u, int g,
                                             int t, double2 (&a)[P][2][2]) {
#pragma unroll
  for (int p = 0; p < P; ++p) load_z_unit(s, A, r0, u + p, g, t, a[p]);
}

// alpha C in shared memory in fragment order: zsm[p n_frag + (u NT + nt) 32 + l] = (v(8u + t, n),
// v(8u + t + 4, n)), n = 8nt + g/2 + 4(g%2), t = l % 4, g = l / 4, v = alpha C; p = 0 real parts, 1 imaginary
// parts, 2 their sums (Gauss).
template <bool Gauss>
__device__ __forceinline__ void z_alpha_c(const ZShape& s, const double2* __restrict__ C, Index ldcr, Index ldcc,
                                          double2 alpha, double2* zsm) {
  const int n_frag = s.U * s.NT * 32;
  for (int e = threadIdx.x; e < n_frag; e += blockDim.x) {
    const int l = e & 31, nt = (e >> 5) % s.NT, u = (e >> 5) / s.NT;
    const int g = l >> 2, n = 8 * nt + g / 2 + 4 * (g % 2);
    double2 v[2];
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      const int m = 8 * u + (l & 3) + 4 * j;
      v[j] = (m < s.M && n < s.N) ? cmul2(alpha, C[m * ldcr + n * ldcc]) : make_double2(0.0, 0.0);
    }
    zsm[e] = make_double2(v[0].x, v[1].x);
    zsm[n_frag + e] = make_double2(v[0].y, v[1].y);
    if (Gauss) zsm[2 * n_frag + e] = make_double2(v[0].x + v[0].y, v[1].x + v[1].y);
  }
}

// Unit u's products (A values ap of rows g, g + 8) into the item's accumulators of tiles nt0..
template <int GT, bool Gauss>
__device__ __forceinline__ void z_unit_products(const ZShape& s, double (&acc)[GT][Gauss ? 3 : 2][4],
                                                const double2 (&ap)[2][2], const double2* zsm, int u, int nt0,
                                                int lane) {
  const int n_frag = s.U * s.NT * 32;
#pragma unroll
  for (int x = 0; x < GT; ++x) {
    const int nt = nt0 + x;
    if (x >= s.per || nt >= s.NT) break;
    const int f = (u * s.NT + nt) * 32 + lane;
    const double2 vr = zsm[f], vi = zsm[n_frag + f];
    double2 vs = make_double2(0.0, 0.0);
    if constexpr (Gauss) vs = zsm[2 * n_frag + f];
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      const double br = j ? vr.y : vr.x, bi = j ? vi.y : vi.x;
      if constexpr (Gauss) {
        dmma16(acc[x][0], ap[0][j].x, ap[1][j].x, br);
        dmma16(acc[x][1], ap[0][j].y, ap[1][j].y, bi);
        dmma16(acc[x][2], ap[0][j].x + ap[0][j].y, ap[1][j].x + ap[1][j].y, j ? vs.y : vs.x);
      } else {
        dmma16(acc[x][0], ap[0][j].x, ap[1][j].x, br);
        dmma16(acc[x][0], -ap[0][j].y, -ap[1][j].y, bi);
        dmma16(acc[x][1], ap[0][j].x, ap[1][j].x, bi);
        dmma16(acc[x][1], ap[0][j].y, ap[1][j].y, br);
      }
    }
  }
}

// The item's rows r0 + g, r0 + g + 8 of its tiles nt0.. into B (beta B added unless beta is 0).
template <int GT, bool Gauss>
__device__ __forceinline__ void z_store(const ZShape& s, const double (&acc)[GT][Gauss ? 3 : 2][4], Index r0,
                                        int nt0, int g, int t, double2 beta, bool beta_zero, double2* B) {
#pragma unroll
  for (int x = 0; x < GT; ++x) {
    const int nt = nt0 + x;
    if (x >= s.per || nt >= s.NT) break;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const Index row = r0 + g + 8 * h;
      if (row >= s.K) continue;
#pragma unroll
      for (int jj = 0; jj < 2; ++jj) {
        const int n = 8 * nt + t + 4 * jj, q = 2 * h + jj;
        if (n >= s.N) continue;
        double2 v = Gauss ? make_double2(acc[x][0][q] - acc[x][1][q], acc[x][2][q] - acc[x][0][q] - acc[x][1][q])
                          : make_double2(acc[x][0][q], acc[x][1][q]);
        double2* p = B + row * s.ldb + n;
        if (!beta_zero) {
          const double2 o = cmul2(beta, *p);
          v.x += o.x, v.y += o.y;
        }
        *p = v;
      }
    }
  }
}

// A warp's item: row block r0 and share of its tiles; stepped by the grid's
// warp count without 64-bit divisions (three an item, item / G and item % G,
// issued as many instructions as the item's DMMAs at M = N = 4).
struct ZItem {
  Index r0;
  int share;
};
struct ZStep {
  Index rows;  // 16 (stride / G)
  int share;   // stride % G
};
__device__ __forceinline__ ZItem z_item(Index it, int G) { return ZItem{it / G * 16, int(it % G)}; }
__device__ __forceinline__ WarpItems z_order(RowTickets tk) {
  return WarpItems(tk, blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, gridDim.x * (blockDim.x / 32));
}
__device__ __forceinline__ ZItem z_first_item(const ZShape& s, ZStep& d, const WarpItems& w) {
  const int stride = gridDim.x * (blockDim.x / 32);
  d = w.tickets() ? ZStep{0, 1} : ZStep{Index(stride / s.G) * 16, stride % s.G};
  return z_item(w.item(), s.G);
}
__device__ __forceinline__ ZItem z_next(ZItem x, const ZStep& d, int G, WarpItems& w) {
  if (!w.advance()) return z_item(w.item(), G);
  x.r0 += d.rows, x.share += d.share;
  if (x.share >= G) x.share -= G, x.r0 += 16;
  return x;
}

template <int GT, bool Gauss>
__device__ __forceinline__ void z_zero(double (&acc)[GT][Gauss ? 3 : 2][4]) {
#pragma unroll
  for (int x = 0; x < GT; ++x)
#pragma unroll
    for (int p = 0; p < (Gauss ? 3 : 2); ++p) acc[x][p][0] = acc[x][p][1] = acc[x][p][2] = acc[x][p][3] = 0.0;
}

// P: units of A a step (1 or 2); the next step's P units are in flight
// during this step's DMMAs, so 2 doubles the bytes a warp has in flight.
template <int GT, bool Gauss, int P>
__global__ void __launch_bounds__(32 * kZWarps)
    tsmm_z_mma16_kernel(ZShape s, const double2* __restrict__ A, const double2* __restrict__ C, Index ldcr,
                        Index ldcc, double2 alpha, double2 beta, double2* B, RowTickets tk) {
  extern __shared__ double2 zsm[];
  z_alpha_c<Gauss>(s, C, ldcr, ldcc, alpha, zsm);
  __syncthreads();
  const int lane = threadIdx.x % 32, g = lane >> 2, t = lane & 3;
  const bool beta_zero = beta.x == 0.0 && beta.y == 0.0;
  WarpItems w = z_order(tk);
  ZStep d;
  ZItem cur = z_first_item(s, d, w);
  if (cur.r0 >= s.K) return;
  double2 a[P][2][2], an[P][2][2];
  load_z_units<P>(s, A, cur.r0, 0, g, t, a);
  while (true) {
    const ZItem next = z_next(cur, d, s.G, w);
    const int nt0 = cur.share * s.per;
    double acc[GT][Gauss ? 3 : 2][4];
    z_zero<GT, Gauss>(acc);
    for (int u0 = 0; u0 < s.U; u0 += P) {
      const bool in_item = u0 + P < s.U, prefetch = in_item || next.r0 < s.K;
      if (in_item) load_z_units<P>(s, A, cur.r0, u0 + P, g, t, an);
      else if (prefetch) load_z_units<P>(s, A, next.r0, 0, g, t, an);
#pragma unroll
      for (int p = 0; p < P; ++p) {
        if (p > 0 && u0 + p >= s.U) break;  // an odd unit count: the step's second unit is past M
        z_unit_products<GT, Gauss>(s, acc, a[p], zsm, u0 + p, nt0, lane);
      }
      if (prefetch)
#pragma unroll
        for (int p = 0; p < P; ++p)
#pragma unroll
          for (int h = 0; h < 2; ++h) a[p][h][0] = an[p][h][0], a[p][h][1] = an[p][h][1];
    }
    z_store<GT, Gauss>(s, acc, cur.r0, nt0, g, t, beta, beta_zero, B);
    if (next.r0 >= s.K) break;
    cur = next;
  }
}

// StagesA > 0: A reaches the warp by cp.async into StagesA buffers of its own
// (16 rows each, consecutive lanes on consecutive 16-byte elements, so that a
// warp copy is whole sectors of a packed A at any M), StagesA - 1 items ahead,
// and the fragments are read from there. The register kernel above holds one
// or two units of its next rows in flight: at M = N = 4, 12, 20 .. 28 and 24 x
// 48 that covered 67-76% of the H200's copy rate. Row stride S = M rounded up to 4
// elements: a quarter warp's 16-byte loads (rows g, g + 1, 4 consecutive
// columns) meet no bank twice when S = 4 mod 8; at S = 0 mod 8 an odd row's
// columns are swapped in fours (c ^ 4) to the same end.
template <int GT, int StagesA>
__global__ void __launch_bounds__(32 * kZWarps, GT == 2 ? 2 : 1)
    tsmm_z_mma16_stage_a_kernel(ZShape s, const double2* __restrict__ A, const double2* __restrict__ C, Index ldcr,
                                Index ldcc, double2 alpha, double2 beta, double2* B, RowTickets tk) {
  extern __shared__ double2 zsm[];
  z_alpha_c<false>(s, C, ldcr, ldcc, alpha, zsm);
  __syncthreads();
  const int lane = threadIdx.x % 32, g = lane >> 2, t = lane & 3;
  const bool beta_zero = beta.x == 0.0 && beta.y == 0.0;
  WarpItems w = z_order(tk);
  ZStep d;
  ZItem cur = z_first_item(s, d, w);
  if (cur.r0 >= s.K) return;
  const int S = s.S, swz = S % 8 == 0 ? 4 : 0, ss = 16 * S;
  double2* ws = zsm + 2 * s.U * s.NT * 32 + (threadIdx.x / 32) * StagesA * ss;
  const int drow = 32 / s.M, dcol = 32 % s.M, row_l = lane / s.M, col_l = lane % s.M;
  auto issue = [&](const ZItem& x, double2* st) {
    if (x.r0 < s.K)
      for (int p = lane, row = row_l, c = col_l; p < 16 * s.M; p += 32) {
        const Index gr = x.r0 + row;
        const bool ok = gr < s.K;  // rows past K are zero-filled
        cp_async(st + row * S + (c ^ (row & 1) * swz), A + (ok ? gr * s.lda + c : 0), 16, ok ? 16 : 0);
        c += dcol, row += drow;
        if (c >= s.M) c -= s.M, ++row;
      }
    cp_async_commit();  // (an empty group past the last item keeps the wait counts uniform)
  };
  ZItem q[StagesA];  // the items of the stages in flight, q[0] = cur
  q[0] = cur;
#pragma unroll
  for (int k = 1; k < StagesA; ++k) q[k] = z_next(q[k - 1], d, s.G, w);
#pragma unroll
  for (int k = 0; k < StagesA - 1; ++k) issue(q[k], ws + k * ss);
  const int x4 = (g & 1) * swz;
  for (int k = 0;; ++k) {
    issue(q[StagesA - 1], ws + ((k + StagesA - 1) % StagesA) * ss);
    cp_async_wait<StagesA - 1>();
    __syncwarp();
    const double2* st = ws + (k % StagesA) * ss + g * S;
    const int nt0 = cur.share * s.per;
    double acc[GT][2][4];
    z_zero<GT, false>(acc);
    for (int u = 0; u < s.U; ++u) {
      double2 ap[2][2];
#pragma unroll
      for (int j = 0; j < 2; ++j) {
        const int m = 8 * u + t + 4 * j;  // (the padding columns are not copied: zero there)
        ap[0][j] = m < s.M ? st[m ^ x4] : make_double2(0.0, 0.0);
        ap[1][j] = m < s.M ? st[8 * S + (m ^ x4)] : make_double2(0.0, 0.0);
      }
      z_unit_products<GT, false>(s, acc, ap, zsm, u, nt0, lane);
    }
    z_store<GT, false>(s, acc, cur.r0, nt0, g, t, beta, beta_zero, B);
    __syncwarp();  // every lane's fragments read: the stage is copied into again
#pragma unroll
    for (int j = 0; j + 1 < StagesA; ++j) q[j] = q[j + 1];
    q[StagesA - 1] = z_next(q[StagesA - 2], d, s.G, w);
    cur = q[0];
    if (cur.r0 >= s.K) break;
  }
  cp_async_wait<0>();
}

// One launch: blocks of kZWarps warps, as many as the SMs hold at once (no more than the items need).
template <class Kernel>
void launch_z(Kernel kernel, std::size_t smem, const char* what, cudaStream_t stream, const ZShape& s,
              const double2* A, const double2* C, Index ldcr, Index ldcc, double2 alpha, double2 beta, double2* B) {
  const int threads = 32 * kZWarps;
  const int per_sm = resident_blocks(kernel, threads, smem);
  const Index items = (s.K + 15) / 16 * s.G;
  const Index want = (items + threads / 32 - 1) / (threads / 32);
  const Index grid = launch_grid(want, per_sm);
  const RowTickets tk = row_tickets(stream, tsm::tsmm_ticket_items(true, s.M, s.N), want, grid);
  kernel<<<unsigned(grid), threads, smem, stream>>>(s, A, C, ldcr, ldcc, alpha, beta, B, tk);
  check(cudaGetLastError(), what);
}

template <int GT, bool Gauss, int P>
void launch_as(cudaStream_t stream, const ZShape& s, const double2* A, const double2* C, Index ldcr, Index ldcc,
               double2 alpha, double2 beta, double2* B) {
  const std::size_t smem = std::size_t(Gauss ? 3 : 2) * s.U * s.NT * 32 * sizeof(double2);
  launch_z(tsmm_z_mma16_kernel<GT, Gauss, P>, smem, "complex tsmm (tensor cores, m16n8k4) launch", stream, s, A, C,
           ldcr, ldcc, alpha, beta, B);
}

// alpha C's fragments, then each warp's StagesA stages of 16 rows.
template <int GT, int StagesA>
void launch_stage_a_as(cudaStream_t stream, const ZShape& s, const double2* A, const double2* C, Index ldcr,
                       Index ldcc, double2 alpha, double2 beta, double2* B) {
  const std::size_t smem =
      (std::size_t(2) * s.U * s.NT * 32 + std::size_t(kZWarps) * StagesA * 16 * s.S) * sizeof(double2);
  launch_z(tsmm_z_mma16_stage_a_kernel<GT, StagesA>, smem, "complex tsmm (tensor cores, m16n8k4, A staged) launch",
           stream, s, A, C, ldcr, ldcc, alpha, beta, B);
}

// The kernel of `tiles` column tiles, Gauss's three products or four, P units a step.
template <int P>
void launch_units(cudaStream_t stream, int tiles, bool gauss, const ZShape& s, const double2* A, const double2* C,
                  Index ldcr, Index ldcc, double2 alpha, double2 beta, double2* B) {
  if (gauss)
    (tiles == 4 ? launch_as<4, true, P> : launch_as<2, true, P>)(stream, s, A, C, ldcr, ldcc, alpha, beta, B);
  else
    (tiles == 4 ? launch_as<4, false, P> : launch_as<2, false, P>)(stream, s, A, C, ldcr, ldcc, alpha, beta, B);
}

// Units of A a step: 2 for the 4-tile kernel, whose registers (152 with
// one unit) hold one block an SM anyway; 1 for the 2-tile kernel, which keeps
// two blocks an SM that way (with two units: 152 registers, one block, 3-20%
// slower on an H200). TESSERA_TSM_Z_UNITS (1 or 2) overrides it (benchmarks).
int units_a_step(int tiles) {
  static const int forced = [] {
    const char* e = std::getenv("TESSERA_TSM_Z_UNITS");
    return e && *e ? int(std::strtol(e, nullptr, 10)) : 0;
  }();
  if (forced == 1 || forced == 2) return forced;
  return tiles == 4 ? 2 : 1;
}

}  // namespace

void launch_tsmm_z_mma16(cudaStream_t stream, const NativeConfigT& c, int M, int N, Index K, zcomplex alpha,
                         const zcomplex* A, Index lda, const zcomplex* C, Index ldcr, Index ldcc, zcomplex beta,
                         zcomplex* B, Index ldb) {
  const int NT = (N + 7) / 8;
  const int tiles = tsm::tsmm_z_warp_tiles(N, c.tiles);
  // Equal shares: with an even count of items a warp's items are always the
  // same share, and the 4-tile warps set the pace.
  const int G = tsm::tsmm_z_items_a_row_block(N, c.tiles);
  const ZShape s{M, N, (M + 7) / 8, NT, G, (NT + G - 1) / G, K, lda, ldb, tsm::tsmm_z_stage_stride(M)};
  // Kokkos::complex<double> is two doubles aligned to 16 bytes: the same object as double2.
  const auto* a2 = reinterpret_cast<const double2*>(A);
  const auto* c2 = reinterpret_cast<const double2*>(C);
  auto* b2 = reinterpret_cast<double2*>(B);
  const double2 al = make_double2(alpha.real(), alpha.imag()), be = make_double2(beta.real(), beta.imag());
  if (c.stages == 3 || c.stages == 4) {
    const auto go = tiles == 4 ? (c.stages == 3 ? launch_stage_a_as<4, 3> : launch_stage_a_as<4, 4>)
                               : (c.stages == 3 ? launch_stage_a_as<2, 3> : launch_stage_a_as<2, 4>);
    return go(stream, s, a2, c2, ldcr, ldcc, al, be, b2);
  }
  (units_a_step(tiles) == 2 ? launch_units<2> : launch_units<1>)(stream, tiles, c.products == 3, s, a2, c2, ldcr,
                                                                 ldcc, al, be, b2);
}

}  // namespace tessera::native_cuda::tsm_detail
