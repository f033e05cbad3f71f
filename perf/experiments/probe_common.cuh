#pragma once
// Shared by the standalone CUDA probes in perf/experiments/ (no Kokkos, no project
// library): error check, O(1) fills, median of event-timed launches.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(x)                                                                                   \
  do {                                                                                          \
    cudaError_t e_ = (x);                                                                       \
    if (e_ != cudaSuccess) {                                                                    \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));   \
      std::exit(1);                                                                             \
    }                                                                                           \
  } while (0)

// The Himeno probes' 14 arrays: raw pointers, k contiguous, one stride pair.
template <class T>
struct F {
  const T* c[12];  // a0 a1 a2 a3 b0 b1 b2 c0 c1 c2 wrk1 bnd
  const T* p;
  T* out;
  long long si, sj;
  int ni, nj, nk;
};

// The probes' grid: I J K from the command line (each 3 to 2048), else L
// (256 x 256 x 512). Prints a usage line and returns false on anything else.
inline bool probe_grid(int argc, char** argv, int& I, int& J, int& K) {
  I = 256, J = 256, K = 512;
  if (argc == 4) I = std::atoi(argv[1]), J = std::atoi(argv[2]), K = std::atoi(argv[3]);
  if ((argc != 1 && argc != 4) || std::min({I, J, K}) < 3 || std::max({I, J, K}) > 2048) {
    std::fprintf(stderr, "usage: %s [I J K], each 3 to 2048\n", argv[0]);
    return false;
  }
  return true;
}

// "--csv PATH" at argv[i]: opens PATH for writing into csv and steps i past
// it. False (after a message) when PATH cannot be written; no match leaves
// i and csv alone and returns true with matched = false.
inline bool probe_csv_option(int argc, char** argv, int& i, FILE*& csv, bool& matched) {
  matched = !std::strcmp(argv[i], "--csv") && i + 1 < argc;
  if (!matched) return true;
  csv = std::fopen(argv[++i], "w");
  if (!csv) std::fprintf(stderr, "cannot write %s\n", argv[i]);
  return csv != nullptr;
}

// Values of O(1) that differ from point to point (zeros could flatter DRAM).
template <class T>
__global__ void fill(T* a, long long n, unsigned salt) {
  const long long x = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (x < n) a[x] = T(0.5) + T((unsigned(x) * 2654435761u ^ salt) & 0xffff) * T(1.0 / 65536);
}

// Values in [-1, 1) with all 52 mantissa bits drawn (a 64-bit mix of the index), as the benchmarks' inputs:
// the tensor cores draw more power on them than on fill's short mantissas.
template <class T>
__global__ void fill_random(T* a, long long n, unsigned long long salt) {
  const long long x = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (x >= n) return;
  unsigned long long z = (unsigned long long)x * 0x9e3779b97f4a7c15ull + salt;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  a[x] = T(double(z >> 11) * (2.0 / 9007199254740992.0) - 1.0);
}

// D(16 x 8) += A(16 x 4) B(4 x 8) in FP64 on sm_90 tensor cores (the tsm
// probes): lane l holds A[l/4][l%4] (a0) and A[l/4 + 8][l%4] (a1), B[l%4][l/4]
// (b), and D[l/4][2(l%4) + j] (d[j]), D[l/4 + 8][2(l%4) + j] (d[2 + j]).
__device__ __forceinline__ void mma1684(double (&d)[4], double a0, double a1, double b) {
#if __CUDA_ARCH__ >= 900
  asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%0,%1,%2,%3};\n"
               : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
               : "d"(a0), "d"(a1), "d"(b));
#else
  (void)d, (void)a0, (void)a1, (void)b;
  __trap();  // the probes run it on sm_90 only
#endif
}

// Median of reps event-timed calls after 3 untimed ones, in ms.
template <class Launch>
float median_ms(Launch&& launch, int reps = 15) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int w = 0; w < 3; ++w) launch();
  std::vector<float> t;
  for (int r = 0; r < reps; ++r) {
    CK(cudaEventRecord(a));
    launch();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  CK(cudaGetLastError());
  CK(cudaEventDestroy(a));
  CK(cudaEventDestroy(b));
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

// conv3d, one thread an output (the conv3d probes' reference): kf the flipped
// kernel, k^3 floats; grid (ceil(W / blockDim.x), H, output frames), same
// padding with shift = -(K / 2), valid with 0 (then H, W are the output's).
__global__ void conv3d_reference(const float* v, const float* kf, float* out, int K, int H, int W, int shift) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, t = blockIdx.z;
  if (x >= W) return;
  float s = 0.f;
  for (int l = 0; l < K; ++l)
    for (int j = 0; j < K; ++j)
      for (int m = 0; m < K; ++m) {
        const int yy = y + shift + j, xx = x + shift + m;
        if (yy >= 0 && yy < H && xx >= 0 && xx < W)
          s = fmaf(kf[(l * K + j) * K + m], v[(std::size_t(t + l) * H + yy) * W + xx], s);
      }
  out[(std::size_t(t) * H + y) * W + x] = s;
}

// The conv3d probes' case at the paper's frame size: To + K - 1 frames of
// H x W in v and k^3 flipped taps in kf (both filled), out for To output
// frames (same padding, shift = -(K / 2)), and the reference output on the
// host (conv3d_reference). The device buffers are freed with the case.
struct Conv3dProbeCase {
  int K, To, H, W, shift;
  std::size_t nin, nout;
  float *v = nullptr, *kf = nullptr, *out = nullptr;
  std::vector<float> ref;
  Conv3dProbeCase(int K_, int To_, int H_ = 560, int W_ = 720)
      : K(K_), To(To_), H(H_), W(W_), shift(-(K_ / 2)), nin(std::size_t(To_ + K_ - 1) * H_ * W_),
        nout(std::size_t(To_) * H_ * W_), ref(nout) {
    CK(cudaMalloc(&v, nin * 4));
    CK(cudaMalloc(&out, nout * 4));
    CK(cudaMalloc(&kf, std::size_t(K) * K * K * 4));
    fill<<<unsigned((nin + 255) / 256), 256>>>(v, (long long)nin, 1u);
    fill<<<(K * K * K + 255) / 256, 256>>>(kf, K * K * K, 2u);
    conv3d_reference<<<dim3((W + 127) / 128, H, To), 128>>>(v, kf, out, K, H, W, shift);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(ref.data(), out, nout * 4, cudaMemcpyDeviceToHost));
  }
  Conv3dProbeCase(const Conv3dProbeCase&) = delete;
  Conv3dProbeCase& operator=(const Conv3dProbeCase&) = delete;
  ~Conv3dProbeCase() {
    cudaFree(v);
    cudaFree(out);
    cudaFree(kf);
  }
};

// One launch into out (n floats, poisoned with NaN first) checked against
// ref: the largest |out - ref| over max |ref| (NaN if any output is NaN or
// unwritten); then the median of timed launches. Returns the time in ms.
template <class Launch>
float checked_median_ms(Launch&& launch, float* out, const std::vector<float>& ref, double& rel_err) {
  const std::size_t n = ref.size();
  std::vector<float> o(n);
  CK(cudaMemset(out, 0xff, n * sizeof(float)));  // NaN
  launch();
  CK(cudaGetLastError());
  CK(cudaMemcpy(o.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
  double err = 0, scale = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double d = std::fabs(double(o[i]) - ref[i]);
    err = (d == d && err == err) ? std::max(err, d) : NAN;
    scale = std::max(scale, std::fabs(double(ref[i])));
  }
  rel_err = err / scale;
  return median_ms(launch);
}

// A 32 x 8 block's sum of g into partial[block] (what the library's sweeps
// write before their final sum).
__device__ inline void block_partial_32x8(double g, double* partial) {
  for (int o = 16; o > 0; o /= 2) g += __shfl_down_sync(0xffffffffu, g, o);
  __shared__ double w[8];
  if (threadIdx.x == 0) w[threadIdx.y] = g;
  __syncthreads();
  if (threadIdx.x == 0 && threadIdx.y == 0) {
    double s = 0;
    for (int q = 0; q < 8; ++q) s += w[q];
    partial[(blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x] = s;
  }
}
