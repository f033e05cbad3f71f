#pragma once
// The flat record of a result row, shared by the CSV and HDF5 writers.
#include "tessera/driver/results.hpp"

#include <string>
#include <vector>

namespace tessera::driver::schema {

struct Column {
  std::string name;
  bool text;  // else a number
};
const std::vector<Column>& row_columns();
std::vector<std::string> row_values(const Row& row);  // in row_columns() order
// Observable names over all rows, in first-seen order.
std::vector<std::string> observable_names(const Report& r);

}  // namespace tessera::driver::schema
