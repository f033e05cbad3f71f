// The gluon run's output files (see gluon_run_output.hpp): HDF5 groups of 1-D
// datasets, and one long CSV (a row per point of every series) that a plot
// script or a spreadsheet reads without HDF5.
#include "tessera/gluon/workload/gluon_run_output.hpp"

#include "tessera/config.hpp"
#include "tessera/driver/results.hpp"
#if TESSERA_HAS_HDF5
#include "tessera/core/hdf5.hpp"
#endif

#include <sys/stat.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <stdexcept>

namespace tessera::gluon {

std::string run_output_csv_path(const std::string& h5_path) {
  const auto slash = h5_path.find_last_of('/');
  const std::string base = slash == std::string::npos ? h5_path : h5_path.substr(slash + 1);
  const auto dot = base.find_last_of('.');
  if (dot == std::string::npos || dot == 0) return h5_path + ".csv";
  return h5_path.substr(0, h5_path.size() - base.size() + dot) + ".csv";
}

void check_run_output_path(const std::string& h5_path, const driver::Options& opts) {
#if !TESSERA_HAS_HDF5
  (void)opts;
  throw driver::UsageError("--output '" + h5_path + "': this Tessera build has no HDF5 (TESSERA_ENABLE_HDF5)");
#else
  const std::string csv = run_output_csv_path(h5_path);
  if (csv == h5_path)
    throw driver::UsageError("--output '" + h5_path + "': name the HDF5 file FILE.h5 (FILE.csv is written beside it)");
  for (const std::string& p : {h5_path, csv}) {
    driver::check_output_path(p);
    struct stat st;
    if (stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
      throw driver::UsageError("--output: cannot write '" + p + "': it is a folder");
  }
  for (const char* f : {"csv", "json", "h5"})
    if (opts.has(f) && (opts.get(f) == csv || opts.get(f) == h5_path))
      throw driver::UsageError(std::string("--") + f + " '" + opts.get(f) + "' is also a file of --output '" +
                               h5_path + "'");
#endif
}

namespace {

struct Series {
  std::string name, unit;
  std::vector<double> lo, hi, value, error, events;
  void add(double l, double h, double v, double e, double n) {
    lo.push_back(l), hi.push_back(h), value.push_back(v), error.push_back(e), events.push_back(n);
  }
};

// Every series of the run, in the CSV's order.
std::vector<Series> all_series(const RunOutput& o) {
  std::vector<Series> out;
  const std::uint64_t N = o.sigma.generated;
  Series s{"sigma", "pb"};
  s.add(0, double(N), o.sigma.sigma(), o.sigma.error(), double(o.sigma.accepted));
  out.push_back(s);
  Series run{"running_sigma", "pb"};
  for (const auto& r : o.running) run.add(0, double(r.generated), r.sigma(), r.error(), double(r.accepted));
  out.push_back(run);
  auto dist = [&](const char* name, const char* unit, const Distribution& d) {
    Series h{name, unit};
    const double wd = d.width();
    for (int b = 0; b < d.binning.bins; ++b)
      h.add(d.binning.lo + b * wd, d.binning.lo + (b + 1) * wd, d.dsigma(b, N), d.dsigma_error(b, N), d.count[b]);
    out.push_back(h);
  };
  dist("ht", "pb/GeV", o.hist.ht);
  dist("min_dr", "pb", o.hist.dr);
  const GaugeProfile& g = o.gauge;
  Series gr{"gauge_log10_ratio", ""};
  const double rw = (g.ratio.hi - g.ratio.lo) / g.ratio.bins;
  for (int b = 0; b < g.ratio.bins; ++b)
    gr.add(g.ratio.lo + b * rw, g.ratio.lo + (b + 1) * rw, g.sampled ? g.ratio_count[b] / double(g.sampled) : 0.0, -1,
           g.ratio_count[b]);
  out.push_back(gr);
  Series gp{"gauge_profile", ""};
  const double ww = (g.weight.hi - g.weight.lo) / g.weight.bins;
  for (std::size_t b = 0; b < g.mean_ratio2.size(); ++b)
    gp.add(g.weight.lo + double(b) * ww, g.weight.lo + double(b + 1) * ww, g.mean_ratio2[b], g.mean_ratio2_error[b],
           g.weight_count[b]);
  out.push_back(gp);
  return out;
}

std::string csv_text(const std::vector<Series>& series) {
  std::ostringstream s;
  s << std::setprecision(17);
  s << "series,x_lo,x_hi,value,error,events,unit\n";
  for (const auto& x : series)
    for (std::size_t i = 0; i < x.value.size(); ++i) {
      s << x.name << "," << x.lo[i] << "," << x.hi[i] << "," << x.value[i] << ",";
      if (x.error[i] >= 0) s << x.error[i];
      s << "," << x.events[i] << "," << x.unit << "\n";
    }
  return s.str();
}

#if TESSERA_HAS_HDF5
void write_hdf5_contents(hid_t file, const RunOutput& o, const std::vector<Series>& series) {
  h5::attr_string(file, "format", "tessera-gluon-run");
  h5::attr_double(file, "version", 1);
  h5::attr_values(file, "n", H5T_NATIVE_INT, std::vector<int>{o.n});
  h5::attr_values(file, "seed", H5T_NATIVE_UINT64, std::vector<std::uint64_t>{o.seed});
  h5::attr_values(file, "events_generated", H5T_NATIVE_UINT64, std::vector<std::uint64_t>{o.sigma.generated});
  h5::attr_values(file, "events_accepted", H5T_NATIVE_UINT64, std::vector<std::uint64_t>{o.sigma.accepted});
  for (const auto& [name, v] : {std::pair<const char*, double>{"sigma_pb", o.sigma.sigma()},
                                {"sigma_error_pb", o.sigma.error()},
                                {"sqrt_s_gev", o.sqrt_s},
                                {"pt_min_gev", o.pt_min},
                                {"eta_max", o.eta_max},
                                {"dr_min", o.dr_min}})
    h5::attr_double(file, name, v);
  for (const auto& [name, v] : {std::pair<const char*, const std::string*>{"pdf", &o.pdf},
                                {"preset", &o.preset},
                                {"precision", &o.precision},
                                {"variant", &o.variant}})
    h5::attr_string(file, name, *v);
  // A group per series (sigma itself is in the root's attributes).
  for (std::size_t i = 1; i < series.size(); ++i) {
    const Series& x = series[i];
    h5::Handle g = h5::group(file, x.name);
    h5::attr_string(g, "unit", x.unit);
    h5::dataset_doubles(g, "x_lo", x.lo);
    h5::dataset_doubles(g, "x_hi", x.hi);
    h5::dataset_doubles(g, "value", x.value);
    h5::dataset_doubles(g, "error", x.error);
    h5::dataset_doubles(g, "events", x.events);
  }
  // What the bins leave out, and the sums the bins' values come from.
  for (const auto& [name, d] :
       {std::pair<const char*, const Distribution*>{"ht", &o.hist.ht}, {"min_dr", &o.hist.dr}}) {
    h5::Handle g(H5Gopen2(file, name, H5P_DEFAULT), H5Gclose);
    h5::check(g.ok() ? 0 : -1, std::string("open group ") + name);
    h5::dataset_doubles(g, "sum_w", d->w);
    h5::dataset_doubles(g, "sum_w2", d->w2);
    h5::attr_double(g, "outside_events", d->outside_count);
    h5::attr_double(g, "outside_sum_w", d->outside_w);
    h5::attr_double(g, "outside_sum_w2", d->outside_w2);
  }
  h5::Handle g(H5Gopen2(file, "gauge_log10_ratio", H5P_DEFAULT), H5Gclose);
  h5::check(g.ok() ? 0 : -1, "open group gauge_log10_ratio");
  h5::attr_double(g, "sampled_events", double(o.gauge.sampled));
  h5::attr_double(g, "outside_events", o.gauge.ratio_outside);
  h5::attr_double(g, "median", o.gauge.median_log10);
  h5::attr_double(g, "p99", o.gauge.p99_log10);
}
#endif

}  // namespace

void write_run_output(const std::string& h5_path, const RunOutput& out) {
#if !TESSERA_HAS_HDF5
  (void)out;
  throw std::runtime_error("cannot write '" + h5_path + "': this Tessera build has no HDF5");
#else
  const std::string csv = run_output_csv_path(h5_path);
  const std::string h5_tmp = h5_path + ".tmp", csv_tmp = csv + ".tmp";
  auto drop = [&](const std::string& why) {
    std::remove(h5_tmp.c_str());
    std::remove(csv_tmp.c_str());
    throw std::runtime_error(why);
  };
  const auto series = all_series(out);
  {
    h5::Handle file(H5Fcreate(h5_tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
    if (!file.ok()) drop("cannot create HDF5 file '" + h5_tmp + "'");
    try {
      write_hdf5_contents(file, out, series);
    } catch (const std::exception& e) {
      file.close();
      drop(e.what());
    }
    if (file.close() < 0) drop("cannot write HDF5 file '" + h5_tmp + "'");
  }
  {
    std::ofstream f(csv_tmp, std::ios::binary | std::ios::trunc);
    f << csv_text(series);
    f.flush();
    if (!f) drop("cannot write '" + csv_tmp + "'");
  }
  if (std::rename(h5_tmp.c_str(), h5_path.c_str()) != 0) drop("cannot rename '" + h5_tmp + "' to '" + h5_path + "'");
  if (std::rename(csv_tmp.c_str(), csv.c_str()) != 0) {
    std::remove(h5_path.c_str());
    drop("cannot rename '" + csv_tmp + "' to '" + csv + "'");
  }
#endif
}

}  // namespace tessera::gluon
