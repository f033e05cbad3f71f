#pragma once
// Charts drawn by Debian's python3-matplotlib in a child process (nothing
// links it; the CSV is the interface).
#include <string>

namespace tessera::driver {

// python3 with matplotlib runs here.
bool plotting_available();

// A sweep's CSV (write_sweep_csv) as % of the ceiling per point and variant:
// lines against the point when every label is a number, else bars per point.
// Written through a temporary file; throws std::runtime_error on failure.
void plot_sweep(const std::string& csv, const std::string& png, const std::string& title, const std::string& axis);

}  // namespace tessera::driver
