// Video file I/O: Y4M and PNM round trips, the synthetic video's
// determinism, and a deterministic fuzz of mutated headers and truncated
// files: each one either converts cleanly or fails with a one-line
// FormatError, never crashes, and never leaves an output file behind.
#include "tessera/core/random.hpp"
#include "tessera/video/video_io.hpp"
#include "temp_dir.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace tessera::video;

namespace {

// A fresh folder per test, removed at its end.
struct TempDir : tessera::test::TempDir {
  TempDir() : tessera::test::TempDir("tessera_video_io_") {}
};

std::vector<char> slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
void spit(const fs::path& p, const std::vector<char>& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
}

VideoFormat make_format(int w, int h, Chroma c, const std::string& tag) {
  VideoFormat f;
  f.width = w;
  f.height = h;
  f.chroma = c;
  f.chroma_tag = tag;
  return f;
}

// Copies in -> out frame by frame (what `tessera run video --input --output` does around its kernels).
long convert(const fs::path& in, const fs::path& out) {
  Y4mReader r(in.string());
  Y4mWriter w(out.string(), r.format());
  Frame f;
  while (r.read(f)) w.write(f);
  w.commit();
  return w.frames_written();
}

std::size_t entries(const fs::path& dir) {
  return std::size_t(std::distance(fs::directory_iterator(dir), fs::directory_iterator()));
}

}  // namespace

TEST(VideoIo, Y4mRoundTripEveryChroma) {
  TempDir dir;
  const std::uint64_t seed = 0x51d3;
  for (auto [c, tag] : {std::pair{Chroma::c420, "420jpeg"}, std::pair{Chroma::c420, "420mpeg2"},
                        std::pair{Chroma::c420, "420"}, std::pair{Chroma::c444, "444"}, std::pair{Chroma::mono, "mono"}}) {
    SCOPED_TRACE(tag);
    const VideoFormat f = make_format(37, 23, c, tag);  // odd sizes: chroma planes round up
    const fs::path p = dir.path / "a.y4m";
    fs::remove(p);
    std::vector<Frame> frames(3);
    {
      Y4mWriter w(p.string(), f);
      for (long t = 0; t < 3; ++t) {
        synthetic_frame(f, seed, t, frames[t]);
        w.write(frames[t]);
      }
      EXPECT_FALSE(fs::exists(p));  // nothing at the target before commit
      w.commit();
    }
    Y4mReader r(p.string());
    EXPECT_EQ(r.format().width, 37);
    EXPECT_EQ(r.format().height, 23);
    EXPECT_EQ(r.format().chroma, c);
    EXPECT_EQ(r.format().chroma_tag, tag);
    Frame g;
    for (long t = 0; t < 3; ++t) {
      ASSERT_TRUE(r.read(g));
      EXPECT_EQ(g.data, frames[t].data);
    }
    EXPECT_FALSE(r.read(g));
    EXPECT_EQ(entries(dir.path), 1u);  // no temporaries left
  }
}

TEST(VideoIo, ChromaPlaneSizes) {
  const VideoFormat f = make_format(37, 23, Chroma::c420, "420jpeg");
  EXPECT_EQ(f.plane_width(1), 19);
  EXPECT_EQ(f.plane_height(2), 12);
  EXPECT_EQ(f.frame_bytes(), 37u * 23 + 2u * 19 * 12);
  EXPECT_EQ(make_format(5, 4, Chroma::mono, "mono").frame_bytes(), 20u);
  EXPECT_EQ(make_format(5, 4, Chroma::c444, "444").frame_bytes(), 60u);
}

TEST(VideoIo, WriterWithoutCommitLeavesNothing) {
  TempDir dir;
  const VideoFormat f = make_format(8, 6, Chroma::c420, "420jpeg");
  {
    Y4mWriter w((dir.path / "x.y4m").string(), f);
    Frame fr;
    synthetic_frame(f, 1, 0, fr);
    w.write(fr);
    Frame wrong;
    synthetic_frame(make_format(8, 8, Chroma::c420, "420jpeg"), 1, 0, wrong);
    EXPECT_THROW(w.write(wrong), std::invalid_argument);
  }
  EXPECT_EQ(entries(dir.path), 0u);
}

TEST(VideoIo, SyntheticIsDeterministicAndMoves) {
  const VideoFormat f = make_format(64, 48, Chroma::c420, "420jpeg");
  Frame a, b, c;
  synthetic_frame(f, 7, 5, a);
  synthetic_frame(f, 7, 5, b);
  synthetic_frame(f, 7, 6, c);
  EXPECT_EQ(a.data, b.data);
  EXPECT_NE(a.data, c.data);
  synthetic_frame(f, 8, 5, c);
  EXPECT_NE(a.data, c.data);
}

TEST(VideoIo, PnmRoundTrip) {
  TempDir dir;
  for (int ch : {1, 3}) {
    Image img;
    img.width = 13;
    img.height = 7;
    img.channels = ch;
    img.data.resize(13 * 7 * ch);
    for (std::size_t i = 0; i < img.data.size(); ++i) img.data[i] = std::uint8_t(tessera::splitmix64(i) & 255);
    const fs::path p = dir.path / (ch == 1 ? "a.pgm" : "a.ppm");
    write_pnm(p.string(), img);
    const Image back = read_pnm(p.string());
    EXPECT_EQ(back.width, 13);
    EXPECT_EQ(back.height, 7);
    EXPECT_EQ(back.channels, ch);
    EXPECT_EQ(back.data, img.data);
  }
  // Comments in the header, maxval 15 scaled to 0..255.
  const fs::path p = dir.path / "c.pgm";
  std::string s = "P5\n# a comment\n2 1\n15\n";
  s += char(0);
  s += char(15);
  spit(p, std::vector<char>(s.begin(), s.end()));
  const Image c = read_pnm(p.string());
  EXPECT_EQ(c.data, (std::vector<std::uint8_t>{0, 255}));
}

TEST(VideoIo, BadHeadersHaveOneLineErrors) {
  for (const char* h : {"YUV4MPEG", "YUV4MPEG2 W10", "YUV4MPEG2 W10 H0", "YUV4MPEG2 W999999999 H10",
                        "YUV4MPEG2 W16384 H16384", "YUV4MPEG2 W10 H10 C422", "YUV4MPEG2 W10 H10 C444p10",
                        "YUV4MPEG2 W10 H10 F0:1", "YUV4MPEG2 W10 H10 Iz", "YUV4MPEG2 W-3 H10",
                        "YUV4MPEG2 W10 H10 Q1", "YUV4MPEG2W10 H10", "YUV4MPEG2 W1x H10"}) {
    SCOPED_TRACE(h);
    try {
      parse_y4m_header(h);
      ADD_FAILURE() << "accepted";
    } catch (const FormatError& e) {
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
  }
  EXPECT_NO_THROW(parse_y4m_header("YUV4MPEG2 W10 H10 F30000:1001 It A1:1 C420mpeg2 XYSCSS=420MPEG2"));
}

// >= 1,000 deterministic mutations of a valid two-frame file: byte
// substitutions in the headers, truncations at every length, absurd sizes,
// broken frame markers. Each either converts or throws FormatError (one
// line); the output directory holds nothing afterwards unless the convert
// succeeded, and then exactly the output.
TEST(VideoIo, MutatedFilesFailCleanly) {
  TempDir dir;
  const VideoFormat f = make_format(11, 7, Chroma::c420, "420jpeg");
  const fs::path base = dir.path / "base.y4m";
  {
    Y4mWriter w(base.string(), f);
    Frame fr;
    for (long t = 0; t < 2; ++t) {
      synthetic_frame(f, 3, t, fr);
      w.write(fr);
    }
    w.commit();
  }
  const std::vector<char> good = slurp(base);
  const std::size_t header_len = format_y4m_header(f).size() + 1;
  const std::size_t frame_len = 6 + f.frame_bytes();
  const fs::path in = dir.path / "in.y4m";
  const fs::path outdir = dir.path / "out";
  fs::create_directories(outdir);
  const fs::path out = outdir / "out.y4m";

  std::vector<std::vector<char>> cases;
  // Every truncation length.
  for (std::size_t n = 0; n < good.size(); ++n) cases.emplace_back(good.begin(), good.begin() + long(n));
  // Substitutions in the stream header and the frame markers.
  const char alphabet[] = {'0', '9', ' ', '\n', 'W', 'H', 'C', 'F', ':', '-', 'x', '\0', '\xff', 'Y'};
  std::vector<std::size_t> positions;
  for (std::size_t i = 0; i < header_len; ++i) positions.push_back(i);
  for (std::size_t i = 0; i < 6; ++i) positions.push_back(header_len + i);
  for (std::size_t i = 0; i < 6; ++i) positions.push_back(header_len + frame_len + i);
  for (std::size_t i = 0; i < positions.size(); ++i)
    for (std::size_t a = 0; a < sizeof(alphabet); ++a) {
      if ((i * 7 + a) % 3 != 0) continue;  // a deterministic third of the pairs
      auto m = good;
      m[positions[i]] = alphabet[a];
      cases.push_back(std::move(m));
    }
  // Absurd and inconsistent sizes (headers alone and with the original frames).
  for (const char* h : {"YUV4MPEG2 W4000000000 H7", "YUV4MPEG2 W16384 H4096", "YUV4MPEG2 W8192 H8192 C444",
                        "YUV4MPEG2 W12 H7", "YUV4MPEG2 W11 H8", "YUV4MPEG2 W11 H7 C444", "YUV4MPEG2 W11 H7 Cmono"}) {
    std::string s = std::string(h) + "\n";
    std::vector<char> m(s.begin(), s.end());
    m.insert(m.end(), good.begin() + long(header_len), good.end());
    cases.push_back(m);
  }
  // Random byte flips anywhere (deterministic stream).
  for (std::uint64_t k = 0; k < 600; ++k) {
    auto m = good;
    const std::uint64_t r = tessera::splitmix64(k + 0xabcdef);
    m[r % m.size()] = char((r >> 32) & 255);
    if (k % 2) m.resize(header_len + (r >> 16) % (m.size() - header_len));
    cases.push_back(std::move(m));
  }
  ASSERT_GE(cases.size(), 1000u);

  std::size_t ok = 0, refused = 0;
  for (std::size_t c = 0; c < cases.size(); ++c) {
    SCOPED_TRACE("case " + std::to_string(c));
    spit(in, cases[c]);
    try {
      const long n = convert(in, out);
      ++ok;
      ASSERT_TRUE(fs::exists(out));
      EXPECT_LE(n, 2);
      fs::remove(out);
    } catch (const FormatError& e) {
      ++refused;
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
      EXPECT_FALSE(std::string(e.what()).empty());
    }
    ASSERT_EQ(entries(outdir), 0u);
  }
  EXPECT_GT(refused, cases.size() / 2);
  EXPECT_GT(ok, 0u);
}

TEST(VideoIo, MissingFileAndBadPnm) {
  TempDir dir;
  EXPECT_THROW(Y4mReader((dir.path / "nope.y4m").string()), FormatError);
  EXPECT_THROW(read_pnm((dir.path / "nope.pgm").string()), FormatError);
  for (const char* s : {"P4\n1 1\n255\n", "P5\n1 1\n65535\n\x01\x02", "P5\n100000 100000\n255\n", "P5\n2 2\n255\nab",
                        "P6\n1 1\n", "P5 # c"}) {
    const fs::path p = dir.path / "bad.pgm";
    spit(p, std::vector<char>(s, s + std::strlen(s)));
    EXPECT_THROW(read_pnm(p.string()), FormatError) << s;
  }
}
