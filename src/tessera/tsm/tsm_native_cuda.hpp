#pragma once
// Native CUDA tall-skinny products (backends/cuda/tsm). Queued on the given
// stream, no synchronisation. Tall operands are row-major: element (k, j) of
// A at A[k * lda + j]; C's element (m, n) at C[m * ldc_row + n * ldc_col].
// M, N in 1..64 (checked by the caller), any K >= 0.
#include <Kokkos_Complex.hpp>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

namespace tessera::native_cuda {

using zcomplex = Kokkos::complex<double>;

// C = alpha op(A)^T B + beta C, op = conj when conj.
void tsm_tsmttsm(cudaStream_t stream, bool conj, int M, int N, std::int64_t K, double alpha, const double* A,
                 std::int64_t lda, const double* B, std::int64_t ldb, double beta, double* C, std::int64_t ldc_row,
                 std::int64_t ldc_col);
void tsm_tsmttsm(cudaStream_t stream, bool conj, int M, int N, std::int64_t K, zcomplex alpha, const zcomplex* A,
                 std::int64_t lda, const zcomplex* B, std::int64_t ldb, zcomplex beta, zcomplex* C,
                 std::int64_t ldc_row, std::int64_t ldc_col);

// B = alpha A C + beta B.
void tsm_tsmm(cudaStream_t stream, int M, int N, std::int64_t K, double alpha, const double* A, std::int64_t lda,
              const double* C, std::int64_t ldc_row, std::int64_t ldc_col, double beta, double* B, std::int64_t ldb);
void tsm_tsmm(cudaStream_t stream, int M, int N, std::int64_t K, zcomplex alpha, const zcomplex* A,
              std::int64_t lda, const zcomplex* C, std::int64_t ldc_row, std::int64_t ldc_col, zcomplex beta,
              zcomplex* B, std::int64_t ldb);

// Which kernel a call of this shape runs ("fixed TMxTN", "generic"), for
// tests and result tables.
std::string tsm_native_config(bool tsmttsm, bool complex, int M, int N);

}  // namespace tessera::native_cuda
