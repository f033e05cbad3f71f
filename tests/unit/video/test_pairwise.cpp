// Pairwise squared distances against a double loop on fresh random data, on
// every built backend: the tiled kernel (public API: native CUDA where built)
// and the GEMM form, l not a multiple of 16, sizes not multiples of any tile;
// near-equal rows (small distances between large vectors) keep their
// accuracy in the direct form and stay >= 0 in the GEMM form.
#include "exec_spaces.hpp"
#include "tessera/core/random.hpp"
#include "tessera/core/validate.hpp"
#include "tessera/video/pairwise.hpp"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace {

using tessera::test::ExecSpaces;
using namespace tessera::video;

template <class E>
using Mat = Kokkos::View<float**, Kokkos::LayoutRight, typename E::memory_space>;

template <class E>
Mat<E> upload(const std::vector<float>& h, int r, int c) {
  Mat<E> v("m", r, c);
  Kokkos::deep_copy(v, Kokkos::View<const float**, Kokkos::LayoutRight, Kokkos::HostSpace,
                                    Kokkos::MemoryTraits<Kokkos::Unmanaged>>(h.data(), r, c));
  return v;
}

template <class View>
std::vector<float> download(const View& v) {
  auto m = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  return std::vector<float>(m.data(), m.data() + m.size());
}

std::vector<double> reference(const std::vector<float>& F, const std::vector<float>& D, int m, int n, int l) {
  std::vector<double> P(std::size_t(m) * n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double s = 0;
      for (int k = 0; k < l; ++k) {
        const double d = double(F[std::size_t(i) * l + k]) - double(D[std::size_t(j) * l + k]);
        s += d * d;
      }
      P[std::size_t(i) * n + j] = s;
    }
  return P;
}

template <class E>
class Pairwise : public ::testing::Test {};
TYPED_TEST_SUITE(Pairwise, ExecSpaces);

TYPED_TEST(Pairwise, BothFormsMatchTheDoubleLoop) {
  using E = TypeParam;
  E exec;
  struct Case { int m, n, l; };
  for (const Case c : {Case{37, 53, 45}, Case{70, 33, 7}, Case{17, 129, 100}, Case{5, 3, 16}, Case{131, 262, 37}}) {
    const auto seed = tessera::test::fresh_seed();
    SCOPED_TRACE(std::string(E::name()) + " m n l = " + std::to_string(c.m) + " " + std::to_string(c.n) + " " +
                 std::to_string(c.l) + ", seed = " + std::to_string(seed));
    std::vector<float> hf(std::size_t(c.m) * c.l), hd(std::size_t(c.n) * c.l);
    for (std::size_t i = 0; i < hf.size(); ++i) hf[i] = float(tessera::random_uniform(seed, i, -1.0, 1.0));
    for (std::size_t i = 0; i < hd.size(); ++i) hd[i] = float(tessera::random_uniform(seed + 1, i, -1.0, 1.0));
    const auto ref = reference(hf, hd, c.m, c.n, c.l);
    auto F = upload<E>(hf, c.m, c.l);
    auto D = upload<E>(hd, c.n, c.l);
    Mat<E> P("P", c.m, c.n);
    for (auto a : {PairwiseAlgorithm::automatic, PairwiseAlgorithm::tiled, PairwiseAlgorithm::gemm,
                   PairwiseAlgorithm::gemm_fused}) {
      const bool gemm = a == PairwiseAlgorithm::gemm || a == PairwiseAlgorithm::gemm_fused;
      SCOPED_TRACE(a == PairwiseAlgorithm::gemm         ? "gemm"
                   : a == PairwiseAlgorithm::gemm_fused ? "gemm_fused"
                   : a == PairwiseAlgorithm::tiled      ? "tiled"
                                                        : "automatic");
      Kokkos::deep_copy(P, std::numeric_limits<float>::quiet_NaN());
      pairwise_distance(exec, F, D, P, a);
      exec.fence();
      const auto h = download(P);
      EXPECT_LE(tessera::max_relative_error(h.data(), ref.data(), h.size()), gemm ? 1e-5 : 2e-6);
    }
  }
}

// Rows of D are rows of F (values near 10) plus perturbations of 1e-3: the
// distances are ~1e-4 against norms of ~1e4.
TYPED_TEST(Pairwise, NearEqualRows) {
  using E = TypeParam;
  E exec;
  const int m = 19, n = 19, l = 50;
  const auto seed = tessera::test::fresh_seed();
  SCOPED_TRACE(std::string(E::name()) + ", seed = " + std::to_string(seed));
  std::vector<float> hf(std::size_t(m) * l), hd(std::size_t(n) * l);
  for (std::size_t i = 0; i < hf.size(); ++i) hf[i] = float(tessera::random_uniform(seed, i, 9.0, 11.0));
  for (std::size_t i = 0; i < hd.size(); ++i)
    hd[i] = hf[i] + float(tessera::random_uniform(seed + 1, i, -1e-3, 1e-3));
  const auto ref = reference(hf, hd, m, n, l);
  auto F = upload<E>(hf, m, l);
  auto D = upload<E>(hd, n, l);
  Mat<E> P("P", m, n);
  for (auto a : {PairwiseAlgorithm::automatic, PairwiseAlgorithm::tiled}) {
    pairwise_distance(exec, F, D, P, a);
    exec.fence();
    const auto h = download(P);
    double worst = 0;  // relative error of each diagonal (near-equal) entry
    for (int i = 0; i < m; ++i) {
      const double r = ref[std::size_t(i) * n + i];
      worst = std::max(worst, std::abs(h[std::size_t(i) * n + i] - r) / r);
    }
    EXPECT_LE(worst, 1e-3);
  }
  for (auto a : {PairwiseAlgorithm::gemm, PairwiseAlgorithm::gemm_fused}) {
    SCOPED_TRACE(a == PairwiseAlgorithm::gemm ? "gemm" : "gemm_fused");
    pairwise_distance(exec, F, D, P, a);
    exec.fence();
    const auto h = download(P);
    // The float rounding bound of ||f||^2 + ||d||^2 - 2 f.d (sums of l
    // products, two more additions): gamma_(l+3) (||f||^2 + ||d||^2 +
    // 2 ||f|| ||d||), gamma_k = k u / (1 - k u), u = 2^-24. The cancellation
    // leaves errors of many ulps of the result; a wrong form errs by ~||f||^2.
    const double u = std::ldexp(1.0, -24), gamma = (l + 3) * u / (1 - (l + 3) * u);
    auto norms2 = [&](const std::vector<float>& x, int rows) {
      std::vector<double> s(std::size_t(rows), 0.0);
      for (int r = 0; r < rows; ++r)
        for (int k = 0; k < l; ++k) s[std::size_t(r)] += double(x[std::size_t(r) * l + k]) * x[std::size_t(r) * l + k];
      return s;
    };
    const auto nfs = norms2(hf, m), nds = norms2(hd, n);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        const double nf = nfs[std::size_t(i)], nd = nds[std::size_t(j)];
        const double bound = gamma * (nf + nd + 2 * std::sqrt(nf * nd));
        const std::size_t e = std::size_t(i) * n + j;
        ASSERT_GE(h[e], 0.0f) << i << ", " << j;
        ASSERT_LE(std::abs(h[e] - ref[e]), bound) << i << ", " << j;
      }
  }
}

TYPED_TEST(Pairwise, BadSizesThrow) {
  using E = TypeParam;
  E exec;
  Mat<E> F("F", 4, 8), D("D", 5, 8), D2("D", 5, 7), P("P", 4, 5), P2("P", 5, 4);
  EXPECT_THROW(pairwise_distance(exec, F, D2, P), std::invalid_argument);
  EXPECT_THROW(pairwise_distance(exec, F, D, P2), std::invalid_argument);
  EXPECT_NO_THROW(pairwise_distance(exec, F, D, P));
}

}  // namespace
