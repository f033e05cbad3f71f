// conv3d by cuDNN, a comparison variant (see Conv3dCudnn in
// conv3d_native_cuda.hpp). cuDNN's CUDNN_CONVOLUTION mode flips the filter
// itself, so eq. (1)'s K goes in as it is: NCDHW input 1 x 1 x T x H x W,
// filter 1 x 1 x k x k x k with (l, n, m) = (D, H, W), padding 0 in t and k/2
// (same) or 0 (valid) in y and x, which places output (t, y, x) where
// conv3d.hpp does. FMA math by default: with TF32 allowed (what frameworks
// do by default on Ampere and later) cuDNN picks tensor-core engines that
// round the operands to 10-bit mantissas, ~1e-3 relative.
//
// This uses cuDNN's convolution API of cuDNN 7/8 (cudnnFind...), which cuDNN
// 9 still ships but marks deprecated in favour of its graph API; it is what
// frameworks' "benchmark" modes call, and it times every algorithm itself.
#include "tessera/video/conv3d_native_cuda.hpp"

#include <cudnn.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace tessera::native_cuda {
namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("conv3d cuDNN: ") + what + ": " + cudaGetErrorString(e));
}
void check(cudnnStatus_t r, const char* what) {
  if (r != CUDNN_STATUS_SUCCESS)
    throw std::runtime_error(std::string("conv3d cuDNN: ") + what + ": " + cudnnGetErrorString(r));
}

const char* algorithm_name(cudnnConvolutionFwdAlgo_t a) {
  switch (a) {
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM: return "implicit GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM: return "implicit precomputed GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_GEMM: return "GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_DIRECT: return "direct";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT: return "FFT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING: return "FFT tiling";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD: return "Winograd";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED: return "Winograd non-fused";
    default: return "unknown";
  }
}

}  // namespace

struct Conv3dCudnn::State {
  cudnnHandle_t handle = nullptr;
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  void* workspace = nullptr;
  std::size_t workspace_n = 0;
  const float* kernel = nullptr;
  std::string algo_name;
  ~State() {
    cudaFree(workspace);
    if (conv) cudnnDestroyConvolutionDescriptor(conv);
    if (w) cudnnDestroyFilterDescriptor(w);
    if (y) cudnnDestroyTensorDescriptor(y);
    if (x) cudnnDestroyTensorDescriptor(x);
    if (handle) cudnnDestroy(handle);
  }
};

Conv3dCudnn::Conv3dCudnn(const video::impl::Conv3dGeometry& g, cudaStream_t stream, const float* v, float* out,
                         bool allow_tf32)
    : s_(std::make_unique<State>()) {
  auto& s = *s_;
  check(cudnnCreate(&s.handle), "cudnnCreate");
  check(cudnnSetStream(s.handle, stream), "cudnnSetStream");
  const int xd[5] = {1, 1, g.T, g.H, g.W};
  const int xs[5] = {g.T * g.H * g.W, g.T * g.H * g.W, g.H * g.W, g.W, 1};
  const int wd[5] = {1, 1, g.k, g.k, g.k};
  const int pad = g.shift == 0 ? 0 : g.k / 2;
  const int pads[3] = {0, pad, pad}, ones[3] = {1, 1, 1};
  check(cudnnCreateTensorDescriptor(&s.x), "input descriptor");
  check(cudnnSetTensorNdDescriptor(s.x, CUDNN_DATA_FLOAT, 5, xd, xs), "input descriptor");
  check(cudnnCreateFilterDescriptor(&s.w), "filter descriptor");
  check(cudnnSetFilterNdDescriptor(s.w, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 5, wd), "filter descriptor");
  check(cudnnCreateConvolutionDescriptor(&s.conv), "convolution descriptor");
  check(cudnnSetConvolutionNdDescriptor(s.conv, 3, pads, ones, ones, CUDNN_CONVOLUTION, CUDNN_DATA_FLOAT),
        "convolution descriptor");
  check(cudnnSetConvolutionMathType(s.conv, allow_tf32 ? CUDNN_DEFAULT_MATH : CUDNN_FMA_MATH), "math type");
  int yd[5] = {};
  check(cudnnGetConvolutionNdForwardOutputDim(s.conv, s.x, s.w, 5, yd), "output size");
  if (yd[2] != g.To || yd[3] != g.Ho || yd[4] != g.Wo)
    throw std::runtime_error("conv3d cuDNN: output size " + std::to_string(yd[2]) + " x " + std::to_string(yd[3]) +
                             " x " + std::to_string(yd[4]) + " differs from the geometry's");
  const int ys[5] = {g.To * g.Ho * g.Wo, g.To * g.Ho * g.Wo, g.Ho * g.Wo, g.Wo, 1};
  check(cudnnCreateTensorDescriptor(&s.y), "output descriptor");
  check(cudnnSetTensorNdDescriptor(s.y, CUDNN_DATA_FLOAT, 5, yd, ys), "output descriptor");

  // Every algorithm timed on the caller's buffers (a throw-away filter: the
  // timing does not depend on its values); the fastest allowed one is kept.
  float* probe_filter = nullptr;
  check(cudaMalloc(&probe_filter, sizeof(float) * std::size_t(g.k) * g.k * g.k), "filter buffer");
  std::unique_ptr<float, decltype(&cudaFree)> probe_guard(probe_filter, &cudaFree);
  check(cudaMemsetAsync(probe_filter, 0, sizeof(float) * std::size_t(g.k) * g.k * g.k, stream), "filter buffer");
  int max_algos = 0;
  check(cudnnGetConvolutionForwardAlgorithmMaxCount(s.handle, &max_algos), "algorithm count");
  std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(std::size_t(std::max(max_algos, 1)));
  // Find's own workspace, capped so that an FFT algorithm's cannot take the device.
  std::size_t free_b = 0, total_b = 0;
  check(cudaMemGetInfo(&free_b, &total_b), "cudaMemGetInfo");
  std::size_t find_n = std::min<std::size_t>(free_b / 2, std::size_t(4) << 30);
  void* find_ws = nullptr;
  while (find_n > 0 && cudaMalloc(&find_ws, find_n) != cudaSuccess) find_n /= 2;
  (void)cudaGetLastError();
  int found = 0;
  const cudnnStatus_t fr = cudnnFindConvolutionForwardAlgorithmEx(s.handle, s.x, v, s.w, probe_filter, s.conv, s.y,
                                                                  out, int(perf.size()), &found, perf.data(),
                                                                  find_ws, find_n);
  cudaFree(find_ws);
  check(fr, "cudnnFindConvolutionForwardAlgorithmEx");
  const cudnnConvolutionFwdAlgoPerf_t* best = nullptr;
  for (int i = 0; i < found; ++i)  // sorted fastest first
    if (perf[i].status == CUDNN_STATUS_SUCCESS && (allow_tf32 || perf[i].mathType == CUDNN_FMA_MATH)) {
      best = &perf[i];
      break;
    }
  if (!best) throw std::runtime_error("conv3d cuDNN: no allowed algorithm runs this convolution");
  s.algo = best->algo;
  s.algo_name = std::string(algorithm_name(best->algo)) + (best->mathType == CUDNN_FMA_MATH ? ", FMA" : ", tensor cores");
  check(cudnnSetConvolutionMathType(s.conv, best->mathType), "math type");
  check(cudnnGetConvolutionForwardWorkspaceSize(s.handle, s.x, s.w, s.conv, s.y, s.algo, &s.workspace_n),
        "workspace size");
  if (s.workspace_n) check(cudaMalloc(&s.workspace, s.workspace_n), "workspace");
}

Conv3dCudnn::~Conv3dCudnn() = default;

void Conv3dCudnn::set_kernel(const float* K) { s_->kernel = K; }

void Conv3dCudnn::execute(const float* v, float* out) {
  auto& s = *s_;
  if (!s.kernel) throw std::logic_error("conv3d cuDNN: execute before set_kernel");
  const float one = 1.0f, zero = 0.0f;
  check(cudnnConvolutionForward(s.handle, &one, s.x, v, s.w, s.kernel, s.conv, s.algo, s.workspace, s.workspace_n,
                                &zero, s.y, out),
        "cudnnConvolutionForward");
}

std::size_t Conv3dCudnn::workspace_bytes() const { return s_->workspace_n; }

const std::string& Conv3dCudnn::algorithm() const { return s_->algo_name; }

}  // namespace tessera::native_cuda
