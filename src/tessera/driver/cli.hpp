#pragma once
// The `tessera` command line: parsing (no Kokkos needed, so bad input fails
// fast with exit code 2) and execution (after Kokkos::initialize).
#include "tessera/driver/options.hpp"
#include "tessera/driver/workload.hpp"

#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

namespace tessera::driver {

struct Command {
  enum class Kind { help, version, list, run, compare, tune, demo } kind = Kind::help;
  std::string help_text;  // for Kind::help
  std::string workload;
  Options options;        // driver and workload options together
  std::shared_ptr<Workload> configured;  // for run, compare and tune: configured from options
};

// args excludes the program name. Throws UsageError.
Command parse_command_line(const std::vector<std::string>& args);

// Runs a parsed command; Kokkos must be initialised for run, compare, tune
// and demo. Returns the exit code: 0, or 1 when a result failed validation.
int execute(const Command& cmd, std::ostream& out, std::ostream& progress);

// The arguments Kokkos::initialize gets: the --kokkos-* ones, checked
// (UsageError for a malformed value) and spelled for this Kokkos version
// (--kokkos-num-threads and --kokkos-threads both accepted).
std::vector<std::string> kokkos_arguments(const std::vector<std::string>& args);

// The whole program: parse, initialise Kokkos (passing argc/argv on), execute.
int tessera_main(int argc, char** argv);

}  // namespace tessera::driver
