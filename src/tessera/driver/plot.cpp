#include "tessera/driver/plot.hpp"

#include <cerrno>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stdexcept>
#include <vector>

extern char** environ;

namespace tessera::driver {
namespace {

const char* kSweepScript = R"PY(
import csv, os, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
src, png, title, axis = sys.argv[1:5]
rows = [r for r in csv.DictReader(open(src)) if r.get("roof_pct")]
series = list(dict.fromkeys((r["variant"], r["kernel"]) for r in rows))
kernels = {k for _, k in series}
name = lambda v, k: v if len(kernels) == 1 else v + " " + k
points = list(dict.fromkeys(r["point"] for r in rows))
fig, ax = plt.subplots(figsize=(9, 4.5))
if all(p.isdigit() for p in points):
    for v, k in series:
        pts = sorted((int(r["point"]), float(r["roof_pct"])) for r in rows if (r["variant"], r["kernel"]) == (v, k))
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=".", label=name(v, k))
else:
    w = 0.8 / max(1, len(series))
    for i, (v, k) in enumerate(series):
        pct = {r["point"]: float(r["roof_pct"]) for r in rows if (r["variant"], r["kernel"]) == (v, k)}
        ax.bar([j + i * w for j in range(len(points))], [pct.get(p, 0) for p in points], w, label=name(v, k))
    ax.set_xticks([j + 0.4 - w / 2 for j in range(len(points))])
    ax.set_xticklabels(points)
ax.set_xlabel(axis)
ax.set_ylabel("% of the measured ceiling")
ax.set_title(title)
ax.set_ylim(0, max([110] + [float(r["roof_pct"]) * 1.05 for r in rows]))
ax.grid(alpha=0.3)
ax.legend(fontsize="small")
fig.tight_layout()
fig.savefig(png + ".tmp.png", dpi=120)
os.replace(png + ".tmp.png", png)
)PY";

const char* python() { return access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3"; }

// Runs python with `args`, its output to /dev/null when quiet; the exit status (-1: did not start).
int run_python(std::vector<std::string> args, bool quiet) {
  args.insert(args.begin(), python());
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (quiet) {
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  }
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return -1;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

bool plotting_available() { return run_python({"-c", "import matplotlib"}, true) == 0; }

void plot_sweep(const std::string& csv, const std::string& png, const std::string& title, const std::string& axis) {
  if (run_python({"-c", kSweepScript, csv, png, title, axis}, false) != 0) {
    unlink((png + ".tmp.png").c_str());
    throw std::runtime_error("could not draw '" + png + "' (python3 with matplotlib)");
  }
}

}  // namespace tessera::driver
