// HDF5 output of a Report: root attributes for the context, /platforms/<id>
// groups for hardware and roofline, /results/<column> datasets for the rows.
#include "tessera/core/build_info.hpp"
#include "tessera/driver/hdf5_util.hpp"
#include "tessera/driver/results.hpp"

#include <hdf5.h>

#include <cstdio>
#include <functional>
#include <stdexcept>

namespace tessera::driver {
namespace {

using h5::attr_double;
using h5::attr_string;
void h5check(herr_t e, const char* what) { h5::check(e, what); }

void dataset_doubles(hid_t group, const char* name, const std::vector<double>& v) {
  hsize_t n = v.size();
  hid_t space = H5Screate_simple(1, &n, nullptr);
  hid_t ds = H5Dcreate2(group, name, H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  herr_t e = ds < 0 ? -1 : (n ? H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) : 0);
  if (ds >= 0) H5Dclose(ds);
  H5Sclose(space);
  h5check(e, name);
}

void dataset_strings(hid_t group, const char* name, const std::vector<std::string>& v) {
  size_t width = 1;
  for (const auto& s : v) width = std::max(width, s.size());
  std::vector<char> buf(v.size() * width, '\0');
  for (size_t i = 0; i < v.size(); ++i) v[i].copy(buf.data() + i * width, width);
  hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, width);
  H5Tset_strpad(type, H5T_STR_NULLPAD);
  hsize_t n = v.size();
  hid_t space = H5Screate_simple(1, &n, nullptr);
  hid_t ds = H5Dcreate2(group, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  herr_t e = ds < 0 ? -1 : (n ? H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()) : 0);
  if (ds >= 0) H5Dclose(ds);
  H5Sclose(space);
  H5Tclose(type);
  h5check(e, name);
}

void write_contents(hid_t file, const Report& r) {
  const auto& b = build_info();
  attr_string(file, "workload", r.workload);
  attr_string(file, "problem", r.problem);
  attr_double(file, "seed", double(r.seed));
  attr_double(file, "repeats", r.settings.repeats);
  attr_double(file, "warmup", r.settings.warmup);
  attr_string(file, "baseline", r.baseline);
  attr_string(file, "roofline_source", r.roofline_source);
  attr_string(file, "tessera_version", b.version);
  attr_string(file, "compiler", b.cxx_compiler);
  attr_string(file, "flags", b.cxx_flags);
  attr_string(file, "kokkos", b.kokkos_version + " " + b.kokkos_devices + " " + b.kokkos_arch);
  attr_string(file, "cuda", b.cuda_version);

  hid_t platforms = H5Gcreate2(file, "platforms", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  h5check(platforms < 0 ? -1 : 0, "create /platforms");
  for (const auto& [id, hw] : r.hardware) {
    hid_t g = H5Gcreate2(platforms, id.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    attr_string(g, "hardware", hw);
    attr_double(g, "roofline_gbs", r.roofline_gbs.count(id) ? r.roofline_gbs.at(id) : 0.0);
    H5Gclose(g);
  }
  H5Gclose(platforms);

  std::vector<std::string> kernel, variant, platform;
  std::vector<double> median, min, max, bytes, flops, gbs, gflops, roof, speedup, valid, error;
  for (const auto& row : r.rows) {
    if (!row.result.ran) continue;
    const auto& k = row.result;
    kernel.push_back(row.kernel);
    variant.push_back(row.variant);
    platform.push_back(platform_id(row.platform));
    median.push_back(k.time.median);
    min.push_back(k.time.min);
    max.push_back(k.time.max);
    bytes.push_back(k.bytes);
    flops.push_back(k.flops);
    gbs.push_back(row.gbs);
    gflops.push_back(row.gflops);
    roof.push_back(row.roof_pct);
    speedup.push_back(row.speedup);
    valid.push_back(k.valid ? 1 : 0);
    error.push_back(k.error);
  }
  hid_t g = H5Gcreate2(file, "results", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  h5check(g < 0 ? -1 : 0, "create /results");
  dataset_strings(g, "kernel", kernel);
  dataset_strings(g, "variant", variant);
  dataset_strings(g, "platform", platform);
  dataset_doubles(g, "median_s", median);
  dataset_doubles(g, "min_s", min);
  dataset_doubles(g, "max_s", max);
  dataset_doubles(g, "bytes", bytes);
  dataset_doubles(g, "flops", flops);
  dataset_doubles(g, "gbs", gbs);
  dataset_doubles(g, "gflops", gflops);
  dataset_doubles(g, "roof_pct", roof);
  dataset_doubles(g, "speedup", speedup);
  dataset_doubles(g, "valid", valid);
  dataset_doubles(g, "error", error);
  H5Gclose(g);
}

}  // namespace

void write_hdf5(const Report& r, const std::string& path) {
  const std::string tmp = path + ".tmp";
  hid_t file = H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  if (file < 0) throw std::runtime_error("cannot create HDF5 file '" + tmp + "'");
  try {
    write_contents(file, r);
  } catch (...) {
    H5Fclose(file);
    std::remove(tmp.c_str());
    throw;
  }
  if (H5Fclose(file) < 0 || std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw std::runtime_error("cannot write HDF5 file '" + path + "'");
  }
}

}  // namespace tessera::driver
