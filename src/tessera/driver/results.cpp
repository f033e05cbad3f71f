#include "tessera/driver/results.hpp"

#include "tessera/driver/results_schema.hpp"

#include "tessera/core/build_info.hpp"
#include "tessera/driver/mpi_session.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <set>
#include <sstream>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace tessera::driver {

using json = nlohmann::json;

bool Report::all_valid() const {
  for (const auto& row : rows)
    if (row.result.ran && !row.result.valid) return false;
  return true;
}

std::string parameter_text(const Parameter& p) {
  return std::visit(
      [](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::string>) {
          return v;
        } else {
          std::ostringstream s;
          s << std::setprecision(10) << v;
          return s.str();
        }
      },
      p.value);
}

namespace {

std::string fixed(double v, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

std::string sci(double v, int digits) {
  std::ostringstream s;
  s << std::scientific << std::setprecision(digits) << v;
  return s.str();
}

std::string check_text(const KernelResult& r) {
  if (!r.ran) return "";
  if (!r.checked) return "not checked";
  return std::string(r.valid ? "ok" : "FAILED") + " (err " + sci(r.error, 1) + ")";
}

std::string csv_field(const std::string& in) {
  if (in.find_first_of(",\"\n") == std::string::npos) return in;
  std::string out = "\"";
  for (char c : in) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// JSON has no NaN/Inf: null.
json number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

const char* bound_name(Bound b) {
  switch (b) {
    case Bound::memory: return "memory";
    case Bound::compute: return "compute";
    case Bound::roofline: return "roofline";
  }
  return "?";
}

std::string ceilings_text(const Ceilings& c) {
  std::vector<std::string> parts;
  if (c.copy_gbs > 0) parts.push_back("copy " + fixed(c.copy_gbs, 1) + " GB/s");
  if (c.read_gbs > 0) parts.push_back("read " + fixed(c.read_gbs, 1) + " GB/s");
  if (c.fp64_gflops > 0) parts.push_back("FP64 " + fixed(c.fp64_gflops, 0) + " GFLOP/s");
  if (c.fp32_gflops > 0) parts.push_back("FP32 " + fixed(c.fp32_gflops, 0) + " GFLOP/s");
  if (c.llc_bytes > 0) parts.push_back("LLC " + fixed(c.llc_bytes / (1 << 20), 0) + " MiB");
  std::string s;
  for (const auto& p : parts) s += (s.empty() ? "" : ", ") + p;
  if (c.ranks > 1) s += " (totals over " + std::to_string(c.ranks) + " MPI ranks)";
  return s + " [" + c.source + "]";
}

std::string portability_text(double p) { return p < 0 ? "-" : fixed(p, 2); }

}  // namespace

// With an error: the error to two digits, the value to one digit beyond the
// error's last (sigma = 7.9191e+07 +- 4.3e+05 pb); the files keep every digit.
std::string observable_text(const Observable& o) {
  int digits = 6;
  if (o.error > 0 && std::isfinite(o.error) && o.value != 0 && std::isfinite(o.value)) {
    const int decades = int(std::floor(std::log10(std::abs(o.value)))) - int(std::floor(std::log10(o.error)));
    digits = std::clamp(decades + 2, 1, 16);
  }
  std::string s = o.name + " = " + sci(o.value, digits);
  if (o.error >= 0) s += " +- " + sci(o.error, o.error > 0 ? 1 : 2);
  if (!o.unit.empty()) s += " " + o.unit;
  return s;
}

namespace schema {

// The flat record of a row: the columns of the CSV and of /results in HDF5.
const std::vector<Column>& row_columns() {
  static const std::vector<Column> c = {
      {"kernel", true},      {"variant", true},     {"platform", true},  {"median_s", false}, {"min_s", false},
      {"max_s", false},      {"repeats", false},    {"bytes", false},    {"flops", false},    {"gbs", false},
      {"gflops", false},     {"bound", true},       {"ceiling", false},  {"ceiling_label", true},
      {"roof_pct", false},   {"in_cache", false},   {"speedup", false},  {"valid", false},    {"error", false},
      {"tolerance", false},  {"note", true}};
  return c;
}
std::vector<std::string> row_values(const Row& row) {
  const auto& k = row.result;
  auto num = [](double v) {
    std::ostringstream s;
    s << std::setprecision(10) << v;
    return s.str();
  };
  return {row.kernel, row.variant, platform_id(row.platform), num(k.time.median), num(k.time.min),
          num(k.time.max), num(k.time.repeats), num(k.bytes), num(k.flops), num(row.gbs), num(row.gflops),
          bound_name(k.bound), num(row.ceiling.value), row.ceiling.label, num(row.roof_pct),
          num(row.ceiling.in_cache ? 1 : 0), num(row.speedup), num(k.valid ? 1 : 0), num(k.error),
          num(k.tolerance), k.note};
}

// Observable names over all rows, in first-seen order (CSV/HDF5 columns).
std::vector<std::string> observable_names(const Report& r) {
  std::vector<std::string> names;
  for (const auto& row : r.rows)
    for (const auto& o : row.result.observables)
      if (std::find(names.begin(), names.end(), o.name) == names.end()) names.push_back(o.name);
  return names;
}

}  // namespace schema

void print_report(const Report& r, std::ostream& out) {
  const auto& b = build_info();
  out << "Tessera " << b.version << " " << r.command << " " << r.workload << ": " << r.problem << "\n";
  if (!r.parameters.empty()) {
    std::string line;
    for (const auto& p : r.parameters) line += (line.empty() ? "" : ", ") + p.name + " " + parameter_text(p);
    out << "  parameters: " << line << "\n";
  }
  out << "  timing: ";
  if (r.settings.rounds > 1) out << "median of " << r.settings.rounds << " rounds' medians, each ";
  out << "median of " << r.settings.repeats << " after " << r.settings.warmup << " warm-up (device timers), seed "
      << r.seed << "\n";
  for (const auto& [id, hw] : r.hardware) {
    out << "  platform " << id << ": " << hw << "\n";
    if (auto it = r.ceilings.find(id); it != r.ceilings.end()) out << "    ceilings: " << ceilings_text(it->second) << "\n";
  }
  if (!r.ceilings_note.empty()) out << "  ceilings: " << r.ceilings_note << "\n";
  out << "  build: " << b.build_type << ", " << b.cxx_compiler << ", flags '" << b.cxx_flags << "'\n"
      << "         Kokkos " << b.kokkos_version << " devices " << b.kokkos_devices;
  if (!b.kokkos_arch.empty()) out << " arch " << b.kokkos_arch;
  if (!b.cuda_version.empty()) out << ", CUDA " << b.cuda_version;
  out << ", native CUDA " << (b.cuda_native ? "on" : "off") << "\n";
  if (!r.baseline.empty()) out << "  speed-up: against " << r.baseline << "\n";
  out << "\n";

  const std::vector<std::string> head = {"kernel", "variant", "platform", "time ms", "GB/s", "GFLOP/s",
                                         "%ceil",  "ceiling", "speed-up", "check"};
  std::vector<std::vector<std::string>> cells;
  for (const auto& row : r.rows) {
    const auto& k = row.result;
    if (!k.ran) {
      cells.push_back({row.kernel, row.variant, platform_id(row.platform), "n/a", "", "", "", "", "", k.note});
      continue;
    }
    cells.push_back({row.kernel, row.variant, platform_id(row.platform), fixed(k.time.median * 1e3, 3),
                     fixed(row.gbs, 1), fixed(row.gflops, 1), row.ceiling.value > 0 ? fixed(row.roof_pct, 1) : "",
                     row.ceiling.label, row.speedup > 0 ? fixed(row.speedup, 2) + "x" : "", check_text(k)});
  }
  std::vector<size_t> width(head.size());
  for (size_t c = 0; c < head.size(); ++c) {
    width[c] = head[c].size();
    for (const auto& row : cells) width[c] = std::max(width[c], row[c].size());
  }
  auto line = [&](const std::vector<std::string>& v) {
    std::ostringstream l;
    for (size_t c = 0; c < v.size(); ++c) {
      const bool left = c < 3 || c == 7 || c + 1 == v.size();
      l << (left ? std::left : std::right) << std::setw(int(width[c])) << v[c] << (c + 1 < v.size() ? "  " : "");
    }
    std::string s = l.str();
    s.erase(s.find_last_not_of(' ') + 1);
    out << s << "\n";
  };
  if (!cells.empty()) line(head);  // a sweep prints its context without rows, then its own table
  for (const auto& row : cells) line(row);

  bool notes = false;
  for (const auto& row : r.rows)
    if (row.result.ran && !row.result.note.empty()) {
      if (!notes) out << "\nnotes:\n";
      notes = true;
      out << "  " << row.variant << " (" << row.kernel << "): " << row.result.note << "\n";
    }
  bool any_cached = false;
  for (const auto& row : r.rows) any_cached |= row.ceiling.in_cache;
  if (any_cached)
    out << "\n'in LLC': the working set fits in the last-level cache; a rate above the memory ceiling is "
           "cache bandwidth\n";
  if (!r.portability.empty() && r.rows.size() > 1) {
    out << "\nperformance portability (Pennycook-Sewall-Lee: harmonic mean over platforms of the best efficiency):\n";
    for (const auto& [kernel, p] : r.portability) {
      out << "  " << kernel << ": portable " << portability_text(p.portable);
      std::string per;
      for (const auto& [id, e] : p.portable_efficiency) per += (per.empty() ? "" : ", ") + id + " " + fixed(e, 2);
      if (!per.empty()) out << " (" << per << ")";
      if (p.native >= 0) {
        std::string nat;
        for (const auto& [id, e] : p.native_efficiency) nat += (nat.empty() ? "" : ", ") + id + " " + fixed(e, 2);
        out << "; native " << portability_text(p.native) << " (" << nat << ")";
      }
      out << "\n";
    }
  }
  if (!r.all_valid()) out << "\nFAILED: some variant did not match the reference\n";
  // Observables last: a run's final lines are its physical results (one
  // variant: a line each; several: a line per row).
  std::set<std::string> variants;
  for (const auto& row : r.rows) variants.insert(row.variant);
  bool first = true;
  for (const auto& row : r.rows) {
    if (row.result.observables.empty()) continue;
    if (first) out << "\n";
    first = false;
    if (variants.size() == 1) {
      for (const auto& o : row.result.observables) out << observable_text(o) << "\n";
      continue;
    }
    std::string line;
    for (const auto& o : row.result.observables) line += (line.empty() ? "" : ", ") + observable_text(o);
    out << row.variant << " (" << row.kernel << "): " << line << "\n";
  }
}

void check_output_path(const std::string& path) {
  if (path.empty()) throw UsageError("an output path is empty");
  if (path.back() == '/') throw UsageError("cannot write '" + path + "': it names a folder, not a file");
  const auto slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw UsageError("cannot write '" + path + "': it is a folder");
  // access() says yes to root on read-only and pseudo file systems: create
  // (and remove) a file beside the output, as writing it later will.
  std::string probe = dir + "/.tessera-probe-XXXXXX";
  const int fd = access(dir.c_str(), W_OK) == 0 ? mkstemp(probe.data()) : -1;
  if (fd < 0) throw UsageError("cannot write '" + path + "': folder '" + dir + "' does not exist or is not writable");
  close(fd);
  unlink(probe.c_str());
}

void write_file_atomically(const std::string& path, const std::string& contents) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) throw std::runtime_error("cannot open '" + tmp + "' for writing");
    f << contents;
    f.flush();
    if (!f) {
      std::remove(tmp.c_str());
      throw std::runtime_error("error writing '" + tmp + "'");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw std::runtime_error("cannot rename '" + tmp + "' to '" + path + "'");
  }
}

namespace {

// Rows of one or more reports under one header (the reports of a sweep share
// their parameters' names); `labels`, when given, fill a leading `point` column.
std::string csv_text(const std::vector<const Report*>& reports, const std::vector<std::string>& labels) {
  std::vector<std::string> names;
  for (const Report* r : reports)
    for (const auto& n : schema::observable_names(*r))
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  const bool points = !labels.empty();
  std::ostringstream s;
  s << (points ? "point," : "") << "workload,command";
  for (const auto& p : reports.front()->parameters) s << ",param_" << csv_field(p.name);
  for (const auto& c : schema::row_columns()) s << "," << c.name;
  for (const auto& n : names) s << "," << csv_field(n) << "," << csv_field(n + "_error");
  s << ",ceiling_source,hardware\n";
  for (std::size_t i = 0; i < reports.size(); ++i) {
    const Report& r = *reports[i];
    for (const auto& row : r.rows) {
      if (!row.result.ran) continue;
      if (points) s << csv_field(labels[i]) << ",";
      s << csv_field(r.workload) << "," << r.command;
      for (const auto& p : r.parameters) s << "," << csv_field(parameter_text(p));
      for (const auto& v : schema::row_values(row)) s << "," << csv_field(v);
      for (const auto& n : names) {
        auto it = std::find_if(row.result.observables.begin(), row.result.observables.end(),
                               [&](const Observable& o) { return o.name == n; });
        if (it == row.result.observables.end()) s << ",,";
        else s << "," << std::setprecision(17) << it->value << "," << (it->error >= 0 ? it->error : 0.0);
      }
      const std::string pid = platform_id(row.platform);
      const auto c = r.ceilings.find(pid);
      const auto hw = r.hardware.find(pid);
      s << "," << csv_field(c == r.ceilings.end() ? "" : c->second.source) << ","
        << csv_field(hw == r.hardware.end() ? "" : hw->second) << "\n";
    }
  }
  return s.str();
}

}  // namespace

void write_csv(const Report& r, const std::string& path) { write_file_atomically(path, csv_text({&r}, {})); }

void write_sweep_csv(const std::vector<SweepPoint>& sweep, const std::string& path) {
  if (sweep.empty()) throw std::invalid_argument("write_sweep_csv: no points");
  std::vector<const Report*> reports;
  std::vector<std::string> labels;
  for (const auto& p : sweep) {
    reports.push_back(&p.report);
    labels.push_back(p.label);
  }
  write_file_atomically(path, csv_text(reports, labels));
}

void write_sweep_json(const std::vector<SweepPoint>& sweep, const std::string& path) {
  json points = json::array();
  for (const auto& p : sweep) points.push_back({{"point", p.label}, {"report", json::parse(report_json(p.report))}});
  write_file_atomically(path, json({{"sweep", points}}).dump(2) + "\n");
}

// One line per row, the point's label first: a sweep's table grows as it runs.
void print_sweep_point(const SweepPoint& p, bool header, std::ostream& out) {
  const char* fmt = "%-8s %-22s %-8s %10s %9s %10s %7s %9s  %s\n";
  char line[256];
  if (header) {
    std::snprintf(line, sizeof line, fmt, "point", "variant", "kernel", "time ms", "GB/s", "GFLOP/s", "%ceil",
                  "speed-up", "check");
    out << line;
  }
  for (const auto& row : p.report.rows) {
    const auto& k = row.result;
    if (!k.ran) continue;
    std::snprintf(line, sizeof line, fmt, p.label.c_str(), row.variant.c_str(), row.kernel.c_str(),
                  fixed(k.time.median * 1e3, 3).c_str(), fixed(row.gbs, 1).c_str(), fixed(row.gflops, 1).c_str(),
                  row.ceiling.value > 0 ? fixed(row.roof_pct, 1).c_str() : "",
                  row.speedup > 0 ? (fixed(row.speedup, 2) + "x").c_str() : "", check_text(k).c_str());
    out << line;
  }
  out.flush();
}

std::string report_json(const Report& r) {
  const auto& b = build_info();
  json j;
  j["tessera"] = b.version;
  j["command"] = r.command;
  j["workload"] = r.workload;
  j["problem"] = r.problem;
  json params = json::object();
  for (const auto& p : r.parameters) std::visit([&](const auto& v) { params[p.name] = v; }, p.value);
  j["parameters"] = params;
  j["seed"] = r.seed;  // unsigned 64-bit
  j["warmup"] = r.settings.warmup;
  j["repeats"] = r.settings.repeats;
  j["rounds"] = r.settings.rounds;
  j["baseline"] = r.baseline;
  j["build"] = {{"version", b.version},         {"compiler", b.cxx_compiler},   {"flags", b.cxx_flags},
                {"build_type", b.build_type},   {"kokkos", b.kokkos_version},   {"kokkos_devices", b.kokkos_devices},
                {"kokkos_arch", b.kokkos_arch}, {"cuda", b.cuda_version},       {"native_cuda", b.cuda_native},
                {"mpi_ranks", world_size()}};
  json platforms = json::object();
  for (const auto& [id, hw] : r.hardware) {
    json p = {{"hardware", hw}};
    if (auto it = r.ceilings.find(id); it != r.ceilings.end()) {
      const Ceilings& c = it->second;
      p["ceilings"] = {{"copy_gbs", number(c.copy_gbs)},       {"read_gbs", number(c.read_gbs)},
                       {"fp64_gflops", number(c.fp64_gflops)}, {"fp32_gflops", number(c.fp32_gflops)},
                       {"llc_bytes", number(c.llc_bytes)},     {"ranks", c.ranks},
                       {"per_rank_copy_gbs", number(c.copy_gbs / c.ranks)},
                       {"source", c.source}};
    }
    platforms[id] = p;
  }
  j["platforms"] = platforms;
  j["ceilings_note"] = r.ceilings_note;
  json results = json::array();
  for (const auto& row : r.rows) {
    const auto& k = row.result;
    json x = {{"kernel", row.kernel}, {"variant", row.variant}, {"platform", platform_id(row.platform)},
              {"ran", k.ran}, {"portable", row.portable}, {"native", row.native}};
    if (k.ran) {
      x["median_s"] = number(k.time.median);
      x["min_s"] = number(k.time.min);
      x["max_s"] = number(k.time.max);
      x["repeats"] = k.time.repeats;
      x["bytes"] = number(k.bytes);
      x["flops"] = number(k.flops);
      x["gbs"] = number(row.gbs);
      x["gflops"] = number(row.gflops);
      x["ceiling"] = {{"bound", bound_name(k.bound)},
                      {"traffic", k.traffic == Traffic::read ? "read" : "copy"},
                      {"arith", k.arith == Arith::fp32 ? "fp32" : "fp64"},
                      {"value", number(row.ceiling.value)},
                      {"unit", k.bound == Bound::memory ? "GB/s" : "GFLOP/s"},
                      {"label", row.ceiling.label},
                      {"in_cache", row.ceiling.in_cache}};
      x["roof_pct"] = number(row.roof_pct);
      x["speedup"] = number(row.speedup);
      x["valid"] = k.valid;
      if (!k.checked) x["checked"] = false;  // timed only
      x["error"] = number(k.error);
      x["tolerance"] = number(k.tolerance);
      json obs = json::object();
      for (const auto& o : k.observables) {
        json v = {{"value", number(o.value)}, {"unit", o.unit}};
        if (o.error >= 0) v["error"] = number(o.error);
        obs[o.name] = v;
      }
      x["observables"] = obs;
    }
    x["note"] = k.note;
    results.push_back(x);
  }
  j["results"] = results;
  json port = json::object();
  for (const auto& [kernel, p] : r.portability) {
    json e = {{"portable", number(p.portable)}, {"portable_efficiency", p.portable_efficiency}};
    if (p.native >= 0) {
      e["native"] = number(p.native);
      e["native_efficiency"] = p.native_efficiency;
    }
    port[kernel] = e;
  }
  j["portability"] = port;
  return j.dump(2) + "\n";
}

void write_json(const Report& r, const std::string& path) { write_file_atomically(path, report_json(r)); }

}  // namespace tessera::driver

#include "tessera/config.hpp"
#if !TESSERA_HAS_HDF5
namespace tessera::driver {
void write_hdf5(const Report&, const std::string& path) {
  throw UsageError("cannot write '" + path + "': this Tessera build has no HDF5 (TESSERA_ENABLE_HDF5)");
}
}  // namespace tessera::driver
#endif
