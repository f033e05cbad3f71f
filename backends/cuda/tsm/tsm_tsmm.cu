// Native TSMM, double and complex: 1, 2 or 4 outputs per thread, two rows per iteration;
// double also on the tensor cores.
#include "tsm/tsm_mma.cuh"

#include <type_traits>

namespace tessera::native_cuda {

namespace {
template <class T>
void run(cudaStream_t stream, int M, int N, std::int64_t K, T alpha, const T* A, std::int64_t lda, const T* C,
         std::int64_t ldcr, std::int64_t ldcc, T beta, T* B, std::int64_t ldb) {
  using namespace tsm_detail;
  if (K == 0) return;
  if (alpha == T(0)) {
    scale_b(stream, B, N, K, ldb, beta);
    return;
  }
  const auto c = config_for(false, !std::is_same_v<T, double>, M, N);
  if constexpr (std::is_same_v<T, double>)
    if (c.mma == 1) return launch_tsmm_mma(stream, M, N, K, alpha, A, lda, C, ldcr, ldcc, beta, B, ldb);
  switch (c.outputs) {
    case 1: launch_tsmm<T, 1, 2>(stream, M, N, K, alpha, A, lda, C, ldcr, ldcc, beta, B, ldb); break;
    case 2: launch_tsmm<T, 2, 2>(stream, M, N, K, alpha, A, lda, C, ldcr, ldcc, beta, B, ldb); break;
    default: launch_tsmm<T, 4, 2>(stream, M, N, K, alpha, A, lda, C, ldcr, ldcc, beta, B, ldb); break;
  }
}
}  // namespace

void tsm_tsmm(cudaStream_t stream, int M, int N, std::int64_t K, double alpha, const double* A, std::int64_t lda,
              const double* C, std::int64_t ldcr, std::int64_t ldcc, double beta, double* B, std::int64_t ldb) {
  run(stream, M, N, K, alpha, A, lda, C, ldcr, ldcc, beta, B, ldb);
}
void tsm_tsmm(cudaStream_t stream, int M, int N, std::int64_t K, zcomplex alpha, const zcomplex* A,
              std::int64_t lda, const zcomplex* C, std::int64_t ldcr, std::int64_t ldcc, zcomplex beta,
              zcomplex* B, std::int64_t ldb) {
  run(stream, M, N, K, alpha, A, lda, C, ldcr, ldcc, beta, B, ldb);
}

std::string tsm_native_config(bool tsmttsm, bool complex, int M, int N) {
  const auto c = tsm_detail::config_for(tsmttsm, complex, M, N);
  if (c.mma > 0 && tsmttsm)
    return "tsmttsm FP64 tensor cores (DMMA m8n8k4), a warp per " + std::to_string(8 * c.mma) + "x" +
           std::to_string(8 * c.mma) + " block of C, " +
           (c.stages ? "rows staged by a " + std::to_string(c.stages) + "-stage cp.async pipeline" : "leap-frog") +
           ", shared-memory block sum";
  if (c.mma > 0) return "tsmm FP64 tensor cores (DMMA m8n8k4), 8 rows per warp, alpha C in shared memory";
  if (tsmttsm)
    return "tsmttsm tile " + std::to_string(c.tile) + "x" + std::to_string(c.tile) +
           ", leap-frog, shared-memory block sum";
  return "tsmm " + std::to_string(c.outputs) + " outputs per thread, 2 rows unrolled, C in shared memory";
}

}  // namespace tessera::native_cuda
