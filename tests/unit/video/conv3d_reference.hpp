#pragma once
// What the conv3d tests share: seeded inputs and eq. (1) in double.
#include "tessera/core/random.hpp"

#include <cstdint>
#include <vector>

namespace tessera::test {

// n uniform values in [-1, 1) of the counter-based generator.
inline std::vector<float> random_vector(std::size_t n, std::uint64_t seed) {
  std::vector<float> h(n);
  for (std::size_t i = 0; i < n; ++i) h[i] = float(tessera::random_uniform(seed, i, -1.0, 1.0));
  return h;
}

// Eq. (1) as written: out[x, y, t] = sum V[x - m, y - n, t - l] K[m, n, l], with
// the output's (x, y) placed at input (x + off, y + off), t at t + k - 1.
// V (T, H, W) and K (k, k, k) row-major; out (T - k + 1, Ho, Wo).
inline std::vector<double> conv3d_reference(const std::vector<float>& V, const std::vector<float>& K, int T, int H,
                                            int W, int k, bool valid) {
  const int To = T - k + 1, Ho = valid ? H - k + 1 : H, Wo = valid ? W - k + 1 : W;
  const int off = valid ? k - 1 : k / 2;
  std::vector<double> out(std::size_t(To) * Ho * Wo, 0.0);
  for (int t = 0; t < To; ++t)
    for (int y = 0; y < Ho; ++y)
      for (int x = 0; x < Wo; ++x) {
        double s = 0;
        for (int l = 0; l < k; ++l)
          for (int n = 0; n < k; ++n)
            for (int m = 0; m < k; ++m) {
              const int tt = t + k - 1 - l, yy = y + off - n, xx = x + off - m;
              if (yy < 0 || yy >= H || xx < 0 || xx >= W) continue;
              s += double(V[(std::size_t(tt) * H + yy) * W + xx]) * double(K[(std::size_t(l) * k + n) * k + m]);
            }
        out[(std::size_t(t) * Ho + y) * Wo + x] = s;
      }
  return out;
}

}  // namespace tessera::test
