#pragma once
// Command-line options of the driver and the workloads: declared as specs,
// parsed strictly (unknown option, missing or malformed value -> UsageError,
// which the CLI turns into a one-line message and exit code 2).
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace tessera::driver {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct OptionSpec {
  std::string name;           // without the leading "--"
  std::string value_name;     // empty for a flag
  std::string default_value;  // shown in --help; empty: none
  std::string help;
};

class Options {
 public:
  bool has(const std::string& name) const { return values_.count(name) != 0; }
  // Value given on the command line, else the spec's default, else fallback.
  std::string get(const std::string& name, const std::string& fallback = "") const;
  long long get_int(const std::string& name, long long fallback, long long min, long long max) const;
  // An unsigned 64-bit integer (seeds): decimal or 0x hexadecimal.
  std::uint64_t get_uint64(const std::string& name, std::uint64_t fallback) const;
  // A count that may be written 1e8 or 100000000 (must be whole).
  long long get_count(const std::string& name, long long fallback, long long min, long long max) const;
  double get_double(const std::string& name, double fallback, double min, double max) const;
  std::vector<std::string> get_list(const std::string& name, const std::string& fallback = "") const;
  void set(const std::string& name, const std::string& value) { values_[name] = value; }
  void set_defaults(const std::vector<OptionSpec>& specs);

 private:
  std::map<std::string, std::string> values_;
  std::map<std::string, std::string> defaults_;
};

// Parses "--name value", "--name=value" and flags. Arguments starting with
// "--kokkos-" belong to Kokkos::initialize and are skipped. An option given
// twice is an error. `context` names the command in error messages.
Options parse_options(const std::vector<std::string>& args, const std::vector<OptionSpec>& specs,
                      const std::string& context);

// Help lines wrapped to 100 columns.
std::string format_options_help(const std::vector<OptionSpec>& specs);
// Words of text wrapped to width columns, continuation lines indented.
std::string wrap_text(const std::string& text, std::size_t indent, std::size_t first_column, std::size_t width);

std::vector<std::string> split_list(const std::string& s);

}  // namespace tessera::driver
