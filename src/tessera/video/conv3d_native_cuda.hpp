#pragma once
// Native CUDA 3-D convolution (backends/cuda/video/conv3d_native.cu). All
// pointers are device pointers to contiguous row-major (t, y, x) arrays; kf is
// the flipped kernel of conv3d.hpp (k^3 floats), copied into constant memory
// on the stream at each call. Queued on the stream.
#include "tessera/video/conv3d_geometry.hpp"

#include <cuda_runtime.h>

namespace tessera::native_cuda {

// Register-blocked direct kernel: 32 x 32 output tiles of one frame, each
// thread 8 rows of one column, one input plane in shared memory per kernel
// plane, the kernel in constant memory; one instantiation per k.
void conv3d_register(cudaStream_t stream, const float* v, const float* kf, float* out,
                     const video::impl::Conv3dGeometry& g);

}  // namespace tessera::native_cuda
