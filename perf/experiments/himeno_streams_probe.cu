// Probe: why does the one-thread-per-point Himeno sweep stay below copy
// bandwidth? Two suspects, measured side by side (docs/perf/himeno.md):
//  1. placement: the 14 arrays are power-of-two sized and start at the same
//     offsets, so the 14 streams may map onto the same DRAM channels/banks;
//  2. alignment: the interior starts at k = 1, so every warp's 32 k-points
//     straddle two 128-byte lines.
// Kernels: a 14-stream "sum13" (13 loads + 1 store per point, no stencil)
// and a Himeno-like sweep (the benchmark's 19-point stencil), each on arrays
// placed separately (one cudaMalloc each, as Kokkos does), back to back at
// multiples of N, or staggered by an odd number of KiB; the sweep also with
// warps aligned to 128-byte lines (k = 0 .. 31 per warp, the edges idle).
// Built with the cuda flavour and -DTESSERA_BUILD_EXPERIMENTS=ON (perf/README.md):
// build/cuda/perf/experiments/himeno_streams_probe [I J K]; by hand:
// nvcc -O3 -arch=sm_90 perf/experiments/himeno_streams_probe.cu -o probe.
#include "probe_common.cuh"

template <class T>
__global__ void sum13(F<T> f, long long n) {
  const long long x = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (x >= n) return;
  T s = __ldg(f.p + x);
#pragma unroll
  for (int m = 0; m < 12; ++m) s += __ldg(f.c[m] + x);
  f.out[x] = s;
}

template <class T>
__global__ void copy(const T* __restrict__ a, T* __restrict__ b, long long n) {
  const long long x = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  if (x < n) b[x] = a[x];
}

// The benchmark's update; kAligned: a warp covers k = 32 q .. 32 q + 31;
// kCoefFirst: the 12 coefficients loaded before the stencil (as the native
// kernel does), else each where it is used.
template <class T, bool kAligned, bool kCoefFirst = false>
__global__ void __launch_bounds__(256) sweep(F<T> f, T omega, double* partial) {
  const int k = (kAligned ? 0 : 1) + blockIdx.x * 32 + threadIdx.x;
  const int j = 1 + blockIdx.y * 8 + threadIdx.y;
  const int i = 1 + blockIdx.z;
  double acc = 0;
  if (k >= 1 && k < f.nk - 1 && j < f.nj - 1) {
    const long long c = i * f.si + j * f.sj + k, si = f.si, sj = f.sj;
    const T* p = f.p;
    auto P = [&](int di, int dj, int dk) { return __ldg(p + c + di * si + dj * sj + dk); };
    T q[12];
    if (kCoefFirst)
#pragma unroll
      for (int m = 0; m < 12; ++m) q[m] = __ldg(f.c[m] + c);
    auto C = [&](int m) { return kCoefFirst ? q[m] : __ldg(f.c[m] + c); };
    const T s0 = C(0) * P(1, 0, 0) + C(1) * P(0, 1, 0) + C(2) * P(0, 0, 1) +
                 C(4) * (P(1, 1, 0) - P(1, -1, 0) - P(-1, 1, 0) + P(-1, -1, 0)) +
                 C(5) * (P(0, 1, 1) - P(0, -1, 1) - P(0, 1, -1) + P(0, -1, -1)) +
                 C(6) * (P(1, 0, 1) - P(-1, 0, 1) - P(1, 0, -1) + P(-1, 0, -1)) + C(7) * P(-1, 0, 0) +
                 C(8) * P(0, -1, 0) + C(9) * P(0, 0, -1) + C(10);
    const T ss = (s0 * C(3) - P(0, 0, 0)) * C(11);
    f.out[c] = P(0, 0, 0) + omega * ss;
    acc = double(ss) * double(ss);
  }
  block_partial_32x8(acc, partial);  // what the real kernel does, minus the final sum
}

template <class T>
void run(int I, int J, int K) {
  const long long n = (long long)I * J * K;
  const double gb14 = 14.0 * sizeof(T) * double(n) * 1e-9;
  const double interior = double(I - 2) * (J - 2) * (K - 2);
  const double gbs = 14.0 * sizeof(T) * interior * 1e-9;
  double* partial;
  const dim3 blk(32, 8), grd_u((K - 2 + 31) / 32, (J - 2 + 7) / 8, I - 2), grd_a((K + 31) / 32, (J - 2 + 7) / 8, I - 2);
  CK(cudaMalloc(&partial, sizeof(double) * std::max(grd_u.x, grd_a.x) * grd_u.y * grd_u.z));
  std::printf("\n%s, grid %dx%dx%d (%.0f MiB per array)\n", sizeof(T) == 4 ? "float" : "double", I, J, K,
              n * sizeof(T) / 1048576.0);
  {
    T *a, *b;
    CK(cudaMalloc(&a, n * sizeof(T)));
    CK(cudaMalloc(&b, n * sizeof(T)));
    fill<<<(n + 255) / 256, 256>>>(a, n, 99u);
    const float ms = median_ms([&] { copy<<<(n + 255) / 256, 256>>>(a, b, n); });
    std::printf("  copy                       %8.3f ms %7.0f GB/s\n", ms, 2.0 * sizeof(T) * n * 1e-9 / (ms * 1e-3));
    CK(cudaFree(a));
    CK(cudaFree(b));
  }
  // Placement: offsets (elements) of the 14 arrays inside one allocation, or separate allocations.
  const char* names[] = {"separate cudaMalloc", "back to back (N apart)", "staggered (N + odd KiB)"};
  for (int mode = 0; mode < 3; ++mode) {
    std::vector<T*> arr(14);
    T* block = nullptr;
    if (mode == 0) {
      for (auto& q : arr) CK(cudaMalloc(&q, n * sizeof(T)));
    } else {
      const long long pad = mode == 1 ? 0 : (1024 + 256) / sizeof(T);  // 1.25 KiB more per array
      CK(cudaMalloc(&block, 14 * (n + 14 * pad) * sizeof(T)));
      for (int m = 0; m < 14; ++m) arr[m] = block + m * (n + pad) + (mode == 2 ? m * 3 * 256 / sizeof(T) : 0);
    }
    for (int m = 0; m < 14; ++m) fill<<<(n + 255) / 256, 256>>>(arr[m], n, 77u * m);
    F<T> f;
    for (int m = 0; m < 12; ++m) f.c[m] = arr[m];
    f.p = arr[12];
    f.out = arr[13];
    f.si = (long long)J * K, f.sj = K, f.ni = I, f.nj = J, f.nk = K;
    const float ms0 = median_ms([&] { sum13<<<(n + 255) / 256, 256>>>(f, n); });
    const float ms1 = median_ms([&] { sweep<T, false><<<grd_u, blk>>>(f, T(0.8), partial); });
    const float ms2 = median_ms([&] { sweep<T, true><<<grd_a, blk>>>(f, T(0.8), partial); });
    const float ms3 = median_ms([&] { sweep<T, true, true><<<grd_a, blk>>>(f, T(0.8), partial); });
    std::printf("  %-26s sum13 %5.0f | sweep k-from-1 %5.0f | aligned %5.0f | aligned, coefficients first %5.0f GB/s\n",
                names[mode], gb14 / (ms0 * 1e-3), gbs / (ms1 * 1e-3), gbs / (ms2 * 1e-3), gbs / (ms3 * 1e-3));
    if (mode == 0)
      for (auto q : arr) CK(cudaFree(q));
    else
      CK(cudaFree(block));
  }
  CK(cudaFree(partial));
}

int main(int argc, char** argv) {
  int I, J, K;
  if (!probe_grid(argc, argv, I, J, K)) return 2;
  run<float>(I, J, K);
  run<double>(I, J, K);
  if (argc != 4) {
    run<float>(512, 512, 1024);
    run<double>(512, 512, 1024);
  }
  return 0;
}
