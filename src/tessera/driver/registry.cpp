#include "tessera/driver/workload.hpp"
#include "tessera/gluon/workload/gluon_workload.hpp"
#include "tessera/himeno/workload/himeno_workload.hpp"
#include "tessera/stream/stream_workload.hpp"
#include "tessera/tsm/workload/tsm_workload.hpp"
#include "tessera/video/workload/video_workload.hpp"

namespace tessera::driver {

// Workloads register here explicitly: static self-registration is dropped by
// the linker from static libraries.
const std::vector<WorkloadEntry>& workloads() {
  static const std::vector<WorkloadEntry> all = {
      {"stream", "STREAM copy/triad/sum: the measured bandwidth roofline", &stream::make_stream_workload},
      {"himeno", "Himeno 19-point Jacobi stencil (Phillips & Fatica)", &himeno::make_himeno_workload},
      {"tsm", "tall & skinny GEMM: TSMTTSM C = A^T B, TSMM B = A C (Ernst, Hager, Thies, Wellein)", &tsm::make_tsm_workload},
      {"video", "video kernels of Lin et al.: conv3d, pairwise, B-spline, DIBR, bilateral; Y4M in/out", &video::make_video_workload},
      {"gluon", "multi-gluon Monte Carlo: Berends-Giele, RAMBO, PDFs (Giele, Stavenga, Winter)", &gluon::make_gluon_workload},
  };
  return all;
}

std::unique_ptr<Workload> make_workload(const std::string& name) {
  for (const auto& w : workloads())
    if (w.name == name) return w.make();
  std::string known;
  for (const auto& w : workloads()) known += (known.empty() ? "" : ", ") + w.name;
  throw UsageError("unknown workload '" + name + "' (known: " + known + ")");
}

}  // namespace tessera::driver
