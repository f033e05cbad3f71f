#pragma once
// The video workload is made of kernel families (conv3d, pairwise, bspline,
// dibr, bilateral), each with its own options, inputs, reference and
// variants. The workload (video_workload.cpp) merges the families that
// --kernels selects: a variant name shared by several families runs each of
// them and reports one row per kernel.
#include "tessera/driver/workload.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <type_traits>

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

// One thread at benchmark size takes seconds per call: the Serial variants
// (cpu-1) skip the warm-up and time at most 2 calls above a GFLOP.
template <class ExecSpace>
driver::RunSettings one_thread_capped(const driver::RunSettings& rs, double flops) {
  driver::RunSettings r = rs;
#if defined(KOKKOS_ENABLE_SERIAL)
  if (std::is_same_v<ExecSpace, Kokkos::Serial> && flops > 1e9) {
    r.warmup = 0;
    r.repeats = std::min(rs.repeats, 2);
  }
#endif
  return r;
}

// The families, each in its own translation unit.
std::unique_ptr<VideoKernel> make_conv3d_kernel();
std::unique_ptr<VideoKernel> make_pairwise_kernel();
std::unique_ptr<VideoKernel> make_bspline_kernel();
std::unique_ptr<VideoKernel> make_dibr_kernel();
std::unique_ptr<VideoKernel> make_bilateral_kernel();

}  // namespace tessera::video
