#pragma once
// Small HDF5 helpers shared by the driver's result files and the library's
// state files (C API: every id owned by a Handle, closed on every path;
// errors become exceptions).
#include <hdf5.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace tessera::h5 {

// Owns an hid_t and closes it with the matching H5*close.
class Handle {
 public:
  Handle(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle(Handle&& o) noexcept : id_(o.id_), close_(o.close_) { o.id_ = -1; }
  ~Handle() {
    if (id_ >= 0) close_(id_);
  }
  operator hid_t() const { return id_; }
  bool ok() const { return id_ >= 0; }
  // Closes now and reports failure (a file's close flushes it).
  herr_t close() {
    herr_t e = id_ >= 0 ? close_(id_) : 0;
    id_ = -1;
    return e;
  }

 private:
  hid_t id_ = -1;
  herr_t (*close_)(hid_t) = nullptr;
};

inline void check(herr_t e, const std::string& what) {
  if (e < 0) throw std::runtime_error("HDF5: " + what + " failed");
}

inline void attr_string(hid_t obj, const char* name, const std::string& value) {
  hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, value.empty() ? 1 : value.size());
  hid_t space = H5Screate(H5S_SCALAR);
  hid_t attr = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  herr_t e = attr < 0 ? -1 : H5Awrite(attr, type, value.empty() ? "" : value.c_str());
  if (attr >= 0) H5Aclose(attr);
  H5Sclose(space);
  H5Tclose(type);
  check(e, std::string("write attribute ") + name);
}

// A scalar or 1-D numeric attribute of a native type.
template <class T>
void attr_values(hid_t obj, const char* name, hid_t native, const std::vector<T>& v) {
  hsize_t n = v.size();
  hid_t space = n == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, nullptr);
  hid_t attr = H5Acreate2(obj, name, native, space, H5P_DEFAULT, H5P_DEFAULT);
  herr_t e = attr < 0 ? -1 : H5Awrite(attr, native, v.data());
  if (attr >= 0) H5Aclose(attr);
  H5Sclose(space);
  check(e, std::string("write attribute ") + name);
}
inline void attr_double(hid_t obj, const char* name, double value) {
  attr_values(obj, name, H5T_NATIVE_DOUBLE, std::vector<double>{value});
}

// A 1-D dataset of doubles.
inline void dataset_doubles(hid_t parent, const std::string& name, const std::vector<double>& v) {
  hsize_t n = v.size();
  Handle space(H5Screate_simple(1, &n, nullptr), H5Sclose);
  Handle ds(H5Dcreate2(parent, name.c_str(), H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
            H5Dclose);
  check(!ds.ok() ? -1 : (n ? H5Dwrite(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) : 0),
        "write " + name);
}

// A new group, owned.
inline Handle group(hid_t parent, const std::string& name) {
  Handle g(H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
  check(g.ok() ? 0 : -1, "create group " + name);
  return g;
}

// Reads a 1-D dataset of numbers as doubles; false when it is missing or not numeric.
inline bool read_dataset_doubles(hid_t parent, const std::string& name, std::vector<double>& out) {
  if (H5Lexists(parent, name.c_str(), H5P_DEFAULT) <= 0) return false;
  Handle ds(H5Dopen2(parent, name.c_str(), H5P_DEFAULT), H5Dclose);
  if (!ds.ok()) return false;
  Handle space(H5Dget_space(ds), H5Sclose), type(H5Dget_type(ds), H5Tclose);
  const H5T_class_t cls = type.ok() ? H5Tget_class(type) : H5T_NO_CLASS;
  const hssize_t n = space.ok() ? H5Sget_simple_extent_npoints(space) : -1;
  if (n < 0 || (cls != H5T_INTEGER && cls != H5T_FLOAT)) return false;
  out.resize(std::size_t(n));
  return n == 0 || H5Dread(ds, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()) >= 0;
}

// Reads a string attribute; false when it is missing or not a string.
inline bool read_attr_string(hid_t obj, const char* name, std::string& out) {
  if (H5Aexists(obj, name) <= 0) return false;
  hid_t attr = H5Aopen(obj, name, H5P_DEFAULT);
  if (attr < 0) return false;
  hid_t type = H5Aget_type(attr);
  bool ok = type >= 0 && H5Tget_class(type) == H5T_STRING && !H5Tis_variable_str(type);
  if (ok) {
    std::vector<char> buf(H5Tget_size(type) + 1, '\0');
    hid_t mem = H5Tcopy(type);
    ok = H5Aread(attr, mem, buf.data()) >= 0;
    H5Tclose(mem);
    out.assign(buf.data());
  }
  if (type >= 0) H5Tclose(type);
  H5Aclose(attr);
  return ok;
}

// Reads a numeric attribute of exactly n values, converted to T; false when
// it is missing, not numeric or of another size.
template <class T>
bool read_attr_values(hid_t obj, const char* name, hid_t native, std::size_t n, std::vector<T>& out) {
  if (H5Aexists(obj, name) <= 0) return false;
  hid_t attr = H5Aopen(obj, name, H5P_DEFAULT);
  if (attr < 0) return false;
  hid_t space = H5Aget_space(attr), type = H5Aget_type(attr);
  const H5T_class_t cls = type >= 0 ? H5Tget_class(type) : H5T_NO_CLASS;
  bool ok = space >= 0 && H5Sget_simple_extent_npoints(space) == hssize_t(n) &&
            (cls == H5T_INTEGER || cls == H5T_FLOAT);
  if (ok) {
    out.resize(n);
    ok = H5Aread(attr, native, out.data()) >= 0;
  }
  if (type >= 0) H5Tclose(type);
  if (space >= 0) H5Sclose(space);
  H5Aclose(attr);
  return ok;
}

}  // namespace tessera::h5
