// Calls Tessera on the application's own Views with its own execution-space
// instance, then checks the answer itself.
#include <tessera/stream/stream.hpp>

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
  const bool ok = std::abs(total - expect) <= 1e-10 * expect;  // two summation orders
  std::printf("downstream: Tessera on %s, sum %.15g (expected %.15g): %s\n", Exec::name(), total, expect,
              ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
