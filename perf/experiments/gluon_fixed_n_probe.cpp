// Gluon recursion with n fixed at compile time: every loop unrolled, so the
// currents' indices are constants and the currents live in registers where
// they fit (float n = 8: all 28 in 255 registers; double n = 8 spills), against
// the library's thread kernel (n at run time, currents in cached local
// memory). Same events, same sigma. Built with -DTESSERA_BUILD_EXPERIMENTS=ON
// in a Kokkos Cuda build; run: gluon_fixed_n_probe [EVENTS=3e7 as an integer].
// Data and findings: docs/perf/gluon.md ("n at compile time").
#include "gluon_probe_common.hpp"

#include <cstdio>
#include <cstdlib>

using namespace tessera::gluon;
using gluon_probe::Exec;
using gluon_probe::Mem;
using gluon_probe::median_seconds;

template <int NL> KOKKOS_INLINE_FUNCTION constexpr int fidx(int len, int a) { return (len - 1) * (NL + 1) - ((len - 1) * len) / 2 + a; }

template <int NL, class T>
KOKKOS_INLINE_FUNCTION Vec4<T> fvert(const Vec4<T>* J, const Vec4<T>* P, int a, int b) {
  Vec4<T> V = zero4<T>();
#pragma unroll
  for (int i = a; i < b; ++i) {
    const Vec4<T>& A = J[fidx<NL>(i - a + 1, a)];
    const Vec4<T>& B = J[fidx<NL>(b - i, i + 1)];
    const Vec4<T> KA = sub(P[i + 1], P[a]);
    const Vec4<T> KB = sub(P[b + 1], P[i + 1]);
    const T ab = dot(A, B), aKb = T(2) * dot(A, KB), kaB = T(2) * dot(KA, B);
#pragma unroll
    for (int mu = 0; mu < 4; ++mu) V[mu] += aKb * B[mu] - kaB * A[mu] + ab * (KA[mu] - KB[mu]);
  }
#pragma unroll
  for (int i = a; i < b - 1; ++i) {
    const Vec4<T>& A = J[fidx<NL>(i - a + 1, a)];
#pragma unroll
    for (int j = i + 1; j < b; ++j) {
      const Vec4<T>& B = J[fidx<NL>(j - i, i + 1)];
      const Vec4<T>& C = J[fidx<NL>(b - j, j + 1)];
      const T ac = T(2) * dot(A, C), ab = dot(A, B), cb = dot(C, B);
#pragma unroll
      for (int mu = 0; mu < 4; ++mu) V[mu] += ac * B[mu] - ab * C[mu] - cb * A[mu];
    }
  }
  return V;
}

template <int N, class T>
KOKKOS_INLINE_FUNCTION T famp(const int* ord, const Vec4<T>* k, const Vec4<T>* eps) {
  constexpr int NL = N - 1, NJ = NL * (NL + 1) / 2;
  Vec4<T> J[NJ], P[NL + 1];
  P[0] = zero4<T>();
#pragma unroll
  for (int i = 0; i < NL; ++i) { P[i + 1] = add(P[i], k[ord[i + 1]]); J[i] = eps[ord[i + 1]]; }
#pragma unroll
  for (int len = 2; len < NL; ++len) {
#pragma unroll
    for (int a = 0; a + len <= NL; ++a) {
      const int b = a + len - 1;
      J[fidx<NL>(len, a)] = bg_propagate(fvert<NL>(J, P, a, b), P, a, b);
    }
  }
  return dot(eps[ord[0]], fvert<NL>(J, P, 0, NL - 1));
}

template <int N, class T, int BS>
double fixed_kernel(const Exec& exec, const EventConfig<T>& cfg, const PdfGrid<T, Mem>& pdf, std::uint64_t count, std::uint64_t W) {
  Kokkos::View<double*, Mem> part("part", W);
  Kokkos::parallel_for("fixed", Kokkos::RangePolicy<Exec, Kokkos::LaunchBounds<BS, 1>, Kokkos::IndexType<std::int64_t>>(exec, 0, std::int64_t(W)),
      KOKKOS_LAMBDA(std::int64_t i) {
        Neumaier sw;
        for (std::uint64_t e = std::uint64_t(i); e < count; e += W) {
          Vec4<T> k[N], eps[N]; int ord[N]; T pre;
          EventResult<T> r = prepare_event(cfg, pdf, 7, e, k, eps, ord, pre);
          const T m = famp<N>(ord, k, eps);
          sw.add(r.accepted ? double(pre * m * m) : 0.0);
        }
        part(i) = sw.value();
      });
  double s = 0;
  Kokkos::parallel_reduce("sum", Kokkos::RangePolicy<Exec>(exec, 0, W), KOKKOS_LAMBDA(std::size_t i, double& a) { a += part(i); }, s);
  return s;
}

template <int N, class T> void run(std::uint64_t Nev, const PdfGridHost& h) {
  EventConfig<T> c; c.n = N; finalize(c);
  auto g = make_pdf_grid<T, Mem>(h);
  Exec exec;
  const char* p = sizeof(T) == 4 ? "float" : "double";
  double s = 0, s2 = 0;
  auto t = median_seconds([&] { s = impl::integrate_thread_kokkos(exec, c, g, 7, 0, Nev).sum_w; }, 3);
  std::printf("n=%d %s library-thread %.3f ns  sigma %.6g\n", N, p, t / Nev * 1e9, s / Nev);
  const std::uint64_t sms = std::uint64_t(exec.concurrency()) / 2048;
  for (int per_sm : {256, 384, 512, 768, 1024}) {
    t = median_seconds([&] { s2 = fixed_kernel<N, T, 128>(exec, c, g, Nev, sms * per_sm); }, 3);
    std::printf("n=%d %s fixed-n %d/SM %.3f ns  sigma %.6g\n", N, p, per_sm, t / Nev * 1e9, s2 / Nev);
  }
}

int main(int argc, char** argv) {
  Kokkos::initialize(argc, argv);
  {
    auto h = toy_gluon_set();
    const std::uint64_t N = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 30000000ull;
    run<6, float>(N, h); run<6, double>(N, h);
    run<8, float>(N, h); run<8, double>(N, h);
  }
  Kokkos::finalize();
}
