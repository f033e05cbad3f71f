// lhagrid1 sets: a set written and read back reproduces its knots and values
// exactly; sets with two Q blocks are stacked; malformed files are refused
// with one line; sets are found by directory and through LHAPDF_DATA_PATH.
#include "exec_spaces.hpp"
#include "temp_dir.hpp"
#include "tessera/gluon/gluon_lhagrid.hpp"

#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace {

using namespace tessera::gluon;

std::string set_dir(const std::string& root, const std::string& name) {
  const std::string d = root + "/" + name;
  ::mkdir(d.c_str(), 0755);
  return d;
}

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path) << text;
}

TEST(GluonLhagrid, RoundTripExact) {
  const tessera::test::TempDir tmp("tessera_lhagrid_");
  const std::string root = tmp.str();
  PdfGridHost g = toy_gluon_set(1.3, 0.25, 4.0, 0.125);
  g.name = "toyset";
  write_lhagrid1(g, set_dir(root, "toyset"));
  const PdfGridHost r = read_lhagrid1(root + "/toyset");
  EXPECT_EQ(r.x, g.x);
  EXPECT_EQ(r.q, g.q);
  EXPECT_EQ(r.xg, g.xg);
  EXPECT_EQ(r.as_q, g.as_q);
  EXPECT_EQ(r.as_val, g.as_val);
  // Found by name through LHAPDF_DATA_PATH.
  ::setenv("LHAPDF_DATA_PATH", ("/nonexistent:" + root).c_str(), 1);
  EXPECT_EQ(load_pdf("toyset").xg, g.xg);
  ::unsetenv("LHAPDF_DATA_PATH");
  EXPECT_THROW(load_pdf("toyset"), std::invalid_argument);
  EXPECT_THROW(load_pdf(root + "/missing"), std::invalid_argument);
}

const char* kInfo =
    "SetDesc: test # a comment\nFormat: lhagrid1\nAlphaS_Type: ipol\n"
    "AlphaS_Qs: [1, 2, 4, 4, 8, 16]\nAlphaS_Vals: [0.4, 0.3, 0.25, 0.24, 0.2, 0.18]\n";

// Two blocks in Q, sharing the knot Q = 4; flavours 1 21 (gluon second).
std::string two_blocks() {
  std::string s = "PdfType: central\nFormat: lhagrid1\n---\n";
  s += "0.001 0.01 0.1 0.5 1\n1 2 4\n1 21\n";
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 3; ++j) s += "9 " + std::to_string(10 * i + j) + "\n";
  s += "---\n0.001 0.01 0.1 0.5 1\n4 8 16\n21 1\n";
  for (int i = 0; i < 5; ++i)
    for (int j = 0; j < 3; ++j) s += std::to_string(100 + 10 * i + j) + " 9\n";
  s += "---\n";
  return s;
}

TEST(GluonLhagrid, BlocksStackedInQ) {
  const tessera::test::TempDir tmp("tessera_lhagrid_");
  const std::string root = tmp.str();
  const std::string d = set_dir(root, "two");
  write_text(d + "/two.info", kInfo);
  write_text(d + "/two_0000.dat", two_blocks());
  const PdfGridHost g = read_lhagrid1(d);
  ASSERT_EQ(g.q.size(), 5u);
  EXPECT_EQ(g.q, (std::vector<double>{1, 2, 4, 8, 16}));
  EXPECT_EQ(g.xg[0 * 5 + 1], 1.0);    // x 0.001, Q 2 from block 1
  EXPECT_EQ(g.xg[2 * 5 + 2], 120.0);  // x 0.1, Q 4 from block 2 (the upper block)
  EXPECT_EQ(g.xg[4 * 5 + 4], 142.0);
  EXPECT_EQ(g.as_q, (std::vector<double>{1, 2, 4, 8, 16}));
  EXPECT_EQ(g.as_val[2], 0.24);
}

TEST(GluonLhagrid, CorruptSetsRefused) {
  const tessera::test::TempDir tmp("tessera_lhagrid_");
  const std::string root = tmp.str();
  auto refused = [&](const std::string& info, const std::string& dat, const std::string& why) {
    const std::string d = set_dir(root, "bad");
    write_text(d + "/bad.info", info);
    write_text(d + "/bad_0000.dat", dat);
    try {
      read_lhagrid1(d);
    } catch (const std::invalid_argument& e) {
      const std::string m = e.what();
      EXPECT_EQ(m.find('\n'), std::string::npos) << why;
      return;
    }
    ADD_FAILURE() << "accepted: " << why;
  };
  const std::string good = two_blocks();
  auto replace = [](std::string s, const std::string& a, const std::string& b) {
    const auto p = s.find(a);
    if (p != std::string::npos) s.replace(p, a.size(), b);
    return s;
  };
  refused(kInfo, replace(good, "0.001 0.01 0.1 0.5 1\n1 2 4", "0.01 0.001 0.1 0.5 1\n1 2 4"), "x order");
  refused(kInfo, replace(good, "1 2 4\n", "1 4 2\n"), "Q order");
  refused(kInfo, replace(good, "9 12\n", "9 nan\n"), "NaN");
  refused(kInfo, replace(good, "9 12\n", "9 1x2\n"), "not a number");
  refused(kInfo, replace(good, "9 12\n", "9\n"), "short row");
  refused(kInfo, good.substr(0, good.size() - 40), "truncated");
  refused(kInfo, replace(good, "1 21\n", "1 2\n"), "no gluon");
  refused(replace(kInfo, "ipol", "analytic"), good, "alpha_s type");
  refused(replace(kInfo, "lhagrid1", "lhagrid2"), good, "format");
  refused(replace(kInfo, "AlphaS_Vals: [0.4, ", "AlphaS_Vals: ["), good, "alpha_s lengths");
  refused(replace(kInfo, "AlphaS_Qs", "Nope"), good, "missing key");
  refused(kInfo, replace(good, "0.001 0.01 0.1 0.5 1\n4 8 16", "0.002 0.01 0.1 0.5 1\n4 8 16"), "x differs by block");
}

}  // namespace
