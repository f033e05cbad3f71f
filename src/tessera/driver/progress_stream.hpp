#pragma once
// The driver's Progress: a bar on a terminal, a line per tenth in a log.
#include "tessera/driver/progress.hpp"

#include <chrono>
#include <ostream>
#include <string>

namespace tessera::driver {

class StreamProgress final : public Progress {
 public:
  StreamProgress(std::ostream& out, bool terminal);
  StreamProgress(std::ostream& out, int fd);  // a terminal when fd is one
  void message(const std::string& text) override;
  void update(const std::string& task, double done, double total) override;
  void update(const std::string& task, double done, double total, const std::string& status) override;
  void finish(const std::string& task) override;

 private:
  void end_bar();
  std::ostream& out_;
  bool terminal_ = false, bar_open_ = false;
  std::string task_;
  int decile_ = -1;
  std::size_t drawn_ = 0;  // characters of the bar's line (a shorter redraw blanks the rest)
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace tessera::driver
