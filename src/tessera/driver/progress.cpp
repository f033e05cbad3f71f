#include "tessera/driver/progress.hpp"

#include "tessera/driver/progress_stream.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <unistd.h>

namespace tessera::driver {

namespace {
class NoProgress final : public Progress {
 public:
  void message(const std::string&) override {}
  void update(const std::string&, double, double) override {}
  void finish(const std::string&) override {}
};
}  // namespace

Progress& Progress::none() {
  static NoProgress p;
  return p;
}

StreamProgress::StreamProgress(std::ostream& out, bool terminal) : out_(out), terminal_(terminal) {}

StreamProgress::StreamProgress(std::ostream& out, int fd) : StreamProgress(out, isatty(fd) == 1) {}

void StreamProgress::message(const std::string& text) {
  end_bar();
  out_ << text << std::endl;
}

void StreamProgress::update(const std::string& task, double done, double total) { update(task, done, total, ""); }

void StreamProgress::update(const std::string& task, double done, double total, const std::string& status) {
  const auto now = std::chrono::steady_clock::now();
  const bool fresh = task != task_;
  if (fresh) {
    end_bar();
    task_ = task;
    start_ = now;
    decile_ = -1;
  }
  const double frac = total > 0 ? std::clamp(done / total, 0.0, 1.0) : 0.0;
  // A terminal gets a bar redrawn at most 10 times a second; a log gets a
  // line per tenth, so that long runs show they are alive either way.
  if (terminal_) {
    if (!fresh && now - last_ < std::chrono::milliseconds(100)) return;
    const int width = 30, filled = int(std::lround(frac * width));
    std::ostringstream line;
    line << task << " [" << std::string(filled, '#') << std::string(width - filled, '.') << "] " << std::fixed
         << std::setprecision(0) << 100 * frac << "%" << (status.empty() ? "" : "  " + status);
    const std::string text = line.str();
    out_ << "\r" << text << std::string(drawn_ > text.size() ? drawn_ - text.size() : 0, ' ') << std::flush;
    drawn_ = text.size();
    bar_open_ = true;
    last_ = now;
  } else {
    const int decile = int(frac * 10);
    if (decile <= decile_) return;
    decile_ = decile;
    out_ << task << ": " << std::fixed << std::setprecision(0) << 100 * frac << "%"
         << (status.empty() ? "" : ", " + status) << std::endl;
  }
}

void StreamProgress::finish(const std::string& task) {
  if (task == task_) {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    end_bar();
    out_ << task << ": done in " << std::fixed << std::setprecision(1) << s << " s" << std::endl;
  }
  task_.clear();
  decile_ = -1;
}

void StreamProgress::end_bar() {
  if (bar_open_) out_ << "\n";
  bar_open_ = false;
  drawn_ = 0;
}

}  // namespace tessera::driver
