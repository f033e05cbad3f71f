// Native TSMTTSM, complex double ("T" and "C"): the register tiles 1, 2, 4 and the tensor-core warp tiles 1, 2
// (staged also strips of 1 x 5 and 1 x 6), or the double staged kernels on the real product of 2M x 2N.
#include "tsm/tsm_mma.cuh"

namespace tessera::native_cuda {

namespace {
template <bool Conj>
void run(cudaStream_t stream, int M, int N, std::int64_t K, zcomplex alpha, const zcomplex* A, std::int64_t lda,
         const zcomplex* B, std::int64_t ldb, zcomplex* C, std::int64_t ldcr, std::int64_t ldcc) {
  using namespace tsm_detail;
  const auto c = config_for(true, true, M, N);
  if (c.real == 1) return launch_tsmttsm_real(stream, c, Conj, M, N, K, alpha, A, lda, B, ldb, C, ldcr, ldcc);
  if (c.stages > 0 && c.mma == 1 && c.tiles == 5)
    return launch_tsmttsm_staged<zcomplex, Conj, 1, 5>(stream, M, N, K, alpha, A, lda, B, ldb, C, ldcr, ldcc);
  if (c.stages > 0 && c.mma == 1 && c.tiles == 6)
    return launch_tsmttsm_staged<zcomplex, Conj, 1, 6>(stream, M, N, K, alpha, A, lda, B, ldb, C, ldcr, ldcc);
  if (c.stages > 0 && c.mma == 1)
    return launch_tsmttsm_staged<zcomplex, Conj, 1>(stream, M, N, K, alpha, A, lda, B, ldb, C, ldcr, ldcc);
  if (c.stages > 0 && c.mma == 2)
    return launch_tsmttsm_staged<zcomplex, Conj, 2>(stream, M, N, K, alpha, A, lda, B, ldb, C, ldcr, ldcc);
  if (c.mma == 1) return launch_tsmttsm_mma<zcomplex, Conj, 1>(stream, M, N, K, alpha, A, lda, B, ldb, C, ldcr, ldcc);
  if (c.mma == 2) return launch_tsmttsm_mma<zcomplex, Conj, 2>(stream, M, N, K, alpha, A, lda, B, ldb, C, ldcr, ldcc);
  switch (c.tile) {
    case 1: launch_tsmttsm<zcomplex, Conj, 1, 1>(stream, M, N, K, alpha, A, lda, B, ldb, C, ldcr, ldcc); break;
    case 2: launch_tsmttsm<zcomplex, Conj, 2, 2>(stream, M, N, K, alpha, A, lda, B, ldb, C, ldcr, ldcc); break;
    default: launch_tsmttsm<zcomplex, Conj, 4, 4>(stream, M, N, K, alpha, A, lda, B, ldb, C, ldcr, ldcc); break;
  }
}
}  // namespace

void tsm_tsmttsm(cudaStream_t stream, bool conj, int M, int N, std::int64_t K, zcomplex alpha, const zcomplex* A,
                 std::int64_t lda, const zcomplex* B, std::int64_t ldb, zcomplex beta, zcomplex* C,
                 std::int64_t ldcr, std::int64_t ldcc) {
  tsm_detail::scale_c(stream, C, M, N, ldcr, ldcc, beta);
  if (K == 0 || alpha == zcomplex(0)) return;
  if (conj)
    run<true>(stream, M, N, K, alpha, A, lda, B, ldb, C, ldcr, ldcc);
  else
    run<false>(stream, M, N, K, alpha, A, lda, B, ldb, C, ldcr, ldcc);
}

}  // namespace tessera::native_cuda
