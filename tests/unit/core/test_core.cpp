#include "exec_spaces.hpp"
#include "tessera/core/build_info.hpp"
#include "tessera/core/fast_div.hpp"
#include "tessera/core/pack.hpp"
#include "tessera/core/random.hpp"
#include "tessera/core/timer.hpp"
#include "tessera/core/validate.hpp"

#include <cmath>
#include <limits>
#include <thread>
#include <type_traits>

namespace {

// Against the hardware division: small and power-of-two divisors, divisors
// near 2^31, dividends at the ends of the range and fresh random ones.
TEST(FastDiv, EqualsIntegerDivision) {
  const auto seed = tessera::test::fresh_seed();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::vector<int> divisors = {1, 2, 3, 5, 7, 16, 17, 30, 32, 33, 254, 255, 256, 1000, 65535, 65536, 65537,
                               (1 << 30) - 1, 1 << 30, (1 << 30) + 1, 2147483647};
  for (int r = 0; r < 200; ++r)
    divisors.push_back(1 + int(tessera::random_uniform(seed, r, 0.0, 1.0) * 2147483646.0));
  for (int d : divisors) {
    const tessera::FastDiv fd(d);
    std::vector<int> ns = {0, 1, d - 1, d, 2147483647, 2147483646};
    if (d < 1073741824) ns.push_back(2 * d - 1), ns.push_back(2 * d);
    for (int r = 0; r < 500; ++r) ns.push_back(int(tessera::random_uniform(seed + d, r, 0.0, 1.0) * 2147483647.0));
    for (int n : ns) ASSERT_EQ(fd.quotient(n), n / d) << n << " / " << d;
  }
  EXPECT_THROW(tessera::FastDiv(0), std::invalid_argument);
}

TEST(Timing, MedianOfOddAndEvenCounts) {
  auto s = tessera::summarize({5.0, 1.0, 3.0});
  EXPECT_EQ(s.median, 3.0);
  EXPECT_EQ(s.min, 1.0);
  EXPECT_EQ(s.max, 5.0);
  EXPECT_EQ(s.repeats, 3);
  EXPECT_EQ(tessera::summarize({4.0, 1.0, 3.0, 2.0}).median, 2.5);
  EXPECT_THROW(tessera::summarize({}), std::invalid_argument);
}

template <class ExecSpace>
class Timer : public ::testing::Test {};
TYPED_TEST_SUITE(Timer, tessera::test::ExecSpaces);

// One thread runs a dependent chain of `steps` multiply-adds: at least one
// cycle each, so at least steps / 5 GHz seconds on any processor here (a
// free function: nvcc's device lambdas may not live in a test body).
template <class ExecSpace>
void dependent_chain(const ExecSpace& exec, const Kokkos::View<double*, typename ExecSpace::memory_space>& out,
                     long steps, double b) {
  Kokkos::parallel_for(
      "dependent_chain", Kokkos::RangePolicy<ExecSpace>(exec, 0, 1), KOKKOS_LAMBDA(int) {
        double a = 1;
        for (long s = 0; s < steps; ++s) a = a * b + 1e-9;
        out(0) = a;
      });
}

// The timer covers the work queued on the instance, also on a non-default
// one: an asynchronous kernel with a known minimum duration must not time
// as faster than that.
TYPED_TEST(Timer, CoversQueuedWork) {
  const TypeParam exec = tessera::test::non_default_instance<TypeParam>();
  Kokkos::View<double*, typename TypeParam::memory_space> out("out", 1);
  const long steps = 25000000;  // >= 5 ms at 5 GHz
  int calls = 0;
  auto stats = tessera::time_repeats(exec, 1, 3, [&] {
    ++calls;
    dependent_chain(exec, out, steps, 0.999999);
  });
  EXPECT_EQ(calls, 4);
  EXPECT_EQ(stats.repeats, 3);
  EXPECT_GE(stats.min, steps / 5e9);
  EXPECT_LE(stats.min, stats.median);
  EXPECT_THROW(tessera::time_repeats(exec, 0, 0, [] {}), std::invalid_argument);
}

// A team parallel_reduce of league teams, each thread adding
// league_rank % 1000 + thread + 1 (a free function: nvcc's device lambdas
// may not live in a test body, a private member function).
template <class ExecSpace>
double team_reduce_sum(int league, int team) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  double sum = -1;
  Kokkos::parallel_reduce(
      "team_reduce_test", Policy(ExecSpace(), league, team),
      KOKKOS_LAMBDA(const typename Policy::member_type& m, double& acc) {
        Kokkos::parallel_for(Kokkos::TeamThreadRange(m, m.team_size()),
                             [&](int t) { acc += double(m.league_rank() % 1000 + t + 1); });
      },
      sum);
  return sum;
}

template <class ExecSpace>
class TeamReduce : public ::testing::Test {};
TYPED_TEST_SUITE(TeamReduce, tessera::test::ExecSpaces);

// Leagues below, at and above the block counts where Kokkos patch 0007
// changed the Cuda path (the last block sums all blocks' partials with every
// thread row; one block per team up to 2^20 teams, beyond that blocks loop),
// with remainders of its four-loads-per-thread unrolling. Integer-valued
// doubles: the sum is exact in any order.
TYPED_TEST(TeamReduce, SumsEveryTeamOfLargeLeagues) {
  const int team = std::is_same_v<typename TypeParam::memory_space, Kokkos::HostSpace> ? 1 : 64;
  for (const int league : {1, 3, 255, 32767, 32768, 32769, 100003, (1 << 20) + 77}) {
    double expect = 0;
    for (int r = 0; r < league; ++r)
      for (int t = 0; t < team; ++t) expect += double(r % 1000 + t + 1);
    EXPECT_EQ(team_reduce_sum<TypeParam>(league, team), expect) << "league " << league << ", team size " << team;
  }
}

TEST(Validate, CatchesDeviationsAndUnwrittenElements) {
  std::vector<double> ref = {1.0, -2.0, 4.0}, x = ref;
  EXPECT_EQ(tessera::max_relative_error(x.data(), ref.data(), 3), 0.0);
  x[1] = -2.5;
  EXPECT_DOUBLE_EQ(tessera::max_relative_error(x.data(), ref.data(), 3), 0.5 / 4.0);
  x[2] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(std::isinf(tessera::max_relative_error(x.data(), ref.data(), 3)));
}

TEST(Random, ReproducibleUniformAndSeedDependent) {
  double lo = 1, hi = 0, mean = 0;
  const int n = 100000;
  for (int i = 0; i < n; ++i) {
    const double r = tessera::random_uniform(42, i, -1.0, 3.0);
    ASSERT_EQ(r, tessera::random_uniform(42, i, -1.0, 3.0));
    lo = std::min(lo, r), hi = std::max(hi, r), mean += r / n;
  }
  EXPECT_GE(lo, -1.0);
  EXPECT_LT(hi, 3.0);
  EXPECT_NEAR(mean, 1.0, 0.02);
  EXPECT_NE(tessera::random_uniform(1, 0), tessera::random_uniform(2, 0));
}

TEST(Pack, SixteenBytesAligned) {
  static_assert(sizeof(tessera::Pack<double>) == 16 && alignof(tessera::Pack<double>) == 16);
  static_assert(tessera::Pack<float>::size == 4 && tessera::Pack<double>::size == 2);
  alignas(16) double buf[4];
  EXPECT_TRUE(tessera::is_pack_aligned(buf));
  EXPECT_FALSE(tessera::is_pack_aligned(buf + 1));
}

TEST(BuildInfo, DescribesTheBuild) {
  const auto& b = tessera::build_info();
  EXPECT_FALSE(b.version.empty());
  EXPECT_FALSE(b.cxx_compiler.empty());
  EXPECT_EQ(b.kokkos_version.substr(0, 2), "3.");
#if defined(KOKKOS_ENABLE_OPENMP)
  EXPECT_NE(b.kokkos_devices.find("OPENMP"), std::string::npos);
#endif
}

}  // namespace
