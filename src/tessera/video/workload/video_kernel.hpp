#pragma once
// The video workload is made of kernel families (conv3d, pairwise, bspline,
// dibr, bilateral), each with its own options, inputs, reference and
// variants. The workload (video_workload.cpp) merges the families that
// --kernels selects: a variant name shared by several families runs each of
// them and reports one row per kernel.
#include "tessera/driver/workload.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tessera::video {

class VideoKernel {
 public:
  virtual ~VideoKernel() = default;
  virtual std::string name() const = 0;  // "conv3d", the --kernels word
  virtual std::vector<driver::OptionSpec> options() const = 0;
  virtual void configure(const driver::Options& opts) = 0;
  virtual std::string problem_summary() const = 0;
  virtual std::vector<driver::Parameter> parameters() const = 0;
  virtual driver::MemoryNeed memory_need() const = 0;
  virtual void prepare(std::uint64_t seed, driver::Progress& progress) = 0;
  // The family's variants; each runner returns this family's rows.
  virtual void declare_variants(driver::VariantTable& table) = 0;
};

// The families, each in its own translation unit.
std::unique_ptr<VideoKernel> make_conv3d_kernel();
std::unique_ptr<VideoKernel> make_pairwise_kernel();
std::unique_ptr<VideoKernel> make_bspline_kernel();
std::unique_ptr<VideoKernel> make_dibr_kernel();
std::unique_ptr<VideoKernel> make_bilateral_kernel();

}  // namespace tessera::video
