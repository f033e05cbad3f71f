// `tessera run gluon --output FILE.h5` as a user runs it (the CLI in
// process), the files read back: sigma against the library's integrate()
// over the same events, the running sigma's last point against sigma, the
// distributions' counts against the accepted events and their weights against
// sigma * N, the gauge profile's counts, the CSV beside the file, no
// temporaries; --output paths refused before anything runs.
#include "tessera/core/hdf5.hpp"
#include "tessera/driver/cli.hpp"
#include "tessera/driver/options.hpp"
#include "tessera/gluon/gluon.hpp"
#include "tessera/gluon/gluon_lhagrid.hpp"

#include <gtest/gtest.h>
#include <hdf5.h>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace tessera;

// A fresh folder of this test program.
std::string scratch_dir(const std::string& name) {
  const std::string d = "gluon_output_" + name + "_" + std::to_string(getpid());
  mkdir(d.c_str(), 0755);
  return d;
}

bool exists(const std::string& p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0;
}

double sum(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0); }

std::vector<double> dataset(hid_t file, const std::string& path) {
  std::vector<double> v;
  EXPECT_TRUE(h5::read_dataset_doubles(file, path, v)) << path;
  return v;
}
double attr(hid_t obj, const char* name) {
  std::vector<double> v;
  EXPECT_TRUE(h5::read_attr_values(obj, name, H5T_NATIVE_DOUBLE, 1, v)) << name;
  return v.empty() ? std::nan("") : v[0];
}

TEST(GluonOutput, FilesHoldTheRun) {
  const std::string dir = scratch_dir("files"), h5 = dir + "/run.h5";
  const std::uint64_t seed = 7, N = 30000;
  const int n = 5;
  std::ostringstream out, err;
  const driver::Command cmd = driver::parse_command_line(
      {"run", "gluon", "--n", std::to_string(n), "--events", std::to_string(N), "--pdf", "toy", "--precision", "double", "--seed",
       std::to_string(seed), "--variant", "kokkos@Serial", "--repeats", "1", "--warmup", "0", "--quiet",
       "--no-roofline", "--output", h5, "--json", dir + "/run.json"});
  ASSERT_EQ(driver::execute(cmd, out, err), 0) << out.str() << err.str();

  // The library over the same events (one call, no chunks).
  const auto pdf = gluon::make_pdf_grid<double, Kokkos::HostSpace>(gluon::load_pdf("toy"));
  const gluon::SigmaResult ref =
      gluon::integrate(Kokkos::DefaultHostExecutionSpace(), gluon::preset<double>("table3", n), pdf, seed, 0, N);

  h5::Handle file(H5Fopen(h5.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  ASSERT_TRUE(file.ok());
  std::string format;
  EXPECT_TRUE(h5::read_attr_string(file, "format", format));
  EXPECT_EQ(format, "tessera-gluon-run");
  const double sigma = attr(file, "sigma_pb"), error = attr(file, "sigma_error_pb");
  const double accepted = attr(file, "events_accepted");
  EXPECT_EQ(attr(file, "events_generated"), double(N));
  EXPECT_EQ(accepted, double(ref.accepted));
  EXPECT_NEAR(sigma / ref.sigma(), 1.0, 1e-12);
  EXPECT_NEAR(error / ref.error(), 1.0, 1e-9);

  // Running sigma: cumulative events up to N, the last point is sigma.
  const auto run_events = dataset(file, "running_sigma/x_hi"), run_sigma = dataset(file, "running_sigma/value");
  ASSERT_GE(run_sigma.size(), 4u);
  EXPECT_EQ(run_events.back(), double(N));
  for (std::size_t i = 1; i < run_events.size(); ++i) EXPECT_GT(run_events[i], run_events[i - 1]);
  EXPECT_EQ(run_sigma.back(), sigma);
  EXPECT_EQ(dataset(file, "running_sigma/error").back(), error);

  // Distributions: counts (with the outside ones) = accepted events, weights = sigma * N.
  for (const char* d : {"ht", "min_dr"}) {
    SCOPED_TRACE(d);
    h5::Handle g(H5Gopen2(file, d, H5P_DEFAULT), H5Gclose);
    ASSERT_TRUE(g.ok());
    EXPECT_EQ(sum(dataset(g, "events")) + attr(g, "outside_events"), accepted);
    EXPECT_NEAR((sum(dataset(g, "sum_w")) + attr(g, "outside_sum_w")) / (sigma * double(N)), 1.0, 1e-12);
    // dsigma/dx integrates to sigma (minus the outside part).
    const auto lo = dataset(g, "x_lo"), hi = dataset(g, "x_hi"), v = dataset(g, "value");
    double integral = 0;
    for (std::size_t b = 0; b < v.size(); ++b) integral += v[b] * (hi[b] - lo[b]);
    EXPECT_NEAR((integral + attr(g, "outside_sum_w") / double(N)) / sigma, 1.0, 1e-10);
  }
  {
    h5::Handle g(H5Gopen2(file, "min_dr", H5P_DEFAULT), H5Gclose);
    EXPECT_EQ(attr(g, "outside_events"), 0.0);  // the range holds every accepted event
  }
  // Gauge profile: every sampled event counted; double keeps the cancellation.
  {
    h5::Handle g(H5Gopen2(file, "gauge_log10_ratio", H5P_DEFAULT), H5Gclose);
    ASSERT_TRUE(g.ok());
    const double sampled = attr(g, "sampled_events");
    EXPECT_GT(sampled, 4000);
    EXPECT_EQ(sum(dataset(g, "events")) + attr(g, "outside_events"), sampled);
    EXPECT_LT(attr(g, "median"), -13);
    EXPECT_EQ(sum(dataset(file, "gauge_profile/events")), sampled);
  }

  // JSON: sigma and its error as observables at full precision.
  std::ifstream jf(dir + "/run.json");
  const auto j = nlohmann::json::parse(jf);
  const auto& o = j["results"][0]["observables"]["sigma"];
  EXPECT_EQ(o["value"].get<double>(), sigma);
  EXPECT_EQ(o["error"].get<double>(), error);
  EXPECT_EQ(o["unit"].get<std::string>(), "pb");
  // The printed last line.
  const std::string text = out.str();
  const auto last = text.find_last_of('\n', text.size() - 2);
  EXPECT_EQ(text.substr(last + 1, 8), "sigma = ") << text;

  // The CSV beside it: the sigma row, every series, no temporaries left.
  std::ifstream csv(dir + "/run.csv");
  ASSERT_TRUE(csv.good());
  std::string line, series;
  std::getline(csv, line);
  EXPECT_EQ(line, "series,x_lo,x_hi,value,error,events,unit");
  std::getline(csv, line);
  std::istringstream row(line);
  std::string f[7];
  for (auto& x : f) std::getline(row, x, ',');
  EXPECT_EQ(f[0], "sigma");
  EXPECT_EQ(std::strtod(f[3].c_str(), nullptr), sigma);
  while (std::getline(csv, line)) series += line.substr(0, line.find(',')) + " ";
  for (const char* s : {"running_sigma", "ht", "min_dr", "gauge_log10_ratio", "gauge_profile"})
    EXPECT_NE(series.find(std::string(s) + " "), std::string::npos) << s;
  EXPECT_FALSE(exists(h5 + ".tmp"));
  EXPECT_FALSE(exists(dir + "/run.csv.tmp"));
  std::filesystem::remove_all(dir);
}

// Paths refused before the run: nothing is written.
TEST(GluonOutput, BadPathsRefused) {
  const std::string dir = scratch_dir("bad");
  mkdir((dir + "/folder.h5").c_str(), 0755);
  auto refused = [&](std::vector<std::string> extra, const std::string& what) {
    std::vector<std::string> args = {"run", "gluon", "--n", "4", "--events", "1000", "--quiet"};
    args.insert(args.end(), extra.begin(), extra.end());
    try {
      driver::parse_command_line(args);
      ADD_FAILURE() << "accepted: " << what;
    } catch (const driver::UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  refused({"--output", dir + "/folder.h5"}, "it is a folder");
  refused({"--output", dir + "/none/run.h5"}, "does not exist or is not writable");
  refused({"--output", dir + "/r.h5", "--csv", dir + "/r.csv"}, "is also a file of --output");
  refused({"--output", dir + "/r.csv"}, "name the HDF5 file");
  EXPECT_FALSE(exists(dir + "/r.h5"));
  EXPECT_FALSE(exists(dir + "/r.csv"));
  std::filesystem::remove_all(dir);
}

}  // namespace
