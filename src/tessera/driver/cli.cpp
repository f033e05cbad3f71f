#include "tessera/driver/cli.hpp"

#include "tessera/config.hpp"
#include "tessera/core/build_info.hpp"
#include "tessera/core/exec_space.hpp"
#include "tessera/driver/mpi_session.hpp"
#include "tessera/driver/platform.hpp"
#include "tessera/driver/runner.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <iostream>
#include <sstream>

namespace tessera::driver {
namespace {

const char* kUsage =
    "tessera: performance-portable GPU workloads (Kokkos + native CUDA)\n"
    "\n"
    "usage: tessera <command> [options]\n"
    "  list                        workloads, their variants and which can run here\n"
    "  run <workload> [options]    run one variant and print its results\n"
    "  compare <workload> [opts]   run every available variant on the same inputs, one table\n"
    "  help [run|compare] [workload]\n"
    "\n"
    "`tessera run <workload> --help` lists a workload's options and variants.\n"
    "Kokkos options (--kokkos-threads=N, --kokkos-device-id=N, ...) go to Kokkos::initialize.\n";

std::vector<OptionSpec> driver_options(Command::Kind kind) {
  std::vector<OptionSpec> o;
  if (kind == Command::Kind::run)
    o.push_back({"variant", "NAME", "", "variant to run (default: native-cuda, else the first GPU variant, else "
                                        "the first multicore CPU one)"});
  else
    o.push_back({"variants", "LIST", "", "comma-separated variants (default: all available here)"});
  o.push_back({"repeats", "N", "10", "timed repeats; the median is reported"});
  o.push_back({"warmup", "N", "2", "untimed warm-up runs"});
  o.push_back({"seed", "N", "1", "seed of the random inputs"});
  if (kind == Command::Kind::compare)
    o.push_back({"baseline", "NAME", "", "variant the speed-up is against (default: the fastest on the multicore CPU)"});
  o.push_back({"csv", "FILE", "", "also write the results as CSV"});
  o.push_back({"json", "FILE", "", "also write the results as JSON"});
  o.push_back({"h5", "FILE", "", "also write the results as HDF5"});
  o.push_back({"quiet", "", "", "no progress lines"});
  o.push_back({"no-roofline", "", "", "skip the STREAM calibration (no % of roofline column)"});
  o.push_back({"help", "", "", "this help"});
  return o;
}

std::string command_help(Command::Kind kind, const Workload* w) {
  std::ostringstream s;
  const char* name = kind == Command::Kind::run ? "run" : "compare";
  s << "usage: tessera " << name << " <workload> [options]\n";
  if (kind == Command::Kind::run)
    s << "Runs one variant of a workload, validates it against the reference and prints its results.\n";
  else
    s << "Runs every variant available here on the same inputs, validates each against the reference\n"
         "and prints one table: time, GB/s, GFLOP/s, % of the measured roofline, speed-up.\n";
  s << "\noptions:\n" << format_options_help(driver_options(kind));
  if (w) {
    s << "\n" << w->name() << ": " << w->description() << "\n" << format_options_help(w->options());
    s << "variants:\n";
    for (const auto& v : w->variants())
      s << "  " << v.name << std::string(v.name.size() < 20 ? 20 - v.name.size() : 1, ' ') << "["
        << platform_id(v.platform) << "] " << v.description << "\n";
  } else {
    s << "\nworkloads:";
    for (const auto& e : workloads()) s << " " << e.name;
    s << "\n";
  }
  return s.str();
}

}  // namespace

Command parse_command_line(const std::vector<std::string>& args) {
  Command cmd;
  if (args.empty()) throw UsageError("no command given (tessera list | run | compare | help)");
  const std::string& c = args[0];
  if (c == "help" || c == "--help" || c == "-h") {
    cmd.kind = Command::Kind::help;
    if (args.size() >= 2 && (args[1] == "run" || args[1] == "compare")) {
      auto kind = args[1] == "run" ? Command::Kind::run : Command::Kind::compare;
      auto w = args.size() >= 3 ? make_workload(args[2]) : nullptr;
      cmd.help_text = command_help(kind, w.get());
    } else if (args.size() >= 2) {
      throw UsageError("no help on '" + args[1] + "' (try: tessera help run)");
    } else {
      cmd.help_text = kUsage;
    }
    return cmd;
  }
  if (c == "list") {
    if (args.size() > 1) throw UsageError("'tessera list' takes no arguments");
    cmd.kind = Command::Kind::list;
    return cmd;
  }
  if (c != "run" && c != "compare") throw UsageError("unknown command '" + c + "' (tessera list | run | compare | help)");
  cmd.kind = c == "run" ? Command::Kind::run : Command::Kind::compare;
  std::vector<std::string> rest(args.begin() + 1, args.end());
  const bool wants_help = std::find(rest.begin(), rest.end(), "--help") != rest.end() ||
                          std::find(rest.begin(), rest.end(), "-h") != rest.end();
  if (rest.empty() || rest[0].rfind("-", 0) == 0) {
    if (wants_help) {
      cmd.kind = Command::Kind::help;
      cmd.help_text = command_help(c == "run" ? Command::Kind::run : Command::Kind::compare, nullptr);
      return cmd;
    }
    throw UsageError("'tessera " + c + "' needs a workload (see tessera list)");
  }
  cmd.workload = rest[0];
  auto w = make_workload(cmd.workload);
  if (wants_help) {
    cmd.help_text = command_help(cmd.kind, w.get());
    cmd.kind = Command::Kind::help;
    return cmd;
  }
  auto specs = driver_options(cmd.kind);
  const auto wspecs = w->options();
  specs.insert(specs.end(), wspecs.begin(), wspecs.end());
  cmd.options = parse_options({rest.begin() + 1, rest.end()}, specs, "tessera " + c + " " + cmd.workload);
  // Validate everything now, before Kokkos starts or anything is allocated.
  cmd.options.get_int("repeats", 10, 1, 100000);
  cmd.options.get_int("warmup", 2, 0, 10000);
  cmd.options.get_int("seed", 1, 0, (1LL << 62));
  for (const char* f : {"csv", "json", "h5"})
    if (cmd.options.has(f)) check_output_path(cmd.options.get(f));
#if !TESSERA_HAS_HDF5
  if (cmd.options.has("h5")) throw UsageError("--h5: this Tessera build has no HDF5 (TESSERA_ENABLE_HDF5)");
#endif
  if (cmd.kind == Command::Kind::compare)
    for (const char* f : {"output", "checkpoint-every", "restart"})
      if (cmd.options.has(f))
        throw UsageError(std::string("--") + f + " goes with 'tessera run' (one variant, one state file)");
  w->configure(cmd.options);
  cmd.configured = std::move(w);
  return cmd;
}

int execute(const Command& cmd, std::ostream& out, std::ostream& progress) {
  switch (cmd.kind) {
    case Command::Kind::help: out << cmd.help_text; return 0;
    case Command::Kind::list: {
      out << "workloads and variants ([platform], * = can run here):\n";
      for (const auto& e : workloads()) {
        auto w = e.make();
        out << "  " << e.name << ": " << e.description << "\n";
        for (const auto& v : w->variants())
          out << "    " << (platform_available(v.platform) ? "* " : "  ") << v.name
              << std::string(v.name.size() < 20 ? 20 - v.name.size() : 1, ' ') << "[" << platform_id(v.platform)
              << "] " << v.description << "\n";
      }
      return 0;
    }
    case Command::Kind::run:
    case Command::Kind::compare: break;
  }
  if (!cmd.configured) throw UsageError("'" + cmd.workload + "': no configured workload (parse the command first)");
  Workload* w = cmd.configured.get();
  CompareRequest req;
  req.settings.repeats = int(cmd.options.get_int("repeats", 10, 1, 100000));
  req.settings.warmup = int(cmd.options.get_int("warmup", 2, 0, 10000));
  req.seed = std::uint64_t(cmd.options.get_int("seed", 1, 0, (1LL << 62)));
  req.progress = !cmd.options.has("quiet");
  req.roofline = !cmd.options.has("no-roofline");
  if (cmd.kind == Command::Kind::run) {
    std::string v = cmd.options.get("variant");
    if (v.empty()) {
      // native-cuda, else the first Kokkos variant on the GPU, else on the
      // multicore CPU, else the serial reference.
      const auto here = available_variants(*w);
      auto first = [&](auto pred) {
        auto it = std::find_if(here.begin(), here.end(), pred);
        return it == here.end() ? std::string() : it->name;
      };
      v = first([](const VariantInfo& x) { return x.name == "native-cuda"; });
      if (v.empty()) v = first([](const VariantInfo& x) { return x.platform == Platform::gpu; });
      if (v.empty()) v = first([](const VariantInfo& x) { return x.platform == Platform::cpu; });
      if (v.empty()) v = "serial-reference";
    }
    req.variants = {v};
  } else {
    req.variants = cmd.options.get_list("variants");
    req.baseline = cmd.options.get("baseline");
  }
  const Report report = run_compare(*w, req, progress);
  print_report(report, out);
  if (world_rank() == 0) {  // every rank has the report (validity and times are reduced over ranks)
    if (cmd.options.has("csv")) write_csv(report, cmd.options.get("csv"));
    if (cmd.options.has("json")) write_json(report, cmd.options.get("json"));
    if (cmd.options.has("h5")) write_hdf5(report, cmd.options.get("h5"));
  }
  return report.all_valid() ? 0 : 1;
}

namespace {
// Where ranks other than 0 print their tables and progress.
struct NullBuffer : std::streambuf {
  int overflow(int c) override { return c; }
};
}  // namespace

int tessera_main(int argc, char** argv) {
  // Under an MPI launcher every rank runs the same command on its part of
  // the problem; rank 0 prints and writes the result files.
  MpiSession mpi;
  const int rank = world_rank(), ranks = world_size();
  NullBuffer null_buffer;
  std::ostream null_stream(&null_buffer);
  std::ostream& out = rank == 0 ? std::cout : null_stream;
  std::ostream& progress = rank == 0 ? std::cerr : null_stream;
  Command cmd;
  try {
    cmd = parse_command_line(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const UsageError& e) {
    // Every rank reaches the same verdict on the same command line.
    if (rank == 0) std::cerr << "tessera: error: " << e.what() << "\n";
    return 2;
  }
  if (cmd.kind == Command::Kind::help || cmd.kind == Command::Kind::list) return execute(cmd, out, progress);
  std::vector<std::string> kokkos_args(argv, argv + argc);
#if defined(KOKKOS_ENABLE_CUDA)
  const int devices = cuda_device_count();
  if (devices == 0) {
    std::cerr << "tessera: error: this build uses Kokkos' Cuda backend and no CUDA device is visible; "
                 "build the host flavour (cmake/build.sh --flavour host) to run on CPUs\n";
    return 1;
  }
  // One GPU per rank of a node, unless the command line picks one.
  const bool picked = std::any_of(kokkos_args.begin(), kokkos_args.end(), [](const std::string& a) {
    return a.rfind("--kokkos-device-id", 0) == 0 || a.rfind("--kokkos-num-devices", 0) == 0;
  });
  if (ranks > 1 && !picked) kokkos_args.push_back("--kokkos-device-id=" + std::to_string(mpi.local_rank() % devices));
#endif
  std::vector<char*> kargv;
  for (auto& a : kokkos_args) kargv.push_back(a.data());
  int kargc = int(kargv.size());
  kargv.push_back(nullptr);
  Kokkos::ScopeGuard kokkos(kargc, kargv.data());
  auto fail = [&](const char* what, const std::exception& e, int code) {
    std::cerr << "tessera: " << what << (ranks > 1 ? " (rank " + std::to_string(rank) + ")" : "") << ": "
              << e.what() << "\n";
    // The other ranks may be waiting for this one: end them all.
    if (ranks > 1) mpi.abort(code);
    return code;
  };
  try {
    return execute(cmd, out, progress);
  } catch (const UsageError& e) {
    return fail("error", e, 2);
  } catch (const std::exception& e) {
    return fail("failed", e, 1);
  }
}

}  // namespace tessera::driver
