#pragma once
// The host's last-level cache, for kernels that choose between stores that
// keep their output in cache and non-temporal stores that bypass it.
#include <cstddef>
#include <fstream>
#include <string>
#if defined(__unix__)
#include <unistd.h>
#endif

namespace tessera {

// The last-level cache's size in bytes as the first CPU sees it (Linux
// sysfs; sysconf elsewhere, which on some processors counts every cache
// slice of the package, not the one a core shares), 0 where unknown.
inline std::size_t host_llc_bytes() {
  static const std::size_t bytes = [] {
    std::size_t best = 0;
    int best_level = 0;
    for (int i = 0; i < 8; ++i) {
      const std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
      std::ifstream lf(dir + "level"), sf(dir + "size");
      int level = 0;
      std::size_t size = 0;
      std::string unit;
      if (!(lf >> level) || !(sf >> size)) continue;
      sf >> unit;  // "32768K"
      if (unit == "K") size <<= 10;
      if (unit == "M") size <<= 20;
      if (level > best_level) best_level = level, best = size;
    }
#if defined(_SC_LEVEL3_CACHE_SIZE)
    if (best == 0) {
      const long v = sysconf(_SC_LEVEL3_CACHE_SIZE);
      best = v > 0 ? std::size_t(v) : 0;
    }
#endif
    return best;
  }();
  return bytes;
}

}  // namespace tessera
