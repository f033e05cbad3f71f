#include "tessera/driver/options.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace tessera::driver {

namespace {
std::string format_number(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}
}  // namespace

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream in(s);
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

void Options::set_defaults(const std::vector<OptionSpec>& specs) {
  for (const auto& s : specs)
    if (!s.default_value.empty()) defaults_[s.name] = s.default_value;
}

std::string Options::get(const std::string& name, const std::string& fallback) const {
  if (auto it = values_.find(name); it != values_.end()) return it->second;
  if (auto it = defaults_.find(name); it != defaults_.end()) return it->second;
  return fallback;
}

long long Options::get_int(const std::string& name, long long fallback, long long min, long long max) const {
  const std::string v = get(name);
  if (v.empty()) return fallback;
  errno = 0;
  char* end = nullptr;
  const long long x = std::strtoll(v.c_str(), &end, 10);
  if (errno != 0 || end == v.c_str() || *end != '\0')
    throw UsageError("--" + name + " expects a whole number, got '" + v + "'");
  if (x < min || x > max)
    throw UsageError("--" + name + " must be between " + std::to_string(min) + " and " + std::to_string(max) +
                     ", got " + v);
  return x;
}

std::uint64_t Options::get_uint64(const std::string& name, std::uint64_t fallback) const {
  const std::string v = get(name);
  if (v.empty()) return fallback;
  errno = 0;
  char* end = nullptr;
  const unsigned long long x = std::strtoull(v.c_str(), &end, 0);
  if (errno != 0 || end == v.c_str() || *end != '\0' || v[0] == '-')
    throw UsageError("--" + name + " expects an unsigned 64-bit integer, got '" + v + "'");
  return std::uint64_t(x);
}

double Options::get_double(const std::string& name, double fallback, double min, double max) const {
  const std::string v = get(name);
  if (v.empty()) return fallback;
  errno = 0;
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (errno != 0 || end == v.c_str() || *end != '\0' || !std::isfinite(x))
    throw UsageError("--" + name + " expects a number, got '" + v + "'");
  if (x < min || x > max)
    throw UsageError("--" + name + " must be between " + format_number(min) + " and " + format_number(max) +
                     ", got " + v);
  return x;
}

long long Options::get_count(const std::string& name, long long fallback, long long min, long long max) const {
  const std::string v = get(name);
  if (v.empty()) return fallback;
  if (v.find_first_of("eE.") == std::string::npos) return get_int(name, fallback, min, max);
  const double x = get_double(name, double(fallback), double(min), double(max));
  if (x != std::floor(x)) throw UsageError("--" + name + " expects a whole number, got '" + v + "'");
  return static_cast<long long>(x);
}

std::vector<std::string> Options::get_list(const std::string& name, const std::string& fallback) const {
  return split_list(get(name, fallback));
}

Options parse_options(const std::vector<std::string>& args, const std::vector<OptionSpec>& specs,
                      const std::string& context) {
  Options opts;
  opts.set_defaults(specs);
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg.rfind("--kokkos-", 0) == 0) continue;
    if (arg.rfind("--", 0) != 0 || arg.size() == 2)
      throw UsageError("unexpected argument '" + arg + "' for '" + context + "' (see --help)");
    std::string name = arg.substr(2), value;
    bool has_value = false;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_value = true;
    }
    auto spec = std::find_if(specs.begin(), specs.end(), [&](const OptionSpec& s) { return s.name == name; });
    if (spec == specs.end())
      throw UsageError("unknown option '--" + name + "' for '" + context + "' (see --help)");
    if (spec->value_name.empty()) {
      if (has_value) throw UsageError("option '--" + name + "' takes no value");
      value = "1";
    } else if (!has_value) {
      if (i + 1 >= args.size() || args[i + 1].rfind("--", 0) == 0)
        throw UsageError("option '--" + name + "' needs a value (" + spec->value_name + ")");
      value = args[++i];
    }
    if (!spec->value_name.empty() && value.empty())
      throw UsageError("option '--" + name + "' needs a non-empty value (" + spec->value_name + ")");
    if (opts.has(name)) throw UsageError("option '--" + name + "' given twice for '" + context + "'");
    opts.set(name, value);
  }
  return opts;
}

std::string wrap_text(const std::string& text, std::size_t indent, std::size_t first_column, std::size_t width) {
  std::ostringstream out;
  std::istringstream words(text);
  std::string word;
  std::size_t column = first_column;
  bool line_start = true;
  while (words >> word) {
    if (!line_start && column + 1 + word.size() > width) {
      out << "\n" << std::string(indent, ' ');
      column = indent;
      line_start = true;
    }
    if (!line_start) {
      out << ' ';
      ++column;
    }
    out << word;
    column += word.size();
    line_start = false;
  }
  return out.str();
}

std::string format_options_help(const std::vector<OptionSpec>& specs) {
  constexpr std::size_t kColumn = 28, kWidth = 100;
  std::ostringstream out;
  for (const auto& s : specs) {
    std::string left = "  --" + s.name + (s.value_name.empty() ? "" : " " + s.value_name);
    std::string text = s.help + (s.default_value.empty() ? "" : " (default " + s.default_value + ")");
    if (left.size() + 1 > kColumn) {  // a long option name gets a line of its own
      out << left << "\n" << std::string(kColumn, ' ');
    } else {
      out << left << std::string(kColumn - left.size(), ' ');
    }
    out << wrap_text(text, kColumn, kColumn, kWidth) << "\n";
  }
  return out.str();
}

}  // namespace tessera::driver
