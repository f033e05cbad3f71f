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
  enum class Kind { help, list, run, compare } kind = Kind::help;
  std::string help_text;  // for Kind::help
  std::string workload;
  Options options;        // driver and workload options together
  std::shared_ptr<Workload> configured;  // for run and compare: configured from options
};

// args excludes the program name. Throws UsageError.
Command parse_command_line(const std::vector<std::string>& args);

// Runs a parsed command; Kokkos must be initialised for run and compare.
// Returns the exit code: 0, or 1 when a result failed validation.
int execute(const Command& cmd, std::ostream& out, std::ostream& progress);

// The whole program: parse, initialise Kokkos (passing argc/argv on), execute.
int tessera_main(int argc, char** argv);

}  // namespace tessera::driver
