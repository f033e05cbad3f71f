// Native TSMTTSM, double: the register tiles 1, 2, 4, 8 and the tensor-core warp tiles 1, 2, 4,
// fragments from global memory or from cp.async stages (there also warps of 2 x 5 and 2 x 6 tiles).
#include "tsm/tsm_mma.cuh"

namespace tessera::native_cuda {

void tsm_tsmttsm(cudaStream_t stream, bool, int M, int N, std::int64_t K, double alpha, const double* A,
                 std::int64_t lda, const double* B, std::int64_t ldb, double beta, double* C, std::int64_t ldcr,
                 std::int64_t ldcc) {
  using namespace tsm_detail;
  scale_c(stream, C, M, N, ldcr, ldcc, beta);
  if (K == 0 || alpha == 0.0) return;
  const auto c = config_for(true, false, M, N);
  if (c.stages > 0) switch (c.mma) {
      case 1: return launch_tsmttsm_staged<double, false, 1>(stream, M, N, K, alpha, A, lda, B, ldb, C, ldcr, ldcc);
      case 2:
        if (c.tiles == 5)
          return launch_tsmttsm_staged<double, false, 2, 5>(stream, M, N, K, alpha, A, lda, B, ldb, C, ldcr, ldcc);
        if (c.tiles == 6)
          return launch_tsmttsm_staged<double, false, 2, 6>(stream, M, N, K, alpha, A, lda, B, ldb, C, ldcr, ldcc);
        return launch_tsmttsm_staged<double, false, 2>(stream, M, N, K, alpha, A, lda, B, ldb, C, ldcr, ldcc);
      case 4: return launch_tsmttsm_staged<double, false, 4>(stream, M, N, K, alpha, A, lda, B, ldb, C, ldcr, ldcc);
      default: break;
    }
  switch (c.mma) {
    case 1: return launch_tsmttsm_mma<double, false, 1>(stream, M, N, K, alpha, A, lda, B, ldb, C, ldcr, ldcc);
    case 2: return launch_tsmttsm_mma<double, false, 2>(stream, M, N, K, alpha, A, lda, B, ldb, C, ldcr, ldcc);
    case 4: return launch_tsmttsm_mma<double, false, 4>(stream, M, N, K, alpha, A, lda, B, ldb, C, ldcr, ldcc);
    default: break;
  }
  switch (c.tile) {
    case 1: launch_tsmttsm<double, false, 1, 1>(stream, M, N, K, alpha, A, lda, B, ldb, C, ldcr, ldcc); break;
    case 2: launch_tsmttsm<double, false, 2, 2>(stream, M, N, K, alpha, A, lda, B, ldb, C, ldcr, ldcc); break;
    case 4: launch_tsmttsm<double, false, 4, 4>(stream, M, N, K, alpha, A, lda, B, ldb, C, ldcr, ldcc); break;
    default: launch_tsmttsm<double, false, 8, 8>(stream, M, N, K, alpha, A, lda, B, ldb, C, ldcr, ldcc); break;
  }
}

}  // namespace tessera::native_cuda
