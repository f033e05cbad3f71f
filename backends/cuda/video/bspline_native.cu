// Native CUDA cubic B-spline kernels. Prefilter: one block holds the whole
// plane in shared memory (QCIF luma: 101 KB) and runs the recursions of
// impl/bspline_math.hpp there, one thread per row, then one per column, in a
// single launch; the dependent steps wait on shared memory, and global memory
// is read and written once, coalesced. Evaluation: the 4x4 sum with four
// adjacent output pixels per thread (one vector store), the phase weights in
// shared memory, the coefficients through the read-only cache.
#include "tessera/video/bspline_native_cuda.hpp"

#include "common/reduce_workspace.cuh"

namespace tessera::native_cuda {
namespace {

using video::BsplinePhases;

constexpr int kPrefilterThreads = 1024;

// Row stride of the plane in shared memory: odd, so the rows (and the
// columns) a warp walks fall in distinct banks.
__host__ __device__ inline int plane_ld(int w) { return w | 1; }

template <class T>
__global__ void __launch_bounds__(kPrefilterThreads)
    prefilter_plane(const T* __restrict__ in, std::int64_t ld, float* __restrict__ coef, int h, int w) {
  extern __shared__ float plane[];
  const int ldp = plane_ld(w);
  const float gain = (w > 1 ? 6.0f : 1.0f) * (h > 1 ? 6.0f : 1.0f);  // both passes' gains at once
  const int t = threadIdx.x, nt = blockDim.x;
  // Loads in batches issued together: one block reads the whole plane, so a
  // load per loop trip would wait out the memory latency ~h w / nt times.
  constexpr int kBatch = 8;
  for (int base = t; base < h * w; base += kBatch * nt) {
    float v[kBatch];
#pragma unroll
    for (int j = 0; j < kBatch; ++j) {
      const int i = base + j * nt, y = i / w;
      v[j] = i < h * w ? float(in[std::int64_t(y) * ld + (i - y * w)]) : 0.0f;
    }
#pragma unroll
    for (int j = 0; j < kBatch; ++j) {
      const int i = base + j * nt, y = i / w;
      if (i < h * w) plane[y * ldp + (i - y * w)] = gain * v[j];
    }
  }
  __syncthreads();
  for (int y = t; y < h; y += nt) video::bspline_iir_line(plane + y * ldp, 1, w);
  __syncthreads();
  for (int x = t; x < w; x += nt) video::bspline_iir_line(plane + x, ldp, h);
  __syncthreads();
  for (int i = t; i < h * w; i += nt) {
    const int y = i / w;
    coef[i] = plane[y * ldp + (i - y * w)];
  }
}

constexpr int kBx = 32, kBy = 8, kPx = 4;

template <class T>
struct Vec4;
template <>
struct Vec4<std::uint8_t> {
  using type = uchar4;
};
template <>
struct Vec4<float> {
  using type = float4;
};

template <class T>
__global__ void __launch_bounds__(kBx* kBy)
    interpolate(const float* __restrict__ coef, int h, int w, T* __restrict__ out, std::int64_t ld, int oh, int ow,
                const BsplinePhases ph) {
  // The phase tables in shared memory: a warp's lanes read up to u different
  // phases, which the constant bank would serialise.
  __shared__ float wts[video::kMaxBsplineScale][4];
  __shared__ int offs[video::kMaxBsplineScale];
  const int tid = threadIdx.y * kBx + threadIdx.x;
  if (tid < 4 * ph.u) wts[tid / 4][tid % 4] = ph.w[tid / 4][tid % 4];
  if (tid < ph.u) offs[tid] = ph.offset[tid];
  __syncthreads();
  const int ox0 = (blockIdx.x * kBx + threadIdx.x) * kPx, oy = blockIdx.y * kBy + threadIdx.y;
  if (ox0 >= ow || oy >= oh) return;
  const int ry = oy % ph.u, iy = oy / ph.u + offs[ry];
  const float* rows[4];
#pragma unroll
  for (int j = 0; j < 4; ++j) rows[j] = coef + std::int64_t(video::mirror_index(iy - 1 + j, h)) * w;
  // Phase and cell of ox0, then stepped: one division per thread.
  int qx = ox0 / ph.u, rx = ox0 - qx * ph.u;
  T v[kPx];
#pragma unroll
  for (int p = 0; p < kPx; ++p) {
    const int ix = qx + offs[rx];
    int cx[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) cx[k] = video::mirror_index(ix - 1 + k, w);
    float s = 0.0f;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      float t = 0.0f;
#pragma unroll
      for (int k = 0; k < 4; ++k) t = fmaf(wts[rx][k], __ldg(rows[j] + cx[k]), t);
      s = fmaf(wts[ry][j], t, s);
    }
    v[p] = video::bspline_store<T>(s);
    if (++rx == ph.u) rx = 0, ++qx;
  }
  T* o = out + std::int64_t(oy) * ld + ox0;
  using V = typename Vec4<T>::type;
  if (ox0 + kPx <= ow && reinterpret_cast<std::uintptr_t>(o) % sizeof(V) == 0) {
    *reinterpret_cast<V*>(o) = V{v[0], v[1], v[2], v[3]};
  } else {
#pragma unroll
    for (int p = 0; p < kPx; ++p)
      if (ox0 + p < ow) o[p] = v[p];
  }
}

// Largest dynamic shared memory a block may opt into on the current device.
int max_plane_bytes() {
  int dev = 0, bytes = 0;
  check(cudaGetDevice(&dev), "cudaGetDevice");
  check(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev), "shared memory limit");
  return bytes;
}

template <class T>
bool prefilter_impl(cudaStream_t stream, const T* in, std::int64_t ld, float* coef, int h, int w) {
  if (h <= 0 || w <= 0) return true;
  const long long bytes = 4LL * h * plane_ld(w);
  static const int limit = max_plane_bytes();
  if (bytes > limit) return false;
  static const bool opted_in = [&] {  // once: every plane that passed the test above fits
    check(cudaFuncSetAttribute(prefilter_plane<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, limit),
          "bspline_prefilter shared memory");
    return true;
  }();
  (void)opted_in;
  prefilter_plane<T><<<1, kPrefilterThreads, std::size_t(bytes), stream>>>(in, ld, coef, h, w);
  check(cudaGetLastError(), "bspline_prefilter launch");
  return true;
}

template <class T>
void interpolate_impl(cudaStream_t stream, const float* coef, int h, int w, T* out, std::int64_t ld,
                      const BsplinePhases& ph) {
  const int oh = h * ph.u, ow = w * ph.u;
  if (oh <= 0 || ow <= 0) return;
  const dim3 grid((ow + kBx * kPx - 1) / (kBx * kPx), (oh + kBy - 1) / kBy);
  interpolate<T><<<grid, dim3(kBx, kBy), 0, stream>>>(coef, h, w, out, ld, oh, ow, ph);
  check(cudaGetLastError(), "bspline_interpolate launch");
}

}  // namespace

bool bspline_prefilter(cudaStream_t s, const std::uint8_t* in, std::int64_t ld, float* coef, int h, int w) {
  return prefilter_impl(s, in, ld, coef, h, w);
}
bool bspline_prefilter(cudaStream_t s, const float* in, std::int64_t ld, float* coef, int h, int w) {
  return prefilter_impl(s, in, ld, coef, h, w);
}
void bspline_interpolate(cudaStream_t s, const float* coef, int h, int w, std::uint8_t* out, std::int64_t ld,
                         const BsplinePhases& ph) {
  interpolate_impl(s, coef, h, w, out, ld, ph);
}
void bspline_interpolate(cudaStream_t s, const float* coef, int h, int w, float* out, std::int64_t ld,
                         const BsplinePhases& ph) {
  interpolate_impl(s, coef, h, w, out, ld, ph);
}

}  // namespace tessera::native_cuda
