#pragma once
// Comparisons against a reference, for the workloads' validation and tests.
#include <cmath>
#include <cstddef>
#include <limits>

namespace tessera {

// max_i |x_i - ref_i| / max_i |ref_i|; +inf when any x_i is NaN (an element
// the kernel never wrote stays NaN when the output was poisoned first).
template <class T, class U>
double max_relative_error(const T* x, const U* ref, std::size_t n) {
  double err = 0, scale = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double d = std::abs(double(x[i]) - double(ref[i]));
    if (std::isnan(d)) return std::numeric_limits<double>::infinity();
    err = std::max(err, d);
    scale = std::max(scale, std::abs(double(ref[i])));
  }
  return scale > 0 ? err / scale : err;
}

}  // namespace tessera
