// Native TSMTTSM, complex double ("T" and "C"): the shipped square tiles 1, 2, 4.
#include "tsm/tsm_kernels.cuh"

namespace tessera::native_cuda {

namespace {
template <bool Conj>
void run(cudaStream_t stream, int M, int N, std::int64_t K, zcomplex alpha, const zcomplex* A, std::int64_t lda,
         const zcomplex* B, std::int64_t ldb, zcomplex* C, std::int64_t ldcr, std::int64_t ldcc) {
  using namespace tsm_detail;
  switch (config_for(true, true, M, N).tile) {
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
