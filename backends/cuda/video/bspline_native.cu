// Native CUDA cubic B-spline kernels: prefilter with one thread per scanline
// (the IIR of impl/bspline_math.hpp, shared with the portable kernels), and
// the 4x4 evaluation with one thread per output pixel, the phase weights in
// the kernel's parameters (constant bank) and the coefficients through the
// read-only cache (a 32x8 block of outputs at u = 7 reads about 9x6 of them).
#include "tessera/video/bspline_native_cuda.hpp"

#include "common/reduce_workspace.cuh"

namespace tessera::native_cuda {
namespace {

using video::BsplinePhases;

template <class T>
__global__ void prefilter_rows(const T* __restrict__ in, std::int64_t ld, float* __restrict__ coef, int h, int w) {
  const int y = blockIdx.x * blockDim.x + threadIdx.x;
  if (y >= h) return;
  float* row = coef + std::int64_t(y) * w;
  const T* src = in + std::int64_t(y) * ld;
  for (int x = 0; x < w; ++x) row[x] = (w > 1 ? 6.0f : 1.0f) * float(src[x]);
  video::bspline_iir_line(row, 1, w);
}

__global__ void prefilter_cols(float* __restrict__ coef, int h, int w) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x >= w) return;
  float* col = coef + x;
  for (int y = 0; y < h; ++y) col[std::int64_t(y) * w] *= (h > 1 ? 6.0f : 1.0f);
  video::bspline_iir_line(col, w, h);
}

constexpr int kBx = 32, kBy = 8;

template <class T>
__global__ void __launch_bounds__(kBx* kBy)
    interpolate(const float* __restrict__ coef, int h, int w, T* __restrict__ out, std::int64_t ld, int oh, int ow,
                const BsplinePhases ph) {
  const int ox = blockIdx.x * kBx + threadIdx.x, oy = blockIdx.y * kBy + threadIdx.y;
  if (ox >= ow || oy >= oh) return;
  const int ry = oy % ph.u, rx = ox % ph.u;
  const int iy = oy / ph.u + ph.offset[ry], ix = ox / ph.u + ph.offset[rx];
  int cx[4];
#pragma unroll
  for (int k = 0; k < 4; ++k) cx[k] = video::mirror_index(ix - 1 + k, w);
  float s = 0.0f;
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const float* row = coef + std::int64_t(video::mirror_index(iy - 1 + j, h)) * w;
    float t = 0.0f;
#pragma unroll
    for (int k = 0; k < 4; ++k) t = fmaf(ph.w[rx][k], __ldg(row + cx[k]), t);
    s = fmaf(ph.w[ry][j], t, s);
  }
  out[std::int64_t(oy) * ld + ox] = video::bspline_store<T>(s);
}

template <class T>
void prefilter_impl(cudaStream_t stream, const T* in, std::int64_t ld, float* coef, int h, int w) {
  if (h <= 0 || w <= 0) return;
  prefilter_rows<<<(h + 63) / 64, 64, 0, stream>>>(in, ld, coef, h, w);
  check(cudaGetLastError(), "bspline_prefilter rows launch");
  prefilter_cols<<<(w + 63) / 64, 64, 0, stream>>>(coef, h, w);
  check(cudaGetLastError(), "bspline_prefilter columns launch");
}

template <class T>
void interpolate_impl(cudaStream_t stream, const float* coef, int h, int w, T* out, std::int64_t ld,
                      const BsplinePhases& ph) {
  const int oh = h * ph.u, ow = w * ph.u;
  if (oh <= 0 || ow <= 0) return;
  const dim3 grid((ow + kBx - 1) / kBx, (oh + kBy - 1) / kBy);
  interpolate<T><<<grid, dim3(kBx, kBy), 0, stream>>>(coef, h, w, out, ld, oh, ow, ph);
  check(cudaGetLastError(), "bspline_interpolate launch");
}

}  // namespace

void bspline_prefilter(cudaStream_t s, const std::uint8_t* in, std::int64_t ld, float* coef, int h, int w) {
  prefilter_impl(s, in, ld, coef, h, w);
}
void bspline_prefilter(cudaStream_t s, const float* in, std::int64_t ld, float* coef, int h, int w) {
  prefilter_impl(s, in, ld, coef, h, w);
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
