#include "tessera/driver/runner.hpp"

#include "tessera/driver/mpi_session.hpp"
#include "tessera/driver/platform.hpp"

#include <algorithm>
#include <iomanip>
#include <ostream>
#include <set>
#include <sstream>

namespace tessera::driver {

std::vector<VariantInfo> available_variants(const Workload& w) {
  std::vector<VariantInfo> out;
  for (const auto& v : w.variants())
    if (platform_available(v.platform)) out.push_back(v);
  return out;
}

namespace {

std::vector<VariantInfo> select_variants(const Workload& w, const std::vector<std::string>& names) {
  const auto all = w.variants();
  const auto here = available_variants(w);
  if (names.empty()) return here;
  std::vector<VariantInfo> out;
  for (const auto& n : names) {
    auto known = std::find_if(all.begin(), all.end(), [&](const VariantInfo& v) { return v.name == n; });
    if (known == all.end()) {
      std::string list;
      for (const auto& v : all) list += (list.empty() ? "" : ", ") + v.name;
      throw UsageError("unknown variant '" + n + "' for workload '" + w.name() + "' (known: " + list + ")");
    }
    auto ok = std::find_if(here.begin(), here.end(), [&](const VariantInfo& v) { return v.name == n; });
    if (ok == here.end())
      throw UsageError("variant '" + n + "' needs platform '" + platform_id(known->platform) +
                       "', which this build or machine does not have");
    out.push_back(*ok);
  }
  return out;
}

std::string gib(double bytes) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(2) << bytes / (1 << 30) << " GiB";
  return s.str();
}

void check_memory(const Workload& w, const std::vector<VariantInfo>& variants) {
  const MemoryNeed need = w.memory_need();
  double free_host = 0, total = 0;
  platform_memory(Platform::cpu1, free_host, total);
  if (free_host > 0 && need.host_bytes > 0.9 * free_host)
    throw UsageError("problem needs " + gib(need.host_bytes) + " of host memory, " + gib(free_host) +
                     " available: choose a smaller size");
  const bool gpu = std::any_of(variants.begin(), variants.end(),
                               [](const VariantInfo& v) { return v.platform == Platform::gpu; });
  if (gpu) {
    double free_dev = 0;
    platform_memory(Platform::gpu, free_dev, total);
    if (need.device_bytes > 0.95 * free_dev)
      throw UsageError("problem needs " + gib(need.device_bytes) + " of GPU memory, " + gib(free_dev) +
                       " free: choose a smaller size");
  }
}

// Best bandwidth of the roofline kernels per platform, over valid rows.
std::map<std::string, double> best_bandwidth(const std::vector<Row>& rows, const std::vector<std::string>& kernels) {
  std::map<std::string, double> best;
  for (const auto& row : rows) {
    if (!row.result.ran || !row.result.valid) continue;
    if (std::find(kernels.begin(), kernels.end(), row.kernel) == kernels.end()) continue;
    auto& b = best[platform_id(row.platform)];
    b = std::max(b, row.gbs);
  }
  return best;
}

std::vector<Row> run_variants(Workload& w, const std::vector<VariantInfo>& variants, const CompareRequest& req,
                              std::ostream& progress, const std::string& label) {
  std::vector<Row> rows;
  int i = 0;
  for (const auto& v : variants) {
    ++i;
    if (req.progress)
      progress << "[" << label << " " << i << "/" << variants.size() << "] " << v.name << " on "
               << platform_id(v.platform) << " ..." << std::endl;
    for (auto& k : w.run(v.name, req.settings)) {
      Row row;
      row.kernel = k.kernel;
      row.variant = v.name;
      row.platform = v.platform;
      row.result = k;
      if (k.ran && k.time.median > 0) {
        row.gbs = k.bytes / k.time.median * 1e-9;
        row.gflops = k.flops / k.time.median * 1e-9;
      }
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

}  // namespace

Report run_compare(Workload& w, const CompareRequest& req, std::ostream& progress) {
  const auto variants = select_variants(w, req.variants);
  if (variants.empty()) throw UsageError("no variant of '" + w.name() + "' can run here");
  if (!req.baseline.empty() && std::none_of(variants.begin(), variants.end(),
                                            [&](const VariantInfo& v) { return v.name == req.baseline; }))
    throw UsageError("baseline variant '" + req.baseline + "' is not among the variants run");
  check_memory(w, variants);

  Report r;
  r.workload = w.name();
  r.problem = w.problem_summary();
  r.settings = req.settings;
  r.seed = req.seed;
  std::set<Platform> platforms;
  for (const auto& v : variants) platforms.insert(v.platform);
  for (auto p : platforms) r.hardware[platform_id(p)] = platform_hardware(p);

  w.prepare(req.seed);
  r.rows = run_variants(w, variants, req, progress, w.name());

  if (!w.roofline_kernels().empty()) {
    r.roofline_gbs = best_bandwidth(r.rows, w.roofline_kernels());
    r.roofline_source = "best STREAM copy/triad in this run";
  } else if (!req.roofline) {
    r.roofline_source = "not measured (--no-roofline)";
  } else {
    // Calibrate with STREAM on the same platforms, in the same process.
    auto stream = make_workload("stream");
    stream->configure(parse_options({}, stream->options(), "stream"));
    std::vector<VariantInfo> cal;
    for (const auto& v : available_variants(*stream))
      if (platforms.count(v.platform)) cal.push_back(v);
    stream->prepare(req.seed);
    r.roofline_gbs = best_bandwidth(run_variants(*stream, cal, req, progress, "roofline"), stream->roofline_kernels());
    r.roofline_source = "best STREAM copy/triad, " + stream->problem_summary();
    // Under MPI the workload's rates are for all ranks together: so is its roofline.
    if (world_size() > 1) {
      for (auto p : platforms) {
        const double sum = world_sum(r.roofline_gbs.count(platform_id(p)) ? r.roofline_gbs[platform_id(p)] : 0.0);
        if (sum > 0) r.roofline_gbs[platform_id(p)] = sum;
      }
      r.roofline_source += ", summed over " + std::to_string(world_size()) + " MPI ranks";
    }
  }
  for (auto& row : r.rows) {
    const auto it = r.roofline_gbs.find(platform_id(row.platform));
    if (row.result.ran && it != r.roofline_gbs.end() && it->second > 0) row.roof_pct = 100.0 * row.gbs / it->second;
  }

  // Speed-up over the CPU baseline, kernel by kernel.
  auto ran = [&](const std::string& name) {
    return std::any_of(r.rows.begin(), r.rows.end(),
                       [&](const Row& row) { return row.variant == name && row.result.ran; });
  };
  if (!req.baseline.empty()) {
    r.baseline = req.baseline;
  } else {
    // The multicore CPU: the fastest variant on it, else the serial reference.
    double best = 0;
    for (const auto& row : r.rows)
      if (row.platform == Platform::cpu && row.result.ran && row.result.valid &&
          (best == 0 || row.result.time.median < best)) {
        best = row.result.time.median;
        r.baseline = row.variant;
      }
    if (r.baseline.empty() && ran("serial-reference")) r.baseline = "serial-reference";
  }
  for (auto& row : r.rows) {
    if (!row.result.ran || r.baseline.empty()) continue;
    for (const auto& base : r.rows)
      if (base.variant == r.baseline && base.kernel == row.kernel && base.result.ran && row.result.time.median > 0)
        row.speedup = base.result.time.median / row.result.time.median;
  }
  return r;
}

}  // namespace tessera::driver
