#include "tessera/driver/results.hpp"

#include "tessera/core/build_info.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <unistd.h>

namespace tessera::driver {

bool Report::all_valid() const {
  for (const auto& row : rows)
    if (row.result.ran && !row.result.valid) return false;
  return true;
}

namespace {

std::string fixed(double v, int digits) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(digits) << v;
  return s.str();
}

std::string check_text(const KernelResult& r) {
  if (!r.ran) return "";
  std::ostringstream s;
  s << (r.valid ? "ok" : "FAILED") << " (err " << std::scientific << std::setprecision(1) << r.error << ")";
  return s.str();
}

std::string json_escape(const std::string& in) {
  std::string out;
  for (char c : in) {
    if (c == '"' || c == '\\') out += '\\', out += c;
    else if (c == '\n') out += "\\n";
    else if (static_cast<unsigned char>(c) < 0x20) out += ' ';
    else out += c;
  }
  return out;
}

std::string csv_field(const std::string& in) {
  if (in.find_first_of(",\"\n") == std::string::npos) return in;
  std::string out = "\"";
  for (char c : in) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

// JSON has no NaN/Inf.
std::string json_number(double v) {
  if (!std::isfinite(v)) return "null";
  std::ostringstream s;
  s << std::setprecision(10) << v;
  return s.str();
}

}  // namespace

void print_report(const Report& r, std::ostream& out) {
  const auto& b = build_info();
  out << "Tessera " << b.version << " compare " << r.workload << ": " << r.problem << "\n";
  out << "  timing: median of " << r.settings.repeats << " after " << r.settings.warmup
      << " warm-up (device timers), seed " << r.seed << "\n";
  for (const auto& [id, hw] : r.hardware) out << "  platform " << id << ": " << hw << "\n";
  out << "  build: " << b.build_type << ", " << b.cxx_compiler << ", flags '" << b.cxx_flags << "'\n"
      << "         Kokkos " << b.kokkos_version << " devices " << b.kokkos_devices;
  if (!b.kokkos_arch.empty()) out << " arch " << b.kokkos_arch;
  if (!b.cuda_version.empty()) out << ", CUDA " << b.cuda_version;
  out << ", native CUDA " << (b.cuda_native ? "on" : "off") << "\n";
  out << "  roofline (" << r.roofline_source << "):";
  for (const auto& [id, gbs] : r.roofline_gbs) out << " " << id << " " << fixed(gbs, 1) << " GB/s";
  out << "\n";
  if (!r.baseline.empty()) out << "  speed-up: against " << r.baseline << "\n";
  out << "\n";

  const std::vector<std::string> head = {"kernel", "variant", "platform", "time ms", "GB/s",
                                         "GFLOP/s", "%roof", "speed-up", "check"};
  std::vector<std::vector<std::string>> cells;
  for (const auto& row : r.rows) {
    const auto& k = row.result;
    if (!k.ran) {
      cells.push_back({row.kernel, row.variant, platform_id(row.platform), "n/a", "", "", "", "", k.note});
      continue;
    }
    cells.push_back({row.kernel, row.variant, platform_id(row.platform), fixed(k.time.median * 1e3, 3),
                     fixed(row.gbs, 1), fixed(row.gflops, 1), row.roof_pct > 0 ? fixed(row.roof_pct, 1) : "",
                     row.speedup > 0 ? fixed(row.speedup, 2) + "x" : "", check_text(k)});
  }
  std::vector<size_t> width(head.size());
  for (size_t c = 0; c < head.size(); ++c) {
    width[c] = head[c].size();
    for (const auto& row : cells) width[c] = std::max(width[c], row[c].size());
  }
  auto line = [&](const std::vector<std::string>& v) {
    for (size_t c = 0; c < v.size(); ++c) {
      const bool left = c < 3 || c + 1 == v.size();
      out << (left ? std::left : std::right) << std::setw(int(width[c])) << v[c] << (c + 1 < v.size() ? "  " : "");
    }
    out << std::right << "\n";
  };
  line(head);
  for (const auto& row : cells) line(row);
  bool notes = false;
  for (const auto& row : r.rows)
    if (row.result.ran && !row.result.note.empty()) {
      if (!notes) out << "\nnotes:\n";
      notes = true;
      out << "  " << row.variant << " (" << row.kernel << "): " << row.result.note << "\n";
    }
  if (!r.all_valid()) out << "\nFAILED: some variant did not match the reference\n";
}

void check_output_path(const std::string& path) {
  const auto slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path.substr(0, slash));
  if (access(dir.c_str(), W_OK) != 0)
    throw UsageError("cannot write '" + path + "': folder '" + dir + "' does not exist or is not writable");
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

void write_csv(const Report& r, const std::string& path) {
  std::ostringstream s;
  s << std::setprecision(10);
  s << "workload,kernel,variant,platform,hardware,median_s,min_s,max_s,repeats,bytes,flops,gbs,gflops,"
       "roofline_gbs,roof_pct,speedup,valid,error,tolerance,note\n";
  for (const auto& row : r.rows) {
    if (!row.result.ran) continue;
    const auto& k = row.result;
    const std::string pid = platform_id(row.platform);
    const auto hw = r.hardware.count(pid) ? r.hardware.at(pid) : "";
    const auto roof = r.roofline_gbs.count(pid) ? r.roofline_gbs.at(pid) : 0.0;
    s << r.workload << "," << row.kernel << "," << row.variant << "," << pid << "," << csv_field(hw) << ","
      << k.time.median << "," << k.time.min << "," << k.time.max << "," << k.time.repeats << "," << k.bytes << ","
      << k.flops << "," << row.gbs << "," << row.gflops << "," << roof << "," << row.roof_pct << "," << row.speedup
      << "," << (k.valid ? 1 : 0) << "," << k.error << "," << k.tolerance << "," << csv_field(k.note) << "\n";
  }
  write_file_atomically(path, s.str());
}

void write_json(const Report& r, const std::string& path) {
  const auto& b = build_info();
  std::ostringstream s;
  s << "{\n  \"workload\": \"" << json_escape(r.workload) << "\",\n  \"problem\": \"" << json_escape(r.problem)
    << "\",\n  \"seed\": " << r.seed << ",\n  \"warmup\": " << r.settings.warmup
    << ",\n  \"repeats\": " << r.settings.repeats << ",\n  \"baseline\": \"" << json_escape(r.baseline) << "\",\n";
  s << "  \"build\": {\"version\": \"" << json_escape(b.version) << "\", \"compiler\": \""
    << json_escape(b.cxx_compiler) << "\", \"flags\": \"" << json_escape(b.cxx_flags) << "\", \"build_type\": \""
    << json_escape(b.build_type) << "\", \"kokkos\": \"" << json_escape(b.kokkos_version)
    << "\", \"kokkos_devices\": \"" << json_escape(b.kokkos_devices) << "\", \"kokkos_arch\": \""
    << json_escape(b.kokkos_arch) << "\", \"cuda\": \"" << json_escape(b.cuda_version) << "\"},\n";
  s << "  \"platforms\": {";
  bool first = true;
  for (const auto& [id, hw] : r.hardware) {
    const auto roof = r.roofline_gbs.count(id) ? r.roofline_gbs.at(id) : 0.0;
    s << (first ? "" : ",") << "\n    \"" << id << "\": {\"hardware\": \"" << json_escape(hw)
      << "\", \"roofline_gbs\": " << json_number(roof) << "}";
    first = false;
  }
  s << "\n  },\n  \"roofline_source\": \"" << json_escape(r.roofline_source) << "\",\n  \"results\": [";
  first = true;
  for (const auto& row : r.rows) {
    const auto& k = row.result;
    s << (first ? "" : ",") << "\n    {\"kernel\": \"" << json_escape(row.kernel) << "\", \"variant\": \""
      << json_escape(row.variant) << "\", \"platform\": \"" << platform_id(row.platform)
      << "\", \"ran\": " << (k.ran ? "true" : "false");
    if (k.ran)
      s << ", \"median_s\": " << json_number(k.time.median) << ", \"min_s\": " << json_number(k.time.min)
        << ", \"max_s\": " << json_number(k.time.max) << ", \"repeats\": " << k.time.repeats
        << ", \"bytes\": " << json_number(k.bytes) << ", \"flops\": " << json_number(k.flops)
        << ", \"gbs\": " << json_number(row.gbs) << ", \"gflops\": " << json_number(row.gflops)
        << ", \"roof_pct\": " << json_number(row.roof_pct) << ", \"speedup\": " << json_number(row.speedup)
        << ", \"valid\": " << (k.valid ? "true" : "false") << ", \"error\": " << json_number(k.error)
        << ", \"tolerance\": " << json_number(k.tolerance);
    else
      s << ", \"note\": \"" << json_escape(k.note) << "\"";
    s << "}";
    first = false;
  }
  s << "\n  ]\n}\n";
  write_file_atomically(path, s.str());
}

}  // namespace tessera::driver

#include "tessera/config.hpp"
#if !TESSERA_HAS_HDF5
namespace tessera::driver {
void write_hdf5(const Report&, const std::string& path) {
  throw UsageError("cannot write '" + path + "': this Tessera build has no HDF5 (TESSERA_ENABLE_HDF5)");
}
}  // namespace tessera::driver
#endif
