#pragma once
// Native CUDA 3-D convolution (backends/cuda/video/conv3d_native.cu). All
// pointers are device pointers to contiguous row-major (t, y, x) arrays; kf is
// the flipped kernel of conv3d.hpp (k^3 floats). Queued on the stream.
#include "tessera/video/conv3d_geometry.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <memory>
#include <string>

namespace tessera::native_cuda {

// Register-blocked direct kernel: a block owns 4 or 2 consecutive output
// frames (by k) of a 32 x 20 tile, each thread 5 rows of one column of each;
// each input frame is staged once in shared memory (asynchronous 16-byte
// copies where W % 4 == 0, 4-byte otherwise, one or two frames ahead) and
// feeds every output frame of the block that uses it; the taps are read from
// kf into shared memory once a block; one instantiation per k. kf_host, where
// the caller has it, is the same flipped kernel in host memory: at k <= 5
// (and W % 4 == 0, two or more output frames) its taps go to the kernel as
// parameters, FMA operands from the constant bank, and the frames come
// through the copy engine (conv3d_taps_kernel; a tensor map of v, the last
// one kept per host thread).
void conv3d_register(cudaStream_t stream, const float* v, const float* kf, float* out,
                     const video::impl::Conv3dGeometry& g, const float* kf_host = nullptr);

// The paper's STREAMING algorithm with the k partial sums of each column in
// registers: 32 columns x 64 output rows of one frame per block, marching down
// y one input row (k x (32 + k - 1) values of the k frames) per step, each
// staged value feeding k FMAs with constant-memory taps (kf copied into
// constant memory on the stream at each call).
void conv3d_streaming(cudaStream_t stream, const float* v, const float* kf, float* out,
                      const video::impl::Conv3dGeometry& g);

// Direct kernel on the tensor cores for integer-valued video: every sample an
// integer of magnitude <= 2048 (8-bit video; exact in fp16), k odd 3..15
// (conv3d_tensor_supports; std::invalid_argument otherwise). The taps are
// split in two fp16 parts and each input frame's products summed apart, so
// the result is as accurate as the FP32 kernels' (about 1e-6 of max |out|);
// non-integer samples are rounded to fp16 (about 1e-3): the caller's
// precondition, not checked. 144 x 8 x 4 outputs a block
// (backends/cuda/video/conv3d_tensor.cu).
bool conv3d_tensor_supports(int k);
void conv3d_tensor(cudaStream_t stream, const float* v, const float* kf, float* out,
                   const video::impl::Conv3dGeometry& g);

// The paper's Fourier methods with cuFFT (backends/cuda/video/conv3d_cufft.cu),
// same sizes and conventions as Conv3dFftw (conv3d_fft.hpp): hybrid = false is
// 3-D FOURIER (one 3-D transform of the volume), true is HYBRID FOURIER (2-D
// transforms per frame, a k-tap complex convolution along t, inverse of the
// output frames). Plans and buffers in the constructor, the kernel spectrum in
// set_kernel (K unflipped, k^3 floats on the device), execute queued on the
// stream.
class Conv3dCufft {
 public:
  Conv3dCufft(bool hybrid, const video::impl::Conv3dGeometry& g, cudaStream_t stream);
  ~Conv3dCufft();
  Conv3dCufft(const Conv3dCufft&) = delete;
  Conv3dCufft& operator=(const Conv3dCufft&) = delete;
  void set_kernel(const float* K);
  void execute(const float* v, float* out);
  std::size_t workspace_bytes() const;

 private:
  struct State;
  std::unique_ptr<State> s_;
};

#if defined(TESSERA_VIDEO_HAS_CUDNN)
// cuDNN's forward convolution as a comparison variant (built where cuDNN is
// found at configure time; backends/cuda/video/conv3d_cudnn.cu): the
// constructor times cuDNN's algorithms on v and out (device buffers of the
// geometry's sizes; out is overwritten) and keeps the fastest, FMA math only
// unless allow_tf32 (TF32 tensor cores, ~1e-3 relative);
// set_kernel takes K unflipped (k^3 floats on the device, used in place, so
// it must outlive the calls), execute is queued on the stream.
class Conv3dCudnn {
 public:
  Conv3dCudnn(const video::impl::Conv3dGeometry& g, cudaStream_t stream, const float* v, float* out,
              bool allow_tf32 = false);
  ~Conv3dCudnn();
  Conv3dCudnn(const Conv3dCudnn&) = delete;
  Conv3dCudnn& operator=(const Conv3dCudnn&) = delete;
  void set_kernel(const float* K);
  void execute(const float* v, float* out);
  std::size_t workspace_bytes() const;
  const std::string& algorithm() const;  // the algorithm cuDNN's timing picked

 private:
  struct State;
  std::unique_ptr<State> s_;
};
#endif

}  // namespace tessera::native_cuda
