// cuBLASLt for the tsm workload (see tsm_cublaslt.hpp): cublasLtMatmul with
// the heuristic's algorithms, best first, and a 32 MiB workspace (room for
// the split-K partials the heuristic picks for these long inner dimensions).
#include "tessera/tsm/workload/tsm_cublaslt.hpp"

#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>

namespace tessera::tsm {

namespace {

constexpr int kRequested = 8;
constexpr std::size_t kWorkspace = std::size_t(32) << 20;

void ok(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cuBLASLt: ") + what + " failed (status " + std::to_string(int(s)) + ")");
}

}  // namespace

struct LtGemm::Impl {
  cublasLtHandle_t handle = nullptr;
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, d = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
  cublasLtMatmulHeuristicResult_t results[kRequested] = {};
  int returned = 0, chosen = 0;
  void* workspace = nullptr;
  cudaStream_t stream = nullptr;
  bool tsmttsm = true, complex = false;
  std::string why;

  ~Impl() {
    if (workspace) cudaFree(workspace);
    if (pref) cublasLtMatmulPreferenceDestroy(pref);
    for (auto* l : {a, b, d})
      if (l) cublasLtMatrixLayoutDestroy(l);
    if (op) cublasLtMatmulDescDestroy(op);
    if (handle) cublasLtDestroy(handle);
  }
};

LtGemm::LtGemm(bool tsmttsm, bool complex, bool conj, int M, int N, long long K, cudaStream_t stream)
    : impl_(new Impl) {
  Impl& p = *impl_;
  try {
    p.stream = stream;
    p.tsmttsm = tsmttsm;
    p.complex = complex;
    const cudaDataType_t type = complex ? CUDA_C_64F : CUDA_R_64F;
    ok(cublasLtCreate(&p.handle), "cublasLtCreate");
    ok(cublasLtMatmulDescCreate(&p.op, CUBLAS_COMPUTE_64F, type), "cublasLtMatmulDescCreate");
    const cublasOperation_t opn = CUBLAS_OP_N;
    const cublasOperation_t opb = tsmttsm ? (conj ? CUBLAS_OP_C : CUBLAS_OP_T) : CUBLAS_OP_N;
    ok(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_TRANSA, &opn, sizeof(opn)), "TRANSA");
    ok(cublasLtMatmulDescSetAttribute(p.op, CUBLASLT_MATMUL_DESC_TRANSB, &opb, sizeof(opb)), "TRANSB");
    const std::uint64_t m = std::uint64_t(M), n = std::uint64_t(N), k = std::uint64_t(K);
    if (tsmttsm) {
      ok(cublasLtMatrixLayoutCreate(&p.a, type, n, k, std::int64_t(n)), "layout Y~");
      ok(cublasLtMatrixLayoutCreate(&p.b, type, m, k, std::int64_t(m)), "layout X~");
      ok(cublasLtMatrixLayoutCreate(&p.d, type, n, m, std::int64_t(n)), "layout C^T");
    } else {
      ok(cublasLtMatrixLayoutCreate(&p.a, type, n, m, std::int64_t(n)), "layout S~");
      ok(cublasLtMatrixLayoutCreate(&p.b, type, m, k, std::int64_t(m)), "layout X~");
      ok(cublasLtMatrixLayoutCreate(&p.d, type, n, k, std::int64_t(n)), "layout B^T");
    }
    ok(cublasLtMatmulPreferenceCreate(&p.pref), "cublasLtMatmulPreferenceCreate");
    const std::size_t ws = kWorkspace;
    ok(cublasLtMatmulPreferenceSetAttribute(p.pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws)),
       "workspace preference");
    const cublasStatus_t h = cublasLtMatmulAlgoGetHeuristic(p.handle, p.op, p.a, p.b, p.d, p.d, p.pref, kRequested,
                                                            p.results, &p.returned);
    if (h != CUBLAS_STATUS_SUCCESS || p.returned == 0) {
      p.returned = 0;
      p.why = "cuBLASLt offers no algorithm for this shape (status " + std::to_string(int(h)) + ")";
      return;
    }
    if (cudaMalloc(&p.workspace, kWorkspace) != cudaSuccess) throw std::runtime_error("cuBLASLt workspace: cudaMalloc failed");
  } catch (...) {
    delete impl_;
    throw;
  }
}

LtGemm::~LtGemm() { delete impl_; }

bool LtGemm::usable() const { return impl_->returned > 0; }

void LtGemm::run(const void* X, const void* Z, const double* beta, void* out) {
  Impl& p = *impl_;
  const double one[2] = {1.0, 0.0};
  // TSMTTSM: A = Y~, B = X~; TSMM: A = S~, B = X~ (Z is Y or S).
  for (; p.chosen < p.returned; ++p.chosen) {
    const auto& r = p.results[p.chosen];
    if (r.state != CUBLAS_STATUS_SUCCESS || r.workspaceSize > kWorkspace) continue;
    const cublasStatus_t s = cublasLtMatmul(p.handle, p.op, one, Z, p.a, X, p.b, beta, out, p.d, out, p.d, &r.algo,
                                            p.workspace, kWorkspace, p.stream);
    if (s == CUBLAS_STATUS_SUCCESS) return;
  }
  throw std::runtime_error("cuBLASLt: none of the heuristic's " + std::to_string(p.returned) + " algorithms ran");
}

std::string LtGemm::note() const {
  const Impl& p = *impl_;
  if (p.returned == 0) return p.why;
  std::ostringstream s;
  const auto& r = p.results[p.chosen < p.returned ? p.chosen : 0];
  int id = -1, splitk = 1;
  std::size_t got = 0;
  cublasLtMatmulAlgoConfigGetAttribute(&r.algo, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof(id), &got);
  cublasLtMatmulAlgoConfigGetAttribute(&r.algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk, sizeof(splitk), &got);
  s << "cuBLASLt heuristic " << (p.chosen + 1) << " of " << p.returned << " (algo " << id << ", split-K " << splitk
    << ", workspace " << (r.workspaceSize >> 10) << " KiB)";
  return s.str();
}

}  // namespace tessera::tsm
