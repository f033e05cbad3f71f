// The driver: option parsing, the registry, a whole compare run, and the
// result files (complete or absent, never half-written).
#include "tessera/config.hpp"
#include "tessera/driver/cli.hpp"
#include "tessera/driver/results.hpp"
#include "tessera/driver/runner.hpp"
#include "tessera/driver/workload.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
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
  req.progress = false;
  std::ostringstream progress;
  return run_compare(*w, req, progress);
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
    EXPECT_GT(r.roofline_gbs.at(platform_id(row.platform)), 0.0);
  }
  EXPECT_FALSE(r.baseline.empty());
  std::ostringstream table;
  print_report(r, table);
  EXPECT_NE(table.str().find("serial-reference"), std::string::npos);
  EXPECT_NE(table.str().find("build:"), std::string::npos);
  EXPECT_EQ(table.str().find("FAILED"), std::string::npos);
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
  char dir_template[] = "/tmp/tessera-test-XXXXXX";
  const std::string dir = mkdtemp(dir_template);
  write_csv(r, dir + "/r.csv");
  write_json(r, dir + "/r.json");
  const auto csv = slurp(dir + "/r.csv");
  EXPECT_EQ(csv.rfind("workload,kernel,variant,platform", 0), 0u);
  EXPECT_NE(csv.find("stream,triad,serial-reference,cpu-1"), std::string::npos);
  const auto json = slurp(dir + "/r.json");
  EXPECT_NE(json.find("\"results\": ["), std::string::npos);
  EXPECT_EQ(json.back(), '\n');
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
  std::remove((dir + "/r.csv").c_str());
  std::remove((dir + "/r.json").c_str());
  std::remove((dir + "/r.h5").c_str());
  rmdir(dir.c_str());
}

}  // namespace
