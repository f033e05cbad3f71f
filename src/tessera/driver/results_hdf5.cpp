// HDF5 output of a Report: root attributes for the context, /parameters
// attributes (typed), /platforms/<id> groups for hardware and ceilings,
// /results/<column> datasets for the rows (the CSV's columns) and
// /observables/<name>{,_error} datasets.
#include "tessera/core/build_info.hpp"
#include "tessera/core/hdf5.hpp"
#include "tessera/driver/results.hpp"
#include "tessera/driver/results_schema.hpp"

#include <hdf5.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace tessera::driver {
namespace {

using h5::attr_double;
using h5::attr_string;
using h5::dataset_doubles;
using h5::group;
using h5::Handle;

void dataset_strings(hid_t group, const std::string& name, const std::vector<std::string>& v) {
  size_t width = 1;
  for (const auto& s : v) width = std::max(width, s.size());
  std::vector<char> buf(v.size() * width, '\0');
  for (size_t i = 0; i < v.size(); ++i) v[i].copy(buf.data() + i * width, width);
  Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(type, width);
  H5Tset_strpad(type, H5T_STR_NULLPAD);
  hsize_t n = v.size();
  Handle space(H5Screate_simple(1, &n, nullptr), H5Sclose);
  Handle ds(H5Dcreate2(group, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose);
  h5::check(!ds.ok() ? -1 : (n ? H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()) : 0),
            "write " + name);
}

void write_contents(hid_t file, const Report& r) {
  const auto& b = build_info();
  attr_string(file, "workload", r.workload);
  attr_string(file, "command", r.command);
  attr_string(file, "problem", r.problem);
  h5::attr_values(file, "seed", H5T_NATIVE_UINT64, std::vector<std::uint64_t>{r.seed});
  attr_double(file, "repeats", r.settings.repeats);
  attr_double(file, "warmup", r.settings.warmup);
  attr_double(file, "rounds", r.settings.rounds);
  attr_string(file, "baseline", r.baseline);
  attr_string(file, "ceilings_note", r.ceilings_note);
  attr_string(file, "tessera_version", b.version);
  attr_string(file, "compiler", b.cxx_compiler);
  attr_string(file, "flags", b.cxx_flags);
  attr_string(file, "kokkos", b.kokkos_version + " " + b.kokkos_devices + " " + b.kokkos_arch);
  attr_string(file, "cuda", b.cuda_version);

  {
    Handle params = group(file, "parameters");
    for (const auto& p : r.parameters) {
      if (auto* i = std::get_if<long long>(&p.value))
        h5::attr_values(params, p.name.c_str(), H5T_NATIVE_LLONG, std::vector<long long>{*i});
      else if (auto* d = std::get_if<double>(&p.value))
        attr_double(params, p.name.c_str(), *d);
      else
        attr_string(params, p.name.c_str(), std::get<std::string>(p.value));
    }
  }
  {
    Handle platforms = group(file, "platforms");
    for (const auto& [id, hw] : r.hardware) {
      Handle g = group(platforms, id);
      attr_string(g, "hardware", hw);
      if (auto it = r.ceilings.find(id); it != r.ceilings.end()) {
        const Ceilings& c = it->second;
        attr_double(g, "copy_gbs", c.copy_gbs);
        attr_double(g, "read_gbs", c.read_gbs);
        attr_double(g, "fp64_gflops", c.fp64_gflops);
        attr_double(g, "fp32_gflops", c.fp32_gflops);
        attr_double(g, "llc_bytes", c.llc_bytes);
        attr_double(g, "ranks", c.ranks);
        attr_string(g, "ceilings_source", c.source);
      }
    }
  }
  std::vector<const Row*> ran;
  for (const auto& row : r.rows)
    if (row.result.ran) ran.push_back(&row);
  {
    Handle g = group(file, "results");
    const auto& columns = schema::row_columns();
    std::vector<std::vector<std::string>> values;
    for (const Row* row : ran) values.push_back(schema::row_values(*row));
    for (std::size_t c = 0; c < columns.size(); ++c) {
      if (columns[c].text) {
        std::vector<std::string> v;
        for (const auto& row : values) v.push_back(row[c]);
        dataset_strings(g, columns[c].name, v);
      } else {
        std::vector<double> v;
        for (const auto& row : values) v.push_back(std::strtod(row[c].c_str(), nullptr));
        dataset_doubles(g, columns[c].name, v);
      }
    }
  }
  {
    // One value per result row (NaN where a row has no such observable).
    Handle g = group(file, "observables");
    for (const auto& name : schema::observable_names(r)) {
      std::vector<double> value, error;
      for (const Row* row : ran) {
        double v = std::nan(""), e = std::nan("");
        for (const auto& o : row->result.observables)
          if (o.name == name) v = o.value, e = o.error >= 0 ? o.error : std::nan("");
        value.push_back(v);
        error.push_back(e);
      }
      dataset_doubles(g, name, value);
      dataset_doubles(g, name + "_error", error);
    }
  }
}

}  // namespace

void write_hdf5(const Report& r, const std::string& path) {
  const std::string tmp = path + ".tmp";
  Handle file(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
  if (!file.ok()) throw std::runtime_error("cannot create HDF5 file '" + tmp + "'");
  try {
    write_contents(file, r);
  } catch (...) {
    file.close();
    std::remove(tmp.c_str());
    throw;
  }
  if (file.close() < 0 || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw std::runtime_error("cannot write HDF5 file '" + path + "'");
  }
}

}  // namespace tessera::driver
