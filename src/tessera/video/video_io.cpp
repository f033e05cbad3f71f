#include "tessera/video/video_io.hpp"

#include "tessera/core/random.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <sstream>

namespace tessera::video {
namespace {

constexpr std::size_t kMaxHeaderLine = 1024;

[[noreturn]] void fail(const std::string& what) { throw FormatError(what); }

// Strict non-negative decimal integer of at most 9 digits.
long parse_uint(const std::string& s, const std::string& what) {
  if (s.empty() || s.size() > 9 || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
    fail("Y4M header: bad " + what + " '" + s.substr(0, 32) + "'");
  return std::stol(s);
}

void parse_ratio(const std::string& s, const std::string& what, int& num, int& den) {
  const auto colon = s.find(':');
  if (colon == std::string::npos) fail("Y4M header: bad " + what + " '" + s.substr(0, 32) + "' (want N:D)");
  num = int(parse_uint(s.substr(0, colon), what));
  den = int(parse_uint(s.substr(colon + 1), what));
}

// Reads one line (up to '\n', not included). False at end of file before any
// byte; FormatError on an over-long or unterminated line.
bool read_line(std::FILE* f, std::string& line, const char* what) {
  line.clear();
  for (;;) {
    const int c = std::fgetc(f);
    if (c == EOF) {
      if (line.empty()) return false;
      fail(std::string("Y4M: truncated ") + what);
    }
    if (c == '\n') return true;
    if (line.size() >= kMaxHeaderLine) fail(std::string("Y4M: ") + what + " longer than 1024 bytes");
    line.push_back(char(c));
  }
}

long long file_size(std::FILE* f) {
  struct stat st {};
  if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) return -1;
  return static_cast<long long>(st.st_size);
}

}  // namespace

std::size_t VideoFormat::frame_bytes() const {
  std::size_t n = 0;
  for (int p = 0; p < planes(); ++p) n += plane_bytes(p);
  return n;
}

void VideoFormat::validate() const {
  if (width <= 0 || height <= 0) fail("video: width and height must be positive");
  if (width > kMaxDimension || height > kMaxDimension || std::int64_t(width) * height > kMaxPixels)
    fail("video: frame " + std::to_string(width) + "x" + std::to_string(height) + " beyond the limit (" +
         std::to_string(kMaxDimension) + " per side, " + std::to_string(kMaxPixels) + " pixels)");
}

VideoFormat parse_y4m_header(const std::string& line) {
  static const std::string magic = "YUV4MPEG2";
  if (line.compare(0, magic.size(), magic) != 0) fail("Y4M: not a YUV4MPEG2 stream (bad magic)");
  if (line.size() > magic.size() && line[magic.size()] != ' ') fail("Y4M: bad magic");
  VideoFormat f;
  bool have_w = false, have_h = false;
  std::istringstream in(line.substr(magic.size()));
  std::string tok;
  while (in >> tok) {
    const char tag = tok[0];
    const std::string v = tok.substr(1);
    switch (tag) {
      case 'W': f.width = int(parse_uint(v, "width")); have_w = true; break;
      case 'H': f.height = int(parse_uint(v, "height")); have_h = true; break;
      case 'F':
        parse_ratio(v, "frame rate", f.fps_num, f.fps_den);
        if (f.fps_num <= 0 || f.fps_den <= 0) fail("Y4M header: frame rate must be positive");
        break;
      case 'A': parse_ratio(v, "aspect ratio", f.aspect_num, f.aspect_den); break;
      case 'I':
        if (v.size() != 1 || std::string("ptbm?").find(v[0]) == std::string::npos)
          fail("Y4M header: bad interlacing '" + v.substr(0, 32) + "'");
        f.interlace = v[0];
        break;
      case 'C':
        if (v == "420jpeg" || v == "420mpeg2" || v == "420paldv" || v == "420") {
          f.chroma = Chroma::c420;
        } else if (v == "444") {
          f.chroma = Chroma::c444;
        } else if (v == "mono") {
          f.chroma = Chroma::mono;
        } else {
          fail("Y4M header: unsupported colour space '" + v.substr(0, 32) +
               "' (8-bit 420jpeg, 420mpeg2, 420paldv, 420, 444, mono)");
        }
        f.chroma_tag = v;
        break;
      case 'X': break;  // comment / extension
      default: fail("Y4M header: unknown parameter '" + tok.substr(0, 32) + "'");
    }
  }
  if (!have_w || !have_h) fail("Y4M header: missing W or H");
  f.validate();
  return f;
}

std::string format_y4m_header(const VideoFormat& f) {
  std::string s = "YUV4MPEG2 W" + std::to_string(f.width) + " H" + std::to_string(f.height) + " F" +
                  std::to_string(f.fps_num) + ":" + std::to_string(f.fps_den) + " I" + f.interlace + " A" +
                  std::to_string(f.aspect_num) + ":" + std::to_string(f.aspect_den) + " C" + f.chroma_tag;
  return s;
}

Y4mReader::Y4mReader(const std::string& path) : path_(path) {
  file_ = std::fopen(path.c_str(), "rb");
  if (!file_) fail("cannot open '" + path + "': " + std::strerror(errno));
  try {
    const long long size = file_size(file_);
    std::string line;
    if (!read_line(file_, line, "stream header")) fail("Y4M: '" + path + "' is empty");
    format_ = parse_y4m_header(line);
    if (size >= 0) remaining_ = size - static_cast<long long>(line.size() + 1);
  } catch (...) {
    std::fclose(file_);
    file_ = nullptr;
    throw;
  }
}

Y4mReader::~Y4mReader() {
  if (file_) std::fclose(file_);
}

bool Y4mReader::read(Frame& f) {
  std::string line;
  if (!read_line(file_, line, "frame header")) return false;
  if (line.compare(0, 5, "FRAME") != 0 || (line.size() > 5 && line[5] != ' '))
    fail("Y4M: bad frame header at frame " + std::to_string(frames_));
  const std::size_t bytes = format_.frame_bytes();
  if (remaining_ >= 0) {
    remaining_ -= static_cast<long long>(line.size() + 1);
    if (remaining_ < static_cast<long long>(bytes))
      fail("Y4M: truncated frame " + std::to_string(frames_) + " (" + std::to_string(std::max(0LL, remaining_)) +
           " of " + std::to_string(bytes) + " bytes)");
    remaining_ -= static_cast<long long>(bytes);
  }
  f.resize(format_);
  if (std::fread(f.data.data(), 1, bytes, file_) != bytes)
    fail("Y4M: truncated frame " + std::to_string(frames_));
  ++frames_;
  return true;
}

AtomicFile::AtomicFile(const std::string& path) : path_(path) {
  tmp_ = path + ".part-" + std::to_string(::getpid());
  file_ = std::fopen(tmp_.c_str(), "wb");
  if (!file_) throw std::runtime_error("cannot write '" + tmp_ + "': " + std::strerror(errno));
}

AtomicFile::~AtomicFile() { discard(); }

void AtomicFile::write(const void* data, std::size_t bytes) {
  if (!file_) throw std::logic_error("AtomicFile: write after commit");
  if (bytes && std::fwrite(data, 1, bytes, file_) != bytes)
    throw std::runtime_error("write to '" + path_ + "' failed: " + std::strerror(errno));
}

void AtomicFile::commit() {
  if (!file_) return;
  const bool ok = std::fflush(file_) == 0 && std::ferror(file_) == 0;
  const int closed = std::fclose(file_);
  file_ = nullptr;
  if (!ok || closed != 0 || std::rename(tmp_.c_str(), path_.c_str()) != 0) {
    std::remove(tmp_.c_str());
    throw std::runtime_error("cannot write '" + path_ + "': " + std::strerror(errno));
  }
}

void AtomicFile::discard() {
  if (!file_) return;
  std::fclose(file_);
  file_ = nullptr;
  std::remove(tmp_.c_str());
}

Y4mWriter::Y4mWriter(const std::string& path, const VideoFormat& format) : out_(path), format_(format) {
  format_.validate();
  const std::string h = format_y4m_header(format_) + "\n";
  out_.write(h.data(), h.size());
}

void Y4mWriter::write(const Frame& f) {
  if (f.format.width != format_.width || f.format.height != format_.height || f.format.chroma != format_.chroma ||
      f.data.size() != format_.frame_bytes())
    throw std::invalid_argument("Y4mWriter: frame format differs from the stream's");
  static const char tag[] = "FRAME\n";
  out_.write(tag, sizeof(tag) - 1);
  out_.write(f.data.data(), f.data.size());
  ++frames_;
}

// ---- PGM / PPM ----

namespace {

// Next whitespace-separated token of a PNM header, skipping # comments.
std::string pnm_token(std::FILE* f) {
  std::string tok;
  for (;;) {
    int c = std::fgetc(f);
    if (c == EOF) fail("PNM: truncated header");
    if (c == '#') {
      while (c != '\n' && c != EOF) c = std::fgetc(f);
      if (c == EOF) fail("PNM: truncated header");
      if (!tok.empty()) return tok;
      continue;
    }
    if (std::isspace(c)) {
      if (!tok.empty()) return tok;
      continue;
    }
    if (tok.size() >= 16) fail("PNM: header field too long");
    tok.push_back(char(c));
  }
}

}  // namespace

Image read_pnm(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) fail("cannot open '" + path + "': " + std::strerror(errno));
  struct Closer {
    std::FILE* f;
    ~Closer() { std::fclose(f); }
  } closer{f};
  char magic[2];
  if (std::fread(magic, 1, 2, f) != 2 || magic[0] != 'P' || (magic[1] != '5' && magic[1] != '6'))
    fail("PNM: '" + path + "' is not a binary PGM (P5) or PPM (P6)");
  const int c0 = std::fgetc(f);
  if (c0 == EOF || !std::isspace(c0)) fail("PNM: bad magic");
  Image img;
  img.channels = magic[1] == '5' ? 1 : 3;
  img.width = int(parse_uint(pnm_token(f), "PNM width"));
  img.height = int(parse_uint(pnm_token(f), "PNM height"));
  const long maxval = parse_uint(pnm_token(f), "PNM maxval");
  if (maxval < 1 || maxval > 255) fail("PNM: maxval " + std::to_string(maxval) + " unsupported (8-bit only)");
  VideoFormat probe;
  probe.width = img.width;
  probe.height = img.height;
  probe.validate();
  const std::size_t bytes = std::size_t(img.width) * img.height * img.channels;
  const long long size = file_size(f);
  if (size >= 0 && size - std::ftell(f) < static_cast<long long>(bytes)) fail("PNM: truncated pixel data");
  img.data.resize(bytes);
  if (std::fread(img.data.data(), 1, bytes, f) != bytes) fail("PNM: truncated pixel data");
  if (maxval != 255)
    for (auto& v : img.data) v = std::uint8_t(std::min<long>(255, (long(v) * 255 + maxval / 2) / maxval));
  return img;
}

void write_pnm(const std::string& path, const Image& img) {
  if (img.channels != 1 && img.channels != 3) throw std::invalid_argument("write_pnm: 1 or 3 channels");
  if (img.data.size() != std::size_t(img.width) * img.height * img.channels)
    throw std::invalid_argument("write_pnm: data size does not match width x height x channels");
  AtomicFile out(path);
  const std::string h = std::string(img.channels == 1 ? "P5" : "P6") + "\n" + std::to_string(img.width) + " " +
                        std::to_string(img.height) + "\n255\n";
  out.write(h.data(), h.size());
  out.write(img.data.data(), img.data.size());
  out.commit();
}

// ---- synthetic video ----

void synthetic_frame(const VideoFormat& f, std::uint64_t seed, long t, Frame& out, int noise) {
  f.validate();
  out.resize(f);
  const double phase = random_uniform(seed, 0x5eed, 0.0, 6.283185307179586);
  for (int p = 0; p < f.planes(); ++p) {
    const int w = f.plane_width(p), h = f.plane_height(p);
    const double sx = double(w) / f.width, sy = double(h) / f.height;  // plane scale (chroma subsampling)
    // Shapes in luma coordinates, moving with t (wrapping around the frame).
    const double disc_x = std::fmod(0.3 * f.width + 1.5 * t, f.width) * sx;
    const double disc_y = (0.5 * f.height + 0.25 * f.height * std::sin(0.1 * t + phase)) * sy;
    const double radius = 0.15 * std::min(f.width, f.height) * std::min(sx, sy) + 1.0;
    const double rect_x0 = std::fmod(0.6 * f.width - 1.0 * t + 4.0 * f.width, f.width) * sx;
    const double rect_y0 = 0.2 * f.height * sy, rect_w = 0.2 * f.width * sx + 1, rect_h = 0.25 * f.height * sy + 1;
    std::uint8_t* plane = out.plane(p);
    const std::uint64_t base = (std::uint64_t(t) * 3 + std::uint64_t(p)) * std::uint64_t(kMaxPixels);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        double v = 128 + 40 * std::sin(0.21 * x + 0.03 * p + phase) * std::cos(0.17 * y - 0.05 * t);  // texture
        const double dx = x - disc_x, dy = y - disc_y;
        if (dx * dx + dy * dy < radius * radius) v = p == 0 ? 220 : 90 + 60 * p;
        if (x >= rect_x0 && x < rect_x0 + rect_w && y >= rect_y0 && y < rect_y0 + rect_h) v = p == 0 ? 40 : 200 - 50 * p;
        if (noise > 0) v += random_uniform(seed, base + std::uint64_t(y) * w + x, -noise, noise + 1.0);
        plane[std::size_t(y) * w + x] = std::uint8_t(std::clamp(std::floor(v), 0.0, 255.0));
      }
  }
}

}  // namespace tessera::video
