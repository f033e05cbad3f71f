#include "tessera/himeno/workload/himeno_state_files.hpp"

#include "tessera/driver/results.hpp"

namespace tessera::himeno::workload {

using driver::UsageError;

StateFiles read_state_file_options(const driver::Options& opts, const RunIdentity& run) {
  StateFiles f;
  f.output = opts.get("output");
  f.restart = opts.get("restart");
  if (opts.has("checkpoint-every")) {
    if (f.output.empty()) throw UsageError("--checkpoint-every needs --output (the file the state is written to)");
    f.checkpoint_every = int(opts.get_int("checkpoint-every", 0, 1, 1000000));
  }
  if (f.output.empty() && f.restart.empty()) return f;
#if TESSERA_HAS_HDF5
  if (!f.output.empty()) driver::check_output_path(f.output);
  if (f.restart.empty()) return f;
  CheckpointInfo info;
  try {
    info = read_checkpoint_info(f.restart);
  } catch (const CheckpointError& e) {
    throw UsageError(std::string("--restart: ") + e.what());
  }
  auto mismatch = [&](const std::string& what, const std::string& file, const std::string& here) {
    return UsageError("--restart: '" + f.restart + "' holds " + what + " " + file + ", this run has " + here);
  };
  if (info.grid.imax != run.grid.imax || info.grid.jmax != run.grid.jmax || info.grid.kmax != run.grid.kmax)
    throw mismatch("grid", info.grid.str(), run.grid.str());
  if (info.precision != run.precision) throw mismatch("precision", info.precision, run.precision);
  if (info.init != run.init) throw mismatch("init", info.init, run.init);
  if (run.init == "random" && info.seed != run.seed)
    throw mismatch("seed", std::to_string(info.seed), std::to_string(run.seed));
  if (info.sweeps >= run.iters)
    throw UsageError("--restart: '" + f.restart + "' is at sweep " + std::to_string(info.sweeps) + "; --iters " +
                     std::to_string(run.iters) + " leaves nothing to run");
  f.restart_info = std::move(info);
  return f;
#else
  throw UsageError("--output/--restart: this Tessera build has no HDF5 (TESSERA_ENABLE_HDF5)");
#endif
}

}  // namespace tessera::himeno::workload
