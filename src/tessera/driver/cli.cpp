#include "tessera/driver/cli.hpp"

#include "tessera/config.hpp"
#include "tessera/core/build_info.hpp"
#include "tessera/core/exec_space.hpp"
#include "tessera/driver/mpi_session.hpp"
#include "tessera/driver/plot.hpp"
#include "tessera/driver/platform.hpp"
#include "tessera/driver/progress_stream.hpp"
#include "tessera/driver/runner.hpp"

#include <Kokkos_Core.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>

namespace tessera::driver {
namespace {

const char* kUsage =
    "tessera: performance-portable GPU workloads (Kokkos + native CUDA)\n"
    "\n"
    "usage: tessera <command> [options]\n"
    "  list                        workloads, their variants and which can run here\n"
    "  run <workload> [options]    run one variant (by default the library's choice) and print it\n"
    "  compare <workload> [opts]   run every available variant on the same inputs, one table\n"
    "  tune <workload> [options]   measure tuning candidates here and write the table the library loads\n"
    "  demo [--out DIR]            a small side-by-side comparison of every workload\n"
    "  help [run|compare|tune] [workload]\n"
    "  --version                   version and build\n"
    "\n"
    "`tessera run <workload> --help` lists a workload's options and variants.\n"
    "Kokkos options (--kokkos-threads=N or --kokkos-num-threads=N, --kokkos-device-id=N) go to\n"
    "Kokkos::initialize.\n";

const char* kind_name(Command::Kind k) {
  switch (k) {
    case Command::Kind::run: return "run";
    case Command::Kind::compare: return "compare";
    case Command::Kind::tune: return "tune";
    case Command::Kind::demo: return "demo";
    default: return "";
  }
}

std::vector<OptionSpec> driver_options(Command::Kind kind) {
  std::vector<OptionSpec> o;
  if (kind == Command::Kind::tune) {
    o.push_back({"quiet", "", "", "no progress lines"});
    o.push_back({"help", "", "", "this help"});
    return o;
  }
  if (kind == Command::Kind::run)
    o.push_back({"variant", "NAME", "",
                 "variant to run (default: what the library dispatches to on the best platform here)"});
  else
    o.push_back({"variants", "LIST", "", "comma-separated variants (default: all available here)"});
  o.push_back({"repeats", "N", "10", "timed repeats; the median is reported"});
  o.push_back({"warmup", "N", "2", "untimed warm-up runs"});
  o.push_back({"rounds", "N", "1",
               "run the variant list N times in alternation (the runners allocate their operands each time); the "
               "median of the N medians is reported"});
  o.push_back({"seed", "N", "1", "seed of the random inputs (unsigned 64-bit)"});
  if (kind == Command::Kind::compare)
    o.push_back({"baseline", "NAME", "", "variant the speed-up is against (default: the fastest on the multicore CPU)"});
  o.push_back({"csv", "FILE", "", "also write the results as CSV"});
  o.push_back({"json", "FILE", "", "also write the results as JSON"});
  o.push_back({"h5", "FILE", "", "also write the results as HDF5"});
  if (kind == Command::Kind::compare)
    o.push_back({"png", "FILE", "", "with a sweep: % of the ceiling per point and variant (python3-matplotlib)"});
  o.push_back({"quiet", "", "", "no progress lines"});
  if (kind == Command::Kind::run)
    o.push_back({"roofline", "", "",
                 "measure the ceilings (bandwidth, FMA throughput) before printing (default: use cached ones)"});
  else
    o.push_back({"cached-ceilings", "", "", "use the cached ceilings of this host and build instead of measuring"});
  o.push_back({"recalibrate", "", "", "measure the ceilings and renew the cache"});
  o.push_back({"no-roofline", "", "", "no ceilings (no %ceil column)"});
  o.push_back({"help", "", "", "this help"});
  return o;
}

std::string variant_line(const Variant& v, bool mark) {
  std::string s = "  ";
  if (mark) s += v.in_build() && platform_available(v.platform) ? "* " : "  ";
  s += v.name;
  s += std::string(s.size() < 30 ? 30 - s.size() : 1, ' ') + "[" + platform_id(v.platform) + "] ";
  std::string text = v.description;
  if (!v.in_build()) text += " (not in this build: needs " + v.needs + ")";
  return s + wrap_text(text, 8, s.size(), 100) + "\n";
}

std::string command_help(Command::Kind kind, const Workload* w) {
  std::ostringstream s;
  const char* name = kind_name(kind);
  s << "usage: tessera " << name << " <workload> [options]\n";
  if (kind == Command::Kind::run)
    s << "Runs one variant of a workload, validates it against the reference and prints its results.\n";
  else if (kind == Command::Kind::compare)
    s << "Runs every variant available here on the same inputs, validates each against the reference\n"
         "and prints one table: time, GB/s, GFLOP/s, % of the measured ceiling, speed-up.\n";
  else
    s << "Measures a workload's tuning candidates on this machine and writes its tuning table.\n";
  s << "\noptions:\n" << format_options_help(driver_options(kind));
  if (w) {
    s << "\n" << w->name() << ": " << wrap_text(w->description(), 2, w->name().size() + 2, 100) << "\n";
    s << format_options_help(kind == Command::Kind::tune ? w->tune_options() : w->options());
    if (kind != Command::Kind::tune) {
      s << "variants:\n";
      for (const auto& v : w->variants().all()) s << variant_line(v, false);
    }
  } else {
    s << "\nworkloads:";
    for (const auto& e : workloads()) s << " " << e.name;
    s << "\n";
  }
  return s.str();
}

std::string version_text() {
  const auto& b = build_info();
  std::ostringstream s;
  s << "tessera " << b.version << "\n"
    << "Kokkos " << b.kokkos_version << " (" << b.kokkos_devices << (b.kokkos_arch.empty() ? "" : ", " + b.kokkos_arch)
    << ")" << (b.cuda_version.empty() ? "" : ", CUDA " + b.cuda_version) << ", native CUDA "
    << (b.cuda_native ? "on" : "off") << ", MPI " << (b.mpi ? "on" : "off") << ", HDF5 " << (b.hdf5 ? "on" : "off")
    << "\n" << b.build_type << ", " << b.cxx_compiler << "\n";
  return s.str();
}

void check_common(Options& o, Command::Kind kind) {
  if (kind == Command::Kind::tune) return;
  o.get_int("repeats", 10, 1, 100000);
  o.get_int("warmup", 2, 0, 10000);
  o.get_int("rounds", 1, 1, 1000);
  o.get_uint64("seed", 1);
  for (const char* f : {"csv", "json", "h5"})
    if (o.has(f)) check_output_path(o.get(f));
#if !TESSERA_HAS_HDF5
  if (o.has("h5")) throw UsageError("--h5: this Tessera build has no HDF5 (TESSERA_ENABLE_HDF5)");
#endif
  const int ceiling_flags = int(o.has("roofline")) + int(o.has("cached-ceilings")) + int(o.has("recalibrate")) +
                            int(o.has("no-roofline"));
  if (ceiling_flags > 1) throw UsageError("--roofline, --cached-ceilings, --recalibrate and --no-roofline exclude each other");
}

}  // namespace

std::vector<std::string> kokkos_arguments(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (const auto& a : args) {
    if (a.rfind("--kokkos-", 0) != 0) continue;
    const auto eq = a.find('=');
    std::string name = a.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : a.substr(eq + 1);
    if (name == "--kokkos-threads" || name == "--kokkos-num-threads" || name == "--kokkos-device-id" ||
        name == "--kokkos-numa" || name == "--kokkos-num-devices") {
      errno = 0;
      char* end = nullptr;
      const long v = std::strtol(value.c_str(), &end, 10);
      if (value.empty() || errno || *end != '\0' || v < (name == "--kokkos-device-id" ? 0 : 1) || v > 1 << 20)
        throw UsageError(name + " expects a whole number" + (name == "--kokkos-device-id" ? "" : " >= 1") +
                         ", got '" + value + "'");
#if KOKKOS_VERSION < 30700
      if (name == "--kokkos-num-threads") name = "--kokkos-threads";  // Kokkos 3.4's spelling
#endif
      out.push_back(name + "=" + value);
    } else {
      out.push_back(a);
    }
  }
  return out;
}

Command parse_command_line(const std::vector<std::string>& args) {
  Command cmd;
  if (args.empty()) throw UsageError("no command given (tessera list | run | compare | tune | demo | help)");
  kokkos_arguments(args);  // malformed Kokkos options fail here, before anything starts
  const std::string& c = args[0];
  if (c == "--version" || c == "version") {
    if (args.size() > 1) throw UsageError("'tessera --version' takes no arguments");
    cmd.kind = Command::Kind::version;
    cmd.help_text = version_text();
    return cmd;
  }
  if (c == "help" || c == "--help" || c == "-h") {
    cmd.kind = Command::Kind::help;
    if (args.size() >= 2 && (args[1] == "run" || args[1] == "compare" || args[1] == "tune")) {
      auto kind = args[1] == "run" ? Command::Kind::run
                                   : args[1] == "compare" ? Command::Kind::compare : Command::Kind::tune;
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
  if (c == "demo") {
    cmd.kind = Command::Kind::demo;
    cmd.options = parse_options({args.begin() + 1, args.end()},
                                {{"out", "DIR", "", "folder for the CSV and JSON files (default: none)"},
                                 {"workloads", "LIST", "", "comma-separated workloads (default: all)"},
                                 {"quiet", "", "", "no progress lines"}},
                                "tessera demo");
    for (const auto& w : cmd.options.get_list("workloads")) make_workload(w);  // unknown ones: UsageError
    if (cmd.options.has("out")) {
      // The folder is made where missing (as `mkdir -p`), then probed for the files it will hold.
      const std::string dir = cmd.options.get("out");
      std::error_code ec;
      if (!dir.empty()) std::filesystem::create_directories(dir, ec);
      if (ec) throw UsageError("cannot create folder '" + dir + "': " + ec.message());
      check_output_path(dir + "/summary.csv");
    }
    return cmd;
  }
  if (c != "run" && c != "compare" && c != "tune")
    throw UsageError("unknown command '" + c + "' (tessera list | run | compare | tune | demo | help)");
  cmd.kind = c == "run" ? Command::Kind::run : c == "compare" ? Command::Kind::compare : Command::Kind::tune;
  std::vector<std::string> rest(args.begin() + 1, args.end());
  const bool wants_help = std::find(rest.begin(), rest.end(), "--help") != rest.end() ||
                          std::find(rest.begin(), rest.end(), "-h") != rest.end();
  if (rest.empty() || rest[0].rfind("-", 0) == 0) {
    if (wants_help) {
      cmd.help_text = command_help(cmd.kind, nullptr);
      cmd.kind = Command::Kind::help;
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
  const auto wspecs = cmd.kind == Command::Kind::tune ? w->tune_options() : w->options();
  specs.insert(specs.end(), wspecs.begin(), wspecs.end());
  cmd.options = parse_options({rest.begin() + 1, rest.end()}, specs, "tessera " + c + " " + cmd.workload);
  // Validate everything now, before Kokkos starts or anything is allocated.
  check_common(cmd.options, cmd.kind);
  if (cmd.kind == Command::Kind::compare)
    for (const char* f : {"output", "checkpoint-every", "restart"})
      if (cmd.options.has(f))
        throw UsageError(std::string("--") + f + " goes with 'tessera run' (one variant, one state file)");
  if (cmd.kind == Command::Kind::tune) {
    if (w->tune_options().empty()) throw UsageError("workload '" + cmd.workload + "' has nothing to tune");
  } else {
    w->configure(cmd.options);
    const bool sweep = w->sweep_size() > 0;
    if (sweep && cmd.kind == Command::Kind::run) throw UsageError("--sweep goes with 'tessera compare'");
    if (sweep && cmd.options.has("h5")) throw UsageError("--h5 holds one problem: a sweep writes --csv and --json");
    if (cmd.options.has("png")) {
      if (!sweep) throw UsageError("--png draws a sweep: add --sweep");
      check_output_path(cmd.options.get("png"));
      if (!plotting_available()) throw UsageError("--png needs python3 with matplotlib (Debian: python3-matplotlib)");
    }
  }
  cmd.configured = std::move(w);
  return cmd;
}

namespace {

CeilingsMode ceilings_mode(const Options& o, Command::Kind kind) {
  if (o.has("no-roofline")) return CeilingsMode::off;
  if (o.has("recalibrate") || o.has("roofline")) return CeilingsMode::measure;
  if (o.has("cached-ceilings")) return CeilingsMode::cached;
  return kind == Command::Kind::run ? CeilingsMode::cached : CeilingsMode::measure;
}

void write_outputs(const Report& report, const Options& o) {
  if (world_rank() != 0) return;  // every rank has the report (validity and times are reduced over ranks)
  if (o.has("csv")) write_csv(report, o.get("csv"));
  if (o.has("json")) write_json(report, o.get("json"));
  if (o.has("h5")) write_hdf5(report, o.get("h5"));
}

// The parameters every point of a sweep shares ("kernel tsmm, type d, ...").
std::string common_parameters(const std::vector<SweepPoint>& sweep) {
  std::string s;
  for (const auto& p : sweep.front().report.parameters) {
    const std::string v = parameter_text(p);
    const bool same = std::all_of(sweep.begin(), sweep.end(), [&](const SweepPoint& q) {
      return std::any_of(q.report.parameters.begin(), q.report.parameters.end(),
                         [&](const Parameter& x) { return x.name == p.name && parameter_text(x) == v; });
    });
    if (same) s += (s.empty() ? "" : ", ") + p.name + " " + v;
  }
  return s;
}

// `compare --sweep`: the workload's problems one after the other (each
// checked to fit before the first runs), the ceilings measured once, one
// table that grows as the points finish, the files written at the end.
int run_sweep(Workload& w, CompareRequest req, const Options& o, std::ostream& out, Progress& progress) {
  const int n = w.sweep_size();
  for (int i = 0; i < n; ++i) {
    w.select_sweep_point(i);
    check_variants_fit(w, req.variants);
  }
  std::vector<SweepPoint> sweep;
  bool all_valid = true;
  for (int i = 0; i < n; ++i) {
    w.select_sweep_point(i);
    progress.message("sweep " + std::to_string(i + 1) + "/" + std::to_string(n) + ": " + w.sweep_axis() + " " +
                     w.sweep_label(i));
    sweep.push_back({w.sweep_label(i), run_compare(w, req, progress)});
    if (req.ceilings == CeilingsMode::measure) req.ceilings = CeilingsMode::cached;  // measured with point 1
    if (i == 0) {
      // The first point's context once (hardware, ceilings, build), then its rows.
      Report head = sweep[0].report;
      head.rows.clear();
      head.problem = std::to_string(n) + " problems (" + w.sweep_axis() + "), the first: " + head.problem;
      print_report(head, out);
    }
    print_sweep_point(sweep.back(), i == 0, out);
    all_valid = all_valid && sweep.back().report.all_valid();
  }
  if (world_rank() == 0) {
    if (o.has("csv")) write_sweep_csv(sweep, o.get("csv"));
    if (o.has("json")) write_sweep_json(sweep, o.get("json"));
    if (o.has("png")) {
      // The chart reads the CSV: the one asked for, else a temporary one beside the PNG.
      const std::string csv = o.has("csv") ? o.get("csv") : o.get("png") + ".csv.tmp";
      if (!o.has("csv")) write_sweep_csv(sweep, csv);
      try {
        plot_sweep(csv, o.get("png"), "tessera " + w.name() + " sweep: " + common_parameters(sweep), w.sweep_axis());
      } catch (...) {
        if (!o.has("csv")) std::remove(csv.c_str());
        throw;
      }
      if (!o.has("csv")) std::remove(csv.c_str());
    }
  }
  if (!all_valid) out << "\nFAILED: some variant did not match the reference\n";
  return all_valid ? 0 : 1;
}

// Each workload's small comparison, one after the other, ceilings measured
// once (the first workload) and reused; a summary of every row at the end.
int run_demo(const Options& o, std::ostream& out, Progress& progress) {
  const std::string dir = o.get("out");
  nlohmann::json summary = nlohmann::json::array();
  bool all_valid = true;
  bool measured = false;
  const auto only = o.get_list("workloads");
  for (const auto& e : workloads()) {
    if (!only.empty() && std::find(only.begin(), only.end(), e.name) == only.end()) continue;
    auto w = e.make();
    const auto args = w->demo_arguments();
    auto specs = driver_options(Command::Kind::compare);
    const auto wspecs = w->options();
    specs.insert(specs.end(), wspecs.begin(), wspecs.end());
    Options wo = parse_options(args, specs, "tessera demo " + e.name);
    w->configure(wo);
    CompareRequest req;
    req.settings.repeats = int(wo.get_int("repeats", 5, 1, 100000));
    req.settings.warmup = int(wo.get_int("warmup", 1, 0, 10000));
    req.seed = wo.get_uint64("seed", 1);
    req.ceilings = measured ? CeilingsMode::cached : CeilingsMode::measure;
    measured = true;
    if (available_variants(*w).empty()) continue;
    progress.message("demo: " + e.name);
    const Report r = run_compare(*w, req, progress);
    out << "\n";
    print_report(r, out);
    w->print_summary(r, out);
    all_valid = all_valid && r.all_valid();
    if (!dir.empty() && world_rank() == 0) {
      write_csv(r, dir + "/" + e.name + ".csv");
      write_json(r, dir + "/" + e.name + ".json");
    }
    for (const auto& row : r.rows)
      if (row.result.ran)
        summary.push_back({{"workload", e.name},
                           {"kernel", row.kernel},
                           {"variant", row.variant},
                           {"platform", platform_id(row.platform)},
                           {"median_s", row.result.time.median},
                           {"gbs", row.gbs},
                           {"gflops", row.gflops},
                           {"roof_pct", row.roof_pct},
                           {"speedup", row.speedup},
                           {"valid", row.result.valid}});
  }
  if (!dir.empty() && world_rank() == 0) {
    std::ostringstream csv;
    csv << "workload,kernel,variant,platform,median_s,gbs,gflops,roof_pct,speedup,valid\n";
    for (const auto& s : summary)
      csv << s["workload"].get<std::string>() << "," << s["kernel"].get<std::string>() << ","
          << s["variant"].get<std::string>() << "," << s["platform"].get<std::string>() << ","
          << s["median_s"].get<double>() << "," << s["gbs"].get<double>() << "," << s["gflops"].get<double>() << ","
          << s["roof_pct"].get<double>() << "," << s["speedup"].get<double>() << ","
          << (s["valid"].get<bool>() ? 1 : 0) << "\n";
    write_file_atomically(dir + "/summary.csv", csv.str());
    write_file_atomically(dir + "/summary.json", summary.dump(2) + "\n");
  }
  return all_valid ? 0 : 1;
}

}  // namespace

int execute(const Command& cmd, std::ostream& out, std::ostream& progress_out) {
  switch (cmd.kind) {
    case Command::Kind::help:
    case Command::Kind::version: out << cmd.help_text; return 0;
    case Command::Kind::list: {
      out << "workloads and variants ([platform], * = can run here):\n";
      for (const auto& e : workloads()) {
        auto w = e.make();
        out << "  " << e.name << ": " << e.description << "\n";
        for (const auto& v : w->variants().all()) out << "  " << variant_line(v, true);
      }
      return 0;
    }
    default: break;
  }
  StreamProgress stream_progress(progress_out, &progress_out == &std::cerr ? 2 : -1);
  Progress& progress = cmd.options.has("quiet") ? Progress::none() : stream_progress;
  if (cmd.kind == Command::Kind::demo) return run_demo(cmd.options, out, progress);
  if (!cmd.configured) throw UsageError("'" + cmd.workload + "': no configured workload (parse the command first)");
  Workload* w = cmd.configured.get();
  if (cmd.kind == Command::Kind::tune) {
    w->tune(cmd.options, progress, out);
    return 0;
  }
  CompareRequest req;
  req.command = kind_name(cmd.kind);
  req.settings.repeats = int(cmd.options.get_int("repeats", 10, 1, 100000));
  req.settings.warmup = int(cmd.options.get_int("warmup", 2, 0, 10000));
  req.settings.rounds = int(cmd.options.get_int("rounds", 1, 1, 1000));
  req.seed = cmd.options.get_uint64("seed", 1);
  req.ceilings = ceilings_mode(cmd.options, cmd.kind);
  if (cmd.kind == Command::Kind::run) {
    std::string v = cmd.options.get("variant");
    if (v.empty()) v = w->variants().default_variant();
    if (v.empty()) throw UsageError("no variant of '" + w->name() + "' can run here");
    req.variants = {v};
  } else {
    req.variants = cmd.options.get_list("variants");
    req.baseline = cmd.options.get("baseline");
  }
  if (w->sweep_size() > 0) return run_sweep(*w, req, cmd.options, out, progress);
  const Report report = run_compare(*w, req, progress);
  print_report(report, out);
  w->print_summary(report, out);
  write_outputs(report, cmd.options);
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
  const std::vector<std::string> args(argv + 1, argv + argc);
  Command cmd;
  std::vector<std::string> kokkos_args;
  try {
    cmd = parse_command_line(args);
    kokkos_args = kokkos_arguments(args);
  } catch (const UsageError& e) {
    // Every rank reaches the same verdict on the same command line.
    if (rank == 0) std::cerr << "tessera: error: " << e.what() << "\n";
    return 2;
  }
  if (cmd.kind == Command::Kind::help || cmd.kind == Command::Kind::list || cmd.kind == Command::Kind::version)
    return execute(cmd, out, progress);
  kokkos_args.insert(kokkos_args.begin(), argv[0]);
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
  std::unique_ptr<Kokkos::ScopeGuard> kokkos;
  try {
    kokkos = std::make_unique<Kokkos::ScopeGuard>(kargc, kargv.data());
  } catch (const std::exception& e) {
    if (rank == 0) std::cerr << "tessera: error: Kokkos could not start: " << e.what() << "\n";
    return 2;
  }
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
