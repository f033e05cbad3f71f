#pragma once
// Video and image files: YUV4MPEG2 (8-bit 4:2:0 `420jpeg`/`420mpeg2`/
// `420paldv`/`420`, 4:4:4 `444`, `mono`) read and written frame by frame, so a
// long clip never has to fit in memory; binary PGM/PPM (P5/P6, maxval <= 255);
// and a seeded synthetic video (moving shapes, texture, noise) from a
// counter-based RNG, so frame t is the same wherever and whenever it is made.
//
// Every malformed input (bad header, truncated frame, absurd size) throws
// FormatError, a one-line std::invalid_argument, before anything large is
// allocated. Writers write to a temporary file next to the target and rename
// it over the target only on commit(): an error or an early exit leaves no
// output file behind.
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

namespace tessera::video {

struct FormatError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

enum class Chroma { c420, c444, mono };

// Limits of what the readers accept: larger headers are rejected before any
// allocation (8K UHD fits).
inline constexpr int kMaxDimension = 16384;
inline constexpr std::int64_t kMaxPixels = std::int64_t(1) << 26;

struct VideoFormat {
  int width = 0, height = 0;
  Chroma chroma = Chroma::c420;
  std::string chroma_tag = "420jpeg";  // the C tag written back (420jpeg, 420mpeg2, 420paldv, 420, 444, mono)
  int fps_num = 25, fps_den = 1;
  char interlace = 'p';
  int aspect_num = 0, aspect_den = 0;

  int planes() const { return chroma == Chroma::mono ? 1 : 3; }
  int plane_width(int p) const { return (p > 0 && chroma == Chroma::c420) ? (width + 1) / 2 : width; }
  int plane_height(int p) const { return (p > 0 && chroma == Chroma::c420) ? (height + 1) / 2 : height; }
  std::size_t plane_bytes(int p) const { return std::size_t(plane_width(p)) * std::size_t(plane_height(p)); }
  std::size_t frame_bytes() const;
  // Throws FormatError when the size is zero, negative or beyond the limits.
  void validate() const;
};

// One frame: the planes back to back (Y, then Cb, Cr), rows contiguous.
struct Frame {
  VideoFormat format;
  std::vector<std::uint8_t> data;

  void resize(const VideoFormat& f) {
    format = f;
    data.resize(f.frame_bytes());
  }
  std::size_t plane_offset(int p) const {
    std::size_t o = 0;
    for (int q = 0; q < p; ++q) o += format.plane_bytes(q);
    return o;
  }
  std::uint8_t* plane(int p) { return data.data() + plane_offset(p); }
  const std::uint8_t* plane(int p) const { return data.data() + plane_offset(p); }
};

// Parses a YUV4MPEG2 stream header line (without the newline). Exposed for tests.
VideoFormat parse_y4m_header(const std::string& line);
std::string format_y4m_header(const VideoFormat& f);

// Streaming Y4M reader: the header on construction, then one frame per read().
class Y4mReader {
 public:
  explicit Y4mReader(const std::string& path);
  ~Y4mReader();
  Y4mReader(const Y4mReader&) = delete;
  Y4mReader& operator=(const Y4mReader&) = delete;
  const VideoFormat& format() const { return format_; }
  // Reads the next frame into f (resized to the format). False at a clean end
  // of file; FormatError on a bad frame header or a truncated frame.
  bool read(Frame& f);
  long frames_read() const { return frames_; }

 private:
  std::FILE* file_ = nullptr;
  std::string path_;
  VideoFormat format_;
  long frames_ = 0;
  long long remaining_ = -1;  // bytes left in a regular file (-1: unknown, e.g. a pipe)
};

// Writes to a temporary next to `path`; commit() renames it into place. A
// writer destroyed without commit() removes the temporary.
class AtomicFile {
 public:
  explicit AtomicFile(const std::string& path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  void write(const void* data, std::size_t bytes);
  void commit();
  void discard();
  const std::string& path() const { return path_; }

 private:
  std::FILE* file_ = nullptr;
  std::string path_, tmp_;
};

class Y4mWriter {
 public:
  Y4mWriter(const std::string& path, const VideoFormat& format);
  const VideoFormat& format() const { return format_; }
  void write(const Frame& f);
  void commit() { out_.commit(); }
  long frames_written() const { return frames_; }

 private:
  AtomicFile out_;
  VideoFormat format_;
  long frames_ = 0;
};

// Binary PGM (1 channel) / PPM (3 channels, RGB interleaved), 8 bits.
struct Image {
  int width = 0, height = 0, channels = 1;
  std::vector<std::uint8_t> data;  // row-major, channels interleaved
};
Image read_pnm(const std::string& path);
void write_pnm(const std::string& path, const Image& img);

// Synthetic frame t of a seeded video: a textured background, a moving disc
// and a moving rectangle in every plane, plus uniform noise of +-noise levels
// (counter-based: pixel (p, y, x) of frame t depends on seed and those alone).
void synthetic_frame(const VideoFormat& f, std::uint64_t seed, long t, Frame& out, int noise = 4);

}  // namespace tessera::video
