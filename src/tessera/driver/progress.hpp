#pragma once
// Progress of long steps (a reference computation, a sweep over sizes, a
// Monte Carlo run): workloads report through this, never to std::cerr
// themselves. The driver's implementation draws a throttled bar on a
// terminal and plain lines otherwise; Progress::none() swallows everything.
#include <string>

namespace tessera::driver {

class Progress {
 public:
  virtual ~Progress() = default;
  // One line of information ("computing the reference ...").
  virtual void message(const std::string& text) = 0;
  // `done` of `total` units of `task`; cheap to call often (throttled).
  virtual void update(const std::string& task, double done, double total) = 0;
  // The same with a short result so far shown beside the bar ("sigma = ...").
  virtual void update(const std::string& task, double done, double total, const std::string& status) {
    update(task, done, total);
  }
  // The task is over (the bar's line ends).
  virtual void finish(const std::string& task) = 0;
  static Progress& none();
};

}  // namespace tessera::driver
