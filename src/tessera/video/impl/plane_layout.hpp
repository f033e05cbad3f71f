#pragma once
// How a rank-2 plane View lies in memory, for the dispatch to native kernels
// that take a pointer and a row pitch.
#include <cstdint>

namespace tessera::video::impl {

// Whether each row's elements are adjacent (a single column trivially is).
template <class View>
bool rows_contiguous(const View& v) {
  return v.extent(1) < 2 || v.stride(1) == 1;
}

// Elements between rows of a row-contiguous plane (a single row has no next
// row; a single column still has its pitch, which need not be 1).
template <class View>
std::int64_t row_pitch(const View& v) {
  return std::int64_t(v.extent(0) < 2 ? v.extent(1) : v.stride(0));
}

}  // namespace tessera::video::impl
