#pragma once
// A run's results: one row per (kernel, variant), with the derived rates, the
// ceiling each row is measured against, the problem's parameters, the
// observables and the context (hardware, build, ceilings per platform)
// needed to read them. One schema feeds the printed table and the CSV, JSON
// and HDF5 files, each written through a temporary file renamed into place
// (no half-written outputs).
#include "tessera/driver/ceilings.hpp"
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
  bool portable = false, native = false;
  KernelResult result;
  double gbs = 0;       // bytes / median time
  double gflops = 0;    // flops / median time
  RowCeiling ceiling;   // what it is measured against; efficiency in [0, 1+]
  double roof_pct = 0;  // 100 * ceiling.efficiency
  double speedup = 0;   // baseline median / this median (same kernel); 0: none
};

// Pennycook-Sewall-Lee performance portability of one kernel: the harmonic
// mean of the best efficiency per platform, 0 when a platform has none.
struct Portability {
  std::map<std::string, double> portable_efficiency;  // platform id -> best portable efficiency
  double portable = 0;
  std::map<std::string, double> native_efficiency;
  double native = 0;  // over the platforms with native variants; -1: none
};

struct Report {
  std::string command = "compare";  // "run" or "compare"
  std::string workload;
  std::string problem;
  std::vector<Parameter> parameters;
  RunSettings settings;
  std::uint64_t seed = 0;
  std::string baseline;                          // variant the speed-up is against
  std::map<std::string, Ceilings> ceilings;      // platform id -> ceilings
  std::string ceilings_note;                     // why there are none, or how they were had
  std::map<std::string, std::string> hardware;   // platform id -> description
  std::vector<Row> rows;
  std::map<std::string, Portability> portability;  // kernel -> metric
  bool all_valid() const;
};

void print_report(const Report& r, std::ostream& out);

// A sweep (`compare <workload> --sweep`): one report per problem, labelled
// ("8", "3x17"). The CSV has a leading `point` column and every row of every
// point; the JSON is {"sweep": [{"point", "report"}, ...]}.
struct SweepPoint {
  std::string label;
  Report report;
};
void print_sweep_point(const SweepPoint& p, bool header, std::ostream& out);
void write_sweep_csv(const std::vector<SweepPoint>& sweep, const std::string& path);
void write_sweep_json(const std::vector<SweepPoint>& sweep, const std::string& path);
void write_csv(const Report& r, const std::string& path);
void write_json(const Report& r, const std::string& path);
void write_hdf5(const Report& r, const std::string& path);  // UsageError without HDF5
std::string report_json(const Report& r);                  // what write_json writes

// Writes via path + ".tmp" and renames; removes the temporary on failure.
void write_file_atomically(const std::string& path, const std::string& contents);
// Throws UsageError if the output's folder does not exist or is not writable.
void check_output_path(const std::string& path);

// A parameter's value as text ("64x64x128", "10", "0.5").
std::string parameter_text(const Parameter& p);
// An observable as the report prints it ("sigma = 7.9191e+07 +- 4.3e+05 pb").
std::string observable_text(const Observable& o);

}  // namespace tessera::driver
