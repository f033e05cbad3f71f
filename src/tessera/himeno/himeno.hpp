#pragma once
// Himeno benchmark (R. Himeno, RIKEN; GPU scheme of Phillips & Fatica): point
// Jacobi sweeps of a 19-point stencil, the pressure Poisson solver of an
// incompressible Navier-Stokes code in generalised coordinates.
//
//   tessera::himeno::HimenoState<float, Mem> s(tessera::himeno::named_grid("S"));
//   tessera::himeno::initialize(exec, s);               // the benchmark's initmt()
//   double gosa = tessera::himeno::sweep(exec, s);      // one sweep, gosa in double
//
// Conventions (docs/himeno.md): the grid has imax x jmax x kmax points,
// boundary included (the C code's imax = MIMAX-1 ...); every array is a
// LayoutRight View indexed (i, j, k) with k fastest, as p[i][j][k] in
// himenoBMTxps.c (k contiguous: coalesced on GPUs, unit stride on CPUs). A
// sweep updates the interior 1..imax-2 x 1..jmax-2 x 1..kmax-2 into wrk2 and
// then swaps the p and wrk2 Views (the C code copies wrk2 into p); boundary
// planes are never written, so wrk2 must carry p's boundary (initialize() sets
// wrk2 = p). Storage is float or double; gosa is accumulated in the Accum type
// (double by default; float reproduces the original single-precision sum).
#include "tessera/himeno/himeno_spec.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace tessera::himeno {

// Grid points per dimension, boundary included.
struct Grid {
  int imax = 0, jmax = 0, kmax = 0;
  std::int64_t points() const { return std::int64_t(imax) * jmax * kmax; }
  std::int64_t interior() const { return std::int64_t(imax - 2) * (jmax - 2) * (kmax - 2); }
  std::string str() const {
    return std::to_string(imax) + "x" + std::to_string(jmax) + "x" + std::to_string(kmax);
  }
};

// Work per interior point and sweep, by the benchmark's conventions: 34 flops
// (himenoBMTxps.c's fflop) and 14 words moved (13 arrays read, wrk2 written;
// the paper's compute-intensity count, p read once).
inline constexpr int kFlopsPerPoint = 34;
inline constexpr int kWordsPerPoint = 14;
inline constexpr int kMaxExtent = 1 << 16;

// A valid grid: every extent at least 3 (one interior point) and at most 2^16.
inline Grid make_grid(long long imax, long long jmax, long long kmax) {
  for (long long n : {imax, jmax, kmax})
    if (n < 3 || n > kMaxExtent)
      throw std::invalid_argument("tessera::himeno: grid " + std::to_string(imax) + "x" + std::to_string(jmax) +
                                  "x" + std::to_string(kmax) + " is invalid: every extent must be at least 3 " +
                                  "(one interior point) and at most " + std::to_string(kMaxExtent));
  return Grid{int(imax), int(jmax), int(kmax)};
}

// The benchmark's sizes (Table II of the paper; the C code allocates one more
// point per dimension, MIMAX = imax + 1, which the sweep never touches).
inline Grid named_grid(const std::string& name) {
  if (name == "XS") return make_grid(32, 32, 64);
  if (name == "S") return make_grid(64, 64, 128);
  if (name == "M") return make_grid(128, 128, 256);
  if (name == "L") return make_grid(256, 256, 512);
  if (name == "XL") return make_grid(512, 512, 1024);
  throw std::invalid_argument("tessera::himeno: unknown size '" + name + "' (XS, S, M, L, XL)");
}

// "XS".."XL" or "IxJxK" (grid points, boundary included).
inline Grid parse_grid(const std::string& s) {
  if (s.find('x') == std::string::npos) return named_grid(s);
  long long n[3];
  std::size_t pos = 0;
  for (int d = 0; d < 3; ++d) {
    const std::size_t end = d < 2 ? s.find('x', pos) : s.size();
    const std::string part = end == std::string::npos ? "" : s.substr(pos, end - pos);
    if (part.empty() || part.size() > 9 || part.find_first_not_of("0123456789") != std::string::npos)
      throw std::invalid_argument("tessera::himeno: size '" + s + "' is not XS, S, M, L, XL or IxJxK");
    n[d] = std::stoll(part);
    pos = end + 1;
  }
  return make_grid(n[0], n[1], n[2]);
}

// One rank's part of a 1-D slab decomposition along i, the slowest index (the
// paper's z: a halo is one contiguous (j, k) plane). The global interior
// planes 1 .. imax-2 are split as evenly as possible (the first imax-2 mod
// ranks get one more); the rank owns global planes [first, end) and holds them
// with one plane either side (a halo from its neighbour, or the global
// boundary) as a local grid of end-first+2 planes whose interior is the owned
// planes: local plane l is global plane l + i_offset.
struct Slab {
  Grid global, local;
  int ranks = 1, rank = 0;
  int first = 1, end = 1;  // owned global planes [first, end)
  int i_offset = 0;        // = first - 1
  bool has_lower() const { return rank > 0; }
  bool has_upper() const { return rank + 1 < ranks; }
  int planes() const { return end - first; }
};

// Throws std::invalid_argument when a rank would own no plane.
inline Slab slab_decomposition(const Grid& global, int ranks, int rank) {
  const int n = global.imax - 2;
  if (ranks < 1 || rank < 0 || rank >= ranks)
    throw std::invalid_argument("tessera::himeno: rank " + std::to_string(rank) + " of " + std::to_string(ranks) +
                                " is not a valid rank");
  if (ranks > n)
    throw std::invalid_argument("tessera::himeno: grid " + global.str() + " has " + std::to_string(n) +
                                " interior planes along i, too few for " + std::to_string(ranks) +
                                " ranks (each needs at least one): use fewer ranks or a larger grid");
  Slab s;
  s.global = global;
  s.ranks = ranks;
  s.rank = rank;
  const int base = n / ranks, extra = n % ranks;
  s.first = 1 + rank * base + std::min(rank, extra);
  s.end = s.first + base + (rank < extra ? 1 : 0);
  s.i_offset = s.first - 1;
  s.local = Grid{s.end - s.first + 2, global.jmax, global.kmax};
  return s;
}

// The benchmark's 14 arrays. a(n, i, j, k) is a[n][i][j][k] of the C code.
template <class Scalar, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
struct HimenoState {
  static_assert(std::is_same_v<Scalar, float> || std::is_same_v<Scalar, double>,
                "tessera::himeno: storage must be float or double");
  using scalar_type = Scalar;
  using memory_space = MemorySpace;
  using View3 = Kokkos::View<Scalar***, Kokkos::LayoutRight, MemorySpace>;
  using View4 = Kokkos::View<Scalar****, Kokkos::LayoutRight, MemorySpace>;

  Grid grid;
  Scalar omega = Scalar(0.8);  // over-relaxation factor (a float 0.8 in the C code)
  View4 a, b, c;               // a0..a3, b0..b2, c0..c2
  View3 p, bnd, wrk1, wrk2;    // pressure, fluid flag (0/1), source term, new pressure

  HimenoState() = default;
  // Allocates without initialising: fill with initialize() or initialize_random().
  // In HostSpace the seven arrays share one allocation, each starting
  // kStagger bytes (17 cache lines) further modulo 16 KiB than the previous:
  // separately allocated, they all start at one offset modulo 4 KiB, and at
  // power-of-two grids the 14 streams of a CPU row sweep then fall into the
  // same L1 sets (perf/experiments/himeno_cpu_offsets_probe.cpp). Other memory spaces
  // keep one allocation per array.
  explicit HimenoState(const Grid& g) : grid(make_grid(g.imax, g.jmax, g.kmax)) {
    if constexpr (std::is_same_v<MemorySpace, Kokkos::HostSpace>) {
      const std::size_t n = std::size_t(g.imax) * g.jmax * g.kmax;
      constexpr std::size_t kStagger = 1088, kPeriod = 16384;
      const std::size_t counts[7] = {4 * n, 3 * n, 3 * n, n, n, n, n};  // a, b, c, p, bnd, wrk1, wrk2
      std::size_t offset[7], end = 0;
      for (int m = 0; m < 7; ++m) {
        const std::size_t want = m * kStagger % kPeriod;  // this array's start modulo kPeriod
        offset[m] = end + (want + kPeriod - end % kPeriod) % kPeriod;
        end = offset[m] + counts[m] * sizeof(Scalar);
      }
      pool_ = Kokkos::View<char*, MemorySpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "himeno::state"),
                                               end + kPeriod);
      // The pool's own start is page-aligned plus a fixed header: offsets are relative to it.
      char* const base = pool_.data();
      auto at = [&](int m) { return reinterpret_cast<Scalar*>(base + offset[m]); };
      a = View4(at(0), 4, g.imax, g.jmax, g.kmax), b = View4(at(1), 3, g.imax, g.jmax, g.kmax);
      c = View4(at(2), 3, g.imax, g.jmax, g.kmax);
      p = View3(at(3), g.imax, g.jmax, g.kmax), bnd = View3(at(4), g.imax, g.jmax, g.kmax);
      wrk1 = View3(at(5), g.imax, g.jmax, g.kmax), wrk2 = View3(at(6), g.imax, g.jmax, g.kmax);
    } else {
      auto v3 = [&](const char* name) {
        return View3(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("himeno::") + name), g.imax,
                     g.jmax, g.kmax);
      };
      auto v4 = [&](const char* name, int count) {
        return View4(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("himeno::") + name), count,
                     g.imax, g.jmax, g.kmax);
      };
      a = v4("a", 4), b = v4("b", 3), c = v4("c", 3);
      p = v3("p"), bnd = v3("bnd"), wrk1 = v3("wrk1"), wrk2 = v3("wrk2");
    }
  }
  static double bytes(const Grid& g) { return double(kWordsPerPoint) * sizeof(Scalar) * double(g.points()); }

 private:
  Kokkos::View<char*, MemorySpace> pool_;  // HostSpace: the arrays' memory (the Views above do not own it)
};

namespace detail {
template <class ExecSpace, class State>
void require_usable(const char* fn, const State& s) {
  static_assert(can_access_v<ExecSpace, typename State::View3>,
                "tessera::himeno: the execution space cannot access the state's memory space");
  if (s.grid.imax < 3 || s.p.data() == nullptr || s.wrk2.data() == nullptr)
    throw std::invalid_argument(std::string("tessera::himeno::") + fn +
                                ": the state is not allocated (construct HimenoState from a Grid)");
}
template <class State>
void require_slab(const char* fn, const State& s, const Slab& slab) {
  if (s.grid.imax != slab.local.imax || s.grid.jmax != slab.local.jmax || s.grid.kmax != slab.local.kmax)
    throw std::invalid_argument(std::string("tessera::himeno::") + fn + ": the state is " + s.grid.str() +
                                ", the slab's local grid " + slab.local.str());
}
}  // namespace detail

// The benchmark's initial state (initmt of himenoBMTxps.c): a0 = a1 = a2 = 1,
// a3 = 1/6, b = 0, c = 1, wrk1 = 0, bnd = 1 and p(i, j, k) = i^2 / (imax-1)^2,
// computed in the storage type; wrk2 = p. omega = 0.8.
template <class ExecSpace, class Scalar, class Mem>
void initialize(const ExecSpace& exec, HimenoState<Scalar, Mem>& s) {
  detail::require_usable<ExecSpace>("initialize", s);
  s.omega = Scalar(0.8);
  impl::fill_kokkos(exec, s, impl::BenchmarkInit{s.grid.imax});
}

// The same for one slab of a decomposed grid (state allocated on slab.local):
// every point gets the value it has in the undecomposed grid.
template <class ExecSpace, class Scalar, class Mem>
void initialize(const ExecSpace& exec, HimenoState<Scalar, Mem>& s, const Slab& slab) {
  detail::require_usable<ExecSpace>("initialize", s);
  detail::require_slab("initialize", s, slab);
  s.omega = Scalar(0.8);
  impl::fill_kokkos(exec, s, impl::BenchmarkInit{slab.global.imax}, slab.i_offset);
}

// Random fields from a counter-based generator (same values on every backend):
// a0..a2, c0..c2 in [0.5, 1.5), b in [-0.25, 0.25), a3 = 1 / (sum of |a|, |c|,
// 4 |b|) (so a sweep never amplifies differences, like the benchmark's 1/6),
// p in [0, 1), wrk1 in [-0.1, 0.1), bnd 0 at about one point in eight; wrk2 = p.
template <class ExecSpace, class Scalar, class Mem>
void initialize_random(const ExecSpace& exec, HimenoState<Scalar, Mem>& s, std::uint64_t seed) {
  detail::require_usable<ExecSpace>("initialize_random", s);
  s.omega = Scalar(0.8);
  impl::fill_kokkos(exec, s, impl::RandomInit{seed});
}
template <class ExecSpace, class Scalar, class Mem>
void initialize_random(const ExecSpace& exec, HimenoState<Scalar, Mem>& s, std::uint64_t seed, const Slab& slab) {
  detail::require_usable<ExecSpace>("initialize_random", s);
  detail::require_slab("initialize_random", s, slab);
  s.omega = Scalar(0.8);
  impl::fill_kokkos(exec, s, impl::RandomInit{seed}, slab.i_offset);
}

// One Jacobi sweep queued on exec; gosa (sum of ss^2 over the interior, in
// GosaView's value type) lands in the rank-0 View `gosa` (memory exec can
// access) without blocking when that View is device memory. Swaps p and wrk2.
template <class ExecSpace, class Scalar, class Mem, class GosaView,
          class = std::enable_if_t<Kokkos::is_view<GosaView>::value>>
void sweep(const ExecSpace& exec, HimenoState<Scalar, Mem>& s, const GosaView& gosa, const SweepOptions& opt = {}) {
  static_assert(GosaView::rank == 0, "tessera::himeno::sweep: gosa must be a rank-0 View");
  using Accum = typename GosaView::non_const_value_type;
  static_assert(std::is_floating_point_v<Accum>, "tessera::himeno::sweep: gosa must be float or double");
  static_assert(can_access_v<ExecSpace, GosaView>, "tessera::himeno::sweep: exec cannot access gosa's memory");
  detail::require_usable<ExecSpace>("sweep", s);
  impl::SweepSpec<ExecSpace, HimenoState<Scalar, Mem>>::template apply<Accum>(exec, s, opt, gosa);
  std::swap(s.p, s.wrk2);
}

// One Jacobi sweep; blocks until gosa is known and returns it.
template <class Accum = double, class ExecSpace, class Scalar, class Mem>
double sweep(const ExecSpace& exec, HimenoState<Scalar, Mem>& s, const SweepOptions& opt = {}) {
  static_assert(std::is_floating_point_v<Accum>, "tessera::himeno::sweep: Accum must be float or double");
  detail::require_usable<ExecSpace>("sweep", s);
  Accum gosa = 0;
  impl::SweepSpec<ExecSpace, HimenoState<Scalar, Mem>>::template apply<Accum>(exec, s, opt, gosa);
  std::swap(s.p, s.wrk2);
  return double(gosa);
}

// Two Jacobi sweeps in one pass over memory (temporal blocking: the
// coefficients are read once for both), queued on exec. The same wrk2 as
// two sweep() calls: bit-identical on CPUs (the fused-rows kernel runs the
// rows kernel's arithmetic), to rounding with the native CUDA kernel. gosa2 (a
// contiguous rank-1 View, extent >= 2, memory exec can access) receives the
// gosa of sweep 1 and sweep 2. Then p holds the second sweep's field
// (one swap). On Kokkos::Cuda the native kernel runs for the whole interior;
// a plane range (opt.i_begin/i_end: sweep 2 there needs sweep 1 one plane
// beyond it, so p must be valid two planes around it) runs the portable kernel.
template <class ExecSpace, class Scalar, class Mem, class GosaView>
void sweep2(const ExecSpace& exec, HimenoState<Scalar, Mem>& s, const GosaView& gosa2, const SweepOptions& opt = {}) {
  static_assert(Kokkos::is_view<GosaView>::value && GosaView::rank == 1,
                "tessera::himeno::sweep2: gosa2 must be a rank-1 View");
  using Accum = typename GosaView::non_const_value_type;
  static_assert(std::is_floating_point_v<Accum>, "tessera::himeno::sweep2: gosa2 must be float or double");
  static_assert(can_access_v<ExecSpace, GosaView>, "tessera::himeno::sweep2: exec cannot access gosa2's memory");
  detail::require_usable<ExecSpace>("sweep2", s);
  impl::Sweep2Spec<ExecSpace, HimenoState<Scalar, Mem>>::template apply<Accum>(exec, s, opt, gosa2);
  std::swap(s.p, s.wrk2);
}

// The C code's jacobi(nn): iters sweeps, returns the last gosa; history (when
// given) receives every sweep's gosa.
template <class Accum = double, class ExecSpace, class Scalar, class Mem>
double jacobi(const ExecSpace& exec, HimenoState<Scalar, Mem>& s, int iters, const SweepOptions& opt = {},
              std::vector<double>* history = nullptr) {
  if (iters < 1)
    throw std::invalid_argument("tessera::himeno::jacobi: iters must be at least 1, got " + std::to_string(iters));
  double gosa = 0;
  for (int n = 0; n < iters; ++n) {
    gosa = sweep<Accum>(exec, s, opt);
    if (history) history->push_back(gosa);
  }
  return gosa;
}

// Pure-double gosa of the first sweep from the benchmark's initial state:
// every interior point has ss = 1 / (3 (imax-1)^2) (docs/himeno.md), so
// gosa = (imax-2)(jmax-2)(kmax-2) / (9 (imax-1)^4).
inline double first_gosa_closed_form(const Grid& g) {
  const double h = double(g.imax - 1) * double(g.imax - 1);
  return double(g.interior()) / (9.0 * h * h);
}

}  // namespace tessera::himeno
