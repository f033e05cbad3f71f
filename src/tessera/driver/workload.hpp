#pragma once
// The workload/variant interface of the driver (RAJAPerf/BabelStream shape).
// A workload owns its problem (sizes, inputs, reference result); each variant
// is one implementation on one platform. The runner calls configure() once,
// prepare() once, then run() per variant on the same inputs; run() validates
// its own outputs against the reference and reports per-kernel results.
#include "tessera/core/timer.hpp"
#include "tessera/driver/options.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tessera::driver {

// Where a variant runs. The measured roofline is kept per platform.
enum class Platform { cpu1, cpu, gpu };
const char* platform_id(Platform p);  // "cpu-1", "cpu", "gpu"

struct VariantInfo {
  std::string name;  // "serial-reference", "kokkos@OpenMP", "native-cuda", ...
  Platform platform;
  std::string description;
};

struct RunSettings {
  int warmup = 2;
  int repeats = 10;
};

struct KernelResult {
  std::string kernel;    // "copy", "triad", ...
  bool ran = false;      // false: the variant has no such kernel (row shows n/a)
  TimingStats time;      // seconds, device-timed
  double bytes = 0;      // bytes moved per call by the workload's convention
  double flops = 0;      // flops per call
  bool valid = false;    // matched the reference
  double error = 0;      // the error measure that was checked
  double tolerance = 0;  // what it was checked against
  std::string note;
};

// Bytes a run needs resident, per memory (checked before anything is allocated).
struct MemoryNeed {
  double host_bytes = 0;
  double device_bytes = 0;
};

class Workload {
 public:
  virtual ~Workload() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  virtual std::vector<OptionSpec> options() const = 0;
  virtual std::vector<VariantInfo> variants() const = 0;  // those compiled in
  // Reads the workload's options; throws UsageError on bad values.
  virtual void configure(const Options& opts) = 0;
  virtual std::string problem_summary() const = 0;
  virtual MemoryNeed memory_need() const = 0;
  // Fresh random inputs and the reference results.
  virtual void prepare(std::uint64_t seed) = 0;
  virtual std::vector<KernelResult> run(const std::string& variant, const RunSettings& settings) = 0;
  // Kernels whose bandwidth defines the measured roofline (STREAM only).
  virtual std::vector<std::string> roofline_kernels() const { return {}; }
};

using WorkloadFactory = std::unique_ptr<Workload> (*)();

struct WorkloadEntry {
  std::string name;
  std::string description;
  WorkloadFactory make;
};

// All workloads, in the order `tessera list` prints them.
const std::vector<WorkloadEntry>& workloads();
std::unique_ptr<Workload> make_workload(const std::string& name);  // UsageError if unknown

}  // namespace tessera::driver
