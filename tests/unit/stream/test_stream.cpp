// STREAM kernels against plain loops, on every built backend, through both
// the public API (which picks native CUDA on Kokkos::Cuda) and the portable
// Kokkos kernels. Fresh random inputs each run; outputs poisoned with NaN.
#include "exec_spaces.hpp"
#include "tessera/core/random.hpp"
#include "tessera/core/validate.hpp"
#include "tessera/stream/stream.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

namespace {

using tessera::test::ExecSpaces;

// Selects the entry points under test.
struct PublicApi {
  template <class E, class A, class C>
  static void copy(const E& e, const A& a, const C& c) { tessera::stream::copy(e, a, c); }
  template <class E, class A, class B, class C, class S>
  static void triad(const E& e, const A& a, const B& b, const C& c, S s) { tessera::stream::triad(e, a, b, c, s); }
  template <class E, class A>
  static double sum(const E& e, const A& a) { return tessera::stream::sum(e, a); }
};
struct Portable {
  template <class E, class A, class C>
  static void copy(const E& e, const A& a, const C& c) { tessera::stream::impl::copy_kokkos(e, a, c); }
  template <class E, class A, class B, class C, class S>
  static void triad(const E& e, const A& a, const B& b, const C& c, S s) {
    tessera::stream::impl::triad_kokkos(e, a, b, c, s);
  }
  template <class E, class A>
  static double sum(const E& e, const A& a) { return tessera::stream::impl::sum_kokkos(e, a); }
};

template <class ExecSpace>
class Stream : public ::testing::Test {};
TYPED_TEST_SUITE(Stream, ExecSpaces);

template <class T, class ExecSpace>
Kokkos::View<T*, typename ExecSpace::memory_space> random_view(std::size_t n, std::uint64_t seed, std::vector<T>& host) {
  host.resize(n);
  for (std::size_t i = 0; i < n; ++i) host[i] = T(tessera::random_uniform(seed, i, -2.0, 2.0));
  Kokkos::View<T*, typename ExecSpace::memory_space> v("v", n);
  Kokkos::deep_copy(v, Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(host.data(), n));
  return v;
}

template <class View>
std::vector<typename View::non_const_value_type> to_host(const View& v) {
  auto m = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
  std::vector<typename View::non_const_value_type> out(v.extent(0));
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = m(i);
  return out;
}

template <class T, class Api, class ExecSpace>
void check_all_kernels(std::size_t n) {
  const auto seed = tessera::test::fresh_seed();
  SCOPED_TRACE("n = " + std::to_string(n) + ", seed = " + std::to_string(seed) + ", " + ExecSpace::name());
  ExecSpace exec;
  std::vector<T> ha, hb, hc;
  auto a = random_view<T, ExecSpace>(n, seed, ha);
  auto b = random_view<T, ExecSpace>(n, seed + 1, hb);
  auto c = random_view<T, ExecSpace>(n, seed + 2, hc);
  Kokkos::View<T*, typename ExecSpace::memory_space> out("out", n);
  const T nan = std::numeric_limits<T>::quiet_NaN();

  Kokkos::deep_copy(out, nan);
  Api::copy(exec, a, out);
  exec.fence();
  EXPECT_EQ(tessera::max_relative_error(to_host(out).data(), ha.data(), n), 0.0);

  const T s = T(1.75);
  std::vector<double> ref(n);
  for (std::size_t i = 0; i < n; ++i) ref[i] = double(hb[i]) + double(s) * double(hc[i]);
  Kokkos::deep_copy(out, nan);
  Api::triad(exec, out, b, c, s);
  exec.fence();
  const double eps = std::numeric_limits<T>::epsilon();
  // |b + s c| can be far below |b| + |s c|: bound the error by the terms' size.
  double scale = 0, refmax = 0;
  for (std::size_t i = 0; i < n; ++i) {
    scale = std::max(scale, std::abs(double(hb[i])) + std::abs(double(s) * double(hc[i])));
    refmax = std::max(refmax, std::abs(ref[i]));
  }
  EXPECT_LE(tessera::max_relative_error(to_host(out).data(), ref.data(), n) * refmax, 2 * eps * scale);

  long double exact = 0, abs_sum = 0;
  for (std::size_t i = 0; i < n; ++i) exact += ha[i], abs_sum += std::abs(ha[i]);
  const double got = Api::sum(exec, a);
  EXPECT_LE(std::abs(double(got - exact)), 2 * std::numeric_limits<double>::epsilon() * std::sqrt(double(n) + 1) *
                                               double(abs_sum) + 1e-300);
}

const std::size_t kSizes[] = {0, 1, 2, 3, 5, 7, 8, 9, 16, 17, 1000, 1023, 100003, 1 << 20};

TYPED_TEST(Stream, PublicApiMatchesPlainLoopsDouble) {
  for (auto n : kSizes) check_all_kernels<double, PublicApi, TypeParam>(n);
}
TYPED_TEST(Stream, PublicApiMatchesPlainLoopsFloat) {
  for (auto n : kSizes) check_all_kernels<float, PublicApi, TypeParam>(n);
}
TYPED_TEST(Stream, PortableKernelsMatchPlainLoops) {
  for (auto n : kSizes) check_all_kernels<double, Portable, TypeParam>(n);
}

// Views the fast paths do not take: misaligned subviews and strided views.
TYPED_TEST(Stream, MisalignedAndStridedViews) {
  using Exec = TypeParam;
  using Mem = typename Exec::memory_space;
  const std::size_t n = 10001;
  const auto seed = tessera::test::fresh_seed();
  SCOPED_TRACE("seed = " + std::to_string(seed));
  Exec exec;
  std::vector<double> h;
  auto base = random_view<double, Exec>(2 * n + 2, seed, h);
  auto odd = Kokkos::subview(base, Kokkos::make_pair(std::size_t(1), n + 1));  // 8-byte offset
  Kokkos::View<double*, Kokkos::LayoutStride, Mem> strided(
      base.data(), Kokkos::LayoutStride(n, 2));  // every second element
  Kokkos::View<double*, Mem> out_buf("out", n + 1);
  auto out = Kokkos::subview(out_buf, Kokkos::make_pair(std::size_t(1), n + 1));

  for (auto api : {0, 1}) {
    Kokkos::deep_copy(out, std::numeric_limits<double>::quiet_NaN());
    if (api == 0) tessera::stream::copy(exec, odd, out);
    else tessera::stream::impl::copy_kokkos(exec, odd, out);
    exec.fence();
    auto got = to_host(out);
    EXPECT_EQ(tessera::max_relative_error(got.data(), h.data() + 1, n), 0.0);

    tessera::stream::triad(exec, out, strided, odd, 2.0);
    exec.fence();
    got = to_host(out);
    std::vector<double> ref(n);
    for (std::size_t i = 0; i < n; ++i) ref[i] = h[2 * i] + 2.0 * h[i + 1];
    EXPECT_LE(tessera::max_relative_error(got.data(), ref.data(), n), 4e-16);

    long double exact = 0;
    for (std::size_t i = 0; i < n; ++i) exact += h[2 * i];
    EXPECT_NEAR(tessera::stream::sum(exec, strided), double(exact), 1e-11);
  }
}

TYPED_TEST(Stream, MismatchedExtentsAreRejected) {
  using Mem = typename TypeParam::memory_space;
  Kokkos::View<double*, Mem> a("a", 10), c("c", 11);
  EXPECT_THROW(tessera::stream::copy(TypeParam(), a, c), std::invalid_argument);
  EXPECT_THROW(tessera::stream::triad(TypeParam(), a, a, c, 1.0), std::invalid_argument);
}

// Kernels queued on one instance (not the default one where the space has
// several) and read back on it: no global fence needed.
TYPED_TEST(Stream, RunsOnTheGivenInstance) {
  using Mem = typename TypeParam::memory_space;
  const TypeParam exec = tessera::test::non_default_instance<TypeParam>();
  const std::size_t n = 4096;
  Kokkos::View<double*, Mem> a("a", n), b("b", n);
  Kokkos::deep_copy(exec, a, 1.5);
  tessera::stream::copy(exec, a, b);
  EXPECT_DOUBLE_EQ(tessera::stream::sum(exec, b), 1.5 * n);
}

}  // namespace
