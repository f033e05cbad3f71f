#include "tessera/driver/runner.hpp"

#include "tessera/core/timer.hpp"
#include "tessera/driver/mpi_session.hpp"
#include "tessera/driver/platform.hpp"

#include <algorithm>
#include <iomanip>
#include <set>
#include <sstream>
#include <stdexcept>

namespace tessera::driver {

std::vector<Variant> available_variants(const Workload& w) {
  std::vector<Variant> out;
  for (const auto& v : w.variants().all())
    if (v.in_build() && platform_available(v.platform)) out.push_back(v);
  return out;
}

namespace {

std::string join_names(const std::vector<Variant>& vs) {
  std::string list;
  for (const auto& v : vs) list += (list.empty() ? "" : ", ") + v.name;
  return list;
}

std::vector<Variant> select_variants(const Workload& w, const std::vector<std::string>& names) {
  const auto& table = w.variants();
  const auto here = available_variants(w);
  if (names.empty()) return here;
  std::vector<Variant> out;
  for (const auto& n : names) {
    const Variant* known = table.find(n);
    if (!known)
      throw UsageError("unknown variant '" + n + "' for workload '" + w.name() + "' (known: " +
                       join_names(table.all()) + ")");
    if (!known->in_build())
      throw UsageError("variant '" + n + "' is not in this build (needs " + known->needs + ")");
    if (!platform_available(known->platform))
      throw UsageError("variant '" + n + "' needs platform '" + platform_id(known->platform) +
                       "', which this machine does not have");
    out.push_back(*known);
  }
  return out;
}

std::string gib(double bytes) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(2) << bytes / (1 << 30) << " GiB";
  return s.str();
}

void check_memory(const Workload& w, const std::vector<Variant>& variants) {
  const MemoryNeed need = w.memory_need();
  double free_host = 0, total = 0;
  platform_memory(Platform::cpu1, free_host, total);
  if (free_host > 0 && need.host_bytes > 0.9 * free_host)
    throw UsageError("problem needs " + gib(need.host_bytes) + " of host memory, " + gib(free_host) +
                     " available: choose a smaller size");
  const bool gpu = std::any_of(variants.begin(), variants.end(),
                               [](const Variant& v) { return v.platform == Platform::gpu; });
  if (gpu) {
    double free_dev = 0;
    platform_memory(Platform::gpu, free_dev, total);
    if (need.device_bytes > 0.95 * free_dev)
      throw UsageError("problem needs " + gib(need.device_bytes) + " of GPU memory, " + gib(free_dev) +
                       " free: choose a smaller size");
  }
}

// A row's rates from its median time (0 where it did not run).
void set_rates(Row& row) {
  const KernelResult& k = row.result;
  const bool timed = k.ran && k.time.median > 0;
  row.gbs = timed ? k.bytes / k.time.median * 1e-9 : 0;
  row.gflops = timed ? k.flops / k.time.median * 1e-9 : 0;
}

std::vector<Row> run_variants(const std::vector<Variant>& variants, const RunSettings& settings,
                              Progress& progress, const std::string& label) {
  if (settings.rounds > 1) {
    std::vector<std::vector<Row>> rounds;
    RunSettings one = settings;
    one.rounds = 1;
    for (int k = 1; k <= settings.rounds; ++k)
      rounds.push_back(run_variants(variants, one, progress,
                                    label + " round " + std::to_string(k) + "/" + std::to_string(settings.rounds)));
    return merge_rounds(rounds);
  }
  std::vector<Row> rows;
  int i = 0;
  for (const auto& v : variants) {
    ++i;
    progress.message("[" + label + " " + std::to_string(i) + "/" + std::to_string(variants.size()) + "] " + v.name +
                     " on " + platform_id(v.platform) + " ...");
    for (auto& k : v.run(settings)) {
      Row row;
      row.kernel = k.kernel;
      row.variant = v.name;
      row.platform = v.platform;
      row.portable = v.portable;
      row.native = v.native;
      row.result = k;
      set_rates(row);
      rows.push_back(std::move(row));
    }
  }
  return rows;
}

// STREAM's own rows are its bandwidth ceilings.
void bandwidth_from_rows(Report& r, const std::vector<std::string>& kernels) {
  for (const auto& row : r.rows) {
    if (!row.result.ran || !row.result.valid) continue;
    if (std::find(kernels.begin(), kernels.end(), row.kernel) == kernels.end()) continue;
    Ceilings& c = r.ceilings[platform_id(row.platform)];
    if (row.kernel == "sum") c.read_gbs = std::max(c.read_gbs, row.gbs);
    else c.copy_gbs = std::max(c.copy_gbs, row.gbs);
  }
}

double harmonic_portability(const std::map<std::string, double>& e) {
  if (e.empty()) return -1;
  double s = 0;
  for (const auto& [p, v] : e) {
    if (!(v > 0)) return 0;
    s += 1 / v;
  }
  return double(e.size()) / s;
}

}  // namespace

std::vector<Row> merge_rounds(const std::vector<std::vector<Row>>& rounds) {
  if (rounds.empty()) return {};
  std::vector<Row> out = rounds.front();
  for (const auto& round : rounds)
    if (round.size() != out.size()) throw std::invalid_argument("merge_rounds: the rounds ran different rows");
  for (std::size_t i = 0; i < out.size(); ++i) {
    Row& row = out[i];
    KernelResult& k = row.result;
    std::vector<double> medians;
    for (std::size_t r = 0; r < rounds.size(); ++r) {
      const Row& other = rounds[r][i];
      const KernelResult& x = other.result;
      if (other.variant != row.variant || other.kernel != row.kernel || x.ran != k.ran)
        throw std::invalid_argument("merge_rounds: the rounds ran different rows");
      if (!x.ran) continue;
      medians.push_back(x.time.median);
      if (r == 0) continue;  // out starts as the first round
      k.time.min = std::min(k.time.min, x.time.min);
      k.time.max = std::max(k.time.max, x.time.max);
      k.time.repeats += x.time.repeats;
      k.valid = k.valid && x.valid;
      k.checked = k.checked && x.checked;
      k.error = std::max(k.error, x.error);
    }
    if (!k.ran) continue;
    k.time.median = summarize(std::move(medians)).median;
    set_rates(row);
  }
  return out;
}

void apply_ceilings(Report& r) {
  r.portability.clear();
  for (auto& row : r.rows) {
    const auto it = r.ceilings.find(platform_id(row.platform));
    if (!row.result.ran || it == r.ceilings.end()) continue;
    row.ceiling = row_ceiling(row.result, row.gbs, row.gflops, it->second);
    row.roof_pct = 100 * row.ceiling.efficiency;
  }
  // Pennycook-Sewall-Lee: per kernel, over the platforms where portable
  // (native) variants ran, the best valid efficiency on each.
  for (const auto& row : r.rows) {
    if (!row.result.ran || !(row.portable || row.native)) continue;
    Portability& p = r.portability[row.kernel];
    auto& e = row.portable ? p.portable_efficiency : p.native_efficiency;
    double& best = e[platform_id(row.platform)];
    if (row.result.valid && row.ceiling.value > 0) best = std::max(best, row.ceiling.efficiency);
  }
  for (auto& [kernel, p] : r.portability) {
    p.portable = harmonic_portability(p.portable_efficiency);
    p.native = harmonic_portability(p.native_efficiency);
  }
}

void check_variants_fit(const Workload& w, const std::vector<std::string>& variants) {
  check_memory(w, select_variants(w, variants));
}

Report run_compare(Workload& w, const CompareRequest& req, Progress& progress) {
  const auto variants = select_variants(w, req.variants);
  if (variants.empty()) throw UsageError("no variant of '" + w.name() + "' can run here");
  if (!req.baseline.empty() &&
      std::none_of(variants.begin(), variants.end(), [&](const Variant& v) { return v.name == req.baseline; }))
    throw UsageError("baseline variant '" + req.baseline + "' is not among the variants run");
  check_memory(w, variants);

  Report r;
  r.command = req.command;
  r.workload = w.name();
  r.parameters = w.parameters();
  r.settings = req.settings;
  r.settings.progress = &progress;
  r.seed = req.seed;
  std::set<Platform> platforms;
  for (const auto& v : variants) platforms.insert(v.platform);
  for (auto p : platforms) r.hardware[platform_id(p)] = platform_hardware(p);

  w.prepare(req.seed, progress);
  r.problem = w.problem_summary();
  r.rows = run_variants(variants, r.settings, progress, w.name());

  const auto own = w.roofline_kernels();
  if (req.ceilings == CeilingsMode::off) {
    r.ceilings_note = "not measured (--no-roofline)";
  } else {
    if (own.empty()) {
      r.ceilings = ceilings(platforms, req.ceilings, progress);
    } else {
      // STREAM is the bandwidth ceiling: its own rows replace the measured
      // or cached bandwidth; the compute ceilings stay.
      r.ceilings = ceilings(platforms, req.ceilings, progress);
      for (auto& [id, c] : r.ceilings) c.copy_gbs = c.read_gbs = 0;
      bandwidth_from_rows(r, own);
      for (auto& [id, c] : r.ceilings)
        c.source = c.has_compute() ? "bandwidth: this run's rows; compute: " + c.source
                                   : "bandwidth: this run's rows";
    }
    if (r.ceilings.empty())
      r.ceilings_note = "none cached for this host and build (--roofline measures them, --recalibrate renews them)";
  }
  apply_ceilings(r);

  // Speed-up over the CPU baseline, kernel by kernel.
  auto ran = [&](const std::string& name) {
    return std::any_of(r.rows.begin(), r.rows.end(),
                       [&](const Row& row) { return row.variant == name && row.result.ran; });
  };
  if (!req.baseline.empty()) {
    r.baseline = req.baseline;
  } else if (variants.size() > 1) {
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
