// Direct 3-D convolution of integer-valued video on the tensor cores
// (mma.sync m16n8k16, fp16 operands, fp32 accumulation), as accurate as the
// FP32 FMA kernels: the samples are exact in fp16 (integers |v| <= 2048, so
// 8-bit video), the taps are split as S kf = hi + lo in fp16 (S a power of
// two, ~22 bits of every tap) and each product is taken twice, and each input
// frame's products are summed in fresh accumulators and added to the totals
// in FP32 (short tensor-core accumulation chains: 6.6e-7 of max |out| at
// k = 15 against 1.1e-5 with one chain).
//
// For an input row (frame f, row yy) a warp computes D += A B with
//   A[j][m] = V[f][yy][x + j + m]          (16 x 16 Hankel block of the row)
//   B[m][c] = kf[f - t_c][yy - y_c][m]      (the taps joining the row to 8
//                                            outputs: 4 frames x 2 rows; zero
//                                            where out of range and m >= k)
//   D[j][c] = out[t_c][y_c][x + j]
// A lane's A fragments are pairs of consecutive samples at offsets
// g + 2t + 8s of the staged row (g = lane / 4, t = lane % 4), all of one
// parity, so a second fp16 copy of the row shifted by one sample makes every
// pair one aligned 32-bit shared load, and 9 column chunks of 16 share 19
// such loads (k >= 9; at k <= 7 one step takes the tap pairs of 2 or 4 kernel
// rows, TensorShape::RP). A block of 4 warps owns 144 columns x 8 rows x 4 frames; each
// input frame arrives by cp.async into an fp32 buffer while the tensor cores
// work on the previous one, and is converted to the two copies at the frame's
// end. perf/experiments/conv3d_tensor_probe.cu measured the forms side by
// side (docs/perf/video.md).
#include "tessera/video/conv3d_native_cuda.hpp"

#include "conv3d_cp_async.cuh"

#include <cuda_fp16.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace tessera::native_cuda {
namespace {

constexpr int kWarps = 4, kThreads = 32 * kWarps;
constexpr int kRowsPerWarp = 2, kTileY = kWarps * kRowsPerWarp;  // output rows a block
constexpr int kFramesPerBlock = 4;                                // output frames a block (x 2 rows = n 8)

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("conv3d tensor: ") + what + ": " + cudaGetErrorString(e));
}

// XC column chunks of 16 a warp (the block's tile 16 XC wide), MINB blocks
// an SM asked of the register allocator.
template <int K, int XC, int MINB>
struct TensorShape {
  static constexpr int TX = 16 * XC;     // output columns a block
  static constexpr int SX = TX + 16;     // fp16 samples a staged row
  static constexpr int SF = SX + 4;      // fp32 samples a row (origin aligned to 4)
  static constexpr int SR = kTileY + K - 1;  // staged rows
  // Halves from copy 0 to copy 1: 32 mod 64, so the same word offset of the
  // two copies falls in banks 16 apart (lanes of both parities load at once).
  static constexpr int CS = (SR * SX + 63) / 64 * 64 + 32;
  static constexpr int TAPS = 2 * K * K * 16;  // hi, lo [l][n][16] halves
  // Kernel rows a k16 step: one at k >= 9 (taps 0..15 of a row, the A block
  // a Hankel block of one staged row), 8 / PR at k <= 7, PR tap pairs a row
  // (k = 3: 4 rows, 12 of 16 products; 5: 2 rows, 10; 7: 2 rows, 14).
  static constexpr int PR = (K + 1) / 2;
  static constexpr int RP = PR >= 5 ? 1 : 8 / PR;
  static_assert((kRowsPerWarp + K - 1) % RP == 0, "the warp's staged rows split into whole steps");
  static constexpr int SMEM = TAPS * 2 + 2 * CS * 2 + SR * SF * 4;
};

__device__ __forceinline__ void mma16816(float (&d)[4], const unsigned (&a)[4], unsigned b0, unsigned b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

using conv3d_detail::cp_async_commit;
using conv3d_detail::cp_async_f32;
using conv3d_detail::cp_async_f32x4;
using conv3d_detail::cp_async_wait;

__device__ __forceinline__ unsigned pack(float lo, float hi) {
  const __half2 h = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<const unsigned*>(&h);
}

template <int K, int XC, int MINB>
__global__ void __launch_bounds__(kThreads, MINB)
    conv3d_tensor_kernel(const float* __restrict__ v, const float* __restrict__ kf, float* __restrict__ out, int H,
                         int W, int Ho, int Wo, int To, int shift, int nx, int ny, bool vec4) {
  using S = TensorShape<K, XC, MINB>;
  constexpr int SR = S::SR, kChunks = XC, kTileX = S::TX, kStagedX = S::SX, kStagedF = S::SF;
  extern __shared__ __align__(16) unsigned char smem[];
  __half* const taps = reinterpret_cast<__half*>(smem);                     // [2][K][K][16]
  __half* const st = reinterpret_cast<__half*>(smem + S::TAPS * 2);         // copies at 0 and CS
  float* const sf = reinterpret_cast<float*>(smem + S::TAPS * 2 + 4 * S::CS);  // [SR][kStagedF]
  __shared__ float wmax[kWarps];
  const int tid = threadIdx.x, lane = tid & 31, w = tid >> 5, g = lane >> 2, t = lane & 3;
  const int b = blockIdx.x;
  const int x0 = (b % nx) * kTileX, y0 = ((b / nx) % ny) * kTileY, t0 = (b / (nx * ny)) * kFramesPerBlock;
  const int nto = min(kFramesPerBlock, To - t0), nf = nto + K - 1;
  // The staged fp32 row starts at a multiple of 4 columns, a columns before x0 + shift.
  const int xs = x0 + (shift & ~3), a = shift - (shift & ~3);

  auto issue = [&](int f) {  // input frame t0 + f into sf
    const float* frame = v + std::size_t(t0 + f) * H * W;
    if (vec4) {
      for (int e = tid; e < SR * (kStagedF / 4); e += kThreads) {
        const int r = e / (kStagedF / 4), c = e % (kStagedF / 4), y = y0 + shift + r, x = xs + 4 * c;
        const bool in = y >= 0 && y < H && x >= 0 && x < W;  // W % 4 == 0: a 4-group is wholly in or out
        cp_async_f32x4(sf + r * kStagedF + 4 * c, in ? frame + std::size_t(y) * W + x : frame, in);
      }
    } else {
      for (int e = tid; e < SR * kStagedF; e += kThreads) {
        const int r = e / kStagedF, c = e % kStagedF, y = y0 + shift + r, x = xs + c;
        const bool in = y >= 0 && y < H && x >= 0 && x < W;
        cp_async_f32(sf + e, in ? frame + std::size_t(y) * W + x : frame, in);
      }
    }
    cp_async_commit();
  };
  // copy 0 [i] = sf[i + a], copy 1 [i] = sf[i + 1 + a]; four samples of each a task.
  auto convert = [&] {
    for (int e = tid; e < SR * (kStagedX / 4); e += kThreads) {
      const int r = e / (kStagedX / 4), q = e % (kStagedX / 4);
      const float4 p = *reinterpret_cast<const float4*>(sf + r * kStagedF + 4 * q);
      const float4 n = *reinterpret_cast<const float4*>(sf + r * kStagedF + 4 * q + 4);
      float s0, s1, s2, s3, s4;  // a is the same for the whole block
      switch (a) {
        case 0: s0 = p.x, s1 = p.y, s2 = p.z, s3 = p.w, s4 = n.x; break;
        case 1: s0 = p.y, s1 = p.z, s2 = p.w, s3 = n.x, s4 = n.y; break;
        case 2: s0 = p.z, s1 = p.w, s2 = n.x, s3 = n.y, s4 = n.z; break;
        default: s0 = p.w, s1 = n.x, s2 = n.y, s3 = n.z, s4 = n.w; break;
      }
      *reinterpret_cast<uint2*>(st + r * kStagedX + 4 * q) = make_uint2(pack(s0, s1), pack(s2, s3));
      *reinterpret_cast<uint2*>(st + S::CS + r * kStagedX + 4 * q) = make_uint2(pack(s1, s2), pack(s3, s4));
    }
  };

  issue(0);
  // The taps' scale: S = 2^(14 - e) for max |kf| = m 2^e, m in [0.5, 1): |S kf| < 2^14.
  float mx = 0.f;
  for (int i = tid; i < K * K * K; i += kThreads) mx = fmaxf(mx, fabsf(__ldg(kf + i)));
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) mx = fmaxf(mx, __shfl_xor_sync(0xffffffffu, mx, o));
  if (lane == 0) wmax[w] = mx;
  __syncthreads();
  mx = fmaxf(fmaxf(wmax[0], wmax[1]), fmaxf(wmax[2], wmax[3]));
  int e2 = 0;
  frexpf(mx, &e2);
  const float scale = mx > 0.f ? ldexpf(1.f, 14 - e2) : 1.f;
  for (int i = tid; i < K * K * 16; i += kThreads) {
    const int m = i % 16;
    const float x = m < K ? scale * __ldg(kf + i / 16 * K + m) : 0.f;
    const __half hi = __float2half_rn(x);
    taps[i] = hi;
    taps[K * K * 16 + i] = __float2half_rn(x - __half2float(hi));
  }

  float acc[kChunks][4];
#pragma unroll
  for (int c = 0; c < kChunks; ++c) acc[c][0] = acc[c][1] = acc[c][2] = acc[c][3] = 0.f;
  const int tt = g >> 1, yr = g & 1, par = g & 1;  // this lane's B column: output frame, row; A copy
  // RP > 1: the lane's k slots 2t, 2t + 1 and 2t + 8, 2t + 9 are tap pairs
  // t and t + 4, pair p = (kernel row p / PR of the step, taps 2 (p % PR) and
  // + 1); pairs past RP PR are zero (their A a finite sample, their B 0).
  const bool vA = t < S::RP * S::PR, vB = t + 4 < S::RP * S::PR;
  const int qA = vA ? t / S::PR : 0, mA = vA ? 2 * (t % S::PR) : 0;
  const int qB = vB ? (t + 4) / S::PR : 0, mB = vB ? 2 * ((t + 4) % S::PR) : 0;
  const int offA = (g - par + mA) / 2, offB = (g - par + mB) / 2;  // words into a staged row
  cp_async_wait<0>();
  __syncthreads();
  convert();
  __syncthreads();
  if (nf > 1) issue(1);
  for (int f = 0; f < nf; ++f) {
    const int l = f - tt;
    const bool frame_ok = tt < nto && l >= 0 && l < K;
    float part[kChunks][4];
#pragma unroll
    for (int c = 0; c < kChunks; ++c) part[c][0] = part[c][1] = part[c][2] = part[c][3] = 0.f;
    if constexpr (S::RP == 1) {
      for (int r = w * kRowsPerWarp; r < w * kRowsPerWarp + kRowsPerWarp + K - 1; ++r) {
        const int n = r - w * kRowsPerWarp - yr;  // kernel row joining staged row r to this lane's output row
        // Loads from a clamped index and zeros selected: a branch around them
        // (the lanes disagree) measured 7% slower.
        const bool ok = frame_ok && n >= 0 && n < K;
        const __half* tp = taps + (ok ? l * K + n : 0) * 16 + 2 * t;
        unsigned bh0 = *reinterpret_cast<const unsigned*>(tp), bh1 = *reinterpret_cast<const unsigned*>(tp + 8);
        unsigned bl0 = *reinterpret_cast<const unsigned*>(tp + K * K * 16);
        unsigned bl1 = *reinterpret_cast<const unsigned*>(tp + K * K * 16 + 8);
        bh0 = ok ? bh0 : 0u, bh1 = ok ? bh1 : 0u, bl0 = ok ? bl0 : 0u, bl1 = ok ? bl1 : 0u;
        // Pairs (i, i + 1), i = g + 2t + 8s, from the copy where i - par is even.
        const unsigned* row =
            reinterpret_cast<const unsigned*>(st + par * S::CS + r * kStagedX) + (g - par + 2 * t) / 2;
        unsigned p[2 * kChunks + 1];
#pragma unroll
        for (int s = 0; s <= 2 * kChunks; ++s) p[s] = row[4 * s];
#pragma unroll
        for (int c = 0; c < kChunks; ++c) {
          const unsigned af[4] = {p[2 * c], p[2 * c + 1], p[2 * c + 1], p[2 * c + 2]};
          mma16816(part[c], af, bh0, bh1);
        }
#pragma unroll
        for (int c = 0; c < kChunks; ++c) {
          const unsigned af[4] = {p[2 * c], p[2 * c + 1], p[2 * c + 1], p[2 * c + 2]};
          mma16816(part[c], af, bl0, bl1);
        }
      }
    } else {
      // RP kernel rows a k16 step: a lane's fragments come from two (row,
      // tap) places of its own, loaded apart (no Hankel sharing).
      const unsigned* cp = reinterpret_cast<const unsigned*>(st + par * S::CS);
      const int rA = w * kRowsPerWarp + qA, rB = w * kRowsPerWarp + qB;
      for (int r = 0; r < kRowsPerWarp + K - 1; r += S::RP) {
        const int nA = r + qA - yr, nB = r + qB - yr;  // kernel rows of the lane's two tap pairs
        const bool okA = frame_ok && vA && nA >= 0 && nA < K, okB = frame_ok && vB && nB >= 0 && nB < K;
        const __half* tA = taps + (okA ? l * K + nA : 0) * 16 + mA;
        const __half* tB = taps + (okB ? l * K + nB : 0) * 16 + mB;
        unsigned bh0 = *reinterpret_cast<const unsigned*>(tA), bh1 = *reinterpret_cast<const unsigned*>(tB);
        unsigned bl0 = *reinterpret_cast<const unsigned*>(tA + K * K * 16);
        unsigned bl1 = *reinterpret_cast<const unsigned*>(tB + K * K * 16);
        bh0 = okA ? bh0 : 0u, bh1 = okB ? bh1 : 0u, bl0 = okA ? bl0 : 0u, bl1 = okB ? bl1 : 0u;
        const unsigned* rowA = cp + (rA + r) * (kStagedX / 2) + offA;
        const unsigned* rowB = cp + (rB + r) * (kStagedX / 2) + offB;
#pragma unroll
        for (int c = 0; c < kChunks; ++c) {
          const unsigned af[4] = {rowA[8 * c], rowA[8 * c + 4], rowB[8 * c], rowB[8 * c + 4]};
          mma16816(part[c], af, bh0, bh1);
          mma16816(part[c], af, bl0, bl1);
        }
      }
    }
#pragma unroll
    for (int c = 0; c < kChunks; ++c)
#pragma unroll
      for (int q = 0; q < 4; ++q) acc[c][q] += part[c][q];
    if (f + 1 < nf) {
      cp_async_wait<0>();
      __syncthreads();  // frame f + 1 landed; every warp done with frame f's copies
      convert();
      __syncthreads();  // the copies written; sf free again
      if (f + 2 < nf) issue(f + 2);
    }
  }
  // D fragment: c0, c1 at row j = g, columns 2t, 2t + 1; c2, c3 at row g + 8.
  const float inv = 1.f / scale;
  const int y = y0 + w * kRowsPerWarp;
#pragma unroll
  for (int c = 0; c < kChunks; ++c)
#pragma unroll
    for (int q = 0; q < 4; ++q) {
      const int x = x0 + 16 * c + g + (q >> 1) * 8, col = 2 * t + (q & 1);
      const int to = col >> 1, yo = y + (col & 1);
      if (to < nto && x < Wo && yo < Ho) out[(std::size_t(t0 + to) * Ho + yo) * Wo + x] = acc[c][q] * inv;
    }
}

template <int K, int XC, int MINB>
void launch_tensor(cudaStream_t stream, const float* v, const float* kf, float* out,
                   const video::impl::Conv3dGeometry& g) {
  using S = TensorShape<K, XC, MINB>;
  constexpr int smem = S::SMEM, kTileX = S::TX;
  static const cudaError_t attr =  // once a process (the launch stays a bare launch)
      cudaFuncSetAttribute(conv3d_tensor_kernel<K, XC, MINB>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  check(attr, "shared memory size");
  const int nx = (g.Wo + kTileX - 1) / kTileX, ny = (g.Ho + kTileY - 1) / kTileY;
  const int nt = (g.To + kFramesPerBlock - 1) / kFramesPerBlock;
  const bool vec4 = g.W % 4 == 0 && reinterpret_cast<std::uintptr_t>(v) % 16 == 0;
  conv3d_tensor_kernel<K, XC, MINB><<<unsigned(nt) * nx * ny, kThreads, smem, stream>>>(v, kf, out, g.H, g.W, g.Ho, g.Wo, g.To,
                                                                             g.shift, nx, ny, vec4);
  check(cudaGetLastError(), "launch");
}

}  // namespace

bool conv3d_tensor_supports(int k) { return k >= 3 && k <= 15 && k % 2 == 1; }

void conv3d_tensor(cudaStream_t stream, const float* v, const float* kf, float* out,
                   const video::impl::Conv3dGeometry& g) {
  if (!conv3d_tensor_supports(g.k))
    throw std::invalid_argument("conv3d tensor: k = " + std::to_string(g.k) + " is not odd 3..15");
  if (g.To <= 0 || g.Ho <= 0 || g.Wo <= 0) return;
  switch (g.k) {
    case 3: launch_tensor<3, 9, 3>(stream, v, kf, out, g); break;
    case 5: launch_tensor<5, 9, 3>(stream, v, kf, out, g); break;
    case 7: launch_tensor<7, 9, 3>(stream, v, kf, out, g); break;
    case 9: launch_tensor<9, 9, 3>(stream, v, kf, out, g); break;
    case 11: launch_tensor<11, 9, 3>(stream, v, kf, out, g); break;
    case 13: launch_tensor<13, 9, 3>(stream, v, kf, out, g); break;
    default: launch_tensor<15, 9, 3>(stream, v, kf, out, g); break;
  }
}

}  // namespace tessera::native_cuda
