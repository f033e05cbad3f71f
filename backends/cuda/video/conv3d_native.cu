// Native CUDA 3-D convolution: the register-blocked direct kernel, then the
// STREAMING kernel. The register-blocked kernel gives a block several
// consecutive output frames of a 32-column tile; each input frame is staged
// once in shared memory and feeds every output frame of the block that uses
// it; for each kernel column m a thread loads its rows' inputs and the k taps
// (16-byte broadcast loads of a transposed copy) into registers, so one shared
// load feeds up to (frames x rows) FMAs. k is a template parameter (the loops
// unroll fully). The taps are read from the device copy of the flipped kernel
// into shared memory once a block: read from the constant bank in the inner
// loop, they made the warps wait on constant-cache misses at k = 15 (Nsight
// Compute: 62% of the stall cycles), since the blocks resident on an SM sit
// at different kernel planes.
#include "tessera/video/conv3d_native_cuda.hpp"

#include "conv3d_cp_async.cuh"

#include <cuda.h>
#include <cudaTypedefs.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace tessera::native_cuda {
namespace {

constexpr int kMaxK = 15;
__constant__ float c_conv3d_kf[kMaxK * kMaxK * kMaxK];

// Output tiles are 32 columns wide: a warp's 32 threads own 32 neighbouring
// output columns (conflict-free shared-memory rows, coalesced stores).
constexpr int kTileX = 32;

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("conv3d native: ") + what + ": " + cudaGetErrorString(e));
}

using conv3d_detail::cp_async_commit;
using conv3d_detail::cp_async_f32;
using conv3d_detail::cp_async_f32x4;
using conv3d_detail::cp_async_wait;
using conv3d_detail::smem_addr;

// Floats in a staged row of the register kernels: the row starts at a
// multiple of 4 columns (16-byte copies when the frame rows allow them; a
// copy-engine box must start 16 bytes aligned, other starts fault on the
// H100) and spans the tile's 32 + k - 1 input columns from column off
// (0..3) of the row.
__host__ __device__ constexpr int staged_row(int k) { return (kTileX + k - 1 + 3 + 3) / 4 * 4; }

// A staged frame (EY rows of EX columns, the first at frame row ys and
// column xs, xs a multiple of 4) in 16-byte copies: each of NT threads
// takes copies tid, tid + NT, ...; get() gives a thread's NC places, the
// offset in the frame (-1: outside it, zeros) and in a stage buffer (-1: no
// copy), the same in every frame.
template <int EX, int EY, int NT>
struct CopyPlaces {
  static constexpr int N4 = EX / 4, NC = (EY * N4 + NT - 1) / NT;
  __device__ __forceinline__ static void get(int tid, int ys, int xs, int H, int W, int (&src4)[NC],
                                             int (&dst4)[NC]) {
#pragma unroll
    for (int c = 0; c < NC; ++c) {
      const int i = tid + c * NT, a = i % N4 * 4, bb = i / N4;
      const int y = ys + bb, x = xs + a;
      const bool in = y >= 0 && y < H && x >= 0 && x < W;
      src4[c] = in ? y * W + x : -1;
      dst4[c] = i < EY * N4 ? bb * EX + a : -1;
    }
  }
};

// The shape by k, measured side by side on the H100 at the paper's size
// (perf/experiments/conv3d_frames_probe, docs/perf/video.md): 4 output frames
// a block at k = 3, 5 and 15, 2 (twice the blocks; 64 registers so that the
// registers do not cap the blocks an SM) at k = 7..13; at k <= 5 registers
// for 5 blocks an SM (~96: the paper size's 644 blocks then run as one wave,
// not 528 and a tail of 116; 9-13% faster); at k <= 5 the frame
// loop of a whole block is unrolled (plane, buffer and branch of every tap
// resolved at compile time), with 2 buffers at k = 5; 16-byte copies where
// the rows allow them, except at k = 15 where 4-byte copies measured faster.
template <int K>
struct FramesShape {
  static constexpr int FO = K <= 5 || K == 15 ? 4 : 2;  // output frames a block
  static constexpr int R = 5, TY = 4;                   // rows a thread, thread rows a block
  static constexpr int NB = K == 5 ? 2 : 3;             // stage buffers (frames in flight: NB - 1)
  static constexpr int MB = FO == 2 ? 8 : K <= 5 ? 5 : 1;  // blocks an SM asked of the register allocator
  static constexpr bool UNROLL = K <= 5;                // whole-block frame loop unrolled
  static constexpr bool NO_VEC4 = K == 15;              // 4-byte copies only
};

// One output frame a call (the sliding window's): a block takes one frame,
// 7 rows a thread (560-row frames split into whole 28-row tiles).
template <int K>
struct OneFrameShape {
  static constexpr int FO = 1, R = 7, TY = 4, NB = 2, MB = 1;
  static constexpr bool UNROLL = K <= 5, NO_VEC4 = false;
};

// The register kernel with FO output frames per block: a block of 32 x TY
// threads owns a 32 x (R TY) tile of FO consecutive output frames; input
// frame f of the block is staged once (NB buffers, cp.async: the copy of frame
// f + NB - 1 is in flight while frame f is used) and feeds output frame o with
// kernel plane f - o, each thread's R rows of each output frame in registers.
// A staged value feeds up to FO k FMAs (one-frame blocks: k), and a frame's
// input is read by one block instead of up to k.
template <int K, class S = FramesShape<K>>
__global__ void __launch_bounds__(kTileX * S::TY, S::MB)
    conv3d_frames_kernel(const float* __restrict__ v, const float* __restrict__ kf, float* __restrict__ out, int H,
                         int W, int Ho, int Wo, int To, int shift, int nx, int ny, bool vec4) {
  constexpr int FO = S::FO, R = S::R, TY = S::TY, NB = S::NB, NT = kTileX * TY;
  constexpr int EX = staged_row(K), EY = R * TY + K - 1;
  constexpr int KP = (K + 3) / 4 * 4;
  __shared__ __align__(16) float plane[NB][EY][EX];
  __shared__ __align__(16) float taps[K][K][KP];  // taps[l][m][j] = kf(l, j, m)
  const int b = blockIdx.x;
  const int x0 = (b % nx) * kTileX, y0 = ((b / nx) % ny) * (R * TY), t0 = (b / (nx * ny)) * FO;
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * kTileX + tx;
  const int xs = x0 + (shift & ~3), off = shift - (shift & ~3);  // first staged column, offset of x0 + shift
  for (int i = tid; i < K * K * KP; i += NT) {
    const int j = i % KP, m = (i / KP) % K, l = i / (KP * K);
    taps[l][m][j] = j < K ? __ldg(kf + (l * K + j) * K + m) : 0.f;
  }
  float acc[FO][R];
#pragma unroll
  for (int o = 0; o < FO; ++o)
#pragma unroll
    for (int r = 0; r < R; ++r) acc[o][r] = 0.f;
  const int nf = min(FO, To - t0) + K - 1;  // input frames t0 .. t0 + nf - 1
  // Frame f into buffer buf in copies of CW columns, each thread working out
  // its copies' places as it goes (4: W % 4 == 0 and v 16-byte aligned, so
  // each 4-column group is wholly in the frame or out).
  auto stage_in = [&](int f, int buf, auto cw) {
    constexpr int CW = decltype(cw)::value, N = EX / CW;
    const float* frame = v + std::size_t(t0 + f) * H * W;
    for (int i = tid; i < EY * N; i += NT) {
      const int a = i % N * CW, bb = i / N;
      const int y = y0 + shift + bb, x = xs + a;
      const bool in = y >= 0 && y < H && x >= 0 && x < W;
      const float* src = in ? frame + std::size_t(y) * W + x : frame;
      if constexpr (CW == 4)
        cp_async_f32x4(&plane[buf][bb][a], src, in);
      else
        cp_async_f32(&plane[buf][bb][a], src, in);
    }
  };
  // The 16-byte copies' places are the same in every frame: each thread's
  // (NC at most) are worked out once, so a frame costs a thread NC copies,
  // not NC rounds of index arithmetic.
  constexpr int NC = CopyPlaces<EX, EY, NT>::NC;
  int src4[NC], dst4[NC];
  CopyPlaces<EX, EY, NT>::get(tid, y0 + shift, xs, H, W, src4, dst4);
  auto stage = [&](int f, int buf) {
    if (f < nf) {
      if constexpr (S::NO_VEC4) {
        // k = 15's shape is launched with vec4 false; it keeps the form it
        // was measured in, where the 16-byte path is compiled too: without it
        // the kernel takes 114 registers (4 blocks an SM) instead of 150 (3)
        // and measured 11% slower (0.379 -> 0.422 ms).
        if (vec4)
          stage_in(f, buf, std::integral_constant<int, 4>{});
        else
          stage_in(f, buf, std::integral_constant<int, 1>{});
      } else if (vec4) {
        const float* frame = v + std::size_t(t0 + f) * H * W;
#pragma unroll
        for (int c = 0; c < NC; ++c)
          if (dst4[c] >= 0)
            cp_async_f32x4(&plane[buf][0][0] + dst4[c], src4[c] >= 0 ? frame + src4[c] : frame, src4[c] >= 0);
      } else {
        stage_in(f, buf, std::integral_constant<int, 1>{});
      }
    }
    cp_async_commit();  // one group per frame slot, empty past the end
  };
  // Frame f of the block (staged in buffer buf) into every output frame
  // o that uses it, with kernel plane f - o.
  auto compute = [&](int f, int buf) {
#pragma unroll
    for (int m = 0; m < K; ++m) {
      float val[K + R - 1];
#pragma unroll
      for (int q = 0; q < K + R - 1; ++q) val[q] = plane[buf][ty * R + q][off + tx + m];
#pragma unroll
      for (int o = 0; o < FO; ++o) {
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
  };
#pragma unroll
  for (int f = 0; f < NB - 1; ++f) stage(f, f);
  if (S::UNROLL && nf == FO + K - 1) {  // a whole block of output frames
#pragma unroll
    for (int f = 0; f < FO + K - 1; ++f) {
      cp_async_wait<NB - 2>();  // frame f has landed (this thread's copies)
      __syncthreads();          // ... and every thread's; all done with frame f - 1
      stage(f + NB - 1, (f + NB - 1) % NB);
      compute(f, f % NB);
    }
  } else {
    int buf = 0;
    for (int f = 0; f < nf; ++f) {
      cp_async_wait<NB - 2>();
      __syncthreads();
      stage(f + NB - 1, buf == 0 ? NB - 1 : buf - 1);
      compute(f, buf);
      buf = buf == NB - 1 ? 0 : buf + 1;
    }
  }
  const int x = x0 + tx;
#pragma unroll
  for (int o = 0; o < FO; ++o)
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const int y = y0 + ty * R + r, t = t0 + o;
      if (t < To && y < Ho && x < Wo) out[(std::size_t(t) * Ho + y) * Wo + x] = acc[o][r];
    }
}

template <int K, class S = FramesShape<K>>
void launch_frames(cudaStream_t stream, const float* v, const float* kf, float* out,
                   const video::impl::Conv3dGeometry& g) {
  const int nx = (g.Wo + kTileX - 1) / kTileX, ny = (g.Ho + S::R * S::TY - 1) / (S::R * S::TY);
  const int nt = (g.To + S::FO - 1) / S::FO;
  const bool vec4 = g.W % 4 == 0 && reinterpret_cast<std::uintptr_t>(v) % 16 == 0;
  conv3d_frames_kernel<K, S><<<unsigned(nt) * nx * ny, dim3(kTileX, S::TY), 0, stream>>>(
      v, kf, out, g.H, g.W, g.Ho, g.Wo, g.To, g.shift, nx, ny, vec4 && !S::NO_VEC4);
}

// The register kernel at k <= 5 with the taps as kernel parameters: each FMA
// takes its tap from the constant bank (no shared loads of taps, no tap
// registers), a thread loads its k inputs of each staged row once and adds
// them to every (output frame, row) that uses that row, and each output frame
// is stored as soon as its last input frame is done (the stores overlap the
// remaining frames instead of following them all). The frames come through
// the copy engine (TMA): one thread issues a frame's box, zeros filled
// outside the video, and the block waits on the buffer's mbarrier (no copy
// instructions or address arithmetic in the other threads). A 3-D grid (no
// index division), the frame loop always unrolled; frames past the end of
// the video feed only outputs past the end and are not staged. Needs
// W % 4 == 0 and v 16-byte aligned (the tensor map's strides and base).
// Against conv3d_frames_kernel at k = 5 on the H100: 0.0209-0.0249 ->
// 0.0190-0.0203 ms (perf/experiments/conv3d_columns_probe.cu; 16-byte
// cp.async copies by every thread in this kernel: 0.0204-0.0222).
template <int K>
struct Conv3dTaps {
  float w[K * K * K];  // the flipped kernel kf(l, j, m) at (l K + j) K + m
};

template <int K>
struct TapsShape {
  static constexpr int FO = 4, R = 5, TY = 4, NB = 2, MB = 5;
};

__device__ __forceinline__ void mbar_init(std::uint64_t* bar) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(smem_addr(bar)));
}
// One box of the tensor map at (x, y, t) into dst, completing on bar.
__device__ __forceinline__ void tma_box(float* dst, std::uint64_t* bar, const CUtensorMap* map, int x, int y, int t,
                                        unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(bytes)
               : "memory");
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], "
      "[%5];\n" ::"r"(smem_addr(dst)),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(x), "r"(y), "r"(t), "r"(smem_addr(bar))
      : "memory");
}
__device__ __forceinline__ void mbar_wait(std::uint64_t* bar, unsigned parity) {
  unsigned done = 0;
  do {
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(smem_addr(bar)), "r"(parity)
        : "memory");
  } while (!done);
}

// vmap: the video as a W x H x T float tensor read in EX x EY x 1 boxes.
template <int K, class S = TapsShape<K>>
__global__ void __launch_bounds__(kTileX * S::TY, S::MB)
    conv3d_taps_kernel(const __grid_constant__ CUtensorMap vmap, const Conv3dTaps<K> taps, float* __restrict__ out,
                       int T, int Ho, int Wo, int To, int shift) {
  constexpr int FO = S::FO, R = S::R, TY = S::TY, NB = S::NB;
  constexpr int EX = staged_row(K);  // a staged row, off columns before x0 + shift
  constexpr int EY = R * TY + K - 1, BUF = (EY * EX + 31) / 32 * 32;  // buffers 128-byte aligned
  __shared__ __align__(128) float plane[NB * BUF];
  __shared__ std::uint64_t bar[NB];
  const int x0 = blockIdx.x * kTileX, y0 = blockIdx.y * (R * TY), t0 = blockIdx.z * FO;
  const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * kTileX + tx;
  const int xs = x0 + (shift & ~3), off = shift - (shift & ~3);  // first staged column, offset of x0 + shift
  if (tid == 0) {
#pragma unroll
    for (int b = 0; b < NB; ++b) mbar_init(&bar[b]);
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  auto stage = [&](int f, int buf) {
    if (tid == 0 && f < FO + K - 1 && t0 + f < T)
      tma_box(&plane[buf * BUF], &bar[buf], &vmap, xs, y0 + shift, t0 + f, EY * EX * 4);
  };
  auto landed = [&](int f) {  // frame f in its buffer, as this thread sees it
    if (t0 + f < T) mbar_wait(&bar[f % NB], (f / NB) & 1);
  };
  float acc[FO][R];
#pragma unroll
  for (int o = 0; o < FO; ++o)
#pragma unroll
    for (int r = 0; r < R; ++r) acc[o][r] = 0.f;
  // Staged frame f: row q of the thread's window feeds output row r with
  // kernel row j = q - r, output frame o with kernel plane l = f - o.
  auto compute = [&](int f, int buf) {
    const float* row = &plane[buf * BUF + ty * R * EX + off + tx];
#pragma unroll
    for (int q = 0; q < R + K - 1; ++q) {
      float val[K];
#pragma unroll
      for (int m = 0; m < K; ++m) val[m] = row[q * EX + m];
#pragma unroll
      for (int r = 0; r < R; ++r) {
        const int j = q - r;
        if (j < 0 || j >= K) continue;
#pragma unroll
        for (int o = 0; o < FO; ++o) {
          const int l = f - o;
          if (l < 0 || l >= K) continue;
#pragma unroll
          for (int m = 0; m < K; ++m) acc[o][r] = fmaf(taps.w[(l * K + j) * K + m], val[m], acc[o][r]);
        }
      }
    }
  };
  const int x = x0 + tx;
  auto store = [&](int o) {
#pragma unroll
    for (int r = 0; r < R; ++r) {
      const int y = y0 + ty * R + r, t = t0 + o;
      if (t < To && y < Ho && x < Wo) out[(std::size_t(t) * Ho + y) * Wo + x] = acc[o][r];
    }
  };
#pragma unroll
  for (int f = 0; f < NB - 1; ++f) stage(f, f);
#pragma unroll
  for (int f = 0; f < FO + K - 1; ++f) {
    landed(f);       // frame f has landed (this thread's view)
    __syncthreads();  // ... and every thread's; all done with frame f - 1
    stage(f + NB - 1, (f + NB - 1) % NB);
    compute(f, f % NB);
    if (f >= K - 1) store(f - (K - 1));  // output frame f - k + 1 is complete
  }
}

// The driver's tensor-map encoder, looked up once (null: none).
PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static const auto fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess)
      p = nullptr;
    cudaGetLastError();
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }();
  return fn;
}

// v as a W x H x T float tensor read in boxes of bx x by x 1, the last map
// of each host thread kept (a benchmark's repeated calls encode it once).
bool video_tensor_map(const float* v, int T, int H, int W, int bx, int by, CUtensorMap& map) {
  struct Last {
    const float* v = nullptr;
    int T = 0, H = 0, W = 0, bx = 0, by = 0;
    CUtensorMap map;
  };
  thread_local Last last;
  if (last.v == v && last.T == T && last.H == H && last.W == W && last.bx == bx && last.by == by) {
    map = last.map;
    return true;
  }
  const auto encode = tensor_map_encoder();
  if (!encode) return false;
  const cuuint64_t dims[3] = {cuuint64_t(W), cuuint64_t(H), cuuint64_t(T)};
  const cuuint64_t strides[2] = {cuuint64_t(W) * 4, cuuint64_t(W) * H * 4};
  const cuuint32_t box[3] = {cuuint32_t(bx), cuuint32_t(by), 1}, unit[3] = {1, 1, 1};
  if (encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 3, const_cast<float*>(v), dims, strides, box, unit,
             CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
             CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS)
    return false;
  last.v = v, last.T = T, last.H = H, last.W = W, last.bx = bx, last.by = by, last.map = map;
  return true;
}

// false: not launched (no tensor map: the driver has no encoder, or it
// refused the video's shape).
template <int K, class S = TapsShape<K>>
bool launch_taps(cudaStream_t stream, const float* v, const float* kf_host, float* out,
                 const video::impl::Conv3dGeometry& g) {
  CUtensorMap map;
  if (!video_tensor_map(v, g.T, g.H, g.W, staged_row(K), S::R * S::TY + K - 1, map)) return false;
  Conv3dTaps<K> taps;
  std::copy(kf_host, kf_host + K * K * K, taps.w);
  const dim3 grid((g.Wo + kTileX - 1) / kTileX, (g.Ho + S::R * S::TY - 1) / (S::R * S::TY),
                  (g.To + S::FO - 1) / S::FO);
  conv3d_taps_kernel<K, S><<<grid, dim3(kTileX, S::TY), 0, stream>>>(map, taps, out, g.T, g.Ho, g.Wo, g.To, g.shift);
  return true;
}

template <int K>
void launch_register(cudaStream_t stream, const float* v, const float* kf, const float* kf_host, float* out,
                     const video::impl::Conv3dGeometry& g) {
  if (g.To == 1)
    launch_frames<K, OneFrameShape<K>>(stream, v, kf, out, g);
  else if constexpr (K <= 5) {
    const bool vec4 = g.W % 4 == 0 && reinterpret_cast<std::uintptr_t>(v) % 16 == 0;
    if (!(kf_host && vec4 && launch_taps<K>(stream, v, kf_host, out, g))) launch_frames<K>(stream, v, kf, out, g);
  } else
    launch_frames<K>(stream, v, kf, out, g);
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
                     const video::impl::Conv3dGeometry& g, const float* kf_host) {
  if (g.To <= 0 || g.Ho <= 0 || g.Wo <= 0) return;
  switch (g.k) {  // the taps are read from kf itself (no constant-memory upload)
    case 3: launch_register<3>(stream, v, kf, kf_host, out, g); break;
    case 5: launch_register<5>(stream, v, kf, kf_host, out, g); break;
    case 7: launch_register<7>(stream, v, kf, kf_host, out, g); break;
    case 9: launch_register<9>(stream, v, kf, kf_host, out, g); break;
    case 11: launch_register<11>(stream, v, kf, kf_host, out, g); break;
    case 13: launch_register<13>(stream, v, kf, kf_host, out, g); break;
    case 15: launch_register<15>(stream, v, kf, kf_host, out, g); break;
    default: throw std::invalid_argument("conv3d native: k = " + std::to_string(g.k) + " is not odd 3..15");
  }
}

}  // namespace tessera::native_cuda
