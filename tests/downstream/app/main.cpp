// Calls Tessera on the application's own Views with its own execution-space
// instance, then checks the answer itself.
#include <tessera/stream/stream.hpp>
#include <tessera/tsm/tsm.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdio>

int main(int argc, char** argv) {
#if defined(KOKKOS_ENABLE_CUDA)
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("[  SKIPPED ] all tests: Cuda build without a CUDA device\n");
    return 0;
  }
#endif
  Kokkos::ScopeGuard kokkos(argc, argv);
  using Exec = Kokkos::DefaultExecutionSpace;
  Exec exec;
  const int n = 1 << 20;
  Kokkos::View<double*> a("a", n), b("b", n), c("c", n);
  Kokkos::parallel_for(Kokkos::RangePolicy<Exec>(exec, 0, n), KOKKOS_LAMBDA(int i) {
    b(i) = 0.5 * i;
    c(i) = 1.0 / (1 + i % 7);
  });
  tessera::stream::triad(exec, a, b, c, 2.0);  // a = b + 2 c
  const double total = tessera::stream::sum(exec, a);
  double expect = 0;
  for (int i = 0; i < n; ++i) expect += 0.5 * i + 2.0 / (1 + i % 7);
  bool ok = std::abs(total - expect) <= 1e-10 * expect;  // two summation orders
  std::printf("downstream: Tessera on %s, sum %.15g (expected %.15g): %s\n", Exec::name(), total, expect,
              ok ? "ok" : "WRONG");

  // Tall-skinny products on the application's own Views: C = A^T B, then
  // B += A C. With A(k, m) = 1 and B(k, j) = j + 1: C(m, j) = K (j + 1) and
  // then B(k, j) = (j + 1) (1 + M K).
  const int K = 1000, M = 4, N = 3;
  Kokkos::View<double**, Kokkos::LayoutRight> A("A", K, M), B("B", K, N), C("C", M, N);
  Kokkos::deep_copy(exec, A, 1.0);
  Kokkos::parallel_for(Kokkos::RangePolicy<Exec>(exec, 0, K), KOKKOS_LAMBDA(int k) {
    for (int j = 0; j < N; ++j) B(k, j) = j + 1;
  });
  tessera::tsm::tsmttsm(exec, "T", 1.0, A, B, 0.0, C);
  tessera::tsm::tsmm(exec, 1.0, A, C, 1.0, B);
  auto hc = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), C);
  auto hb = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), B);
  bool tsm_ok = true;
  for (int m = 0; m < M; ++m)
    for (int j = 0; j < N; ++j) tsm_ok = tsm_ok && hc(m, j) == double(K) * (j + 1);
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < N; ++j) tsm_ok = tsm_ok && hb(k, j) == (j + 1) * (1.0 + double(M) * K);
  std::printf("downstream: tsmttsm and tsmm on %s: %s\n", Exec::name(), tsm_ok ? "ok" : "WRONG");
  return ok && tsm_ok ? 0 : 1;
}
