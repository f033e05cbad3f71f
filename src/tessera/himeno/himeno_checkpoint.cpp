// Himeno state files: see himeno_checkpoint.hpp.
#include "tessera/himeno/himeno_checkpoint.hpp"

#include "tessera/config.hpp"
#include "tessera/core/hdf5.hpp"

#include <hdf5.h>
#if TESSERA_HAS_MPI
#include <mpi.h>
#endif

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <optional>

namespace tessera::himeno {
namespace {

constexpr const char* kFormat = "tessera-himeno-state";
constexpr double kVersion = 1;

void world(int& rank, int& size) {
  rank = 0, size = 1;
#if TESSERA_HAS_MPI
  int up = 0, down = 0;
  MPI_Initialized(&up);
  MPI_Finalized(&down);
  if (up && !down) {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
  }
#endif
}

// Global planes [lo, hi) rank r writes: its owned planes, plus the lower
// boundary plane on the first rank and the upper one on the last.
void written_planes(const Slab& s, int& lo, int& hi) {
  lo = s.first - (s.rank == 0 ? 1 : 0);
  hi = s.end + (s.rank + 1 == s.ranks ? 1 : 0);
}

// Planes per write/message: at most 256 MiB (MPI counts are ints; HDF5 1.10
// has trouble with more than 2 GiB per rank and call).
int chunk_planes(std::size_t plane_bytes) {
  return int(std::max<std::size_t>(1, (std::size_t(256) << 20) / plane_bytes));
}

using Id = h5::Handle;

void write_attributes(hid_t file, const CheckpointInfo& info) {
  h5::attr_string(file, "format", kFormat);
  h5::attr_double(file, "version", kVersion);
  h5::attr_values(file, "grid", H5T_NATIVE_INT, std::vector<int>{info.grid.imax, info.grid.jmax, info.grid.kmax});
  h5::attr_string(file, "precision", info.precision);
  h5::attr_string(file, "init", info.init);
  h5::attr_values(file, "seed", H5T_NATIVE_UINT64, std::vector<std::uint64_t>{info.seed});
  h5::attr_double(file, "omega", info.omega);
  h5::attr_values(file, "sweeps", H5T_NATIVE_INT, std::vector<int>{info.sweeps});
  h5::attr_string(file, "variant", info.variant);
}

// Creates /p and /gosa; writes /gosa when write_gosa (one writer).
hid_t create_datasets(hid_t file, const CheckpointInfo& info, hid_t type, hid_t gosa_xfer, bool write_gosa) {
  const hsize_t dims[3] = {hsize_t(info.grid.imax), hsize_t(info.grid.jmax), hsize_t(info.grid.kmax)};
  Id space(H5Screate_simple(3, dims, nullptr), H5Sclose);
  hid_t p = H5Dcreate2(file, "p", type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  h5::check(p, "create /p");
  const hsize_t n = info.gosa.size();
  Id gspace(H5Screate_simple(1, &n, nullptr), H5Sclose);
  Id g(H5Dcreate2(file, "gosa", H5T_NATIVE_DOUBLE, gspace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose);
  h5::check(g, "create /gosa");
  if (n) {
    Id sel(H5Screate_simple(1, &n, nullptr), H5Sclose);
    if (!write_gosa) {
      H5Sselect_none(sel);
      H5Sselect_none(gspace);
    }
    h5::check(H5Dwrite(g, H5T_NATIVE_DOUBLE, sel, gspace, gosa_xfer, info.gosa.data()), "write /gosa");
  }
  return p;
}

// Writes global planes [lo, lo + count) of /p from data (count may be 0: an
// empty selection, for collective calls).
void write_planes(hid_t p, hid_t type, hid_t xfer, const Grid& g, int lo, int count, const void* data) {
  Id file_space(H5Dget_space(p), H5Sclose);
  const hsize_t start[3] = {hsize_t(lo), 0, 0}, cnt[3] = {hsize_t(count), hsize_t(g.jmax), hsize_t(g.kmax)};
  const hsize_t mem_dims[3] = {hsize_t(std::max(count, 1)), hsize_t(g.jmax), hsize_t(g.kmax)};
  Id mem(H5Screate_simple(3, mem_dims, nullptr), H5Sclose);
  if (count > 0) {
    h5::check(H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start, nullptr, cnt, nullptr), "select planes");
  } else {
    H5Sselect_none(file_space);
    H5Sselect_none(mem);
  }
  h5::check(H5Dwrite(p, type, mem, file_space, xfer, data), "write /p");
}

}  // namespace

void write_checkpoint(const std::string& path, const CheckpointInfo& info, const Slab& slab, const void* p_local,
                      CheckpointIo io) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  int rank = 0, size = 1;
  world(rank, size);
  if (size != slab.ranks || rank != slab.rank)
    throw std::invalid_argument("tessera::himeno::write_checkpoint: the slab is rank " + std::to_string(slab.rank) +
                                " of " + std::to_string(slab.ranks) + ", this process is rank " +
                                std::to_string(rank) + " of " + std::to_string(size));
  const Grid& g = info.grid;
  if (g.imax != slab.global.imax || g.jmax != slab.global.jmax || g.kmax != slab.global.kmax ||
      int(info.gosa.size()) != info.sweeps)
    throw std::invalid_argument("tessera::himeno::write_checkpoint: the info does not match the slab or its history");
  const hid_t type = info.double_storage() ? H5T_NATIVE_DOUBLE : H5T_NATIVE_FLOAT;
  const std::size_t plane_bytes = std::size_t(g.jmax) * g.kmax * (info.double_storage() ? 8 : 4);
  const int chunk = chunk_planes(plane_bytes);
  const std::string tmp = path + ".tmp";
  const char* base = static_cast<const char*>(p_local);
  auto local = [&](int global_plane) { return base + std::size_t(global_plane - slab.i_offset) * plane_bytes; };
  int lo = 0, hi = 0;
  written_planes(slab, lo, hi);

  int ok = 1;
  std::string error;
  bool parallel = false;
#if defined(H5_HAVE_PARALLEL) && TESSERA_HAS_MPI
  parallel = size > 1 && io == CheckpointIo::automatic;
  if (parallel) {
    // Every rank writes its planes into the one file through MPI-IO.
    try {
      Id fapl(H5Pcreate(H5P_FILE_ACCESS), H5Pclose);
      h5::check(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL), "MPI-IO file access");
      Id file(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl), H5Fclose);
      if (!file.ok()) throw std::runtime_error("cannot create '" + tmp + "'");
      Id xfer(H5Pcreate(H5P_DATASET_XFER), H5Pclose);
      h5::check(H5Pset_dxpl_mpio(xfer, H5FD_MPIO_COLLECTIVE), "collective transfer");
      write_attributes(file, info);
      Id p(create_datasets(file, info, type, xfer, rank == 0), H5Dclose);
      // Collective writes: every rank takes part in as many rounds as the rank with the most chunks.
      int rounds = (hi - lo + chunk - 1) / chunk, max_rounds = 0;
      MPI_Allreduce(&rounds, &max_rounds, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      for (int r = 0; r < max_rounds; ++r) {
        const int a = std::min(hi, lo + r * chunk), n = std::min(chunk, hi - a);
        write_planes(p, type, xfer, g, a, n, n > 0 ? local(a) : base);
      }
    } catch (const std::exception& e) {
      ok = 0;
      error = e.what();
    }
  }
#else
  (void)io;
#endif
  if (!parallel && rank == 0) {
    // One writer: rank 0's planes, then every other rank's as they arrive.
    // After a failure it still receives everything (the senders would wait).
    std::optional<Id> file, p;
    auto attempt = [&](auto&& fn) {
      if (!ok) return;
      try {
        fn();
      } catch (const std::exception& e) {
        ok = 0;
        error = e.what();
      }
    };
    attempt([&] {
      file.emplace(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
      if (!file->ok()) throw std::runtime_error("cannot create '" + tmp + "'");
      write_attributes(*file, info);
      p.emplace(create_datasets(*file, info, type, H5P_DEFAULT, true), H5Dclose);
      for (int a = lo; a < hi; a += chunk) write_planes(*p, type, H5P_DEFAULT, g, a, std::min(chunk, hi - a), local(a));
    });
#if TESSERA_HAS_MPI
    std::vector<char> buf;
    for (int r = 1; r < size; ++r) {
      int rlo = 0, rhi = 0;
      written_planes(slab_decomposition(g, size, r), rlo, rhi);
      for (int a = rlo; a < rhi; a += chunk) {
        const int n = std::min(chunk, rhi - a);
        buf.resize(std::size_t(n) * plane_bytes);
        MPI_Recv(buf.data(), int(buf.size()), MPI_BYTE, r, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        attempt([&] { write_planes(*p, type, H5P_DEFAULT, g, a, n, buf.data()); });
      }
    }
#endif
    p.reset();
    if (file && file->ok() && file->close() < 0 && ok) ok = 0, error = "closing the file failed";
  }
#if TESSERA_HAS_MPI
  if (!parallel && rank != 0)
    for (int a = lo; a < hi; a += chunk)
      MPI_Send(local(a), int(std::size_t(std::min(chunk, hi - a)) * plane_bytes), MPI_BYTE, 0, 77, MPI_COMM_WORLD);
  if (size > 1) {
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    ok = all;
  }
#endif
  // The file is complete and closed: rank 0 gives it its name.
  if (rank == 0) {
    if (ok && std::rename(tmp.c_str(), path.c_str()) != 0) {
      ok = 0;
      error = "cannot rename '" + tmp + "' to '" + path + "'";
    }
    if (!ok) std::remove(tmp.c_str());
  }
#if TESSERA_HAS_MPI
  if (size > 1) MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
#endif
  if (!ok)
    throw CheckpointError("cannot write Himeno state file '" + path + "'" + (error.empty() ? "" : ": " + error));
}

CheckpointInfo read_checkpoint_info(const std::string& path) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const std::string what = "Himeno state file '" + path + "'";
  if (!std::ifstream(path).good()) throw CheckpointError("cannot open " + what);
  if (H5Fis_hdf5(path.c_str()) <= 0) throw CheckpointError(what + " is not an HDF5 file");
  Id file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!file.ok()) throw CheckpointError("cannot open " + what + " (HDF5)");
  auto bad = [&](const std::string& why) { return CheckpointError(what + " is not a valid Tessera Himeno state: " + why); };
  std::string format;
  if (!h5::read_attr_string(file, "format", format) || format != kFormat)
    throw bad("no format attribute '" + std::string(kFormat) + "'");
  std::vector<double> version;
  if (!h5::read_attr_values(file, "version", H5T_NATIVE_DOUBLE, 1, version) || version[0] != kVersion)
    throw bad("unsupported version");
  CheckpointInfo info;
  std::vector<int> grid, sweeps;
  std::vector<std::uint64_t> seed;
  std::vector<double> omega;
  if (!h5::read_attr_values(file, "grid", H5T_NATIVE_INT, 3, grid)) throw bad("no grid attribute");
  try {
    info.grid = make_grid(grid[0], grid[1], grid[2]);
  } catch (const std::invalid_argument& e) {
    throw bad(e.what());
  }
  if (!h5::read_attr_string(file, "precision", info.precision) ||
      (info.precision != "double" && info.precision != "float" && info.precision != "mixed"))
    throw bad("no precision attribute double, float or mixed");
  if (!h5::read_attr_string(file, "init", info.init) || (info.init != "benchmark" && info.init != "random"))
    throw bad("no init attribute benchmark or random");
  if (!h5::read_attr_values(file, "seed", H5T_NATIVE_UINT64, 1, seed)) throw bad("no seed attribute");
  if (!h5::read_attr_values(file, "omega", H5T_NATIVE_DOUBLE, 1, omega)) throw bad("no omega attribute");
  if (!h5::read_attr_values(file, "sweeps", H5T_NATIVE_INT, 1, sweeps) || sweeps[0] < 0)
    throw bad("no sweeps attribute");
  h5::read_attr_string(file, "variant", info.variant);
  info.seed = seed[0];
  info.omega = omega[0];
  info.sweeps = sweeps[0];

  // /p: the grid's shape, the storage type.
  Id p(H5Dopen2(file, "p", H5P_DEFAULT), H5Dclose);
  if (!p.ok()) throw bad("no dataset /p");
  {
    Id space(H5Dget_space(p), H5Sclose);
    Id type(H5Dget_type(p), H5Tclose);
    hsize_t dims[3] = {0, 0, 0};
    if (H5Sget_simple_extent_ndims(space) != 3 || H5Sget_simple_extent_dims(space, dims, nullptr) != 3 ||
        dims[0] != hsize_t(info.grid.imax) || dims[1] != hsize_t(info.grid.jmax) || dims[2] != hsize_t(info.grid.kmax))
      throw bad("/p is not " + info.grid.str());
    if (H5Tget_class(type) != H5T_FLOAT || H5Tget_size(type) != (info.double_storage() ? 8u : 4u))
      throw bad("/p is not of the " + std::string(info.double_storage() ? "double" : "float") + " storage type");
  }
  Id gosa(H5Dopen2(file, "gosa", H5P_DEFAULT), H5Dclose);
  if (!gosa.ok()) throw bad("no dataset /gosa");
  Id gspace(H5Dget_space(gosa), H5Sclose);
  if (H5Sget_simple_extent_ndims(gspace) != 1 || H5Sget_simple_extent_npoints(gspace) != hssize_t(info.sweeps))
    throw bad("/gosa does not hold one value per sweep (" + std::to_string(info.sweeps) + ")");
  info.gosa.resize(info.sweeps);
  if (info.sweeps && H5Dread(gosa, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, info.gosa.data()) < 0)
    throw bad("/gosa cannot be read");
  return info;
}

void read_checkpoint_field(const std::string& path, const CheckpointInfo& info, const Slab& slab, void* p_local) {
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const Grid& g = info.grid;
  if (g.imax != slab.global.imax || g.jmax != slab.global.jmax || g.kmax != slab.global.kmax)
    throw CheckpointError("Himeno state file '" + path + "' holds grid " + g.str() + ", the run uses " +
                          slab.global.str());
  Id file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  Id p(file.ok() ? H5Dopen2(file, "p", H5P_DEFAULT) : -1, H5Dclose);
  if (!p.ok()) throw CheckpointError("cannot open /p of Himeno state file '" + path + "'");
  Id file_space(H5Dget_space(p), H5Sclose);
  const hsize_t start[3] = {hsize_t(slab.i_offset), 0, 0};
  const hsize_t cnt[3] = {hsize_t(slab.local.imax), hsize_t(g.jmax), hsize_t(g.kmax)};
  Id mem(H5Screate_simple(3, cnt, nullptr), H5Sclose);
  const hid_t type = info.double_storage() ? H5T_NATIVE_DOUBLE : H5T_NATIVE_FLOAT;
  if (H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start, nullptr, cnt, nullptr) < 0 ||
      H5Dread(p, type, mem, file_space, H5P_DEFAULT, p_local) < 0)
    throw CheckpointError("cannot read /p of Himeno state file '" + path + "'");
}

}  // namespace tessera::himeno
