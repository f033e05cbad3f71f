#pragma once
// Depth propagation (the first step of the 3-D propagation DIBR algorithm):
// the geometry of one source pixel, shared by the portable and the native
// CUDA kernels.
#include <Kokkos_Macros.hpp>

#include <cstdint>

namespace tessera::video {

// Pinhole intrinsics; pixel (x, y) has its centre at integer coordinates.
struct Intrinsics {
  double fx = 1, fy = 1, cx = 0, cy = 0;
};

// Source (depth) camera -> target (colour) camera: X_t = R X_s + t, both in
// camera coordinates (z along the optical axis, depth = z).
struct CameraRig {
  Intrinsics source, target;
  double R[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};  // row-major
  double t[3] = {0, 0, 0};
};

inline constexpr std::uint32_t kDepthUnknownBits = 0x7f800000u;  // +inf: the empty z-buffer
// Sort key of source pixel i when it lands nowhere: a slot past the last
// target pixel of its own, so it sorts after every target and the keys stay
// distinct and spread out (Kokkos 3's sort bins keys by value and bubble-sorts
// within a bin: equal keys, or all of them in one bin, would cost O(n^2)).
KOKKOS_INLINE_FUNCTION std::uint64_t no_target_key(std::int64_t target_pixels, std::int64_t i) {
  return std::uint64_t(target_pixels + i) << 32;
}

// Products and sums that no compiler fuses into FMAs (nvcc does by default,
// and a fused a * b + c rounds once where the host rounds twice): the same
// bits on every backend. Host builds do not contract (ISO C++, no FMA in the
// x86-64 baseline; the vector path's target has no FMA either).
KOKKOS_INLINE_FUNCTION double dibr_mul(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
KOKKOS_INLINE_FUNCTION double dibr_add(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}

// dibr_project from the pixel's normalised coordinates xs = (x - cx) / fx,
// ys = (y - cy) / fy of the source camera (host loops tabulate them: the same
// expressions, so the same bits).
KOKKOS_INLINE_FUNCTION bool dibr_project_normalised(const CameraRig& rig, double xs, double ys, float d, int w, int h,
                                                    int& tx, int& ty, std::uint32_t& zbits) {
  if (!(d > 0.0f) || !(d < 3.0e38f)) return false;  // unknown, NaN or infinite depth
  const double X = dibr_mul(xs, d), Y = dibr_mul(ys, d), Z = d;
  // r[0] X + r[1] Y + r[2] Z + t, left to right.
  auto row = [&](const double* r, double t) {
    return dibr_add(dibr_add(dibr_add(dibr_mul(r[0], X), dibr_mul(r[1], Y)), dibr_mul(r[2], Z)), t);
  };
  const double xt = row(rig.R, rig.t[0]), yt = row(rig.R + 3, rig.t[1]), zt = row(rig.R + 6, rig.t[2]);
  const float zf = float(zt);
  if (!(zf > 0.0f) || !(zf < 3.0e38f)) return false;
  const double u = dibr_add(dibr_add(dibr_mul(rig.target.fx, xt) / zt, rig.target.cx), 0.5);
  const double v = dibr_add(dibr_add(dibr_mul(rig.target.fy, yt) / zt, rig.target.cy), 0.5);
  if (!(u >= 0.0) || !(v >= 0.0) || !(u < double(w)) || !(v < double(h))) return false;
  tx = int(u);  // u >= 0: truncation is floor
  ty = int(v);
  union {
    float f;
    std::uint32_t u;
  } bits{zf};
  zbits = bits.u;
  return true;
}

// Back-projects source pixel (x, y) at depth d, transforms and projects it;
// true with the target pixel (tx, ty) (rounded to nearest) and the bits of
// its positive float depth when it lands inside the w x h target in front of
// the camera. Positive floats order like their bit patterns.
KOKKOS_INLINE_FUNCTION bool dibr_project(const CameraRig& rig, int x, int y, float d, int w, int h, int& tx, int& ty,
                                         std::uint32_t& zbits) {
  return dibr_project_normalised(rig, (x - rig.source.cx) / rig.source.fx, (y - rig.source.cy) / rig.source.fy, d, w,
                                 h, tx, ty, zbits);
}

KOKKOS_INLINE_FUNCTION float depth_from_bits(std::uint32_t b) {
  if (b == kDepthUnknownBits) return 0.0f;
  union {
    std::uint32_t u;
    float f;
  } bits{b};
  return bits.f;
}

}  // namespace tessera::video
