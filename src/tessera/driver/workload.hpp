#pragma once
// The workload/variant interface of the driver (RAJAPerf/BabelStream shape).
// A workload owns its problem (sizes, inputs, reference result); each variant
// is one implementation on one platform, declared once in the workload's
// VariantTable with the function that runs it. The runner calls configure()
// once, prepare() once, then each variant's runner on the same inputs; a
// runner validates its own outputs against the reference and reports
// per-kernel results, with the ceiling each is measured against.
#include "tessera/core/timer.hpp"
#include "tessera/driver/options.hpp"
#include "tessera/driver/progress.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace tessera::driver {

// Where a variant runs. Ceilings are measured per platform.
enum class Platform { cpu1, cpu, gpu };
const char* platform_id(Platform p);  // "cpu-1", "cpu", "gpu"

// What a kernel row's "% of ceiling" is taken against.
enum class Bound {
  memory,    // bandwidth b (bytes / time against b)
  compute,   // peak FMA throughput P (flops / time against P)
  roofline,  // min(I b, P) with I = flops / bytes (flops / time against it)
};
enum class Traffic { copy, read };  // which bandwidth ceiling: copy/triad, or a read-only sum
enum class Arith { fp64, fp32 };    // which compute ceiling

// A physical result of a kernel (Himeno's gosa, a cross section ± its error).
struct Observable {
  std::string name;
  double value = 0;
  std::string unit;   // empty: dimensionless
  double error = -1;  // standard error; < 0: none
};

// A field of the problem (grid, iterations, precision, ...), typed for JSON/HDF5.
struct Parameter {
  std::string name;
  std::variant<long long, double, std::string> value;
};

struct RunSettings {
  int warmup = 2;
  int repeats = 10;
  Progress* progress = &Progress::none();  // long runners report through it
  // The driver runs the variant list this many times in alternation and
  // reports the median of the runs' medians: a GPU's timings move by a few %
  // between allocations (runners allocate their operands on each run) and
  // between runs, more than within one run's repeats.
  int rounds = 1;
};

struct KernelResult {
  std::string kernel;    // "copy", "triad", ...
  bool ran = false;      // false: the variant has no such kernel (row shows n/a)
  TimingStats time;      // seconds, device-timed
  double bytes = 0;      // bytes moved per call by the workload's convention
  double flops = 0;      // flops per call
  bool valid = false;    // matched the reference
  bool checked = true;   // false: timed only (a workload's --no-validate); valid is then true
  double error = 0;      // the error measure that was checked
  double tolerance = 0;  // what it was checked against
  std::string note;
  std::vector<Observable> observables;
  Bound bound = Bound::memory;
  Traffic traffic = Traffic::copy;
  Arith arith = Arith::fp64;
  double working_set = 0;  // bytes resident while it runs (cache residency check); 0: bytes
};

// Bytes a run needs resident, per memory (checked before anything is allocated).
struct MemoryNeed {
  double host_bytes = 0;
  double device_bytes = 0;
};

// Runs one variant's kernels on the prepared inputs.
using Runner = std::function<std::vector<KernelResult>(const RunSettings&)>;

struct Variant {
  std::string name;  // "serial-reference", "kokkos-rows@OpenMP", "native-cuda", ...
  Platform platform;
  std::string description;
  Runner run;          // empty: not in this build
  std::string needs;   // what this build lacks for it (when run is empty)
  bool portable = false;  // one Kokkos source on every backend (the portability metric's set)
  bool native = false;    // native kernels of the platform (its own portability line)
  bool in_build() const { return bool(run); }
};

// The Kokkos execution spaces a portable variant is declared for, and the tag
// its runner factory receives (a type only: Kokkos may not be initialised).
template <class ExecSpace>
struct SpaceTag {
  using space = ExecSpace;
};
enum SpaceSet : unsigned { serial = 1, openmp = 2, cuda = 4, host_spaces = 3, all_spaces = 7 };

// The one declaration of a workload's variants: `tessera list`, `run`,
// `compare`, help and the default variant all read it.
class VariantTable {
 public:
  // A variant of this build (run non-empty) or, with an empty run, one this
  // build lacks: `needs` says what is missing ("Kokkos' Cuda backend").
  VariantTable& add(std::string name, Platform platform, std::string description, Runner run,
                    std::string needs = "");
  VariantTable& add_native(std::string name, Platform platform, std::string description, Runner run,
                           std::string needs);
  // "<kind>@<Space>" once per Kokkos space in `spaces`: make_runner(SpaceTag<Space>{})
  // returns the Runner for the spaces this Kokkos has; the others are listed
  // as needing that backend.
  template <class MakeRunner>
  VariantTable& add_portable(const std::string& kind, const std::string& description, MakeRunner&& make_runner,
                             unsigned spaces = all_spaces);
  // The variant `run` picks on a platform: what the public API dispatches to there.
  VariantTable& set_default(Platform platform, std::string name);

  const std::vector<Variant>& all() const { return variants_; }
  const Variant* find(const std::string& name) const;  // nullptr: unknown
  // Of the platforms present, the best (gpu, cpu, cpu-1) that has a default.
  std::string default_variant() const;

 private:
  std::vector<Variant> variants_;
  std::vector<std::pair<Platform, std::string>> defaults_;
};

struct Report;  // results.hpp

class Workload {
 public:
  virtual ~Workload() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  virtual std::vector<OptionSpec> options() const = 0;
  // Reads the workload's options; throws UsageError on bad values.
  virtual void configure(const Options& opts) = 0;
  // The problem in one line, and its fields (the report's parameters).
  virtual std::string problem_summary() const = 0;
  virtual std::vector<Parameter> parameters() const = 0;
  virtual MemoryNeed memory_need() const = 0;
  // Fresh random inputs and the reference results; long ones report progress.
  virtual void prepare(std::uint64_t seed, Progress& progress) = 0;
  // Kernels whose bandwidth is itself the measured ceiling (STREAM only).
  virtual std::vector<std::string> roofline_kernels() const { return {}; }
  // Options of the demo's small side-by-side run (`tessera demo`).
  virtual std::vector<std::string> demo_arguments() const { return {}; }
  // `tessera tune <workload>`: measures candidates on this machine and writes
  // what the library loads at run time. Workloads without tuning keep these.
  virtual std::vector<OptionSpec> tune_options() const { return {}; }
  virtual void tune(const Options& opts, Progress& progress, std::ostream& out);
  // `compare <workload> --sweep`: how many problems the options asked for,
  // run one after the other in one process (0: configure() set up one
  // problem); select_sweep_point(i) makes the i-th the configured one.
  virtual int sweep_size() const { return 0; }
  virtual void select_sweep_point(int) {}
  virtual std::string sweep_label(int i) const { return std::to_string(i + 1); }  // "8", "3x17"
  virtual std::string sweep_axis() const { return "point"; }                       // the chart's x label
  // Tables of the workload's own after the report's table (a paper's layout
  // with its numbers beside ours); most workloads print none.
  virtual void print_summary(const Report& report, std::ostream& out) const {}

  // The variants, declared once (lazily: the runners capture this workload).
  const VariantTable& variants() const;

 protected:
  virtual void declare_variants(VariantTable& table) = 0;

 private:
  mutable std::unique_ptr<VariantTable> table_;
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

// ---------------------------------------------------------------------------

template <class MakeRunner>
VariantTable& VariantTable::add_portable(const std::string& kind, const std::string& description,
                                         MakeRunner&& make_runner, unsigned spaces) {
  auto one = [&](unsigned bit, const char* space, Platform p, auto tag, bool built) {
    if (!(spaces & bit)) return;
    Variant v{kind + "@" + space, p, description + ", " + space + " backend", {}, {}, true, false};
    if constexpr (!std::is_same_v<decltype(tag), std::nullptr_t>) v.run = make_runner(tag);
    if (!built) v.needs = std::string("Kokkos' ") + space + " backend";
    variants_.push_back(std::move(v));
  };
#if defined(KOKKOS_ENABLE_SERIAL)
  one(serial, "Serial", Platform::cpu1, SpaceTag<Kokkos::Serial>(), true);
#else
  one(serial, "Serial", Platform::cpu1, nullptr, false);
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
  one(openmp, "OpenMP", Platform::cpu, SpaceTag<Kokkos::OpenMP>(), true);
#else
  one(openmp, "OpenMP", Platform::cpu, nullptr, false);
#endif
#if defined(KOKKOS_ENABLE_CUDA)
  one(cuda, "Cuda", Platform::gpu, SpaceTag<Kokkos::Cuda>(), true);
#else
  one(cuda, "Cuda", Platform::gpu, nullptr, false);
#endif
  return *this;
}

}  // namespace tessera::driver
