// Native TSMTTSM, double: the register tiles 1, 2, 4, 8 and the tensor-core warp tiles 1, 2, 4,
// fragments from global memory or from cp.async stages (there also warps of 2 x 5 and 2 x 6 tiles); the
// staged kernels also run complex products as real ones of twice the sides (tsm::NativeConfig::real).
#include "tsm/tsm_mma.cuh"

namespace tessera::native_cuda {

namespace tsm_detail {
namespace {
// The staged kernel that c names (c.stages > 0); complex_out, alpha_im: launch_tsmttsm_staged's.
void launch_staged_d(cudaStream_t stream, const NativeConfigT& c, int M, int N, Index K, double alpha,
                     const double* A, Index lda, const double* B, Index ldb, double* C, Index ldcr, Index ldcc,
                     int complex_out = 0, double alpha_im = 0) {
  const auto go = c.mma == 1     ? launch_tsmttsm_staged<double, false, 1>
                  : c.mma == 4   ? launch_tsmttsm_staged<double, false, 4>
                  : c.tiles == 5 ? launch_tsmttsm_staged<double, false, 2, 5>
                  : c.tiles == 6 ? launch_tsmttsm_staged<double, false, 2, 6>
                                 : launch_tsmttsm_staged<double, false, 2>;
  go(stream, M, N, K, alpha, A, lda, B, ldb, C, ldcr, ldcc, complex_out, alpha_im);
}
}  // namespace

void launch_tsmttsm_real(cudaStream_t stream, const NativeConfigT& c, bool conj, int M, int N, Index K,
                         zcomplex alpha, const zcomplex* A, Index lda, const zcomplex* B, Index ldb, zcomplex* C,
                         Index ldcr, Index ldcc) {
  launch_staged_d(stream, c, 2 * M, 2 * N, K, alpha.real(), reinterpret_cast<const double*>(A), 2 * lda,
                  reinterpret_cast<const double*>(B), 2 * ldb, reinterpret_cast<double*>(C), ldcr, ldcc,
                  conj ? kComplexC : kComplexT, alpha.imag());
}
}  // namespace tsm_detail

void tsm_tsmttsm(cudaStream_t stream, bool, int M, int N, std::int64_t K, double alpha, const double* A,
                 std::int64_t lda, const double* B, std::int64_t ldb, double beta, double* C, std::int64_t ldcr,
                 std::int64_t ldcc) {
  using namespace tsm_detail;
  scale_c(stream, C, M, N, ldcr, ldcc, beta);
  if (K == 0 || alpha == 0.0) return;
  const auto c = config_for(true, false, M, N);
  if (c.stages > 0 && (c.mma == 1 || c.mma == 2 || c.mma == 4))
    return launch_staged_d(stream, c, M, N, K, alpha, A, lda, B, ldb, C, ldcr, ldcc);
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
