// The native tall-skinny kernels' configuration table (see tsm_table.hpp).
#include "tessera/tsm/tsm_table.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <mutex>
#include <sstream>
#include <stdexcept>

namespace tessera::tsm {

namespace {

std::mutex table_mutex;
Table active_table;
std::string active_status = "defaults";

int tiles_of(int M, int N, int t) { return ((M + t - 1) / t) * ((N + t - 1) / t); }

}  // namespace

NativeConfig default_config(bool tsmttsm, bool complex, int M, int N) {
  NativeConfig c;
  if (tsmttsm) {
    // Square tile side by the wider operand; 8x8 (about 208 registers by the
    // paper's model, §5.2) only for double beyond 32.
    const int d = std::max(M, N);
    c.tile = d <= 2 ? 1 : d <= 8 ? 2 : (complex || d <= 32) ? 4 : 8;
  } else {
    c.outputs = N <= 8 ? 1 : N <= 32 ? 2 : 4;
  }
  return c;
}

bool config_usable(bool tsmttsm, bool complex, int M, int N, const NativeConfig& c) {
  if (M < 1 || M > 64 || N < 1 || N > 64) return false;
  if (tsmttsm) {
    const bool compiled = c.tile == 1 || c.tile == 2 || c.tile == 4 || (c.tile == 8 && !complex);
    return compiled && tiles_of(M, N, c.tile) <= 256;
  }
  return c.outputs == 1 || c.outputs == 2 || c.outputs == 4;
}

Table parse_table(const std::string& text, const std::string& source, const std::string& expected_gpu) {
  auto fail = [&](const std::string& why) -> void {
    throw std::invalid_argument("tsm table " + source + ": " + why);
  };
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception&) {
    fail("not valid JSON");
  }
  Table t;
  try {
    if (!j.is_object() || j.value("format", std::string()) != "tessera-tsm-table")
      fail("not a tessera-tsm-table (\"format\" missing or different)");
    if (j.value("version", 0) != 1) fail("version " + j.value("version", nlohmann::json()).dump() + " is not 1");
    t.gpu = j.at("gpu").get<std::string>();
    if (!expected_gpu.empty() && t.gpu != expected_gpu)
      fail("measured on \"" + t.gpu + "\", this GPU is \"" + expected_gpu + "\"");
    const auto& entries = j.at("entries");
    if (!entries.is_array()) fail("\"entries\" is not an array");
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const auto& e = entries[i];
      const std::string where = "entry " + std::to_string(i);
      TableEntry x;
      const std::string kernel = e.at("kernel").get<std::string>();
      const std::string type = e.at("type").get<std::string>();
      if (kernel != "tsmttsm" && kernel != "tsmm") fail(where + ": kernel \"" + kernel + "\" (tsmttsm or tsmm)");
      if (type != "d" && type != "z") fail(where + ": type \"" + type + "\" (d or z)");
      x.tsmttsm = kernel == "tsmttsm";
      x.complex = type == "z";
      x.m = e.at("m").get<int>();
      x.n = e.at("n").get<int>();
      if (x.tsmttsm)
        x.config.tile = e.at("tile").get<int>();
      else
        x.config.outputs = e.at("outputs").get<int>();
      if (!config_usable(x.tsmttsm, x.complex, x.m, x.n, x.config))
        fail(where + ": " + kernel + " " + type + " " + std::to_string(x.m) + "x" + std::to_string(x.n) +
             " asks for a kernel this build does not have");
      t.entries.push_back(x);
    }
  } catch (const nlohmann::json::exception& e) {
    std::string what = e.what();
    std::replace(what.begin(), what.end(), '\n', ' ');
    fail("malformed (" + what + ")");
  }
  return t;
}

Table load_table(const std::string& path, const std::string& expected_gpu) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("tsm table " + path + ": cannot be read");
  std::stringstream s;
  s << in.rdbuf();
  return parse_table(s.str(), path, expected_gpu);
}

NativeConfig choose_config(bool tsmttsm, bool complex, int M, int N) {
  {
    std::lock_guard<std::mutex> lock(table_mutex);
    for (const auto& e : active_table.entries)
      if (e.tsmttsm == tsmttsm && e.complex == complex && e.m == M && e.n == N) return e.config;
  }
  return default_config(tsmttsm, complex, M, N);
}

void set_active_table(const Table& t) {
  std::lock_guard<std::mutex> lock(table_mutex);
  active_table = t;
  active_status = t.entries.empty() ? "defaults" : "table of " + std::to_string(t.entries.size()) + " entries";
}

void init_table_from_environment(const std::string& gpu) {
  static std::once_flag once;
  std::call_once(once, [&] {
    const char* path = std::getenv("TESSERA_TSM_TABLE");
    if (!path || !*path) return;
    try {
      Table t = load_table(path, gpu);
      std::lock_guard<std::mutex> lock(table_mutex);
      active_table = std::move(t);
      active_status = std::string("table ") + path + " (" + std::to_string(active_table.entries.size()) + " entries)";
    } catch (const std::invalid_argument& e) {
      std::lock_guard<std::mutex> lock(table_mutex);
      active_status = std::string("refused ") + e.what() + "; defaults in use";
      // A refused table is worth one line: the run goes on with the defaults.
      std::cerr << "tessera: " << active_status << "\n";
    }
  });
}

std::string table_status() {
  std::lock_guard<std::mutex> lock(table_mutex);
  return active_status;
}

}  // namespace tessera::tsm
