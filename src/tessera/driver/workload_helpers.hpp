#pragma once
// What every workload's configure() repeats: named sizes, a choice among
// words, precision by name and the dispatch of a templated body over it.
#include "tessera/driver/options.hpp"

#include <Kokkos_Complex.hpp>

#include <string>
#include <utility>
#include <vector>

namespace tessera::driver {

// A size by name ("S") or given literally: returns the value the name stands
// for, or the option's text when it names none (the workload parses that).
struct NamedSize {
  std::string name, value;
};
std::string get_named_size(const Options& opts, const std::string& option, const std::vector<NamedSize>& sizes,
                           const std::string& fallback);

// The option's value, which must be one of `choices` (UsageError listing them).
std::string get_choice(const Options& opts, const std::string& option, const std::vector<std::string>& choices,
                       const std::string& fallback);

// Storage type, and for reductions the accumulation type: float/float,
// double/double, float storage with double sums, complex<double>.
enum class Precision { f32, f64, mixed, c64 };
const char* precision_name(Precision p);  // "float", "double", "mixed", "complex"
// --option among the allowed precisions (by their names).
Precision get_precision(const Options& opts, const std::string& option, const std::vector<Precision>& allowed,
                        Precision fallback);

template <class Storage, class Accum = Storage>
struct Types {
  using storage = Storage;
  using accum = Accum;
};
// f(Types<S, A>{}) for the precision's types. dispatch_real: float, double
// and mixed (complex is a UsageError); dispatch_precision: complex as well.
// Every listed branch is instantiated, so the body must compile for each.
template <class F>
decltype(auto) dispatch_real(Precision p, F&& f) {
  switch (p) {
    case Precision::f32: return f(Types<float>{});
    case Precision::mixed: return f(Types<float, double>{});
    case Precision::c64: throw UsageError("complex precision is not offered here");
    case Precision::f64: break;
  }
  return f(Types<double>{});
}
template <class F>
decltype(auto) dispatch_precision(Precision p, F&& f) {
  if (p == Precision::c64) return f(Types<Kokkos::complex<double>>{});
  return dispatch_real(p, std::forward<F>(f));
}

}  // namespace tessera::driver
