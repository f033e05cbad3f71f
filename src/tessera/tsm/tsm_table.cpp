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

int mma_warps(int M, int N, int wt) {
  const int side = 8 * wt;
  return ((M + side - 1) / side) * ((N + side - 1) / side);
}

}  // namespace

NativeConfig tsmttsm_double_warps(int M, int N) {
  NativeConfig c;
  const int d = std::max(M, N);
  c.mma = d <= 8 ? 1 : d <= 16 ? 2 : d <= 28 ? 4 : d <= 48 ? 2 : 4;
  // Staged from 16 (an H200, 2026-11-30, `tune tsm` at 8 GiB then `compare`: unstaged 1.11x, 1.14x, 1.26x at
  // 13, 14, 15, 99-102% of the read roof).
  c.stages = d >= 16 ? 3 : 0;
  // N in 33..48: warps of 16 rows across N (an H200, 2026-11-29: 1.15-1.21x
  // the 16 x 16 warps at M = N = 36..48, 1.17x at 24 x 48); at N = 32 from
  // M = 32 strips of 5 tiles (an H200, 2026-11-30: 1.08x at M = N = 32).
  if (c.mma == 2 && (N > 32 || (N == 32 && M >= 32))) c.tiles = std::max(5, (N + 7) / 8);
  // M = 33, 34 in strips of 5 tiles: rows 32 (and 33) by FMA, the DMMAs on 32 rows instead of 48 (an H200,
  // 2026-12-02, four processes each way, interleaved: 1.14x at M = N = 33, 89.9-90.8% of the read roof against
  // 78.4-79.2%; 1.04x at 34. The 4-tile strips with edge rows ran 0.75-0.88x at 33..36 and 49..54).
  if (c.tiles == 5 && (M == 33 || M == 34)) c.edge = 1;
  return c;
}

NativeConfig default_config(bool tsmttsm, bool complex, int M, int N) {
  // The H100's choices (`tessera tune tsm`, M = N, 2026-11-25, with the
  // m16n8k4 pairs of tensor-core tiles; complex 2026-11-28), by the wider
  // operand: register tiles only at 1..2 (and double 3 x 3, an H200); from 3 the tensor-core kernels,
  // fragments straight from global memory while few warps hold C, the
  // cp.async stages once the accumulators leave few registers for loads.
  // TSMM: the register kernel (in double its compile-time form,
  // tsmm_small_shape) at M = N <= 15 and 3 x 17 (5..15 an H200, 2026-11-30 and 2026-12-01), else the m16n8k4 kernel;
  // complex the register kernel where M <= 3 and M N <= 64 (at M = N = 3 the real product of 6 x 6), else
  // m16n8k4 with four real products, two column tiles a warp below 20 and four (two units of A a step) from
  // 20 (an H200, 2026-11-28), A staged where it fits (below). (The tuned double TSMTTSM
  // warp tiles 2 and 4 trade places between runs at 20..64: near ties.)
  NativeConfig c;
  const int d = std::max(M, N), s = std::min(M, N);
  if (tsmttsm && (d <= 2 || (!complex && M == 3 && N == 3))) {
    // (Double 3 x 3 in 4 x 4 register tiles: 1.20x `mma 1` on an H200, 2026-11-30, 93% of the read roof.)
    c.tile = complex ? 1 : d == 3 ? 4 : d;
  } else if (tsmttsm && M != N && s <= 3 && !(complex && s > 1 && d > 16 && d <= 24)) {
    // A thin side (1 x 64, 3 x 17, 64 x 1): the wider side's warp tiles would be mostly padding (an H200,
    // 2026-11-30, every configuration at 45 such shapes: these choices are best or within 5%; the wider side's
    // ran 0.63-0.78x at 1 x 16..64 and 3 x 17 in double, 0.78-0.89x at 1 x 16..64 in complex). Rows of one
    // complex output, or double register tiles of 2 x 2 where one side is 1 and the other short or past 32;
    // else warps of 8 x 8 tiles, unstaged while the wide side is short (complex to 8, double to 32), staged
    // beyond (double in 16 x 16 tiles), as strips where N is 33..48. (The Cuda dispatch runs double's thin
    // shapes on the portable kernel except where a side of 2 or 3 meets one past 32: tsmttsm_prefers_portable.)
    if (complex ? s == 1 : s == 1 && (d <= 8 || d > 32)) {
      c.tile = complex ? 1 : 2;
    } else {
      c.mma = complex || d <= 32 ? 1 : 2;
      c.stages = d > (complex ? 8 : 32) ? 3 : 0;
      if (c.stages && N > 32 && d <= 48) c.tiles = (N + 7) / 8;
    }
  } else if (tsmttsm && complex && d > 16 && d <= 32) {
    // The real product of 2M x 2N on double's staged kernel there (the 16-row warps, strips where 2N passes
    // 32): on an H200 1.08x at 18, 1.13x at 20, 1.08x at 24 against the one-tile warps (0.97x at 16, a tie at
    // 28).
    // Complex 17 rows: the real product's edge rows at 2M = 34 (an H200, 2026-12-02: 1.04x, 96.1% of R, 1.09x
    // cuBLASLt). From 25 double's 4 x 4 warps with k8 steps (an H200, 2026-12-02: 87.0-93.1% of R at 25..31
    // against 80.3-88.1% on the complex 2 x 2 warps, 1.05-1.08x; 32 1.02x in three alternating processes).
    c = default_config(true, false, 2 * M, 2 * N);
    if (2 * N == 32) c.tiles = 0, c.edge = 0;  // (double's strips at N = 32 are not measured here)
    c.real = 1;
  } else if (tsmttsm && complex) {
    // Warps of one 8 x 8 tile also from 13 to 16 (an H200, 2026-11-29, with four real products a tile: 1.06x
    // at 16, 1.11x at 24 against 2 x 2 tiles, which pad 20 and 24 to 32; 17..24 take the real product above).
    c.mma = d <= 8 || (d > 12 && d <= 16) ? 1 : 2;
    c.stages = d >= 6 ? 3 : 0;
    // N in 33..48: warps of 8 rows across N (an H200, 2026-11-29: 1.58x the 2 x 2 warps at M = N = 40, 1.41x at
    // 48; in a probe 1.04x at 56 with 7 tiles, 0.94x at 64 with 8, not taken).
    if (N > 32 && d <= 48) {
      c.mma = 1;
      c.tiles = (N + 7) / 8;
    }
  } else if (tsmttsm && tsmttsm_small_shape(M, N)) {
    // Double's compile-time kernel (an H200, 2026-12-01: 1.05x, 1.33x, 1.22x the tensor-core warps at 7, 9, 11;
    // 1.09-1.29x at 13..27 odd, 1.12x at 31; 1.07-1.26x at 14..30 even with unpadded rows; 0.95x at 8 with padded
    // pairs and 0.99x at 29, not taken).
    c.tile = 1;
  } else if (tsmttsm) {
    c = tsmttsm_double_warps(M, N);
  } else if (!complex && !tsmm_small_shape(M, N)) {
    c.mma = 2;
  } else if (complex && M == 3 && N == 3) {
    // The real product of 6 x 6: 1.33x the complex register kernel on an H200 (0.81x at 3 x 17, 0.87x at 2).
    c.mma = 2;
    c.real = 1;
  } else if (complex && M <= 3 && tsmm_single_pass(M, N)) {
    // Few columns of A and alpha C of at most 64 elements: the register kernel in one pass of blocks over K
    // (tsmm_single_pass; an H200, 2026-11-30: 1.06-1.76x the tensor-core kernels at 1 x 4..64, 2 x 4..32,
    // 3 x 8..21, 1.34x the register kernel's persistent launch at 1 x 1); outputs a thread within 3% of the
    // best at each measured shape.
    c.outputs = N <= 4 ? 1 : M == 1 ? 2 : N >= 16 ? 4 : 1;
  } else if (complex && d >= 4) {
    c.mma = 2;
    c.tiles = d < 20 ? 2 : 4;
    c.products = 4;
    // A staged through shared memory (an H200, 2026-11-29: 1.05-1.38x at
    // M = N = 4..14, 1.09-1.23x at 20..32) from M = 4 where the stages fit
    // and one item owns a row block's tiles; row blocks split between items
    // only at equal shares and M <= 24 (24 x 48, 3 + 3 tiles: 1.13x; 32 x 64:
    // 0.93x, 1 x 64: 0.88x). With unequal shares (3 x 17: 2 + 1) the lighter
    // warps run ahead and the halves of B's sectors reach memory apart: 2.6x
    // slower.
    const int nt = (N + 7) / 8, g = tsmm_z_items_a_row_block(N, c.tiles);
    if (tsmm_z_stages_fit(M, 3) && M >= 4 && (g == 1 || (nt % g == 0 && M <= 24))) c.stages = 3;
  } else {
    c.outputs = 1;  // double's compile-time shapes
  }
  return c;
}

bool config_usable(bool tsmttsm, bool complex, int M, int N, const NativeConfig& c) {
  if (M < 1 || M > 64 || N < 1 || N > 64) return false;
  if (c.real != 0) {  // the double kernel of 2M x 2N
    if (!complex || c.real != 1 || M > 32 || N > 32) return false;
    NativeConfig d = c;
    d.real = 0;
    if (tsmttsm) return c.stages == 3 && config_usable(true, false, 2 * M, 2 * N, d);
    return c.mma == 2 && c.stages == 0 && c.tiles == 0 && c.products == 0 &&
           config_usable(false, false, 2 * M, 2 * N, d);
  }
  const bool z_tsmm_mma = !tsmttsm && complex && c.mma == 2;
  if (c.stages != 0 && z_tsmm_mma)
    return (c.stages == 3 || c.stages == 4) && (c.tiles == 2 || c.tiles == 4) && c.products == 4 &&
           tsmm_z_stages_fit(M, c.stages);
  if (c.stages != 0 && (c.stages != 3 || c.mma == 0 || !tsmttsm)) return false;
  // The staged double TSMTTSM's strips of 16 rows by 5 or 6 tiles: at most 4 x 2 warps.
  const bool strips = tsmttsm && !complex && c.mma == 2 && c.stages == 3 && c.products == 0;
  // With edge rows by FMA: C's rows past the strips' 16 floor(M / 16), at most strip_edge_rows for each strip.
  if (c.edge != 0) {
    const int strips_m = M / 16, edge = M % 16;
    return strips && c.edge == 1 && strip_edge_rows(c.tiles) > 0 && strips_m >= 1 && edge >= 1 &&
           edge <= strip_edge_rows(c.tiles) * strips_m;
  }
  if (strips && c.tiles != 0) return c.tiles == 5 || c.tiles == 6;
  // The complex ones of 8 rows by 5 or 6 tiles: at most 16 warps, 8 with 6 tiles.
  if (tsmttsm && complex && c.tiles != 0)
    return c.mma == 1 && c.stages == 3 && (c.tiles == 5 || c.tiles == 6) && c.products == 0 &&
           (M + 7) / 8 * ((N + 8 * c.tiles - 1) / (8 * c.tiles)) <= (c.tiles == 6 ? 8 : 16);
  if (z_tsmm_mma != (c.tiles != 0 || c.products != 0)) return false;  // tiles, products: complex TSMM mma 2 only
  if (c.mma > 0) {
    if (tsmttsm) return (c.mma == 1 || c.mma == 2 || (c.mma == 4 && !complex)) && mma_warps(M, N, c.mma) <= 16;
    if (complex) return z_tsmm_mma && (c.tiles == 2 || c.tiles == 4) && (c.products == 3 || c.products == 4);
    return c.mma == 1 || c.mma == 2;
  }
  if (tsmttsm) {
    const bool compiled = c.tile == 1 || c.tile == 2 || c.tile == 4 || (c.tile == 8 && !complex);
    // (tile 1 at double's compile-time shapes: that kernel, or the tensor-core warps for other layouts)
    if (c.tile == 1 && !complex && tsmttsm_small_shape(M, N)) return true;
    return compiled && tiles_of(M, N, c.tile) <= 256;
  }
  return c.outputs == 1 || c.outputs == 2 || c.outputs == 4;
}

std::string config_name(bool tsmttsm, const NativeConfig& c) {
  if (c.mma > 0)
    return "mma " + std::to_string(c.mma) + (c.stages ? " stages " + std::to_string(c.stages) : "") +
           (c.tiles ? " tiles " + std::to_string(c.tiles) : "") +
           (c.products ? " products " + std::to_string(c.products) : "") + (c.real ? " real" : "") +
           (c.edge ? " edge" : "");
  return tsmttsm ? "tile " + std::to_string(c.tile) : "outputs " + std::to_string(c.outputs);
}

std::vector<NativeConfig> compiled_configs(bool tsmttsm, bool complex) {
  std::vector<NativeConfig> out;
  for (int v : {1, 2, 4, 8}) {
    NativeConfig c;
    (tsmttsm ? c.tile : c.outputs) = v;
    if (config_usable(tsmttsm, complex, 1, 1, c)) out.push_back(c);
  }
  for (int stages : {0, 3})
    for (int v : {1, 2, 4}) {
      NativeConfig c;
      c.mma = v;
      c.stages = stages;
      if (config_usable(tsmttsm, complex, 1, 1, c)) out.push_back(c);
    }
  for (int tiles : {5, 6}) {
    NativeConfig c;
    c.mma = complex ? 1 : 2;
    c.stages = 3;
    c.tiles = tiles;
    if (config_usable(tsmttsm, complex, 1, 1, c)) out.push_back(c);
  }
  for (int products : {4, 3})
    for (int tiles : {2, 4}) {
      NativeConfig c;
      c.mma = 2;
      c.tiles = tiles;
      c.products = products;
      if (config_usable(tsmttsm, complex, 1, 1, c)) out.push_back(c);
    }
  for (int stages : {3, 4})
    for (int tiles : {2, 4}) {
      NativeConfig c;
      c.mma = 2;
      c.stages = stages;
      c.tiles = tiles;
      c.products = 4;
      if (config_usable(tsmttsm, complex, 1, 1, c)) out.push_back(c);
    }
  for (int mma : {1, 2, 4})
    for (int tiles : {0, 5, 6}) {
      NativeConfig c;
      c.mma = mma;
      c.stages = tsmttsm ? 3 : 0;
      c.tiles = tiles;
      c.real = 1;
      if (config_usable(tsmttsm, complex, 1, 1, c)) out.push_back(c);
    }
  // The double strips with edge rows (usable only at some M: config_usable), and their complex real products.
  for (int tiles : {4, 5}) {
    NativeConfig c;
    c.mma = 2;
    c.stages = 3;
    c.tiles = tiles;
    c.edge = 1;
    c.real = complex ? 1 : 0;
    if (tsmttsm && config_usable(true, complex, complex ? 17 : 33, complex ? 17 : 33, c)) out.push_back(c);
  }
  return out;
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
      if (e.contains("mma")) {
        x.config.mma = e.at("mma").get<int>();
        x.config.stages = e.value("stages", 0);
        x.config.tiles = e.value("tiles", 0);
        x.config.edge = e.value("edge", 0);
        x.config.products = e.value("products", 0);
        x.config.real = e.value("real", 0);
      }
      else if (x.tsmttsm)
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
