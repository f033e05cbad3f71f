// Native CUDA 3-D convolution: the register-blocked direct kernels (below the
// streaming kernel further down). A block of
// 32 x 4 threads computes a 32 x 28 output tile of one frame; each thread
// holds 7 consecutive rows of one column. For each kernel plane l the block
// stages the (32+k-1)^2 input plane and the plane's k^2 taps in shared
// memory; for each kernel column m a thread loads the k taps into registers
// (16-byte broadcast loads of a transposed copy) and slides down its column,
// so one shared load feeds up to 7 FMAs. k is a template parameter (the loops
// unroll fully). The taps are uploaded to constant memory, but read from
// there only while staging: at k = 15 the blocks resident on an SM sit at
// different planes l, and reading every tap from the constant bank made the
// warps wait on constant-cache misses (Nsight Compute: 62% of the stall
// cycles, 18% of the FP32 FMA ceiling). Up to k = 9 a form with 4 output
// frames per block runs instead: each input frame is staged once and feeds
// every output frame of the block that uses it (1.3x faster at k = 3..9 on
// the H100).
#include "tessera/video/conv3d_native_cuda.hpp"

#include <stdexcept>
#include <string>

namespace tessera::native_cuda {
namespace {

constexpr int kMaxK = 15;
__constant__ float c_conv3d_kf[kMaxK * kMaxK * kMaxK];

// 28 output rows per block: 560-row frames (the paper's) split into whole
// tiles, and 1,840 blocks at 8 per SM end in a fuller last wave than 32-row
// tiles' 1,656 (measured 1-8% faster across k = 5..15 on the H100).
constexpr int kTileX = 32, kRows = 7, kThreadsY = 4, kTileY = kRows * kThreadsY;

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("conv3d native: ") + what + ": " + cudaGetErrorString(e));
}

template <int K>
__global__ void __launch_bounds__(kTileX * kThreadsY)
    conv3d_register_kernel(const float* __restrict__ v, float* __restrict__ out, int H, int W, int Ho, int Wo,
                           int shift, int nx, int ny) {
  constexpr int EX = kTileX + K - 1, EY = kTileY + K - 1;
  constexpr int KP = (K + 3) / 4 * 4;  // one kernel column's taps, padded for 16-byte loads
  __shared__ float plane[EY][EX];
  __shared__ __align__(16) float taps[K][KP];  // taps[m][j] = K[m, j, l] of the current plane
  const int b = blockIdx.x;
  const int x0 = (b % nx) * kTileX, y0 = ((b / nx) % ny) * kTileY, t0 = b / (nx * ny);
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * kTileX + tx;
  float acc[kRows];
#pragma unroll
  for (int r = 0; r < kRows; ++r) acc[r] = 0.f;
  for (int l = 0; l < K; ++l) {
    const float* frame = v + std::size_t(t0 + l) * H * W;
    for (int i = tid; i < EY * EX; i += kTileX * kThreadsY) {
      const int a = i % EX, bb = i / EX;
      const int y = y0 + shift + bb, x = x0 + shift + a;
      plane[bb][a] = (y >= 0 && y < H && x >= 0 && x < W) ? __ldg(frame + std::size_t(y) * W + x) : 0.f;
    }
    const float* kl = c_conv3d_kf + l * K * K;
    for (int i = tid; i < K * KP; i += kTileX * kThreadsY) {
      const int m = i / KP, j = i % KP;
      taps[m][j] = j < K ? kl[j * K + m] : 0.f;
    }
    __syncthreads();
#pragma unroll
    for (int m = 0; m < K; ++m) {
      float kr[KP];
#pragma unroll
      for (int j = 0; j < KP; j += 4) {
        const float4 t = *reinterpret_cast<const float4*>(&taps[m][j]);
        kr[j] = t.x, kr[j + 1] = t.y, kr[j + 2] = t.z, kr[j + 3] = t.w;
      }
#pragma unroll
      for (int q = 0; q < K + kRows - 1; ++q) {
        const float val = plane[ty * kRows + q][tx + m];
#pragma unroll
        for (int r = 0; r < kRows; ++r) {
          const int j = q - r;
          if (j >= 0 && j < K) acc[r] = fmaf(kr[j], val, acc[r]);
        }
      }
    }
    __syncthreads();
  }
  const int x = x0 + tx;
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    const int y = y0 + ty * kRows + r;
    if (y < Ho && x < Wo) out[(std::size_t(t0) * Ho + y) * Wo + x] = acc[r];
  }
}

// The register kernel for small k with kFramesOut output frames per block: a
// block of 32 x kFramesTy threads owns a 32 x (kFramesRows kFramesTy) tile of
// kFramesOut consecutive output frames; input frame f of the block is staged
// once (double-buffered: one barrier per frame) and feeds output frame o with
// kernel plane f - o, each thread's kFramesRows rows of each output frame in
// registers. A staged value feeds up to kFramesOut k FMAs (one-frame blocks:
// k), and a frame's input is read by one block instead of up to k.
constexpr int kFramesOut = 4, kFramesRows = 5, kFramesTy = 4, kFramesTileY = kFramesRows * kFramesTy;

template <int K>
__global__ void __launch_bounds__(kTileX * kFramesTy)
    conv3d_frames_kernel(const float* __restrict__ v, float* __restrict__ out, int H, int W, int Ho, int Wo, int To,
                         int shift, int nx, int ny) {
  constexpr int R = kFramesRows, EX = kTileX + K - 1, EY = kFramesTileY + K - 1;
  constexpr int KP = (K + 3) / 4 * 4;
  __shared__ float plane[2][EY][EX];
  __shared__ __align__(16) float taps[K][K][KP];  // taps[l][m][j] = kf(l, j, m)
  const int b = blockIdx.x;
  const int x0 = (b % nx) * kTileX, y0 = ((b / nx) % ny) * kFramesTileY, t0 = (b / (nx * ny)) * kFramesOut;
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * kTileX + tx;
  for (int i = tid; i < K * K * KP; i += kTileX * kFramesTy) {
    const int j = i % KP, m = (i / KP) % K, l = i / (KP * K);
    taps[l][m][j] = j < K ? c_conv3d_kf[(l * K + j) * K + m] : 0.f;
  }
  float acc[kFramesOut][R];
#pragma unroll
  for (int o = 0; o < kFramesOut; ++o)
#pragma unroll
    for (int r = 0; r < R; ++r) acc[o][r] = 0.f;
  const int nf = min(kFramesOut, To - t0) + K - 1;  // input frames t0 .. t0 + nf - 1
  auto stage = [&](int f, int buf) {
    const float* frame = v + std::size_t(t0 + f) * H * W;
    for (int i = tid; i < EY * EX; i += kTileX * kFramesTy) {
      const int a = i % EX, bb = i / EX;
      const int y = y0 + shift + bb, x = x0 + shift + a;
      plane[buf][bb][a] = (y >= 0 && y < H && x >= 0 && x < W) ? __ldg(frame + std::size_t(y) * W + x) : 0.f;
    }
  };
  stage(0, 0);
  for (int f = 0; f < nf; ++f) {
    __syncthreads();  // frame f staged; every thread done with frame f - 1's buffer
    if (f + 1 < nf) stage(f + 1, (f + 1) & 1);
    const int buf = f & 1;
#pragma unroll
    for (int m = 0; m < K; ++m) {
      float val[K + R - 1];
#pragma unroll
      for (int q = 0; q < K + R - 1; ++q) val[q] = plane[buf][ty * R + q][tx + m];
#pragma unroll
      for (int o = 0; o < kFramesOut; ++o) {
        const int l = f - o;
        if (l < 0 || l >= K) continue;  // the same for the whole block
        float kr[KP];
#pragma unroll
        for (int j = 0; j < KP; j += 4) {
          const float4 t = *reinterpret_cast<const float4*>(&taps[l][m][j]);
          kr[j] = t.x, kr[j + 1] = t.y, kr[j + 2] = t.z, kr[j + 3] = t.w;
        }
#pragma unroll
        for (int r = 0; r < R; ++r)
#pragma unroll
          for (int j = 0; j < K; ++j) acc[o][r] = fmaf(kr[j], val[r + j], acc[o][r]);
      }
    }
  }
  const int x = x0 + tx;
#pragma unroll
  for (int o = 0; o < kFramesOut; ++o)
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const int y = y0 + ty * R + r, t = t0 + o;
      if (t < To && y < Ho && x < Wo) out[(std::size_t(t) * Ho + y) * Wo + x] = acc[o][r];
    }
}

template <int K>
void launch_register(cudaStream_t stream, const float* v, float* out, const video::impl::Conv3dGeometry& g) {
  if constexpr (K <= 9) {
    const int nx = (g.Wo + kTileX - 1) / kTileX, ny = (g.Ho + kFramesTileY - 1) / kFramesTileY;
    const int nt = (g.To + kFramesOut - 1) / kFramesOut;
    conv3d_frames_kernel<K><<<unsigned(nt) * nx * ny, dim3(kTileX, kFramesTy), 0, stream>>>(
        v, out, g.H, g.W, g.Ho, g.Wo, g.To, g.shift, nx, ny);
  } else {
    const int nx = (g.Wo + kTileX - 1) / kTileX, ny = (g.Ho + kTileY - 1) / kTileY;
    const dim3 block(kTileX, kThreadsY);
    conv3d_register_kernel<K><<<unsigned(g.To) * nx * ny, block, 0, stream>>>(v, out, g.H, g.W, g.Ho, g.Wo, g.shift,
                                                                            nx, ny);
  }
  check(cudaGetLastError(), "launch");
}

// STREAMING (the paper's loop skewing) with register accumulators: a block of
// 32 threads owns 32 output columns of one frame and a segment of 64 output
// rows, and marches down y. Each step stages one input row of the k frames
// (k x (32 + k - 1), double-buffered: one barrier per step) and adds it to the
// k output rows in flight, held in registers acc[j] (row y = r - j); each
// staged value feeds k FMAs whose taps are constant-memory operands (l, j, m
// all unrolled). The first k - 1 steps of a segment only warm its rows up.
constexpr int kStreamX = 32, kStreamSeg = 64;

template <int K>
__global__ void __launch_bounds__(kStreamX)
    conv3d_streaming_kernel(const float* __restrict__ v, float* __restrict__ out, int H, int W, int Ho, int Wo,
                            int shift, int nx, int nseg) {
  constexpr int EX = kStreamX + K - 1;
  __shared__ float slice[2][K][EX];
  const int b = blockIdx.x;
  const int x0 = (b % nx) * kStreamX, ys = ((b / nx) % nseg) * kStreamSeg, t0 = b / (nx * nseg);
  const int tx = threadIdx.x;
  float acc[K];
#pragma unroll
  for (int j = 0; j < K; ++j) acc[j] = 0.f;
  const int steps = min(kStreamSeg, Ho - ys) + K - 1;
  for (int q = 0; q < steps; ++q) {
    const int yin = ys + shift + q;  // input row of this step
    const int buf = q & 1;
    const bool row_in = yin >= 0 && yin < H;
    for (int i = tx; i < K * EX; i += kStreamX) {
      const int a = i % EX, l = i / EX;
      const int x = x0 + shift + a;
      slice[buf][l][a] = (row_in && x >= 0 && x < W) ? __ldg(v + (std::size_t(t0 + l) * H + yin) * W + x) : 0.f;
    }
    __syncthreads();
#pragma unroll
    for (int l = 0; l < K; ++l)
#pragma unroll
      for (int m = 0; m < K; ++m) {
        const float val = slice[buf][l][tx + m];
#pragma unroll
        for (int j = 0; j < K; ++j) acc[j] = fmaf(val, c_conv3d_kf[(l * K + j) * K + m], acc[j]);
      }
    // acc[K-1] has all K rows of kernel: output row ys + q - (K - 1).
    const int y = ys + q - (K - 1);
    if (y >= ys && x0 + tx < Wo) out[(std::size_t(t0) * Ho + y) * Wo + x0 + tx] = acc[K - 1];
#pragma unroll
    for (int j = K - 1; j > 0; --j) acc[j] = acc[j - 1];
    acc[0] = 0.f;
  }
}

template <int K>
void launch_streaming(cudaStream_t stream, const float* v, float* out, const video::impl::Conv3dGeometry& g) {
  const int nx = (g.Wo + kStreamX - 1) / kStreamX, nseg = (g.Ho + kStreamSeg - 1) / kStreamSeg;
  conv3d_streaming_kernel<K><<<unsigned(g.To) * nx * nseg, kStreamX, 0, stream>>>(v, out, g.H, g.W, g.Ho, g.Wo,
                                                                                 g.shift, nx, nseg);
  check(cudaGetLastError(), "launch");
}

void upload_taps(cudaStream_t stream, const float* kf, int k) {
  // Constant memory is one per device: calls with different kernels must be
  // ordered (one stream, or synchronised streams).
  check(cudaMemcpyToSymbolAsync(c_conv3d_kf, kf, std::size_t(k) * k * k * sizeof(float), 0,
                                cudaMemcpyDeviceToDevice, stream),
        "kernel upload");
}

}  // namespace

void conv3d_streaming(cudaStream_t stream, const float* v, const float* kf, float* out,
                      const video::impl::Conv3dGeometry& g) {
  if (g.To <= 0 || g.Ho <= 0 || g.Wo <= 0) return;
  upload_taps(stream, kf, g.k);
  switch (g.k) {
    case 3: launch_streaming<3>(stream, v, out, g); break;
    case 5: launch_streaming<5>(stream, v, out, g); break;
    case 7: launch_streaming<7>(stream, v, out, g); break;
    case 9: launch_streaming<9>(stream, v, out, g); break;
    case 11: launch_streaming<11>(stream, v, out, g); break;
    case 13: launch_streaming<13>(stream, v, out, g); break;
    case 15: launch_streaming<15>(stream, v, out, g); break;
    default: throw std::invalid_argument("conv3d native: k = " + std::to_string(g.k) + " is not odd 3..15");
  }
}

void conv3d_register(cudaStream_t stream, const float* v, const float* kf, float* out,
                     const video::impl::Conv3dGeometry& g) {
  if (g.To <= 0 || g.Ho <= 0 || g.Wo <= 0) return;
  upload_taps(stream, kf, g.k);
  switch (g.k) {
    case 3: launch_register<3>(stream, v, out, g); break;
    case 5: launch_register<5>(stream, v, out, g); break;
    case 7: launch_register<7>(stream, v, out, g); break;
    case 9: launch_register<9>(stream, v, out, g); break;
    case 11: launch_register<11>(stream, v, out, g); break;
    case 13: launch_register<13>(stream, v, out, g); break;
    case 15: launch_register<15>(stream, v, out, g); break;
    default: throw std::invalid_argument("conv3d native: k = " + std::to_string(g.k) + " is not odd 3..15");
  }
}

}  // namespace tessera::native_cuda
