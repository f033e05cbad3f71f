#include "tessera/driver/ceilings.hpp"

#include "tessera/config.hpp"
#include "tessera/core/build_info.hpp"
#include "tessera/core/cache_info.hpp"
#include "tessera/core/exec_space.hpp"
#include "tessera/core/fma_peak.hpp"
#include "tessera/driver/mpi_session.hpp"
#include "tessera/driver/platform.hpp"
#include "tessera/driver/results.hpp"
#if TESSERA_HAS_CUDA_NATIVE
#include "tessera/core/fma_peak_native_cuda.hpp"
#include "tessera/core/read_peak_native_cuda.hpp"
#endif

#include <Kokkos_Core.hpp>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <functional>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace tessera::driver {

namespace {

using json = nlohmann::json;

// ------------------------------------------------------------- compute --

// Times a kernel that queues `flops(steps)` flops, with steps scaled until a
// call takes at least `target` seconds; returns GFLOP/s (median of 5).
template <class ExecSpace>
double peak_gflops(const ExecSpace& exec, double target, const std::function<double(int)>& queue) {
  int steps = 64;
  for (;;) {
    double flops = 0;
    const TimingStats t = time_repeats(exec, 0, 1, [&] { flops = queue(steps); });
    if (t.median >= target || steps >= (1 << 24)) break;
    steps = int(std::min<double>(1 << 24, steps * std::max(2.0, 1.2 * target / std::max(t.median, 1e-9))));
  }
  double flops = 0;
  const TimingStats t = time_repeats(exec, 1, 5, [&] { flops = queue(steps); });
  return flops / t.median * 1e-9;
}

// The build's chains; on host spaces whose CPU has AVX2 and FMA also those
// (the host kernels take them at run time): the better of the two.
template <class ExecSpace, class T>
double portable_peak(std::int64_t items, double target) {
  ExecSpace exec;
  Kokkos::View<T*, typename ExecSpace::memory_space> out("tessera::fma_peak", items);
  double best = peak_gflops(exec, target, [&](int steps) {
    fma_peak_kernel(exec, out, steps);
    return FmaPeakWork<T, ExecSpace>().flops(items, steps);
  });
#if TESSERA_HOST_X86
  if constexpr (!is_device_space_v<ExecSpace>) {
    if (host_avx2_fma())
      best = std::max(best, peak_gflops(exec, target, [&](int steps) { return fma_peak_kernel_avx2(exec, out, steps); }));
  }
#endif
  return best;
}

void measure_compute(Platform p, Ceilings& c) {
  switch (p) {
    case Platform::cpu1:
#if defined(KOKKOS_ENABLE_SERIAL)
      c.fp64_gflops = portable_peak<Kokkos::Serial, double>(64, 0.02);
      c.fp32_gflops = portable_peak<Kokkos::Serial, float>(64, 0.02);
#endif
      break;
    case Platform::cpu:
#if defined(KOKKOS_ENABLE_OPENMP)
    {
      const std::int64_t items = 64 * std::int64_t(Kokkos::OpenMP().concurrency());
      c.fp64_gflops = portable_peak<Kokkos::OpenMP, double>(items, 0.02);
      c.fp32_gflops = portable_peak<Kokkos::OpenMP, float>(items, 0.02);
    }
#endif
    break;
    case Platform::gpu:
#if defined(KOKKOS_ENABLE_CUDA)
    {
      cudaDeviceProp prop{};
      int dev = 0;
      cudaGetDevice(&dev);
      cudaGetDeviceProperties(&prop, dev);
      const std::int64_t items = std::int64_t(prop.multiProcessorCount) * prop.maxThreadsPerMultiProcessor * 4;
#if TESSERA_HAS_CUDA_NATIVE
      Kokkos::Cuda exec;
      Kokkos::View<double*, Kokkos::CudaSpace> d("tessera::fma_peak", items);
      Kokkos::View<float*, Kokkos::CudaSpace> f("tessera::fma_peak", items);
      c.fp64_gflops = peak_gflops(exec, 0.005, [&](int s) {
        return native_cuda::fma_peak(exec.cuda_stream(), d.data(), items, s);
      });
      c.fp32_gflops = peak_gflops(exec, 0.005, [&](int s) {
        return native_cuda::fma_peak(exec.cuda_stream(), f.data(), items, s);
      });
#else
      c.fp64_gflops = portable_peak<Kokkos::Cuda, double>(items, 0.005);
      c.fp32_gflops = portable_peak<Kokkos::Cuda, float>(items, 0.005);
#endif
    }
#endif
    break;
  }
}

// ----------------------------------------------------------- bandwidth --

double llc_bytes(Platform p);

// Elements per STREAM array for platform p's bandwidth ceilings: size M (2^25,
// 256 MiB an array), or the power of two of at least four times the
// platform's last-level cache, at most 2^28. The 16-core Xeon's 300 MiB LLC
// held most of the sum's single M array: its read ceiling read 83-121 GB/s
// from run to run, and DRAM-bound rows 68-79% of whatever it was.
// The STREAM workload's process peaks at about 64 bytes an element (its
// arrays, host copies and reference: 16.8 GB at 2^28), so n stays within
// a sixth of the host's memory (two processes side by side, as under ctest
// -j2, and room for others; 2^28 on the GPU machines' 128 GiB hosts): a VM
// that reports a 508 MiB LLC on a 24 GiB host was killed for memory at
// 2^28. There, below four times the reported LLC, the ceiling may read
// some cache.
long long bandwidth_elements(Platform p) {
  long long n = 1LL << 25;
  const double want = 4.0 * llc_bytes(p) / sizeof(double);
  while (n < want && n < (1LL << 28)) n *= 2;
  double free_bytes = 0, total_bytes = 0;
  platform_memory(Platform::cpu, free_bytes, total_bytes);
  while (total_bytes > 0 && n > (1LL << 20) && 64.0 * double(n) > total_bytes / 6) n /= 2;
  return n;
}

// The best copy/triad and sum of STREAM's variants on each platform, each
// platform's variants at its own size (bandwidth_elements).
void measure_bandwidth(const std::set<Platform>& platforms, std::map<std::string, Ceilings>& out,
                       Progress& progress) {
  std::map<long long, std::set<Platform>> by_size;
  for (Platform p : platforms) by_size[bandwidth_elements(p)].insert(p);
  for (const auto& [n, group] : by_size) {
    auto stream = make_workload("stream");
    stream->configure(parse_options({"--size", std::to_string(n)}, stream->options(), "stream"));
    stream->prepare(1, progress);
    RunSettings rs;
    rs.warmup = 1;
    rs.repeats = 5;
    for (const auto& v : stream->variants().all()) {
      if (!v.in_build() || !group.count(v.platform) || !platform_available(v.platform)) continue;
      progress.message("ceilings: STREAM " + v.name + " on " + platform_id(v.platform));
      Ceilings& c = out[platform_id(v.platform)];
      for (const auto& k : v.run(rs)) {
        if (!k.ran || !k.valid || k.time.median <= 0) continue;
        const double gbs = k.bytes / k.time.median * 1e-9;
        if (k.kernel == "copy" || k.kernel == "triad") c.copy_gbs = std::max(c.copy_gbs, gbs);
        if (k.kernel == "sum") c.read_gbs = std::max(c.read_gbs, gbs);
      }
    }
  }
}

// The GPU's read ceiling: STREAM's sum at size M (0.06 ms of reading on an
// H200) ends with a reduction and a read-back to the host that cost a quarter
// of its rate there, and read-mostly kernels (TSMTTSM) showed up to 139% of
// it. A read-only kernel over 1 GiB (at most a quarter of the free memory)
// that leaves nothing but its sums on the device gives the rate such kernels
// can reach; the ceiling is the better of the two.
void measure_gpu_read(Ceilings& c) {
#if defined(KOKKOS_ENABLE_CUDA) && TESSERA_HAS_CUDA_NATIVE
  std::size_t free = 0, total = 0;
  if (cudaMemGetInfo(&free, &total) != cudaSuccess) return;
  const std::size_t n = std::min<std::size_t>(std::size_t(1) << 27, free / 4 / sizeof(double)) / 2 * 2;
  if (n < (std::size_t(1) << 20)) return;
  Kokkos::Cuda exec;
  Kokkos::View<double*, Kokkos::CudaSpace> a("tessera::read_peak", n), sink("tessera::read_peak_sink", 1);
  double bytes = 0;
  const TimingStats t =
      time_repeats(exec, 2, 10, [&] { bytes = native_cuda::read_peak(exec.cuda_stream(), a.data(), n, sink.data()); });
  if (t.median > 0) c.read_gbs = std::max(c.read_gbs, bytes / t.median * 1e-9);
#else
  (void)c;
#endif
}

double llc_bytes(Platform p) {
  if (p == Platform::gpu) {
#if defined(KOKKOS_ENABLE_CUDA)
    cudaDeviceProp prop{};
    int dev = 0;
    cudaGetDevice(&dev);
    if (cudaGetDeviceProperties(&prop, dev) == cudaSuccess) return double(prop.l2CacheSize);
#endif
    return 0;
  }
  return double(host_llc_bytes());  // the kernels' own rule (sysfs, highest level of CPU 0)
}

// --------------------------------------------------------------- cache --

// Bumped when the way a ceiling is measured changes, so that no cache entry
// of the earlier method is read back (2: the GPU read ceiling of
// measure_gpu_read; 3: the CPU FMA ceilings include the AVX2 + FMA chains;
// 4: STREAM arrays of at least four times the last-level cache; 5: within
// a sixth of the host's memory).
constexpr int kCeilingsMethod = 5;

std::string cache_key(Platform p) {
  const auto& b = build_info();
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  std::ostringstream s;
  s << host << "|" << platform_id(p) << "|" << platform_hardware(p) << "|" << b.version << "|" << b.cxx_compiler
    << "|" << b.cxx_flags << "|" << b.kokkos_devices << "|" << b.kokkos_arch << "|" << b.cuda_version << "|native "
    << b.cuda_native << "|ranks " << world_size() << "|method " << kCeilingsMethod;
  return s.str();
}

json to_json(const Ceilings& c) {
  return {{"copy_gbs", c.copy_gbs}, {"read_gbs", c.read_gbs},   {"fp64_gflops", c.fp64_gflops},
          {"fp32_gflops", c.fp32_gflops}, {"llc_bytes", c.llc_bytes}, {"ranks", c.ranks}, {"source", c.source}};
}

bool from_json(const json& j, Ceilings& c) {
  try {
    c.copy_gbs = j.at("copy_gbs").get<double>();
    c.read_gbs = j.at("read_gbs").get<double>();
    c.fp64_gflops = j.at("fp64_gflops").get<double>();
    c.fp32_gflops = j.at("fp32_gflops").get<double>();
    c.llc_bytes = j.at("llc_bytes").get<double>();
    c.ranks = j.at("ranks").get<int>();
    c.source = j.at("source").get<std::string>();
    return c.copy_gbs > 0 && c.fp64_gflops > 0;
  } catch (const json::exception&) {
    return false;
  }
}

// The cache: {key: ceilings}; a missing or unreadable file is an empty cache.
json read_cache() {
  std::ifstream in(ceilings_cache_path());
  if (!in) return json::object();
  json j = json::parse(in, nullptr, false);
  return j.is_object() ? j : json::object();
}

void mkdirs(const std::string& dir) {
  for (std::size_t i = 1; i <= dir.size(); ++i)
    if (i == dir.size() || dir[i] == '/') mkdir(dir.substr(0, i).c_str(), 0755);
}

std::string today() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", std::gmtime(&t));
  return buf;
}

}  // namespace

std::string ceilings_cache_path() {
  if (const char* f = std::getenv("TESSERA_CEILINGS_CACHE")) return f;
  std::string dir;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) dir = x;
  else if (const char* h = std::getenv("HOME"); h && *h) dir = std::string(h) + "/.cache";
  else dir = "/tmp";
  return dir + "/tessera/ceilings.json";
}

std::map<std::string, Ceilings> ceilings(const std::set<Platform>& platforms, CeilingsMode mode,
                                         Progress& progress) {
  std::map<std::string, Ceilings> out;
  if (mode == CeilingsMode::off) return out;
  if (mode == CeilingsMode::cached) {
    // Every rank reads the same file; a platform missing on any rank is none.
    const json cache = read_cache();
    for (Platform p : platforms) {
      Ceilings c;
      const auto it = cache.find(cache_key(p));
      const bool ok = it != cache.end() && from_json(*it, c);
      if (world_sum(ok ? 0.0 : 1.0) == 0) out[platform_id(p)] = c;
    }
    return out;
  }
  // Measure: all ranks together, so that shared memory systems see the
  // contention of the real run; the totals are sums over ranks.
  std::set<Platform> here;
  for (Platform p : platforms)
    if (platform_available(p)) here.insert(p);
  world_barrier();
  measure_bandwidth(here, out, progress);
  if (here.count(Platform::gpu)) {
    progress.message("ceilings: read bandwidth on gpu");
    measure_gpu_read(out[platform_id(Platform::gpu)]);
  }
  for (Platform p : here) {
    progress.message(std::string("ceilings: FMA throughput on ") + platform_id(p));
    world_barrier();
    measure_compute(p, out[platform_id(p)]);
  }
  const std::string when = "measured " + today();
  for (Platform p : here) {
    Ceilings& c = out[platform_id(p)];
    c.copy_gbs = world_sum(c.copy_gbs);
    c.read_gbs = world_sum(c.read_gbs);
    c.fp64_gflops = world_sum(c.fp64_gflops);
    c.fp32_gflops = world_sum(c.fp32_gflops);
    c.llc_bytes = llc_bytes(p);
    c.ranks = world_size();
    c.source = when;
  }
  if (world_rank() == 0) {
    json cache = read_cache();
    for (Platform p : here) cache[cache_key(p)] = to_json(out[platform_id(p)]);
    const std::string path = ceilings_cache_path();
    try {
      mkdirs(path.substr(0, path.find_last_of('/')));
      write_file_atomically(path, cache.dump(1) + "\n");
    } catch (const std::exception& e) {
      progress.message(std::string("ceilings: not cached (") + e.what() + ")");
    }
  }
  return out;
}

RowCeiling row_ceiling(const KernelResult& k, double gbs, double gflops, const Ceilings& c) {
  RowCeiling r;
  const double bw = k.traffic == Traffic::read && c.read_gbs > 0 ? c.read_gbs : c.copy_gbs;
  const char* bw_name = k.traffic == Traffic::read && c.read_gbs > 0 ? "read" : "copy";
  const double peak = k.arith == Arith::fp32 ? c.fp32_gflops : c.fp64_gflops;
  const char* peak_name = k.arith == Arith::fp32 ? "FP32" : "FP64";
  std::ostringstream label;
  label.setf(std::ios::fixed);
  label.precision(0);
  switch (k.bound) {
    case Bound::memory:
      if (bw <= 0) return r;
      r.value = bw;
      r.efficiency = gbs / bw;
      label << bw_name << " " << bw << " GB/s";
      break;
    case Bound::compute:
      if (peak <= 0) return r;
      r.value = peak;
      r.efficiency = gflops / peak;
      label << peak_name << " " << peak << " GFLOP/s";
      break;
    case Bound::roofline: {
      if (bw <= 0 || peak <= 0 || k.bytes <= 0) return r;
      const double intensity = k.flops / k.bytes;
      r.value = std::min(intensity * bw, peak);
      r.efficiency = gflops / r.value;
      label << (intensity * bw < peak ? bw_name : peak_name) << " roof " << r.value << " GFLOP/s (I ";
      label.precision(2);
      label << intensity << ")";
      break;
    }
  }
  const double ws = k.working_set > 0 ? k.working_set : k.bytes;
  r.in_cache = c.llc_bytes > 0 && ws > 0 && ws <= c.llc_bytes;
  if (r.in_cache) label << ", in LLC";
  r.label = label.str();
  return r;
}

}  // namespace tessera::driver
