#pragma once
// What `tessera run gluon --output FILE.h5` writes: FILE.h5 and FILE.csv
// (same stem) with sigma, the running sigma (paper Fig. 3), the HT and min
// Delta R distributions (Fig. 4, right) and the gauge profile (Fig. 4, left).
// Layout: docs/gluon.md.
#include "tessera/driver/options.hpp"
#include "tessera/gluon/gluon_histograms.hpp"
#include "tessera/gluon/gluon_output.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::gluon {

struct RunOutput {
  // The run, as the file records it.
  int n = 0;
  double sqrt_s = 0, pt_min = 0, eta_max = 0, dr_min = 0;
  std::string pdf, preset, precision, variant;
  std::uint64_t seed = 0;
  SigmaResult sigma;
  std::vector<SigmaResult> running;  // cumulative after each chunk of the stream
  Histograms hist;                   // over every event of the run
  GaugeProfile gauge;                // over the first events of the stream
};

// FILE.h5 -> FILE.csv (other names: NAME.csv beside NAME).
std::string run_output_csv_path(const std::string& h5_path);
// Refuses, before anything runs, an --output that cannot be written: a
// missing or read-only folder, a folder as the name, the CSV clashing with
// --csv, a build without HDF5. Throws driver::UsageError.
void check_run_output_path(const std::string& h5_path, const driver::Options& opts);
// Writes both files through temporaries renamed at the end; on failure
// neither file is left behind (throws std::runtime_error).
void write_run_output(const std::string& h5_path, const RunOutput& out);

}  // namespace tessera::gluon
