#pragma once
// The `video` workload: the kernel families of Lin et al. (conv3d, pairwise,
// bspline, dibr, bilateral) behind one driver entry. --kernels picks the
// families; a variant name several families declare runs each selected one
// and reports one row per kernel.
#include "tessera/driver/workload.hpp"
#include "tessera/video/workload/video_kernel.hpp"

#include <memory>
#include <string>

namespace tessera::video {

std::unique_ptr<driver::Workload> make_video_workload();

// Helpers of the image families (bspline, dibr, bilateral).
struct PlaneSize {
  int width = 0, height = 0;
};
// "WxH" -> size (1..16384 per side), else UsageError naming the option.
PlaneSize parse_plane_size(const std::string& option, const std::string& text);

}  // namespace tessera::video
