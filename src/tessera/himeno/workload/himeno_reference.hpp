#pragma once
// The Himeno reference the driver validates against: the C code's arrays
// and sweep (himenoBMTxps.c's jacobi()) in plain loops, and what a variant's
// run is compared with (gosa of every sweep, the final p, max |p|).
#include "tessera/himeno/himeno.hpp"

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace tessera::himeno::workload {


// The reference's arrays: flat, (i, j, k) with k fastest, as in the C code;
// global planes [g0, g1) of the grid (all of them by default).
template <class S>
struct HostArrays {
  Grid g;  // the planes held: (g1 - g0) x jmax x kmax
  S omega = S(0.8);
  std::vector<S> a[4], b[3], c[3], p, bnd, wrk1, wrk2;

  template <class Init>
  HostArrays(const Grid& grid, const Init& init) : HostArrays(grid, 0, grid.imax, init) {}
  template <class Init>
  HostArrays(const Grid& grid, int g0, int g1, const Init& init) : g{g1 - g0, grid.jmax, grid.kmax} {
    const std::size_t n = std::size_t(g.points());
    for (auto* v : {&a[0], &a[1], &a[2], &a[3], &b[0], &b[1], &b[2], &c[0], &c[1], &c[2], &p, &bnd, &wrk1, &wrk2})
      v->resize(n);
    const std::int64_t plane = std::int64_t(g.jmax) * g.kmax;
    Kokkos::parallel_for(
        "tessera::himeno::reference_inputs", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, n),
        [&](std::size_t x) {
          impl::PointInit<S> v;
          init.template at<S>(int(std::int64_t(x) / plane) + g0, std::int64_t(x) + g0 * plane, v);
          for (int m = 0; m < 4; ++m) a[m][x] = v.a[m];
          for (int m = 0; m < 3; ++m) b[m][x] = v.b[m], c[m][x] = v.c[m];
          p[x] = wrk2[x] = v.p;
          bnd[x] = v.bnd;
          wrk1[x] = v.wrk1;
        });
    Kokkos::fence();
  }
};

// One sweep of jacobi() in himenoBMTxps.c, gosa summed in A over planes
// [gosa_lo, gosa_hi) (default: all); then p and wrk2 swap (the C code copies
// wrk2 into p). One thread and one accumulator, as the C code (the timed
// serial-reference); threaded: planes on the host threads, a sum per plane,
// added in plane order (the validation reference: XL in seconds, not minutes).
template <class A, class S>
A reference_sweep(HostArrays<S>& h, int gosa_lo = 0, int gosa_hi = 1 << 30, bool threaded = false) {
  const std::int64_t sj = h.g.kmax, si = std::int64_t(h.g.jmax) * h.g.kmax;
  const S *a0 = h.a[0].data(), *a1 = h.a[1].data(), *a2 = h.a[2].data(), *a3 = h.a[3].data();
  const S *b0 = h.b[0].data(), *b1 = h.b[1].data(), *b2 = h.b[2].data();
  const S *c0 = h.c[0].data(), *c1 = h.c[1].data(), *c2 = h.c[2].data();
  const S *bnd = h.bnd.data(), *wrk1 = h.wrk1.data(), *p0 = h.p.data();
  S* wrk2 = h.wrk2.data();
  const S omega = h.omega;
  const int jmax = h.g.jmax, kmax = h.g.kmax;
  auto plane = [=](int i, A& gosa) {
    for (int j = 1; j < jmax - 1; ++j)
      for (int k = 1; k < kmax - 1; ++k) {
        const std::int64_t x = i * si + j * sj + k;
        const S* p = p0 + x;
        const S s0 = a0[x] * p[si] + a1[x] * p[sj] + a2[x] * p[1] +
                     b0[x] * (p[si + sj] - p[si - sj] - p[-si + sj] + p[-si - sj]) +
                     b1[x] * (p[sj + 1] - p[-sj + 1] - p[sj - 1] + p[-sj - 1]) +
                     b2[x] * (p[si + 1] - p[-si + 1] - p[si - 1] + p[-si - 1]) + c0[x] * p[-si] + c1[x] * p[-sj] +
                     c2[x] * p[-1] + wrk1[x];
        const S ss = (s0 * a3[x] - p[0]) * bnd[x];
        if (i >= gosa_lo && i < gosa_hi) gosa += A(ss) * A(ss);
        wrk2[x] = p[0] + omega * ss;
      }
  };
  A gosa = 0;
  if (threaded) {
    std::vector<A> part(std::size_t(h.g.imax), A(0));
    Kokkos::parallel_for("tessera::himeno::reference_sweep",
                         Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(1, h.g.imax - 1),
                         [&](int i) { plane(i, part[std::size_t(i)]); });
    Kokkos::fence();
    for (const A& g : part) gosa += g;
  } else {
    for (int i = 1; i < h.g.imax - 1; ++i) plane(i, gosa);
  }
  std::swap(h.p, h.wrk2);
  return gosa;
}

// NaN into the interior of v (a free function: nvcc takes no device lambda in
// a private member function).
template <class ExecSpace, class View>
void poison_interior(const ExecSpace& exec, const View& v) {
  using S = typename View::non_const_value_type;
  const S nan = std::numeric_limits<S>::quiet_NaN();
  const int imax = int(v.extent(0)), jmax = int(v.extent(1)), kmax = int(v.extent(2));
  Kokkos::parallel_for(
      "tessera::himeno::poison", impl::range3(exec, 1, kmax - 1, jmax - 1, imax - 1),
      KOKKOS_LAMBDA(int k, int j, int i) { v(i, j, k) = nan; });
}

// What the variants are checked against: double-summed gosa of every sweep,
// the final p, and max |p| (the scale of the rounding bounds).
struct Reference {
  std::vector<double> gosa, p;
  double pmax = 0;
};

template <class S>
double max_abs(const std::vector<S>& v) {
  double m = 0;
  for (const S x : v) m = std::max(m, double(std::abs(x)));
  return m;
}

}  // namespace tessera::himeno::workload
