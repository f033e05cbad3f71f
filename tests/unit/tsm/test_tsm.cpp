// Tall-skinny GEMM (TSMTTSM, TSMM) against a long-double reference on every
// built backend, through the public API (native CUDA on Kokkos::Cuda) and,
// on a GPU, the portable kernels as well. Fresh random inputs each run.
#include "test_tsm_common.hpp"
#include "tessera/tsm/tsm_table.hpp"

#include <initializer_list>
#include <stdexcept>
#include <tuple>

namespace {

using namespace tsm_test;
using tessera::test::ExecSpaces;

struct Public {
  template <class... Args>
  static void tsmttsm(Args&&... a) { tessera::tsm::tsmttsm(a...); }
  template <class... Args>
  static void tsmm(Args&&... a) { tessera::tsm::tsmm(a...); }
};
struct Portable {
  template <class E, class T, class VA, class VB, class VC>
  static void tsmttsm(const E& e, const std::string& trans, T alpha, const VA& A, const VB& B, T beta, const VC& C) {
    tessera::tsm::impl::tsmttsm_kokkos(e, trans == "C", alpha, A, B, beta, C);
  }
  template <class E, class T, class VA, class VC, class VB>
  static void tsmm(const E& e, T alpha, const VA& A, const VC& C, T beta, const VB& B) {
    tessera::tsm::impl::tsmm_kokkos(e, alpha, A, C, beta, B);
  }
};

template <class Exec>
class Tsm : public ::testing::Test {};
TYPED_TEST_SUITE(Tsm, ExecSpaces);

struct Case {
  int M, N, K;
  bool conj = false;
  Lay lay = Lay::right;
  bool zero_beta = false;   // beta = 0, output poisoned with NaN
  bool zero_alpha = false;  // alpha = 0, tall operands poisoned with NaN
  bool real_beta = false;   // complex beta without an imaginary part
  std::string str() const {
    return "M=" + std::to_string(M) + " N=" + std::to_string(N) + " K=" + std::to_string(K) +
           (conj ? " C" : " T") + " layout=" + std::to_string(int(lay)) + (zero_beta ? " beta=0" : "") +
           (zero_alpha ? " alpha=0" : "") + (real_beta ? " beta real" : "");
  }
};

template <class T>
T random_scalar(std::uint64_t seed, std::uint64_t i, bool real = false) {
  return make<T>(tessera::random_uniform(seed, i, 0.5, 1.5), real ? 0.0 : tessera::random_uniform(seed, i + 1, -1, 1));
}

template <class T, class Exec, class L>
auto dev(const HostMat<T>& h) {
  return to_device<T, Exec, L>(h);
}

// Runs fn(A, B, C) with device copies of the host matrices in the case's layout:
// right / left: all three in that layout; stride: tall operands as column
// blocks of wider Views, the small matrix LayoutRight.
template <class T, class Exec, class Fn>
void with_layout(Lay lay, const HostMat<T>& tall1, const HostMat<T>& small, const HostMat<T>& tall2, Fn&& fn) {
  switch (lay) {
    case Lay::right:
      fn(dev<T, Exec, Kokkos::LayoutRight>(tall1), dev<T, Exec, Kokkos::LayoutRight>(small),
         dev<T, Exec, Kokkos::LayoutRight>(tall2));
      break;
    case Lay::left:
      fn(dev<T, Exec, Kokkos::LayoutLeft>(tall1), dev<T, Exec, Kokkos::LayoutLeft>(small),
         dev<T, Exec, Kokkos::LayoutLeft>(tall2));
      break;
    case Lay::stride:
      fn(to_device_block<T, Exec>(tall1), dev<T, Exec, Kokkos::LayoutRight>(small),
         to_device_block<T, Exec>(tall2, 1, 5));
      break;
    case Lay::block:
      fn(to_device_block<T, Exec>(tall1, 2, 4), dev<T, Exec, Kokkos::LayoutRight>(small),
         to_device_block<T, Exec>(tall2, 2, 4));
      break;
    case Lay::sectors:
      fn(to_device_block<T, Exec>(tall1, 4, 8), dev<T, Exec, Kokkos::LayoutRight>(small),
         to_device_block<T, Exec>(tall2, 4, 8));
      break;
  }
}

template <class T, class Exec, class Api>
void check_tsmttsm(const Case& c, std::uint64_t seed) {
  SCOPED_TRACE("tsmttsm " + c.str() + " seed=" + std::to_string(seed) + " " + Exec::name());
  Exec exec;
  auto hA = random_mat<T>(c.K, c.M, seed + 1);
  auto hB = random_mat<T>(c.K, c.N, seed + 2);
  auto hC = c.zero_beta ? filled<T>(c.M, c.N, nan_value<T>()) : random_mat<T>(c.M, c.N, seed + 3);
  const T alpha = c.zero_alpha ? T(0) : random_scalar<T>(seed, 10);
  const T beta = c.zero_beta ? T(0) : random_scalar<T>(seed, 20, c.real_beta);
  const auto ref = ref_tsmttsm(c.conj, alpha, hA, hB, beta, hC);
  if (c.zero_alpha) {
    hA = filled<T>(c.K, c.M, nan_value<T>());
    hB = filled<T>(c.K, c.N, nan_value<T>());
  }
  HostMat<T> got;
  with_layout<T, Exec>(c.lay, hA, hC, hB, [&](const auto& A, const auto& C, const auto& B) {
    Api::tsmttsm(exec, std::string(c.conj ? "C" : "T"), alpha, A, B, beta, C);
    exec.fence();
    got = to_host<T>(C);
  });
  std::string first;
  EXPECT_EQ(count_bad(got, ref, &first), 0) << first;
}

template <class T, class Exec, class Api>
void check_tsmm(const Case& c, std::uint64_t seed) {
  SCOPED_TRACE("tsmm " + c.str() + " seed=" + std::to_string(seed) + " " + Exec::name());
  Exec exec;
  auto hA = random_mat<T>(c.K, c.M, seed + 4);
  auto hC = random_mat<T>(c.M, c.N, seed + 5);
  auto hB = c.zero_beta ? filled<T>(c.K, c.N, nan_value<T>()) : random_mat<T>(c.K, c.N, seed + 6);
  const T alpha = c.zero_alpha ? T(0) : random_scalar<T>(seed, 30);
  const T beta = c.zero_beta ? T(0) : random_scalar<T>(seed, 40, c.real_beta);
  const auto ref = ref_tsmm(alpha, hA, hC, beta, hB);
  if (c.zero_alpha) {
    hA = filled<T>(c.K, c.M, nan_value<T>());
    hC = filled<T>(c.M, c.N, nan_value<T>());
  }
  HostMat<T> got;
  with_layout<T, Exec>(c.lay, hA, hC, hB, [&](const auto& A, const auto& C, const auto& B) {
    Api::tsmm(exec, alpha, A, C, beta, B);
    exec.fence();
    got = to_host<T>(B);
  });
  std::string first;
  EXPECT_EQ(count_bad(got, ref, &first), 0) << first;
}

template <class T, class Exec>
void check_both(const Case& c, std::uint64_t seed) {
  check_tsmttsm<T, Exec, Public>(c, seed);
  check_tsmm<T, Exec, Public>(c, seed);
  if constexpr (tessera::is_device_space_v<Exec>) {  // the public API ran the native kernels
    if (c.lay == Lay::right) {
      check_tsmttsm<T, Exec, Portable>(c, seed);
      check_tsmm<T, Exec, Portable>(c, seed);
    }
  }
}

constexpr int kSweepK[] = {0, 1, 3, 1031};

TYPED_TEST(Tsm, SquareSweepDouble) {
  const auto seed = tessera::test::fresh_seed();
  for (int m = 1; m <= 64; ++m)
    for (int K : kSweepK) check_both<double, TypeParam>(Case{m, m, K}, seed + 97 * m + K);
}

TYPED_TEST(Tsm, SquareSweepComplex) {
  const auto seed = tessera::test::fresh_seed();
  for (int m = 1; m <= 64; ++m)
    for (int K : kSweepK) {
      Case c{m, m, K};
      c.conj = (m + K) % 2 == 0;  // "T" and "C" alternate over the sweep
      check_both<zc, TypeParam>(c, seed + 97 * m + K);
    }
}

// The double TSMTTSM shapes that Cuda runs on the portable kernel: M != N with a side of 1, or of 2 or 3 with the
// other at most 32. Complex never.
TEST(TsmDispatch, ThinDoubleShapesPreferThePortableKernel) {
  using tessera::tsm::impl::tsmttsm_prefers_portable;
  for (auto [M, N] : {std::pair{1, 64}, std::pair{64, 1}, std::pair{1, 2}, std::pair{3, 17}, std::pair{32, 2}})
    EXPECT_TRUE(tsmttsm_prefers_portable(false, M, N)) << M << "x" << N;
  for (auto [M, N] : {std::pair{3, 3}, std::pair{2, 33}, std::pair{64, 3}, std::pair{4, 17}, std::pair{1, 1}})
    EXPECT_FALSE(tsmttsm_prefers_portable(false, M, N)) << M << "x" << N;
  for (auto [M, N] : {std::pair{1, 64}, std::pair{3, 17}, std::pair{64, 1}})
    EXPECT_FALSE(tsmttsm_prefers_portable(true, M, N)) << M << "x" << N;
}

TYPED_TEST(Tsm, RectangularGrid) {
  const auto seed = tessera::test::fresh_seed();
  const int ms[] = {1, 3, 8, 17, 33, 64};
  const int ns[] = {1, 2, 5, 16, 31, 64};
  for (int M : ms)
    for (int N : ns)
      for (int K : {3, 1031}) {
        check_both<double, TypeParam>(Case{M, N, K}, seed + 1000 * M + 10 * N + K);
        Case c{M, N, K};
        c.conj = true;
        check_both<zc, TypeParam>(c, seed + 1000 * M + 10 * N + K + 7);
      }
}

// GPUs: K large enough that every team of the portable TSMTTSM takes several
// blocks of rows (a league of about 1000 teams of up to 1024 rows each) and
// every TSMM group several row pairs or blocks, so the touches of what comes
// next and the staged kernels' pipelines (1 x 1, 2 x 2, 4 x 4 and 8 x 8
// tiles double, complex; flat TSMM of 8 rows, of 4 rows x 2 columns and of
// one row a tile; paired TSMM) run; strided rows as well. The host kernels' blocks are
// covered by the sweeps.
TYPED_TEST(Tsm, ManyBlocksPerTeam) {
  if constexpr (tessera::is_device_space_v<TypeParam>) {
    const auto seed = tessera::test::fresh_seed();
    for (auto [M, N, K] : {std::tuple{32, 32, 600011}, std::tuple{5, 9, 1200007}, std::tuple{24, 20, 700001},
                           std::tuple{56, 48, 300007}, std::tuple{2, 2, 5000011}, std::tuple{4, 4, 1200007},
                           std::tuple{64, 8, 600011}, std::tuple{16, 16, 300007}, std::tuple{21, 28, 400009}}) {
      check_tsmttsm<double, TypeParam, Portable>(Case{M, N, K}, seed + M + N);
      check_tsmttsm<double, TypeParam, Portable>(Case{M, N, K / 4, false, Lay::stride}, seed + M + N + 1);
      check_tsmm<double, TypeParam, Portable>(Case{M, N, K / 2}, seed + M + N + 2);
    }
    // The paired TSMM kernel's scalar stores (B's rows not 16-byte pairs).
    check_tsmm<double, TypeParam, Portable>(Case{24, 24, 200003, false, Lay::stride}, seed + 6);
    check_tsmm<double, TypeParam, Portable>(Case{20, 25, 200003, false, Lay::left}, seed + 7);
    check_tsmttsm<zc, TypeParam, Portable>(Case{16, 16, 300007, true}, seed + 3);
    check_tsmttsm<zc, TypeParam, Portable>(Case{24, 20, 200003}, seed + 5);
    check_tsmm<zc, TypeParam, Portable>(Case{16, 16, 300007}, seed + 4);
  }
}

// GPUs, native TSMTTSM at odd sides with many stages: rows copied in 16-byte
// pieces from their first 16-byte boundary plus one 8-byte piece (packed
// rows and odd row strides), beside an even side copied whole (35 x 48) and
// 8-byte copies (strided rows with even strides).
TYPED_TEST(Tsm, NativeOddSidesManyStages) {
  if constexpr (tessera::is_device_space_v<TypeParam>) {
    const auto seed = tessera::test::fresh_seed();
    for (auto [M, N, K] : {std::tuple{33, 33, 300007}, std::tuple{17, 41, 200003}, std::tuple{35, 48, 100003},
                           std::tuple{13, 13, 400009}, std::tuple{63, 7, 100003}})
      for (Lay lay : {Lay::right, Lay::block, Lay::stride})
        check_tsmttsm<double, TypeParam, Public>(Case{M, N, lay == Lay::right ? K : K / 4, false, lay},
                                                 seed + M + N + int(lay));
  }
}

// The staged TSMTTSM kernel's shared row strides congruent to the source's (whole sectors): rows of 2 mod 4
// doubles on both operands, the k4 steps on alternate rows (34, 50, 38 x 42; complex 17 and 19 x 21 as the real
// products of twice the sides), packed and in column blocks 32 bytes in with strides of 2 mod 4 (sectors); odd
// rows of 3 mod 4 (35, 51); one operand of 2 mod 4 and one of 0 (34 x 64). Many stages a block, a last chunk
// part filled, beta = 0 with NaN in C.
TYPED_TEST(Tsm, NativeStagedWholeSectors) {
  if constexpr (tessera::is_device_space_v<TypeParam>) {
    const auto seed = tessera::test::fresh_seed();
    for (auto [M, N, K] : {std::tuple{34, 34, 300007}, std::tuple{50, 50, 200003}, std::tuple{38, 42, 200001},
                           std::tuple{35, 35, 200003}, std::tuple{51, 51, 100003}, std::tuple{34, 64, 100001}})
      for (Lay lay : {Lay::right, Lay::sectors, Lay::block}) {
        Case c{M, N, lay == Lay::right ? K : K / 4, false, lay};
        check_tsmttsm<double, TypeParam, Public>(c, seed + M + N + int(lay));
        c.zero_beta = true;
        check_tsmttsm<double, TypeParam, Public>(c, seed + M + N + int(lay) + 7);
      }
    for (auto [M, N, K] : {std::tuple{17, 17, 200003}, std::tuple{19, 21, 100003}})
      for (bool conj : {false, true})
        check_tsmttsm<zc, TypeParam, Public>(Case{M, N, K, conj}, seed + M + N + conj);
  }
}

// The native TSMTTSM of M x N (complex: z) runs configuration nc: a table of that one entry.
void force_tsmttsm_config(bool z, int M, int N, const tessera::tsm::NativeConfig& nc) {
  using namespace tessera::tsm;
  ASSERT_TRUE(config_usable(true, z, M, N, nc)) << config_name(true, nc) << " " << M << "x" << N;
  set_active_table(Table{"", {TableEntry{true, z, M, N, nc}}});
}

// The double strips with C's rows past the last multiple of 16 by FMA (`edge`), forced through a table: one and
// two edge rows a strip (4 tiles: 17 x 30, 33, 36 x 40, 49, 50, 52 x 60, 54; 5 tiles: 17 x 64, 34 x 40, 33 x 35,
// 51 x 64), odd rows, rows of 2 mod 4 doubles (alternate k4 rows), column blocks, many stages a block, beta = 0
// with NaN in C; complex 25, 26 x 27 and 27 x 20 (4 tiles), 17 and 17 x 19 (5 tiles) as the real products of twice
// the sides, "T" and "C".
TYPED_TEST(Tsm, NativeStagedEdgeRows) {
  if constexpr (tessera::is_device_space_v<TypeParam>) {
    using namespace tessera::tsm;
    const auto seed = tessera::test::fresh_seed();
    const auto force = [](bool z, int M, int N, int tiles) {
      NativeConfig nc;
      nc.mma = 2;
      nc.stages = 3;
      nc.tiles = tiles;
      nc.edge = 1;
      nc.real = z ? 1 : 0;
      force_tsmttsm_config(z, M, N, nc);
    };
    for (auto [M, N, K, tiles] : {std::tuple{17, 30, 200003, 4}, std::tuple{33, 33, 300007, 4},
                                  std::tuple{36, 40, 100003, 4}, std::tuple{49, 49, 200003, 4},
                                  std::tuple{50, 50, 200003, 4}, std::tuple{52, 60, 100001, 4},
                                  std::tuple{54, 54, 100003, 4}, std::tuple{17, 64, 100003, 5},
                                  std::tuple{34, 40, 200003, 5}, std::tuple{33, 35, 100001, 5},
                                  std::tuple{51, 64, 100003, 5}}) {
      force(false, M, N, tiles);
      SCOPED_TRACE("edge, tiles " + std::to_string(tiles));
      for (Lay lay : {Lay::right, Lay::sectors, Lay::block, Lay::stride}) {
        Case c{M, N, lay == Lay::right ? K : K / 4, false, lay};
        check_tsmttsm<double, TypeParam, Public>(c, seed + M + N + int(lay));
        c.zero_beta = true;
        check_tsmttsm<double, TypeParam, Public>(c, seed + M + N + int(lay) + 7);
      }
    }
    for (auto [M, N, tiles] : {std::tuple{25, 25, 4}, std::tuple{26, 27, 4}, std::tuple{27, 20, 4},
                               std::tuple{17, 17, 5}, std::tuple{17, 19, 5}}) {
      force(true, M, N, tiles);
      for (bool conj : {false, true}) {
        Case c{M, N, 100003, conj};
        check_tsmttsm<zc, TypeParam, Public>(c, seed + M + N + conj);
        c.zero_beta = true;
        check_tsmttsm<zc, TypeParam, Public>(c, seed + M + N + conj + 2);
      }
    }
    set_active_table(Table{});
  }
}

// The staged TSMTTSM kernels' square warps, forced through a table: double's k8 steps (m16n8k8) on 4 x 4 warps
// (64, 49 x 57 with odd rows, 56 x 64, 50 with alternate rows) and 2 x 2 (29, 30 x 26, 18 x 31); complex as the
// real product on the 4 x 4 warps (25, 28 x 31, 32) and complex 2 x 2 warps (k4 steps: 64, 56 x 60, 33 x 47 with
// ragged warps, 12 x 20 with several slices), "T" and "C"; many stages a block, a last chunk part filled, column
// blocks, beta = 0 with NaN in C.
TYPED_TEST(Tsm, NativeStagedK8Steps) {
  if constexpr (tessera::is_device_space_v<TypeParam>) {
    using namespace tessera::tsm;
    const auto seed = tessera::test::fresh_seed();
    const auto force = [](bool z, int M, int N, int mma) {
      NativeConfig nc;
      nc.mma = mma;
      nc.stages = 3;
      nc.real = z && mma == 4 ? 1 : 0;
      force_tsmttsm_config(z, M, N, nc);
    };
    for (auto [M, N, K, mma] : {std::tuple{64, 64, 200003, 4}, std::tuple{49, 57, 200003, 4},
                                std::tuple{56, 64, 100003, 4}, std::tuple{50, 50, 100001, 4},
                                std::tuple{29, 29, 200003, 2}, std::tuple{30, 26, 100003, 2},
                                std::tuple{18, 31, 100001, 2}}) {
      force(false, M, N, mma);
      SCOPED_TRACE("mma " + std::to_string(mma) + " stages 3");
      for (Lay lay : {Lay::right, Lay::sectors, Lay::block}) {
        Case c{M, N, lay == Lay::right ? K : K / 4, false, lay};
        check_tsmttsm<double, TypeParam, Public>(c, seed + M + N + int(lay));
        c.zero_beta = true;
        check_tsmttsm<double, TypeParam, Public>(c, seed + M + N + int(lay) + 7);
      }
    }
    for (auto [M, N, K, mma] : {std::tuple{25, 25, 200003, 4}, std::tuple{28, 31, 100003, 4},
                                std::tuple{32, 32, 100001, 4}, std::tuple{64, 64, 100003, 2},
                                std::tuple{56, 60, 100001, 2}, std::tuple{12, 20, 100003, 2},
                                std::tuple{33, 47, 100001, 2}}) {
      force(true, M, N, mma);
      for (bool conj : {false, true}) {
        Case c{M, N, K, conj};
        check_tsmttsm<zc, TypeParam, Public>(c, seed + M + N + conj);
        c.zero_beta = true;
        c.lay = Lay::block;
        c.K = K / 4;
        check_tsmttsm<zc, TypeParam, Public>(c, seed + M + N + conj + 2);
      }
    }
    set_active_table(Table{});
  }
}

// Native TSMM, double, on shapes {M, N, K}: packed rows, column blocks with
// odd and with even row strides (K / 4 rows), beta random and beta = 0 with
// NaN in B.
template <class Exec>
void check_native_tsmm_many_rows(std::initializer_list<std::tuple<int, int, int>> shapes, std::uint64_t seed) {
  for (auto [M, N, K] : shapes)
    for (Lay lay : {Lay::right, Lay::block, Lay::stride}) {
      Case c{M, N, lay == Lay::right ? K : K / 4, false, lay};
      check_tsmm<double, Exec, Public>(c, seed + M + N + int(lay));
      c.zero_beta = true;
      check_tsmm<double, Exec, Public>(c, seed + M + N + int(lay) + 7);
    }
}

// Native TSMM at odd N from 11 and at N = 2 mod 4 from 14 writes B through
// each warp's shared buffer: many row blocks a warp, a last block of fewer
// than 16 rows, packed rows (16-byte pieces), column blocks with odd and even
// row strides, beta = 0 with NaN in the output; every staged kernel size
// (units x tiles 2..8), with A in registers and staged (18 x 22, 50 x 14).
TYPED_TEST(Tsm, NativeTsmmStagedBManyRows) {
  if constexpr (tessera::is_device_space_v<TypeParam>)
    check_native_tsmm_many_rows<TypeParam>({{13, 13, 400009}, {31, 31, 200003}, {20, 25, 200003}, {9, 63, 100003},
                                            {64, 11, 200003}, {33, 47, 100003}, {14, 14, 300007}, {18, 22, 200003},
                                            {50, 14, 100003}, {8, 54, 100003}},
                                           tessera::test::fresh_seed());
}

// Native TSMTTSM, double, on its compile-time kernel ("tile 1" at tsmttsm_small_shape, forced through the
// table at every compiled shape, padded row pairs at odd sides, unpadded rows at even): no whole chunk (16, 32 or
// 64 rows; K = 3), a few (1031: rows left over for the first warp), many a warp around the stage ring (200003),
// each with beta = 0 and NaN in C; column blocks and strided rows (the tensor-core warps instead).
TYPED_TEST(Tsm, NativeTsmttsmSmallShapes) {
  if constexpr (tessera::is_device_space_v<TypeParam>) {
    using namespace tessera::tsm;
    const auto seed = tessera::test::fresh_seed();
    for (int M = 1; M <= 64; ++M) {
      if (!tsmttsm_small_shape(M, M)) continue;
      NativeConfig nc;
      nc.tile = 1;
      set_active_table(Table{"", {TableEntry{true, false, M, M, nc}}});
      for (int K : {3, 1031, 200003})
        for (Lay lay : {Lay::right, Lay::block, Lay::stride}) {
          if (lay != Lay::right && K != 1031) continue;
          Case c{M, M, K, false, lay};
          check_tsmttsm<double, TypeParam, Public>(c, seed + 7 * M + K + int(lay));
          c.zero_beta = true;
          check_tsmttsm<double, TypeParam, Public>(c, seed + 7 * M + K + int(lay) + 1);
        }
    }
    set_active_table(Table{});
  }
}

// Native TSMM at M not a multiple of 8 (odd from 11, 2 mod 4 from 18, 4 mod 8 from 28) takes A
// through cp.async stages in each warp's shared memory: odd and even M, units
// of A with and without the swapped 16-byte pairs (even and odd ceil(M / 8)),
// blocks of 8 and of 12 warps (M above 32), with and without B staged (odd and
// even N), 16- and 8-byte copies (packed and column-block rows, aligned or
// not; rows of more than 32 8-byte pieces a lane a column: 41, 45, 57, and
// 62 with odd row strides), many row blocks a warp and a last one of fewer
// than 16 rows.
TYPED_TEST(Tsm, NativeTsmmStagedA) {
  if constexpr (tessera::is_device_space_v<TypeParam>)
    check_native_tsmm_many_rows<TypeParam>({{11, 11, 400009}, {17, 64, 200003}, {26, 30, 200003}, {39, 2, 300007},
                                            {45, 45, 100003}, {62, 62, 100003}, {57, 9, 200003}, {41, 63, 100003}},
                                           tessera::test::fresh_seed());
}

// Complex TSMM with A staged (mma 2, stages 3 or 4), forced through the
// table: stride S = 4 mod 8 and, swapped in fours, 0 mod 8 (M = 24, 32); one
// and several units, 2 and 4 tiles, tile shares (N = 17 with 2 tiles, 48 with
// 4), many items a warp around the stage ring and a last row block of fewer
// than 16 rows; packed rows, column blocks, beta = 0 with NaN in B.
TYPED_TEST(Tsm, NativeTsmmZStagedA) {
  if constexpr (tessera::is_device_space_v<TypeParam>) {
    using namespace tessera::tsm;
    const auto seed = tessera::test::fresh_seed();
    for (int stages : {3, 4})
      for (auto [M, N, K, tiles] : {std::tuple{1, 64, 100003, 4}, std::tuple{3, 17, 200003, 2},
                                    std::tuple{4, 4, 400009, 2}, std::tuple{12, 12, 200003, 2},
                                    std::tuple{24, 48, 100003, 4}, std::tuple{32, 9, 100003, 2},
                                    std::tuple{13, 40, 100003, 4}}) {
        NativeConfig nc;
        nc.mma = 2;
        nc.stages = stages;
        nc.tiles = tiles;
        nc.products = 4;
        if (!config_usable(false, true, M, N, nc)) continue;  // (32 with 4 stages)
        set_active_table(Table{"", {TableEntry{false, true, M, N, nc}}});
        for (Lay lay : {Lay::right, Lay::block}) {
          Case c{M, N, lay == Lay::right ? K : K / 4, false, lay};
          check_tsmm<zc, TypeParam, Public>(c, seed + M + N + int(lay) + stages);
          c.zero_beta = true;
          check_tsmm<zc, TypeParam, Public>(c, seed + M + N + int(lay) + stages + 7);
        }
      }
    set_active_table(Table{});
  }
}

// The tensor-core TSMM kernels' persistent launches with their warps' work
// in row order from a counter (tsm_kernels.cuh, WarpItems): chunks of one
// item and of three (not a power of two, so chunks end off the static
// stride), the default choice, and the static order; many chunks a warp, a
// last chunk cut short by K, double (registers; A staged in blocks of 8 and
// of 12 warps, B staged at 21) and complex (registers, A staged, items of half a row block);
// beta random and beta = 0 with NaN in B.
TYPED_TEST(Tsm, NativeTsmmWorkInRowOrder) {
  if constexpr (tessera::is_device_space_v<TypeParam>) {
    const auto seed = tessera::test::fresh_seed();
    const char* old = std::getenv("TESSERA_TSM_TICKETS");
    const std::string saved = old ? old : "";
    for (const char* per : {"1", "3", "", "0"}) {
      if (*per)
        setenv("TESSERA_TSM_TICKETS", per, 1);
      else
        unsetenv("TESSERA_TSM_TICKETS");
      SCOPED_TRACE(std::string("TESSERA_TSM_TICKETS=") + per);
      for (auto [M, N, K] : {std::tuple{16, 16, 300007}, std::tuple{21, 21, 200003}, std::tuple{33, 33, 100003},
                              std::tuple{64, 64, 60001}}) {
        Case c{M, N, K};
        check_tsmm<double, TypeParam, Public>(c, seed + M + 100 * (*per));
        c.zero_beta = true;
        check_tsmm<double, TypeParam, Public>(c, seed + M + 100 * (*per) + 1);
      }
      for (auto [M, N, K] : {std::tuple{12, 12, 100003}, std::tuple{24, 48, 50021}, std::tuple{64, 64, 30011}}) {
        Case c{M, N, K};
        check_tsmm<zc, TypeParam, Public>(c, seed + M + 100 * (*per) + 2);
        c.zero_beta = true;
        check_tsmm<zc, TypeParam, Public>(c, seed + M + 100 * (*per) + 3);
      }
    }
    if (old)
      setenv("TESSERA_TSM_TICKETS", saved.c_str(), 1);
    else
      unsetenv("TESSERA_TSM_TICKETS");
  }
}

TYPED_TEST(Tsm, KSmallerThanM) {
  const auto seed = tessera::test::fresh_seed();
  for (int K : {2, 5, 17, 40}) {
    check_both<double, TypeParam>(Case{48, 40, K}, seed + K);
    check_both<zc, TypeParam>(Case{40, 64, K, true}, seed + K + 1);
  }
}

TYPED_TEST(Tsm, Layouts) {
  const auto seed = tessera::test::fresh_seed();
  for (Lay lay : {Lay::left, Lay::stride})
    for (auto [M, N, K] : {std::tuple{1, 1, 5}, std::tuple{5, 7, 1031}, std::tuple{64, 64, 300}, std::tuple{13, 64, 77}}) {
      check_both<double, TypeParam>(Case{M, N, K, false, lay}, seed + M + N + K);
      check_both<zc, TypeParam>(Case{M, N, K, true, lay}, seed + M + N + K + 1);
    }
}

TYPED_TEST(Tsm, BetaZeroNeverReadsTheOutput) {
  const auto seed = tessera::test::fresh_seed();
  for (auto [M, N, K] : {std::tuple{1, 1, 0}, std::tuple{4, 4, 1}, std::tuple{3, 17, 1031}, std::tuple{33, 17, 1031},
                             std::tuple{64, 64, 257}}) {
    Case c{M, N, K};
    c.zero_beta = true;
    check_both<double, TypeParam>(c, seed + M);
    c.conj = true;
    check_both<zc, TypeParam>(c, seed + M + 1);
  }
}

TYPED_TEST(Tsm, AlphaZeroReadsNoTallOperand) {
  const auto seed = tessera::test::fresh_seed();
  for (auto [M, N, K] : {std::tuple{3, 5, 100}, std::tuple{64, 64, 1031}}) {
    Case c{M, N, K};
    c.zero_alpha = true;
    check_both<double, TypeParam>(c, seed + M);
    check_both<zc, TypeParam>(c, seed + M + 1);
    c.zero_beta = true;  // alpha = beta = 0: zeros, nothing read
    check_both<double, TypeParam>(c, seed + M + 2);
  }
}

// Every compiled native configuration, forced through the table, on shapes
// with and without divisors of its tile (GPU only: elsewhere there is none).
// 12 x 20: the real products' warp tiles with neither side thin.
TYPED_TEST(Tsm, EveryNativeConfiguration) {
  if constexpr (!tessera::is_device_space_v<TypeParam>) {
    GTEST_SKIP() << "native configurations run on Cuda only";
  } else {
    using namespace tessera::tsm;
    const auto seed = tessera::test::fresh_seed();
    for (bool tt : {true, false})
      for (bool z : {false, true})
        for (const auto& c : compiled_configs(tt, z))
          for (auto [M, N] : {std::pair{3, 5}, std::pair{3, 17}, std::pair{12, 20}, std::pair{17, 41},
                              std::pair{33, 64}, std::pair{64, 64}, std::pair{64, 9}}) {
            TableEntry e;
            e.tsmttsm = tt;
            e.complex = z;
            e.m = M;
            e.n = N;
            e.config = c;
            if (!config_usable(tt, z, M, N, e.config)) continue;
            set_active_table(Table{"", {e}});
            SCOPED_TRACE(config_name(tt, c) + " " + std::to_string(M) + "x" + std::to_string(N));
            const int seed_c =
                c.tile + c.outputs + 16 * c.mma + 64 * c.stages + 128 * c.tiles + 512 * c.products + 2048 * c.real;
            Case k{M, N, 1031};
            k.conj = z;
            if (tt) {
              if (z)
                check_tsmttsm<zc, TypeParam, Public>(k, seed + seed_c + M);
              else
                check_tsmttsm<double, TypeParam, Public>(k, seed + seed_c + M);
            } else {
              if (z)
                check_tsmm<zc, TypeParam, Public>(k, seed + seed_c + M);
              else
                check_tsmm<double, TypeParam, Public>(k, seed + seed_c + M);
            }
            // The real product of 2M x 2N: "T" too, and a real beta (the kernel's own beta; the
            // complex one above scales B first).
            if (c.real) {
              k.conj = false;
              k.real_beta = true;
              if (tt)
                check_tsmttsm<zc, TypeParam, Public>(k, seed + seed_c + M + 1);
              else
                check_tsmm<zc, TypeParam, Public>(k, seed + seed_c + M + 1);
            }
          }
    set_active_table(Table{});
  }
}

// Each error path: one line, std::invalid_argument, nothing launched.
template <class Exec, class F>
void expect_error(F&& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "no exception; expected one mentioning \"" << needle << "\"";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(needle), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

TYPED_TEST(Tsm, Errors) {
  using Exec = TypeParam;
  using Mem = typename Exec::memory_space;
  using V = Kokkos::View<double**, Kokkos::LayoutRight, Mem>;
  using VL = Kokkos::View<double**, Kokkos::LayoutLeft, Mem>;
  Exec exec;
  V A("A", 10, 4), B("B", 10, 5), B9("B9", 9, 5), C("C", 4, 5), Cbad("Cbad", 5, 4);
  V A65("A65", 10, 65), C65("C65", 65, 5), A0("A0", 10, 0), C0("C0", 0, 5);
  auto t = [&](const auto& a, const auto& b, const auto& c) { tessera::tsm::tsmttsm(exec, "T", 1.0, a, b, 0.0, c); };
  auto m = [&](const auto& a, const auto& c, const auto& b) { tessera::tsm::tsmm(exec, 1.0, a, c, 0.0, b); };
  expect_error<Exec>([&] { t(A, B9, C); }, "row counts");
  expect_error<Exec>([&] { t(A, B, Cbad); }, "expected 4x5");
  expect_error<Exec>([&] { t(A65, B, C65); }, "M = 65");
  expect_error<Exec>([&] { t(A0, B, C0); }, "M = 0");
  expect_error<Exec>([&] { tessera::tsm::tsmttsm(exec, "N", 1.0, A, B, 0.0, C); }, "trans");
  expect_error<Exec>([&] { m(A, C, B9); }, "row counts");
  expect_error<Exec>([&] { m(A, Cbad, B); }, "expected 4x5");
  expect_error<Exec>([&] { m(A65, C65, B); }, "M = 65");
  // A LayoutStride tall operand whose columns are not adjacent: a column
  // block of a column-major View.
  VL wide("wide", 10, 8);
  Kokkos::View<double**, Kokkos::LayoutStride, Mem> As(Kokkos::subview(wide, Kokkos::ALL, std::make_pair(0, 4)));
  expect_error<Exec>([&] { t(As, B, C); }, "unit column stride");
  expect_error<Exec>([&] { m(As, C, B); }, "unit column stride");
  // Outputs sharing memory with an input.
  V big("big", 20, 5);
  Kokkos::View<double**, Kokkos::LayoutStride, Mem> top(Kokkos::subview(big, std::make_pair(0, 10), Kokkos::ALL));
  Kokkos::View<double**, Kokkos::LayoutStride, Mem> corner(Kokkos::subview(big, std::make_pair(8, 13), Kokkos::ALL));
  expect_error<Exec>([&] { t(top, top, corner); }, "shares memory");
  expect_error<Exec>([&] { m(top, corner, top); }, "shares memory");
  // N = 0 for tsmm.
  V B0("B0", 10, 0), C40("C40", 4, 0);
  expect_error<Exec>([&] { m(A, C40, B0); }, "N = 0");
}

}  // namespace
