// Compares sigma, its error and the accepted events of two `tessera run gluon
// --json` files (one MPI rank against several): exit 0 when sigma agrees to
// the relative tolerance, the error to 1e3 times it, the counts exactly.
// usage: gluon_same_sigma A.json B.json TOLERANCE
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: gluon_same_sigma A.json B.json TOLERANCE\n");
    return 2;
  }
  nlohmann::json o[2];
  for (int i = 0; i < 2; ++i) {
    std::ifstream f(argv[1 + i]);
    if (!f) {
      std::fprintf(stderr, "cannot read %s\n", argv[1 + i]);
      return 2;
    }
    o[i] = nlohmann::json::parse(f)["results"][0]["observables"];
  }
  const double tol = std::atof(argv[3]);
  auto rel = [&](const char* name, const char* field) {
    const double a = o[0][name][field].get<double>(), b = o[1][name][field].get<double>();
    std::printf("%s %s: %.17g and %.17g\n", name, field, a, b);
    return std::abs(a - b) / std::max(std::abs(a), 1e-300);
  };
  const double ds = rel("sigma", "value"), de = rel("sigma", "error");
  const double da = rel("events_accepted", "value"), dg = rel("events_generated", "value");
  std::printf("relative differences: sigma %.3g, error %.3g\n", ds, de);
  const bool ok = ds <= tol && de <= 1e3 * tol && da == 0 && dg == 0 && o[0]["sigma"]["value"].get<double>() > 0;
  std::printf("%s\n", ok ? "same sigma" : "DIFFERENT");
  return ok ? 0 : 1;
}
