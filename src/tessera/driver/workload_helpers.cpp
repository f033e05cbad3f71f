#include "tessera/driver/workload_helpers.hpp"

#include <algorithm>

namespace tessera::driver {

namespace {
// "a", "a or b", "a, b or c".
std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i == 0 ? "" : i + 1 == v.size() ? " or " : ", ") + v[i];
  return s;
}
}  // namespace

std::string get_named_size(const Options& opts, const std::string& option, const std::vector<NamedSize>& sizes,
                           const std::string& fallback) {
  const std::string v = opts.get(option, fallback);
  for (const auto& s : sizes)
    if (s.name == v) return s.value;
  return v;
}

std::string get_choice(const Options& opts, const std::string& option, const std::vector<std::string>& choices,
                       const std::string& fallback) {
  const std::string v = opts.get(option, fallback);
  if (std::find(choices.begin(), choices.end(), v) == choices.end())
    throw UsageError("--" + option + " expects " + join(choices) + ", got '" + v + "'");
  return v;
}

const char* precision_name(Precision p) {
  switch (p) {
    case Precision::f32: return "float";
    case Precision::f64: return "double";
    case Precision::mixed: return "mixed";
    case Precision::c64: return "complex";
  }
  return "?";
}

Precision get_precision(const Options& opts, const std::string& option, const std::vector<Precision>& allowed,
                        Precision fallback) {
  std::vector<std::string> names;
  for (Precision p : allowed) names.push_back(precision_name(p));
  const std::string v = get_choice(opts, option, names, precision_name(fallback));
  for (Precision p : allowed)
    if (v == precision_name(p)) return p;
  return fallback;
}

}  // namespace tessera::driver
