// The native kernels' configuration table: defaults cover every shape, a
// valid table overrides entries, and corrupt or foreign tables are refused
// with one line while the defaults stay in use.
#include "tessera/tsm/tsm_table.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>

namespace {

using namespace tessera::tsm;

TEST(TsmTable, DefaultsCoverEveryShape) {
  for (bool t : {true, false})
    for (bool z : {false, true})
      for (int m = 1; m <= 64; ++m)
        for (int n = 1; n <= 64; ++n) EXPECT_TRUE(config_usable(t, z, m, n, default_config(t, z, m, n))) << m << "x" << n;
}

TEST(TsmTable, ValidTableOverridesItsEntries) {
  const std::string text = R"({"format": "tessera-tsm-table", "version": 1, "gpu": "Test GPU",
    "entries": [{"kernel": "tsmttsm", "type": "d", "m": 32, "n": 32, "tile": 2},
                {"kernel": "tsmm", "type": "z", "m": 8, "n": 16, "outputs": 4}]})";
  const Table t = parse_table(text, "inline", "Test GPU");
  ASSERT_EQ(t.entries.size(), 2u);
  set_active_table(t);
  EXPECT_EQ(choose_config(true, false, 32, 32).tile, 2);
  EXPECT_EQ(choose_config(false, true, 8, 16).outputs, 4);
  const Table m = parse_table(R"({"format": "tessera-tsm-table", "version": 1, "gpu": "G",
    "entries": [{"kernel": "tsmttsm", "type": "d", "m": 64, "n": 48, "mma": 2, "stages": 3}]})", "inline");
  ASSERT_EQ(m.entries.size(), 1u);
  EXPECT_EQ(m.entries[0].config.mma, 2);
  EXPECT_EQ(m.entries[0].config.stages, 3);
  EXPECT_EQ(config_name(true, m.entries[0].config), "mma 2 stages 3");
  EXPECT_EQ(choose_config(true, false, 16, 16).tile, default_config(true, false, 16, 16).tile);
  set_active_table(Table{});
  EXPECT_EQ(choose_config(true, false, 32, 32).tile, default_config(true, false, 32, 32).tile);
}

void expect_refused(const std::string& text, const std::string& needle, const std::string& gpu = "") {
  try {
    parse_table(text, "t.json", gpu);
    ADD_FAILURE() << "accepted: " << text;
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("t.json"), std::string::npos) << what;
    EXPECT_NE(what.find(needle), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

std::string table_with(const std::string& entry, const std::string& head = R"("format": "tessera-tsm-table", "version": 1, "gpu": "G")") {
  return "{" + head + R"(, "entries": [)" + entry + "]}";
}

TEST(TsmTable, TensorCoreTsmmEntries) {
  for (int mma : {1, 2}) {
    const Table b = parse_table(
        table_with(R"({"kernel": "tsmm", "type": "d", "m": 64, "n": 9, "mma": )" + std::to_string(mma) + "}"), "inline");
    ASSERT_EQ(b.entries.size(), 1u);
    EXPECT_EQ(b.entries[0].config.mma, mma);
    EXPECT_EQ(config_name(false, b.entries[0].config), "mma " + std::to_string(mma));
  }
  for (int tiles : {2, 4})
    for (int products : {3, 4}) {
      const Table z = parse_table(table_with(R"({"kernel": "tsmm", "type": "z", "m": 48, "n": 7, "mma": 2, "tiles": )" +
                                             std::to_string(tiles) + R"(, "products": )" + std::to_string(products) + "}"),
                                  "inline");
      ASSERT_EQ(z.entries.size(), 1u);
      EXPECT_EQ(z.entries[0].config.tiles, tiles);
      EXPECT_EQ(z.entries[0].config.products, products);
      EXPECT_EQ(config_name(false, z.entries[0].config),
                "mma 2 tiles " + std::to_string(tiles) + " products " + std::to_string(products));
    }
}

// Complex TSMM with A staged: 3 or 4 stages with 2 or 4 tiles and four
// products, while the stages fit shared memory (stages x stride <= 96).
TEST(TsmTable, StagedComplexTsmmEntries) {
  for (int stages : {3, 4}) {
    const Table z = parse_table(table_with(R"({"kernel": "tsmm", "type": "z", "m": 12, "n": 12, "mma": 2, "stages": )" +
                                           std::to_string(stages) + R"(, "tiles": 2, "products": 4})"),
                                "inline");
    ASSERT_EQ(z.entries.size(), 1u);
    EXPECT_EQ(z.entries[0].config.stages, stages);
    EXPECT_EQ(config_name(false, z.entries[0].config),
              "mma 2 stages " + std::to_string(stages) + " tiles 2 products 4");
  }
  NativeConfig c;
  c.mma = 2;
  c.tiles = 2;
  c.products = 4;
  c.stages = 3;
  EXPECT_TRUE(config_usable(false, true, 32, 64, c));
  EXPECT_FALSE(config_usable(false, true, 33, 8, c));
  EXPECT_FALSE(config_usable(false, false, 8, 8, c));  // complex only
  c.stages = 4;
  EXPECT_TRUE(config_usable(false, true, 24, 48, c));
  EXPECT_FALSE(config_usable(false, true, 25, 8, c));
  c.stages = 2;
  EXPECT_FALSE(config_usable(false, true, 8, 8, c));
  c.stages = 3;
  c.products = 3;
  EXPECT_FALSE(config_usable(false, true, 8, 8, c));
  expect_refused(table_with(R"({"kernel": "tsmm", "type": "z", "m": 40, "n": 8, "mma": 2, "stages": 3, "tiles": 2, )"
                            R"("products": 4})"),
                 "asks for a kernel this build does not have");
}

// The double strips with edge rows by FMA: parsed and named; usable where C's rows past the last multiple of 16
// are at most 2 (4 tiles) or 1 (5 tiles) a strip of 16 rows; complex as the real product of twice the sides;
// refused on other kernels.
TEST(TsmTable, StripEdgeRowsEntries) {
  const Table t = parse_table(
      table_with(R"({"kernel": "tsmttsm", "type": "d", "m": 50, "n": 50, "mma": 2, "stages": 3, "tiles": 4, "edge": 1},)"
                 R"({"kernel": "tsmttsm", "type": "z", "m": 25, "n": 25, "mma": 2, "stages": 3, "tiles": 4, "edge": 1, )"
                 R"("real": 1})"),
      "inline");
  ASSERT_EQ(t.entries.size(), 2u);
  EXPECT_EQ(t.entries[0].config.edge, 1);
  EXPECT_EQ(config_name(true, t.entries[0].config), "mma 2 stages 3 tiles 4 edge");
  EXPECT_EQ(config_name(true, t.entries[1].config), "mma 2 stages 3 tiles 4 real edge");
  NativeConfig c;
  c.mma = 2;
  c.stages = 3;
  c.tiles = 4;
  c.edge = 1;
  for (int m : {17, 18, 33, 36, 49, 54}) EXPECT_TRUE(config_usable(true, false, m, 40, c)) << m;
  for (int m : {16, 19, 32, 37, 48, 55, 64, 8}) EXPECT_FALSE(config_usable(true, false, m, 40, c)) << m;
  EXPECT_FALSE(config_usable(true, true, 50, 50, c));  // complex only as the real product
  EXPECT_FALSE(config_usable(false, false, 50, 50, c));
  c.real = 1;
  EXPECT_TRUE(config_usable(true, true, 25, 32, c));
  EXPECT_FALSE(config_usable(true, true, 24, 24, c));
  c.real = 0;
  c.tiles = 5;
  for (int m : {17, 33, 34, 49, 51}) EXPECT_TRUE(config_usable(true, false, m, 64, c)) << m;
  for (int m : {18, 35, 52}) EXPECT_FALSE(config_usable(true, false, m, 64, c)) << m;
  for (const char* other : {R"("mma": 2, "stages": 3, "tiles": 6, "edge": 1)", R"("mma": 4, "stages": 3, "edge": 1)",
                            R"("mma": 2, "stages": 3, "tiles": 4, "edge": 2)", R"("mma": 2, "tiles": 4, "edge": 1)"})
    expect_refused(table_with(std::string(R"({"kernel": "tsmttsm", "type": "d", "m": 50, "n": 50, )") + other + "}"),
                   "does not have");
  bool listed = false;
  for (const auto& k : compiled_configs(true, false)) listed = listed || (k.edge == 1 && k.tiles == 4);
  EXPECT_TRUE(listed);
}

// TSMTTSM with M != N and a side of 3 or less (thin_side below) has its own defaults.
bool thin_side(int m, int n) { return m != n && std::min(m, n) <= 3 && std::max(m, n) > 2; }

// The staged double TSMTTSM's strips of 16 rows: parsed, named, chosen by
// default exactly where N is 33..48 and no side passes 48 (and, past a thin
// side of 1, at 2 x N and 3 x N).
TEST(TsmTable, TsmttsmStripEntries) {
  for (int tiles : {5, 6}) {
    const Table t = parse_table(table_with(R"({"kernel": "tsmttsm", "type": "d", "m": 40, "n": 44, "mma": 2, )"
                                           R"("stages": 3, "tiles": )" + std::to_string(tiles) + "}"),
                                "inline");
    ASSERT_EQ(t.entries.size(), 1u);
    EXPECT_EQ(t.entries[0].config.tiles, tiles);
    EXPECT_EQ(config_name(true, t.entries[0].config), "mma 2 stages 3 tiles " + std::to_string(tiles));
  }
  for (int m = 1; m <= 64; ++m)
    for (int n = 1; n <= 64; ++n) {
      const NativeConfig c = default_config(true, false, m, n);
      const bool strip = (n > 32 || (n == 32 && m >= 32)) && std::max(m, n) <= 48 && m != 1;
      const int tiles = std::max(5, (n + 7) / 8);
      EXPECT_EQ(c.tiles, strip ? tiles : 0) << m << "x" << n;
      // (M = 33, 34 in 5 tiles: rows 32.. by FMA.)
      if (strip)
        EXPECT_EQ(config_name(true, c), "mma 2 stages 3 tiles " + std::to_string(tiles) +
                                            ((m == 33 || m == 34) && tiles == 5 ? " edge" : ""));
    }
}

// The complex TSMTTSM's warp tiles: one 8 x 8 tile to 8 and from 13 to 16, 2 x 2 tiles from 9 to 12 and from
// 25 (by the wider side; register tiles at 1 and 2), staged from 6; where N is 33..48 and no side passes 48
// strips of 8 rows across N ("mma 1 stages 3 tiles 5|6"), parsed and named as such; from 17 to 24 the real
// product of 2M x 2N on double's kernel there. Thin sides: the test after this one.
TEST(TsmTable, ComplexTsmttsmWarpTiles) {
  for (int tiles : {5, 6}) {
    const Table t = parse_table(table_with(R"({"kernel": "tsmttsm", "type": "z", "m": 40, "n": 44, "mma": 1, )"
                                           R"("stages": 3, "tiles": )" + std::to_string(tiles) + "}"),
                                "inline");
    ASSERT_EQ(t.entries.size(), 1u);
    EXPECT_EQ(config_name(true, t.entries[0].config), "mma 1 stages 3 tiles " + std::to_string(tiles));
  }
  expect_refused(table_with(R"({"kernel": "tsmttsm", "type": "z", "m": 64, "n": 64, "mma": 1, "stages": 3, )"
                            R"("tiles": 6})"),
                 "asks for a kernel this build does not have");
  for (int m = 1; m <= 64; ++m)
    for (int n = 1; n <= 64; ++n) {
      if (thin_side(m, n)) continue;
      const NativeConfig c = default_config(true, true, m, n);
      const int d = std::max(m, n);
      // The real product of 2M x 2N at 17..32: double's 16-row warps (strips where 2N passes 32) to 24, its
      // 4 x 4 warps from 25.
      const bool strip = n > 32 && d <= 48, real = d > 16 && d <= 32, real4 = real && d >= 25;
      EXPECT_EQ(c.real, real ? 1 : 0) << m << "x" << n;
      EXPECT_EQ(c.mma, d <= 2 ? 0 : real4 ? 4 : d <= 8 || (d > 12 && d <= 16) || strip ? 1 : 2) << m << "x" << n;
      EXPECT_EQ(c.stages, d >= 6 ? 3 : 0) << m << "x" << n;
      EXPECT_EQ(c.tiles, strip ? (n + 7) / 8 : real && !real4 && 2 * n > 32 ? (2 * n + 7) / 8 : 0) << m << "x" << n;
      EXPECT_EQ(c.edge, real && m == 17 && c.tiles == 5 ? 1 : 0) << m << "x" << n;  // (2M = 34: edge rows)
      EXPECT_TRUE(config_usable(true, true, m, n, c)) << m << "x" << n;
    }
}

// TSMTTSM with M != N and a side of 3 or less: complex rows of one output where a side is 1, double 2 x 2
// register tiles where a side is 1 and the other at most 8 or past 32; else 8 x 8 warp tiles, staged from 33
// (complex from 9; double 16 x 16 there), strips where N is 33..48; complex at 17..24 the real product.
TEST(TsmTable, ThinSideTsmttsmDefaults) {
  for (int m = 1; m <= 64; ++m)
    for (int n = 1; n <= 64; ++n) {
      if (!thin_side(m, n)) continue;
      const int s = std::min(m, n), d = std::max(m, n);
      const NativeConfig z = default_config(true, true, m, n), x = default_config(true, false, m, n);
      EXPECT_TRUE(config_usable(true, true, m, n, z)) << m << "x" << n;
      EXPECT_TRUE(config_usable(true, false, m, n, x)) << m << "x" << n;
      const int strips = n > 32 && d <= 48 ? (n + 7) / 8 : 0;
      if (s == 1) {
        EXPECT_EQ(config_name(true, z), "tile 1") << m << "x" << n;
      } else if (d > 16 && d <= 24) {
        EXPECT_EQ(z.real, 1) << m << "x" << n;
      } else {
        EXPECT_EQ(z.mma, 1) << m << "x" << n;
        EXPECT_EQ(z.stages, d > 8 ? 3 : 0) << m << "x" << n;
        EXPECT_EQ(z.tiles, strips) << m << "x" << n;
      }
      if (s == 1 && (d <= 8 || d > 32)) {
        EXPECT_EQ(config_name(true, x), "tile 2") << m << "x" << n;
      } else {
        EXPECT_EQ(x.mma, d <= 32 ? 1 : 2) << m << "x" << n;
        EXPECT_EQ(x.stages, d > 32 ? 3 : 0) << m << "x" << n;
        EXPECT_EQ(x.tiles, strips) << m << "x" << n;
      }
    }
  EXPECT_EQ(config_name(true, default_config(true, false, 3, 17)), "mma 1");
  EXPECT_EQ(config_name(true, default_config(true, true, 64, 1)), "tile 1");
  EXPECT_EQ(config_name(true, default_config(true, false, 2, 40)), "mma 2 stages 3 tiles 5");
}

// A complex product as the real one of 2M x 2N ("real": 1): parsed and named; refused for double, sides past
// 32, TSMTTSM without the stages and TSMM with complex TSMM's tiles or products.
TEST(TsmTable, RealOfComplexEntries) {
  Table t = parse_table(table_with(R"({"kernel": "tsmm", "type": "z", "m": 3, "n": 17, "mma": 2, "real": 1})"),
                        "inline");
  ASSERT_EQ(t.entries.size(), 1u);
  EXPECT_EQ(t.entries[0].config.real, 1);
  EXPECT_EQ(config_name(false, t.entries[0].config), "mma 2 real");
  t = parse_table(table_with(R"({"kernel": "tsmttsm", "type": "z", "m": 20, "n": 20, "mma": 2, "stages": 3, )"
                             R"("tiles": 5, "real": 1})"),
                  "inline");
  ASSERT_EQ(t.entries.size(), 1u);
  EXPECT_EQ(config_name(true, t.entries[0].config), "mma 2 stages 3 tiles 5 real");
  for (const char* e : {R"({"kernel": "tsmm", "type": "d", "m": 3, "n": 3, "mma": 2, "real": 1})",
                        R"({"kernel": "tsmm", "type": "z", "m": 33, "n": 3, "mma": 2, "real": 1})",
                        R"({"kernel": "tsmm", "type": "z", "m": 3, "n": 3, "mma": 2, "tiles": 2, "real": 1})",
                        R"({"kernel": "tsmttsm", "type": "z", "m": 20, "n": 20, "mma": 2, "real": 1})",
                        R"({"kernel": "tsmttsm", "type": "z", "m": 8, "n": 40, "mma": 2, "stages": 3, "real": 1})",
                        R"({"kernel": "tsmm", "type": "z", "m": 3, "n": 3, "mma": 2, "real": 2})"})
    expect_refused(table_with(e), "asks for a kernel this build does not have");
  int real = 0;
  for (bool tt : {true, false})
    for (const auto& c : compiled_configs(tt, true)) real += c.real;
  EXPECT_EQ(real, 8);  // TSMTTSM: warp tiles 1, 2, 4, the strips 2 x 5, 2 x 6 and those with edge rows; TSMM: mma 2
}

// The shipped TSMM choices in double: the compile-time kernel (behind
// "outputs 1") exactly for the shapes it was built for, the tensor cores
// elsewhere; complex on the register kernel where M <= 3 and M N <= 64 (but
// 3 x 3), else on the tensor cores, A staged to M = 32.
TEST(TsmTable, SmallTsmmShapesTakeTheirCompiledKernel) {
  for (int m = 1; m <= 64; ++m)
    for (int n = 1; n <= 64; ++n) {
      const NativeConfig d = default_config(false, false, m, n);
      const bool small = (m == n && m <= 15) || (m == 3 && n == 17);
      EXPECT_EQ(tsmm_small_shape(m, n), small) << m << "x" << n;
      EXPECT_EQ(d.outputs == 1 && d.mma == 0, small) << m << "x" << n;
      EXPECT_EQ(d.mma == 2, !small) << m << "x" << n;
      const NativeConfig z = default_config(false, true, m, n);
      const bool real = m == 3 && n == 3;  // the real product of 6 x 6
      EXPECT_EQ(z.real, real ? 1 : 0) << m << "x" << n;
      // the register kernel where A has at most 3 columns and alpha C at most 64 elements (but 3 x 3)
      const bool register_z = m <= 3 && m * n <= 64 && !real;
      EXPECT_EQ(z.mma == 0, register_z) << m << "x" << n;
      EXPECT_EQ(z.mma == 2, !register_z) << m << "x" << n;
      EXPECT_EQ(z.mma == 0, z.outputs > 0) << m << "x" << n;
      // A staged from M = 4 where the stages fit and one item owns a row block's tiles, or (M <= 24) items
      // take equal shares of them (3 x 17: 2 + 1 tiles, not staged)
      const int nt = (n + 7) / 8, g = nt <= 2 || z.tiles == 0 ? 1 : (nt + z.tiles - 1) / z.tiles;
      EXPECT_EQ(z.stages == 3, z.mma == 2 && m >= 4 && m <= 32 && (g == 1 || (nt % g == 0 && m <= 24)))
          << m << "x" << n;
      EXPECT_TRUE(z.stages == 0 || z.stages == 3) << m << "x" << n;
    }
  EXPECT_EQ(default_config(false, true, 3, 17).stages, 0);
  EXPECT_EQ(default_config(false, true, 24, 48).stages, 3);
  EXPECT_EQ(default_config(false, true, 12, 12).stages, 3);
  EXPECT_EQ(default_config(false, true, 40, 40).stages, 0);
  EXPECT_EQ(default_config(false, true, 32, 64).stages, 0);
  EXPECT_EQ(default_config(false, true, 1, 64).stages, 0);
  EXPECT_EQ(default_config(false, true, 32, 32).stages, 3);
}

// The items a ticket hands out in the tensor-core TSMM kernels: chunks of at
// least 16 KiB of rows in double and 64 KiB in complex, as measured.
TEST(TsmTable, TsmmTicketChunks) {
  using tessera::tsm::tsmm_ticket_items;
  EXPECT_EQ(tsmm_ticket_items(false, 64, 64), 1);  // 16 KiB an item
  EXPECT_EQ(tsmm_ticket_items(false, 63, 63), 2);
  EXPECT_EQ(tsmm_ticket_items(false, 48, 48), 2);
  EXPECT_EQ(tsmm_ticket_items(false, 16, 16), 4);
  EXPECT_EQ(tsmm_ticket_items(false, 9, 9), 8);
  EXPECT_EQ(tsmm_ticket_items(true, 64, 64), 2);
  EXPECT_EQ(tsmm_ticket_items(true, 24, 48), 4);
  EXPECT_EQ(tsmm_ticket_items(true, 16, 16), 8);
  EXPECT_EQ(tsmm_ticket_items(true, 4, 4), 32);
}

TEST(TsmTable, CorruptOrForeignTablesAreRefused) {
  expect_refused("{not json", "not valid JSON");
  expect_refused(R"({"format": "other", "version": 1})", "not a tessera-tsm-table");
  expect_refused(table_with("", R"("format": "tessera-tsm-table", "version": 2, "gpu": "G")"), "version 2");
  expect_refused(table_with(""), "measured on \"G\"", "NVIDIA H100 80GB HBM3");
  expect_refused(table_with(R"({"kernel": "gemm", "type": "d", "m": 4, "n": 4, "tile": 2})"), "kernel \"gemm\"");
  expect_refused(table_with(R"({"kernel": "tsmttsm", "type": "s", "m": 4, "n": 4, "tile": 2})"), "type \"s\"");
  expect_refused(table_with(R"({"kernel": "tsmttsm", "type": "d", "m": 4, "n": 4, "tile": 3})"), "does not have");
  expect_refused(table_with(R"({"kernel": "tsmttsm", "type": "z", "m": 64, "n": 64, "tile": 8})"), "does not have");
  expect_refused(table_with(R"({"kernel": "tsmttsm", "type": "d", "m": 64, "n": 64, "tile": 1})"), "does not have");
  expect_refused(table_with(R"({"kernel": "tsmttsm", "type": "d", "m": 65, "n": 4, "tile": 2})"), "does not have");
  expect_refused(table_with(R"({"kernel": "tsmm", "type": "d", "m": 4, "n": 4, "outputs": 3})"), "does not have");
  expect_refused(table_with(R"({"kernel": "tsmttsm", "type": "z", "m": 8, "n": 8, "mma": 4})"), "does not have");
  expect_refused(table_with(R"({"kernel": "tsmttsm", "type": "d", "m": 64, "n": 64, "mma": 1})"), "does not have");
  expect_refused(table_with(R"({"kernel": "tsmttsm", "type": "d", "m": 8, "n": 8, "mma": 2, "stages": 2})"),
                 "does not have");
  expect_refused(table_with(R"({"kernel": "tsmm", "type": "d", "m": 8, "n": 8, "mma": 1, "stages": 3})"),
                 "does not have");
  expect_refused(table_with(R"({"kernel": "tsmm", "type": "d", "m": 8, "n": 8, "mma": 4})"), "does not have");
  expect_refused(table_with(R"({"kernel": "tsmm", "type": "z", "m": 8, "n": 8, "mma": 2})"), "does not have");
  expect_refused(table_with(R"({"kernel": "tsmm", "type": "z", "m": 8, "n": 8, "mma": 1, "tiles": 2, "products": 4})"),
                 "does not have");
  expect_refused(table_with(R"({"kernel": "tsmm", "type": "z", "m": 8, "n": 8, "mma": 2, "tiles": 3, "products": 4})"),
                 "does not have");
  expect_refused(table_with(R"({"kernel": "tsmm", "type": "z", "m": 8, "n": 8, "mma": 2, "tiles": 2, "products": 2})"),
                 "does not have");
  expect_refused(table_with(R"({"kernel": "tsmm", "type": "d", "m": 8, "n": 8, "mma": 2, "tiles": 2, "products": 4})"),
                 "does not have");
  expect_refused(table_with(R"({"kernel": "tsmttsm", "type": "z", "m": 8, "n": 8, "mma": 2, "tiles": 2, "products": 3})"),
                 "does not have");
  for (const char* strip : {R"("mma": 2, "stages": 3, "tiles": 4)", R"("mma": 2, "tiles": 5)",
                             R"("mma": 4, "stages": 3, "tiles": 5)", R"("mma": 2, "stages": 3, "tiles": 5, "products": 4)"})
    expect_refused(table_with(std::string(R"({"kernel": "tsmttsm", "type": "d", "m": 40, "n": 40, )") + strip + "}"),
                   "does not have");
  expect_refused(table_with(R"({"kernel": "tsmttsm", "type": "z", "m": 40, "n": 40, "mma": 2, "stages": 3, "tiles": 5})"),
                 "does not have");
  expect_refused(table_with(R"({"kernel": "tsmm", "type": "d", "m": 4, "n": 4})"), "malformed");
  expect_refused(table_with(R"({"kernel": "tsmm", "type": "d", "m": "four", "n": 4, "outputs": 1})"), "malformed");
  EXPECT_THROW(load_table("/nonexistent/tsm.json"), std::invalid_argument);
}

TEST(TsmTable, RefusedEnvironmentTableKeepsTheDefaults) {
  const std::string path = ::testing::TempDir() + "tsm_table_corrupt.json";
  {
    std::ofstream out(path);
    out << R"({"format": "tessera-tsm-table", "version": 1, "gpu": "G", "entries": [)";  // truncated
  }
  setenv("TESSERA_TSM_TABLE", path.c_str(), 1);
  init_table_from_environment("G");
  const std::string status = table_status();
  EXPECT_NE(status.find("refused"), std::string::npos) << status;
  EXPECT_NE(status.find("defaults in use"), std::string::npos) << status;
  EXPECT_EQ(choose_config(true, false, 40, 40).tile, default_config(true, false, 40, 40).tile);
  std::remove(path.c_str());
}

}  // namespace
