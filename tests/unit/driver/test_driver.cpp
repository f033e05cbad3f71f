// The driver: option parsing, the registry, a whole compare run, and the
// result files (complete or absent, never half-written).
#include "tessera/config.hpp"
#include "tessera/driver/cli.hpp"
#include "tessera/driver/results.hpp"
#include "tessera/driver/runner.hpp"
#include "tessera/driver/workload.hpp"
#include "tessera/driver/ceilings.hpp"
#include "temp_dir.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <unistd.h>

namespace {

using namespace tessera::driver;

Command parse(std::vector<std::string> args) { return parse_command_line(args); }

TEST(Cli, RejectsBadInputWithUsageErrors) {
  EXPECT_THROW(parse({}), UsageError);
  EXPECT_THROW(parse({"explode"}), UsageError);
  EXPECT_THROW(parse({"run"}), UsageError);
  EXPECT_THROW(parse({"run", "nope"}), UsageError);
  EXPECT_THROW(parse({"run", "stream", "--bogus"}), UsageError);
  EXPECT_THROW(parse({"run", "stream", "--size"}), UsageError);
  EXPECT_THROW(parse({"run", "stream", "--size", "-5"}), UsageError);
  EXPECT_THROW(parse({"run", "stream", "--size", "12abc"}), UsageError);
  EXPECT_THROW(parse({"run", "stream", "--repeats", "0"}), UsageError);
  EXPECT_THROW(parse({"compare", "stream", "--rounds", "0"}), UsageError);
  EXPECT_THROW(parse({"compare", "stream", "--rounds", "1001"}), UsageError);
  EXPECT_THROW(parse({"run", "stream", "--quiet=yes"}), UsageError);
  EXPECT_THROW(parse({"run", "stream", "positional"}), UsageError);
  EXPECT_THROW(parse({"compare", "stream", "--kernels", "copy,scale"}), UsageError);
  EXPECT_THROW(parse({"compare", "stream", "--json", "/no/such/dir/x.json"}), UsageError);
  EXPECT_THROW(parse({"list", "extra"}), UsageError);
}

TEST(Cli, AcceptsBothOptionSpellingsAndKokkosArguments) {
  auto cmd = parse({"compare", "stream", "--size=S", "--repeats", "3", "--kokkos-threads=2", "--quiet"});
  EXPECT_EQ(cmd.kind, Command::Kind::compare);
  EXPECT_EQ(cmd.options.get("size"), "S");
  EXPECT_EQ(cmd.options.get_int("repeats", 0, 1, 10), 3);
  EXPECT_TRUE(cmd.options.has("quiet"));
  EXPECT_EQ(cmd.options.get("warmup"), "2");  // the default
  auto help = parse({"run", "stream", "--help"});
  EXPECT_EQ(help.kind, Command::Kind::help);
  EXPECT_NE(help.help_text.find("--size"), std::string::npos);
}

TEST(Registry, KnowsStreamAndRejectsUnknownWorkloads) {
  EXPECT_EQ(make_workload("stream")->name(), "stream");
  EXPECT_THROW(make_workload("nope"), UsageError);
}

Report small_compare(std::vector<std::string> variants = {}) {
  auto w = make_workload("stream");
  w->configure(parse_options({"--size", "50001"}, w->options(), "test"));
  CompareRequest req;
  req.settings = {1, 3};
  req.seed = 7;
  req.variants = std::move(variants);
  req.ceilings = CeilingsMode::cached;  // STREAM's bandwidth comes from its own rows
  return run_compare(*w, req, Progress::none());
}

TEST(Runner, ComparesEveryAvailableVariantOnTheSameInputs) {
  const Report r = small_compare();
  auto w = make_workload("stream");
  const auto variants = available_variants(*w);
  EXPECT_EQ(r.rows.size(), 3 * variants.size());
  EXPECT_TRUE(r.all_valid());
  for (const auto& row : r.rows) {
    if (!row.result.ran) continue;
    EXPECT_GT(row.result.time.median, 0.0) << row.variant << " " << row.kernel;
    EXPECT_GT(row.gbs, 0.0);
    EXPECT_GT(row.roof_pct, 0.0);
    EXPECT_GT(r.ceilings.at(platform_id(row.platform)).copy_gbs, 0.0);
    EXPECT_GT(r.ceilings.at(platform_id(row.platform)).read_gbs, 0.0);
  }
  EXPECT_FALSE(r.baseline.empty());
  std::ostringstream table;
  print_report(r, table);
  EXPECT_NE(table.str().find("serial-reference"), std::string::npos);
  EXPECT_NE(table.str().find("build:"), std::string::npos);
  EXPECT_EQ(table.str().find("FAILED"), std::string::npos);
}

TEST(Runner, RoundsRunTheVariantListAgainAndKeepOneRowEach) {
  auto w = make_workload("stream");
  w->configure(parse_options({"--size", "50001"}, w->options(), "test"));
  CompareRequest req;
  req.settings = {1, 3};
  req.settings.rounds = 3;
  req.seed = 7;
  req.variants = {"serial-reference"};
  req.ceilings = CeilingsMode::cached;
  const Report r = run_compare(*w, req, Progress::none());
  ASSERT_EQ(r.rows.size(), 3u);  // copy, triad and sum, once each
  for (const auto& row : r.rows) {
    if (!row.result.ran) continue;
    EXPECT_EQ(row.result.time.repeats, 9) << row.kernel;
    EXPECT_LE(row.result.time.min, row.result.time.median);
    EXPECT_LE(row.result.time.median, row.result.time.max);
    EXPECT_TRUE(row.result.valid);
  }
  std::ostringstream table;
  print_report(r, table);
  EXPECT_NE(table.str().find("median of 3 rounds' medians"), std::string::npos);
}

Row timed_row(const std::string& kernel, double median, double min, double max, bool valid, double error) {
  Row row;
  row.kernel = kernel;
  row.variant = "v";
  row.result.kernel = kernel;
  row.result.ran = true;
  row.result.bytes = 2e9;
  row.result.flops = 1e9;
  row.result.time.median = median;
  row.result.time.min = min;
  row.result.time.max = max;
  row.result.time.repeats = 5;
  row.result.valid = valid;
  row.result.error = error;
  return row;
}

TEST(Runner, MergedRoundsTakeTheMedianOfTheirMedians) {
  const std::vector<std::vector<Row>> rounds = {
      {timed_row("a", 1.0, 0.9, 1.2, true, 1e-15), timed_row("b", 4.0, 3.0, 5.0, true, 0)},
      {timed_row("a", 5.0, 0.8, 6.0, false, 1e-3), timed_row("b", 2.0, 2.0, 2.5, true, 0)},
      {timed_row("a", 2.0, 1.5, 2.5, true, 1e-12), timed_row("b", 3.0, 2.9, 3.1, true, 0)}};
  const auto m = merge_rounds(rounds);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_DOUBLE_EQ(m[0].result.time.median, 2.0);  // not the mean (2.67) nor the first round's 1.0
  EXPECT_DOUBLE_EQ(m[0].result.time.min, 0.8);
  EXPECT_DOUBLE_EQ(m[0].result.time.max, 6.0);
  EXPECT_EQ(m[0].result.time.repeats, 15);
  EXPECT_FALSE(m[0].result.valid);  // one invalid round makes the row invalid
  EXPECT_DOUBLE_EQ(m[0].result.error, 1e-3);
  EXPECT_DOUBLE_EQ(m[0].gbs, 1.0);  // 2e9 bytes in 2 s
  EXPECT_DOUBLE_EQ(m[1].result.time.median, 3.0);
  EXPECT_TRUE(m[1].result.valid);
  EXPECT_DOUBLE_EQ(m[1].gflops, 1.0 / 3.0);
  // Two rounds: the mean of the two middle values.
  const auto two = merge_rounds({rounds[0], rounds[1]});
  EXPECT_DOUBLE_EQ(two[1].result.time.median, 3.0);
  // Rounds that ran different rows are refused.
  EXPECT_THROW(merge_rounds({rounds[0], {rounds[1][1], rounds[1][0]}}), std::invalid_argument);
  EXPECT_THROW(merge_rounds({rounds[0], {rounds[1][0]}}), std::invalid_argument);
}

TEST(Registry, TsmCountsAHostVariantsViewsInHostMemory) {
  // TSMM 2 x 2, K = 2^28: 8 GiB of inputs, a 4 GiB output. kokkos@OpenMP holds
  // its own Views of both beside the prepared inputs and the reference.
  auto w = make_workload("tsm");
  w->configure(parse_options({"--kernel", "tsmm", "--m", "2", "--k", "268435456"}, w->options(), "test"));
  const double in = 8.0 * (268435456.0 * 4 + 4), out = 8.0 * 268435456.0 * 2;
  const MemoryNeed need = w->memory_need();
  EXPECT_DOUBLE_EQ(need.device_bytes, in + out);
  EXPECT_GE(need.host_bytes, 2 * in + 3 * out);
}

TEST(Runner, RejectsUnknownAndUnavailableVariants) {
  EXPECT_THROW(small_compare({"warp-drive"}), UsageError);
#if !defined(KOKKOS_ENABLE_CUDA)
  EXPECT_THROW(small_compare({"kokkos@Cuda"}), UsageError);
#endif
}

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

TEST(Results, FilesAreWrittenWholeOrNotAtAll) {
  const Report r = small_compare({"serial-reference"});
  const tessera::test::TempDir tmp("tessera-test-");
  const std::string dir = tmp.str();
  write_csv(r, dir + "/r.csv");
  write_json(r, dir + "/r.json");
  const auto csv = slurp(dir + "/r.csv");
  EXPECT_EQ(csv.rfind("workload,command,param_elements", 0), 0u);
  EXPECT_NE(csv.find(",triad,serial-reference,cpu-1,"), std::string::npos);
  const auto text = slurp(dir + "/r.json");
  EXPECT_EQ(text.back(), '\n');
  const auto j = nlohmann::json::parse(text);  // throws if malformed
  EXPECT_EQ(j.at("workload"), "stream");
  EXPECT_EQ(j.at("seed").get<std::uint64_t>(), 7u);
  EXPECT_EQ(j.at("parameters").at("elements").get<long long>(), 50001);
  EXPECT_EQ(j.at("results").size(), r.rows.size());
  EXPECT_EQ(j.at("results")[0].at("ceiling").at("bound"), "memory");
  EXPECT_NE(access((dir + "/r.csv.tmp").c_str(), F_OK), 0);
#if TESSERA_HAS_HDF5
  write_hdf5(r, dir + "/r.h5");
  EXPECT_EQ(slurp(dir + "/r.h5").substr(0, 4), "\x89HDF");
#else
  EXPECT_THROW(write_hdf5(r, dir + "/r.h5"), UsageError);
#endif
  // A folder that is not there: an error, and nothing left behind.
  EXPECT_THROW(write_csv(r, dir + "/missing/r.csv"), std::runtime_error);
  EXPECT_NE(access((dir + "/missing").c_str(), F_OK), 0);
}

TEST(Cli, RepeatedOptionsAndMalformedKokkosOptionsAreUsageErrors) {
  EXPECT_THROW(parse({"run", "stream", "--size", "S", "--size", "M"}), UsageError);
  EXPECT_THROW(parse({"run", "stream", "--quiet", "--quiet"}), UsageError);
  EXPECT_THROW(parse({"run", "stream", "--kokkos-threads=abc"}), UsageError);
  EXPECT_THROW(parse({"run", "stream", "--kokkos-num-threads=0"}), UsageError);
  EXPECT_THROW(parse({"run", "stream", "--roofline", "--no-roofline"}), UsageError);
  EXPECT_THROW(parse({"run", "stream", "--seed", "-1"}), UsageError);
  EXPECT_EQ(parse({"run", "stream", "--seed", "18446744073709551615"}).options.get_uint64("seed", 0),
            18446744073709551615ull);
  // Both spellings of the thread count reach Kokkos, in its own spelling.
  const auto k = kokkos_arguments({"run", "stream", "--kokkos-num-threads=3", "--size", "S"});
  ASSERT_EQ(k.size(), 1u);
  EXPECT_TRUE(k[0] == "--kokkos-threads=3" || k[0] == "--kokkos-num-threads=3") << k[0];
  EXPECT_EQ(parse({"--version"}).kind, Command::Kind::version);
}

TEST(Cli, HelpLinesFitOneHundredColumns) {
  std::vector<std::string> texts = {parse({"--help"}).help_text};
  for (const auto& e : workloads())
    for (const char* c : {"run", "compare"}) texts.push_back(parse({c, e.name, "--help"}).help_text);
  for (const auto& t : texts) {
    std::istringstream in(t);
    std::string line;
    while (std::getline(in, line)) EXPECT_LE(line.size(), 100u) << line;
  }
}

TEST(Variants, TableGivesDefaultsAndWhatABuildLacks) {
  auto w = make_workload("stream");
  const auto& t = w->variants();
  ASSERT_NE(t.find("kokkos@OpenMP"), nullptr);
  EXPECT_TRUE(t.find("kokkos@OpenMP")->portable);
  EXPECT_EQ(t.find("nope"), nullptr);
#if !defined(KOKKOS_ENABLE_CUDA)
  ASSERT_NE(t.find("native-cuda"), nullptr);
  EXPECT_FALSE(t.find("native-cuda")->in_build());
  try {
    small_compare({"native-cuda"});
    ADD_FAILURE() << "a variant not in this build ran";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("not in this build (needs"), std::string::npos) << e.what();
  }
  EXPECT_EQ(t.default_variant(), "kokkos@OpenMP");
#endif
  // Every variant name appears once.
  std::set<std::string> names;
  for (const auto& v : t.all()) EXPECT_TRUE(names.insert(v.name).second) << v.name;
}

TEST(Ceilings, EachBoundTakesItsCeiling) {
  Ceilings c;
  c.copy_gbs = 100;
  c.read_gbs = 150;
  c.fp64_gflops = 1000;
  c.fp32_gflops = 2000;
  c.llc_bytes = 1 << 20;
  KernelResult k;
  k.bytes = 8e9;
  k.flops = 4e9;  // I = 0.5 flop/B
  k.bound = Bound::memory;
  EXPECT_DOUBLE_EQ(row_ceiling(k, 50, 25, c).efficiency, 0.5);
  k.traffic = Traffic::read;
  EXPECT_DOUBLE_EQ(row_ceiling(k, 75, 25, c).value, 150);
  k.bound = Bound::compute;
  k.arith = Arith::fp32;
  EXPECT_DOUBLE_EQ(row_ceiling(k, 0, 500, c).efficiency, 0.25);
  k.bound = Bound::roofline;  // min(0.5 * 150, 2000) = 75 GFLOP/s
  EXPECT_DOUBLE_EQ(row_ceiling(k, 0, 60, c).value, 75);
  EXPECT_DOUBLE_EQ(row_ceiling(k, 0, 60, c).efficiency, 0.8);
  k.flops = 8e13;  // I = 1e4: compute-bound
  EXPECT_DOUBLE_EQ(row_ceiling(k, 0, 60, c).value, 2000);
  EXPECT_FALSE(row_ceiling(k, 0, 60, c).in_cache);
  k.working_set = 1000;
  EXPECT_TRUE(row_ceiling(k, 0, 60, c).in_cache);
}

TEST(Ceilings, PortabilityIsTheHarmonicMeanOfTheBestEfficiencies) {
  Report r;
  Ceilings c;
  c.copy_gbs = 100;
  r.ceilings["cpu"] = c;
  r.ceilings["gpu"] = c;
  auto row = [](const char* variant, Platform p, double gbs, bool portable, bool valid) {
    Row x;
    x.kernel = "k";
    x.variant = variant;
    x.platform = p;
    x.portable = portable;
    x.native = !portable;
    x.result.ran = true;
    x.result.valid = valid;
    x.gbs = gbs;
    return x;
  };
  r.rows = {row("a@OpenMP", Platform::cpu, 50, true, true), row("b@OpenMP", Platform::cpu, 80, true, true),
            row("a@Cuda", Platform::gpu, 40, true, true), row("native", Platform::gpu, 90, false, true)};
  apply_ceilings(r);
  const auto& p = r.portability.at("k");
  EXPECT_NEAR(p.portable, 2 / (1 / 0.8 + 1 / 0.4), 1e-12);
  EXPECT_NEAR(p.native, 0.9, 1e-12);
  r.rows[2].result.valid = false;  // the GPU's only portable row failed: P = 0
  apply_ceilings(r);
  EXPECT_EQ(r.portability.at("k").portable, 0.0);
}

// A workload whose one variant never matches its reference.
class FailingWorkload final : public Workload {
 public:
  std::string name() const override { return "failing"; }
  std::string description() const override { return "fails validation"; }
  std::vector<OptionSpec> options() const override { return {}; }
  void configure(const Options&) override {}
  std::string problem_summary() const override { return "nothing"; }
  std::vector<Parameter> parameters() const override { return {{"n", 1LL}}; }
  MemoryNeed memory_need() const override { return {}; }
  void prepare(std::uint64_t, Progress&) override {}

 protected:
  void declare_variants(VariantTable& t) override {
    t.add("serial-reference", Platform::cpu1, "wrong on purpose", [](const RunSettings&) {
      KernelResult k;
      k.kernel = "k";
      k.ran = true;
      k.valid = false;
      k.time.median = 1;
      return std::vector<KernelResult>{k};
    });
  }
};

TEST(Cli, AValidationFailureExitsOne) {
  Command cmd;
  cmd.kind = Command::Kind::run;
  cmd.workload = "failing";
  cmd.configured = std::make_shared<FailingWorkload>();
  cmd.options.set("quiet", "1");
  cmd.options.set("no-roofline", "1");
  std::ostringstream out, err;
  EXPECT_EQ(execute(cmd, out, err), 1);
  EXPECT_NE(out.str().find("FAILED"), std::string::npos);
}

// A workload of three problems (`compare --sweep`): the variant's time is
// the point's side, the last point's row fails validation, rows of the
// second are timed only.
class SweepWorkload final : public Workload {
 public:
  std::vector<int> prepared;  // the side each prepare() saw, in order
  std::string name() const override { return "sweeping"; }
  std::string description() const override { return "three points"; }
  std::vector<OptionSpec> options() const override { return {}; }
  void configure(const Options&) override {}
  std::string problem_summary() const override { return "side " + std::to_string(side_); }
  std::vector<Parameter> parameters() const override { return {{"side", (long long)side_}, {"kind", "x"}}; }
  MemoryNeed memory_need() const override { return {}; }
  void prepare(std::uint64_t, Progress&) override { prepared.push_back(side_); }
  int sweep_size() const override { return 3; }
  void select_sweep_point(int i) override { side_ = 2 << i; }
  std::string sweep_label(int i) const override { return std::to_string(2 << i); }
  std::string sweep_axis() const override { return "side"; }

 protected:
  void declare_variants(VariantTable& t) override {
    t.add("serial-reference", Platform::cpu1, "its side in seconds", [this](const RunSettings&) {
      KernelResult k;
      k.kernel = "k";
      k.ran = true;
      k.valid = side_ != 8;
      k.checked = side_ != 4;
      k.time.median = side_;
      k.bytes = 1e9;
      return std::vector<KernelResult>{k};
    });
  }

 private:
  int side_ = 0;
};

TEST(Cli, ASweepRunsEachPointOnceInOrderIntoOneTableAndOneFile) {
  const tessera::test::TempDir tmp("tessera-test-");
  auto w = std::make_shared<SweepWorkload>();
  Command cmd;
  cmd.kind = Command::Kind::compare;
  cmd.workload = "sweeping";
  cmd.configured = w;
  for (const char* f : {"quiet", "no-roofline"}) cmd.options.set(f, "1");
  cmd.options.set("csv", tmp.str() + "/s.csv");
  cmd.options.set("json", tmp.str() + "/s.json");
  std::ostringstream out, err;
  EXPECT_EQ(execute(cmd, out, err), 1);  // the third point's row fails
  EXPECT_EQ(w->prepared, (std::vector<int>{2, 4, 8}));
  const std::string table = out.str();
  EXPECT_NE(table.find("3 problems (side), the first: side 2"), std::string::npos);
  const auto row = [&](const std::string& label) { return table.find("\n" + label + " "); };
  ASSERT_NE(row("2"), std::string::npos);
  EXPECT_LT(row("2"), row("4"));
  EXPECT_LT(row("4"), row("8"));
  EXPECT_NE(table.find("not checked"), std::string::npos);
  EXPECT_NE(table.find("FAILED"), std::string::npos);
  const auto csv = slurp(tmp.str() + "/s.csv");
  EXPECT_EQ(csv.rfind("point,workload,command,param_side,param_kind,kernel,", 0), 0u);
  for (const char* line : {"\n2,sweeping,compare,2,x,k,", "\n4,sweeping,compare,4,x,k,", "\n8,sweeping,compare,8,x,k,"})
    EXPECT_NE(csv.find(line), std::string::npos) << line;
  const auto j = nlohmann::json::parse(slurp(tmp.str() + "/s.json"));
  ASSERT_EQ(j.at("sweep").size(), 3u);
  EXPECT_EQ(j.at("sweep")[1].at("point"), "4");
  EXPECT_EQ(j.at("sweep")[1].at("report").at("results")[0].at("checked"), false);
  EXPECT_EQ(j.at("sweep")[2].at("report").at("parameters").at("side"), 8);
}

}  // namespace
