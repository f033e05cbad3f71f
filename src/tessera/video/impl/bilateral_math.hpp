#pragma once
// Depth-colour bilateral filter (DCBF) pieces shared by the portable and the
// native CUDA kernels: the look-up tables of the two Gaussians.
#include <cmath>
#include <stdexcept>
#include <string>

namespace tessera::video {

struct BilateralParams {
  int k = 11;             // window K x K, K odd, 1..15
  double sigma_s = 3.0;   // spatial sigma, pixels
  double sigma_r = 10.0;  // range sigma, grey levels of luma
};

inline constexpr int kMaxBilateralK = 15;
inline constexpr int kBilateralSpatialSize = 2 * (kMaxBilateralK / 2) * (kMaxBilateralK / 2) + 1;

// G_s indexed by dx^2 + dy^2, G_r by |I_A - I_B|: G(r) = exp(-r^2 / (2 sigma^2)).
struct BilateralTables {
  int radius = 5;
  float spatial[kBilateralSpatialSize] = {};
  float range[256] = {};
};

inline void validate(const BilateralParams& p) {
  if (p.k < 1 || p.k > kMaxBilateralK || p.k % 2 == 0)
    throw std::invalid_argument("bilateral: K must be odd, 1.." + std::to_string(kMaxBilateralK) + " (got " +
                                std::to_string(p.k) + ")");
  if (!(p.sigma_s > 0) || !(p.sigma_r > 0) || !std::isfinite(p.sigma_s) || !std::isfinite(p.sigma_r))
    throw std::invalid_argument("bilateral: sigmas must be positive and finite");
}

inline BilateralTables make_bilateral_tables(const BilateralParams& p) {
  validate(p);
  BilateralTables t;
  t.radius = p.k / 2;
  for (int d2 = 0; d2 < kBilateralSpatialSize; ++d2) t.spatial[d2] = float(std::exp(-d2 / (2 * p.sigma_s * p.sigma_s)));
  for (int r = 0; r < 256; ++r) t.range[r] = float(std::exp(-double(r) * r / (2 * p.sigma_r * p.sigma_r)));
  return t;
}

// The tables of the last parameters this thread asked for (a video filters
// every frame with the same ones; the 355 exponentials cost microseconds a
// call, which a device timer around bilateral_filter sees).
inline const BilateralTables& bilateral_tables_cached(const BilateralParams& p) {
  thread_local BilateralParams last{0, 0.0, 0.0};  // never valid: the first call builds
  thread_local BilateralTables tables;
  if (p.k != last.k || p.sigma_s != last.sigma_s || p.sigma_r != last.sigma_r) {
    tables = make_bilateral_tables(p);  // validates first: a bad p leaves the cache as it was
    last = p;
  }
  return tables;
}

}  // namespace tessera::video
