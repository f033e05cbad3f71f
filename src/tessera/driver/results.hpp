#pragma once
// A comparison run's results: one row per (kernel, variant), with the derived
// rates, the measured roofline per platform and the context (hardware, build)
// needed to read them. Printed as a table; written as CSV, JSON or HDF5, each
// through a temporary file renamed into place (no half-written outputs).
#include "tessera/driver/workload.hpp"

#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace tessera::driver {

struct Row {
  std::string kernel;
  std::string variant;
  Platform platform;
  KernelResult result;
  double gbs = 0;       // bytes / median time
  double gflops = 0;    // flops / median time
  double roof_pct = 0;  // gbs / the platform's measured roofline, in %
  double speedup = 0;   // baseline median / this median (same kernel); 0: none
};

struct Report {
  std::string workload;
  std::string problem;
  RunSettings settings;
  std::uint64_t seed = 0;
  std::string baseline;                        // variant the speed-up is against
  std::map<std::string, double> roofline_gbs;  // platform id -> GB/s
  std::string roofline_source;                 // how the roofline was measured
  std::map<std::string, std::string> hardware; // platform id -> description
  std::vector<Row> rows;
  bool all_valid() const;
};

void print_report(const Report& r, std::ostream& out);
void write_csv(const Report& r, const std::string& path);
void write_json(const Report& r, const std::string& path);
void write_hdf5(const Report& r, const std::string& path);  // UsageError without HDF5

// Writes via path + ".tmp" and renames; removes the temporary on failure.
void write_file_atomically(const std::string& path, const std::string& contents);
// Throws UsageError if the output's folder does not exist or is not writable.
void check_output_path(const std::string& path);

}  // namespace tessera::driver
