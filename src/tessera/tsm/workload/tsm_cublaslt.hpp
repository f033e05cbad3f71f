#pragma once
// The cuBLASLt peer of the tsm workload: one problem's plan (descriptors,
// the heuristic's algorithms, a workspace), made once before the timed calls.
// FP64 compute throughout (CUBLAS_COMPUTE_64F: no TF32 or emulated modes),
// on the column-major reading of the row-major operands (paper §1.5):
//   TSMTTSM C^T (N x M) = Y~ (N x K) op(X~)^T (X~: M x K),
//   TSMM    B^T (N x K) = S~ (N x M) X~ (M x K).
// Only declared in CUDA builds with cuBLASLt (TESSERA_TSM_HAS_CUBLASLT).
#include <cuda_runtime_api.h>

#include <string>

namespace tessera::tsm {

class LtGemm {
 public:
  // complex: Kokkos::complex<double> (two doubles) instead of double.
  LtGemm(bool tsmttsm, bool complex, bool conj, int M, int N, long long K, cudaStream_t stream);
  ~LtGemm();
  LtGemm(const LtGemm&) = delete;
  LtGemm& operator=(const LtGemm&) = delete;

  // Whether the heuristic offered an algorithm (else note() says why).
  bool usable() const;
  // out = op-product + beta out, all device pointers: X (K x M), Z = Y (TSMTTSM)
  // or S (TSMM), out = S (TSMTTSM) or Y (TSMM); beta: one double or two
  // (re, im) on the host. The heuristic's algorithms are tried best first
  // until one runs (that one is kept); throws when none does.
  void run(const void* X, const void* Z, const double* beta, void* out);
  // The algorithm in use: its rank among the heuristic's, id, split-K and workspace.
  std::string note() const;

 private:
  struct Impl;
  Impl* impl_;
};

}  // namespace tessera::tsm
