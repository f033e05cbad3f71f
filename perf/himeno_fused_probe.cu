// Probe: candidates for two fused Himeno sweeps (temporal blocking), float
// first. The library's native-cuda-fused2 reaches 1.59x the single sweep in
// double at L but only 1.11x in float: the float kernel does 57 G
// point-sweeps/s, double 41 G, so it is bound by latency per plane step, not
// bytes (docs/perf/himeno.md, fourth session). Variants, side by side on the
// same arrays, each first checked against two sweeps on the CPU:
//  ring4     the library's scheme: 32 x 16 threads, a point each, 30 x 14
//            outputs, a 4-plane shared ring of sweep-1 results, one barrier
//            per plane, the coefficients held in registers for sweep 2;
//  prefetch  the same with the coefficients of the next plane loaded a step
//            ahead (three sets in registers; one 512-thread block per SM);
//  (k2, two k points per thread in a 64 x 16 tile, was measured here: float
//  1.43x / 1.54x at L / XL; it is now the library's float fused2,
//  jacobi_fused2_k2 in backends/cuda/himeno/himeno_native.cu, measured by
//  `tessera compare himeno --variants native-cuda-fused2`.)
// Also a one-point single sweep (warps on 128-byte lines) for the ratio.
// GB/s effective = 14 words x interior points x sweeps / time.
// Build: nvcc -O3 -arch=sm_90 -std=c++17 perf/himeno_fused_probe.cu -o probe; ./probe [I J K]
#include "probe_common.cuh"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

template <class T>
struct Coef {
  T q[12];
};

// The benchmark's residual, term order of himenoBMTxps.c; P(di, dj, dk).
template <class T, class PAt>
__host__ __device__ __forceinline__ T residual(const T* q, PAt P) {
  const T s0 = q[0] * P(1, 0, 0) + q[1] * P(0, 1, 0) + q[2] * P(0, 0, 1) +
               q[4] * (P(1, 1, 0) - P(1, -1, 0) - P(-1, 1, 0) + P(-1, -1, 0)) +
               q[5] * (P(0, 1, 1) - P(0, -1, 1) - P(0, 1, -1) + P(0, -1, -1)) +
               q[6] * (P(1, 0, 1) - P(-1, 0, 1) - P(1, 0, -1) + P(-1, 0, -1)) + q[7] * P(-1, 0, 0) +
               q[8] * P(0, -1, 0) + q[9] * P(0, 0, -1) + q[10];
  return (s0 * q[3] - P(0, 0, 0)) * q[11];
}

template <class T>
__device__ __forceinline__ Coef<T> load_coef(const F<T>& f, long long c) {
  Coef<T> r;
#pragma unroll
  for (int m = 0; m < 12; ++m) r.q[m] = __ldg(f.c[m] + c);
  return r;
}

// Per-block partials of both gosas (what the library sums afterwards).
template <int kThreads>
__device__ void block_partial2(double g1, double g2, double* partial) {
  __shared__ double w[2][kThreads / 32];
  for (int o = 16; o > 0; o /= 2) {
    g1 += __shfl_down_sync(0xffffffffu, g1, o);
    g2 += __shfl_down_sync(0xffffffffu, g2, o);
  }
  const int tid = threadIdx.x + blockDim.x * threadIdx.y;
  __syncthreads();
  if (tid % 32 == 0) w[0][tid / 32] = g1, w[1][tid / 32] = g2;
  __syncthreads();
  if (tid == 0) {
    double s1 = 0, s2 = 0;
    for (int q = 0; q < kThreads / 32; ++q) s1 += w[0][q], s2 += w[1][q];
    const unsigned b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    partial[2 * b] = s1, partial[2 * b + 1] = s2;
  }
}

constexpr int kTbK = 32, kTbJ = 16, kTbThreads = kTbK * kTbJ, kSeg = 64;

// ring4 (kPrefetch false) and prefetch (true).
template <class T, bool kPrefetch>
__global__ void __launch_bounds__(kTbThreads, (sizeof(T) == 4 && !kPrefetch) ? 2 : 1)
    fused_point(F<T> f, T omega, double* partial) {
  __shared__ T ring[4][kTbJ][kTbK];
  const int tk = threadIdx.x, tj = threadIdx.y;
  const int k = blockIdx.x * (kTbK - 2) + tk, j = blockIdx.y * (kTbJ - 2) + tj;
  const bool in_array = k < f.nk && j < f.nj;
  const bool inner_jk = k >= 1 && k < f.nk - 1 && j >= 1 && j < f.nj - 1;
  const bool owner = inner_jk && tk >= 1 && tk < kTbK - 1 && tj >= 1 && tj < kTbJ - 1;
  const int is = 1 + blockIdx.z * kSeg, ie = min(is + kSeg, f.ni - 1);
  const long long si = f.si, sj = f.sj, cjk = j * sj + k;
  auto has_coef = [&](int i) { return inner_jk && i >= 1 && i < f.ni - 1; };
  Coef<T> prev{}, cur{}, next{};
  if (kPrefetch && has_coef(is - 1)) cur = load_coef(f, (is - 1) * si + cjk);
  double g1 = 0, g2 = 0;
  for (int i = is - 1; i <= ie; ++i) {
    const long long c = i * si + cjk;
    if (kPrefetch) {
      next = Coef<T>{};
      if (i + 1 <= ie && has_coef(i + 1)) next = load_coef(f, c + si);
    }
    if (in_array) {
      T p1;
      if (has_coef(i)) {
        if (!kPrefetch) cur = load_coef(f, c);
        const T* __restrict__ p = f.p;
        const T ss = residual(cur.q, [&](int di, int dj, int dk) { return __ldg(p + c + di * si + dj * sj + dk); });
        p1 = __ldg(p + c) + omega * ss;
        if (owner && i >= is && i < ie) g1 += double(ss) * double(ss);
      } else {
        p1 = __ldg(f.p + c);
      }
      ring[i % 4][tj][tk] = p1;
    }
    __syncthreads();
    const int i2 = i - 1;
    if (owner && i2 >= is) {
      const int s0 = i2 % 4;
      const T ss = residual(prev.q, [&](int di, int dj, int dk) { return ring[(s0 + 4 + di) % 4][tj + dj][tk + dk]; });
      f.out[i2 * si + cjk] = ring[s0][tj][tk] + omega * ss;
      g2 += double(ss) * double(ss);
    }
    prev = cur;
    if (kPrefetch) cur = next;
  }
  block_partial2<kTbThreads>(g1, g2, partial);
}

// One sweep, a point per thread, warps on 128-byte lines (k = 32 q .. 32 q + 31).
template <class T>
__global__ void __launch_bounds__(256) single(F<T> f, T omega, double* partial) {
  const int k = blockIdx.x * 32 + threadIdx.x, j = 1 + blockIdx.y * 8 + threadIdx.y, i = 1 + blockIdx.z;
  double g = 0;
  if (k >= 1 && k < f.nk - 1 && j < f.nj - 1) {
    const long long c = i * f.si + j * f.sj + k, si = f.si, sj = f.sj;
    const Coef<T> q = load_coef(f, c);
    const T ss = residual(q.q, [&](int di, int dj, int dk) { return __ldg(f.p + c + di * si + dj * sj + dk); });
    f.out[c] = __ldg(f.p + c) + omega * ss;
    g = double(ss) * double(ss);
  }
  block_partial_32x8(g, partial);
}

template <class T>
struct Arrays {
  std::vector<T*> a;  // 12 coefficients, p, out
  F<T> f{};
  long long n = 0;
  Arrays(int I, int J, int K) : a(14), n((long long)I * J * K) {
    for (auto& x : a) CK(cudaMalloc(&x, n * sizeof(T)));
    for (int m = 0; m < 12; ++m) f.c[m] = a[m];
    f.p = a[12], f.out = a[13];
    f.si = (long long)J * K, f.sj = K, f.ni = I, f.nj = J, f.nk = K;
  }
  ~Arrays() {
    for (auto x : a) cudaFree(x);
  }
};

// Random fields as the library's initialize_random (a in [0.5, 1.5), b in
// [-0.25, 0.25), a3 = 1 / (sum |a|, |c|, 4 |b|), bnd 0 at one point in 8).
template <class T>
std::vector<std::vector<T>> random_fields(long long n, unsigned seed) {
  std::vector<std::vector<T>> h(13, std::vector<T>(n));
  unsigned s = seed;
  auto u = [&] { return (s = s * 1664525u + 1013904223u) / 4294967296.0; };
  for (long long x = 0; x < n; ++x) {
    double sum = 0;
    for (int m : {0, 1, 2, 7, 8, 9}) sum += std::fabs(h[m][x] = T(0.5 + u()));
    for (int m : {4, 5, 6}) sum += 4 * std::fabs(h[m][x] = T(0.5 * u() - 0.25));
    h[3][x] = T(1.0 / sum);
    h[10][x] = T(0.2 * u() - 0.1);
    h[11][x] = u() < 0.125 ? T(0) : T(1);
    h[12][x] = T(u());
  }
  return h;
}

// p around a point on the host (a callable the host-device residual may call).
template <class T>
struct HostP {
  const T* p;
  long long si, sj;
  __host__ __device__ T operator()(int di, int dj, int dk) const { return p[di * si + dj * sj + dk]; }
};

// Two sweeps on the CPU in T, same term order; returns wrk2 after sweep 2 and both gosas.
template <class T>
std::vector<T> two_sweeps(const std::vector<std::vector<T>>& h, int I, int J, int K, T omega, double g[2]) {
  const long long si = (long long)J * K, sj = K;
  std::vector<T> p = h[12], w = h[12];
  for (int s = 0; s < 2; ++s) {
    g[s] = 0;
    for (int i = 1; i < I - 1; ++i)
      for (int j = 1; j < J - 1; ++j)
        for (int k = 1; k < K - 1; ++k) {
          const long long c = i * si + j * sj + k;
          T q[12];
          for (int m = 0; m < 12; ++m) q[m] = h[m][c];
          const T ss = residual(q, HostP<T>{p.data() + c, si, sj});
          w[c] = p[c] + omega * ss;
          g[s] += double(ss) * double(ss);
        }
    std::swap(p, w);
    w = p;
  }
  return p;
}

enum class Kind { ring4, prefetch };
const char* name(Kind k) { return k == Kind::ring4 ? "ring4" : "prefetch"; }

template <class T>
void launch(Kind kind, const F<T>& f, T omega, double* partial) {
  const int segs = (f.ni - 2 + kSeg - 1) / kSeg, tj = (f.nj - 2 + kTbJ - 3) / (kTbJ - 2);
  const dim3 grid((f.nk - 2 + kTbK - 3) / (kTbK - 2), tj, segs);
  if (kind == Kind::ring4) fused_point<T, false><<<grid, dim3(kTbK, kTbJ)>>>(f, omega, partial);
  else fused_point<T, true><<<grid, dim3(kTbK, kTbJ)>>>(f, omega, partial);
}

template <class Kernel>
void prefer_l1(Kernel* k) {
  CK(cudaFuncSetAttribute(k, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxL1));
}

// Each kind against two CPU sweeps on random fields; returns false on a mismatch.
template <class T>
bool validate(int I, int J, int K) {
  const long long n = (long long)I * J * K;
  const auto h = random_fields<T>(n, 12345u);
  double g_ref[2];
  const T omega = T(0.8);
  const std::vector<T> ref = two_sweeps(h, I, J, K, omega, g_ref);
  Arrays<T> d(I, J, K);
  for (int m = 0; m < 13; ++m) CK(cudaMemcpy(d.a[m], h[m].data(), n * sizeof(T), cudaMemcpyHostToDevice));
  const int blocks = ((K + 29) / 30 + 1) * ((J + 13) / 14 + 1) * ((I + 63) / 64 + 1);  // the most any fused kind launches
  double* partial;
  CK(cudaMalloc(&partial, 2 * sizeof(double) * blocks));
  bool ok = true;
  for (Kind kind : {Kind::ring4, Kind::prefetch}) {
    CK(cudaMemcpy(d.a[13], h[12].data(), n * sizeof(T), cudaMemcpyHostToDevice));  // wrk2 carries p's boundary
    CK(cudaMemset(partial, 0, 2 * sizeof(double) * blocks));
    launch(kind, d.f, omega, partial);
    CK(cudaDeviceSynchronize());
    std::vector<T> out(n);
    std::vector<double> part(2 * blocks);
    CK(cudaMemcpy(out.data(), d.a[13], n * sizeof(T), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(part.data(), partial, part.size() * sizeof(double), cudaMemcpyDeviceToHost));
    double err = 0, g[2] = {0, 0};
    for (long long x = 0; x < n; ++x) err = std::max(err, std::fabs(double(out[x]) - double(ref[x])));
    for (int b = 0; b < blocks; ++b) g[0] += part[2 * b], g[1] += part[2 * b + 1];
    const double tol = 64 * double(std::numeric_limits<T>::epsilon());
    const bool good = err <= tol && std::fabs(g[0] - g_ref[0]) <= 1e-3 * g_ref[0] &&
                      std::fabs(g[1] - g_ref[1]) <= 1e-3 * g_ref[1];
    std::printf("  check %-8s %s %dx%dx%d: max |p2 - ref| %.2e (tol %.1e), gosa %.6e %.6e (ref %.6e %.6e) %s\n",
                name(kind), sizeof(T) == 4 ? "float " : "double", I, J, K, err, tol, g[0], g[1], g_ref[0], g_ref[1],
                good ? "ok" : "FAILED");
    ok = ok && good;
  }
  CK(cudaFree(partial));
  return ok;
}

template <class T>
void bench(int I, int J, int K) {
  Arrays<T> d(I, J, K);
  for (int m = 0; m < 14; ++m) fill<<<(d.n + 255) / 256, 256>>>(d.a[m], d.n, 77u * m);
  const double gb = 14.0 * sizeof(T) * double(I - 2) * (J - 2) * (K - 2) * 1e-9;  // one sweep, 14 words
  double* partial;
  const long long blocks = (long long)((K + 31) / 32) * ((J + 7) / 8) * I;  // the most any kernel launches
  CK(cudaMalloc(&partial, 2 * sizeof(double) * blocks));
  const T omega = T(0.8);
  const float ms1 = median_ms([&] {
    single<T><<<dim3((K + 31) / 32, (J - 2 + 7) / 8, I - 2), dim3(32, 8)>>>(d.f, omega, partial);
  });
  std::printf("  %s %dx%dx%d: single sweep %7.3f ms %6.0f GB/s", sizeof(T) == 4 ? "float " : "double", I, J, K, ms1,
              gb / (ms1 * 1e-3));
  for (Kind kind : {Kind::ring4, Kind::prefetch}) {
    const float ms = median_ms([&] { launch(kind, d.f, omega, partial); });
    std::printf(" | %s %6.0f GB/s (%.2fx)", name(kind), 2 * gb / (ms * 1e-3), 2 * ms1 / ms);
  }
  std::printf("\n");
  CK(cudaFree(partial));
}

int main(int argc, char** argv) {
  int I = 256, J = 256, K = 512;
  if (argc == 4) I = std::atoi(argv[1]), J = std::atoi(argv[2]), K = std::atoi(argv[3]);
  if ((argc != 1 && argc != 4) || std::min({I, J, K}) < 3 || std::max({I, J, K}) > 2048) {
    std::fprintf(stderr, "usage: %s [I J K], each 3 to 2048\n", argv[0]);
    return 2;
  }
  prefer_l1(single<float>), prefer_l1(single<double>);
  prefer_l1(fused_point<float, false>), prefer_l1(fused_point<float, true>);
  prefer_l1(fused_point<double, false>), prefer_l1(fused_point<double, true>);
  bool ok = true;
  for (auto g : {std::array<int, 3>{9, 17, 36}, std::array<int, 3>{70, 31, 134}, std::array<int, 3>{5, 40, 200}}) {
    ok = validate<float>(g[0], g[1], g[2]) && ok;
    ok = validate<double>(g[0], g[1], g[2]) && ok;
  }
  if (!ok) {
    std::printf("a variant failed its check: no timings\n");
    return 1;
  }
  bench<float>(I, J, K);
  bench<double>(I, J, K);
  if (argc != 4) {
    bench<float>(512, 512, 1024);
    bench<double>(512, 512, 1024);
  }
  return 0;
}
