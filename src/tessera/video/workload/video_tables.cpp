// Tables 1-5 of Lin et al. in the paper's shape, the paper's numbers beside
// ours, built from the rows of one `compare video` run ("–": not run here).
#include "tessera/video/workload/video_tables.hpp"

#include "tessera/driver/results.hpp"

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <cstdio>
#include <limits>
#include <ostream>
#include <string>
#include <variant>
#include <vector>

namespace tessera::video {
namespace {

using driver::Platform;
using driver::Report;
using driver::Row;

const char* const kDash = "–";

// Characters on screen (UTF-8 continuation bytes do not count).
std::size_t columns(const std::string& s) {
  return std::size_t(std::count_if(s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

// Left column left-aligned, the others right-aligned, " | " between groups.
void print_grid(const std::vector<std::vector<std::string>>& rows, std::ostream& out) {
  std::vector<std::size_t> w;
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.size(); ++i) {
      if (w.size() <= i) w.push_back(0);
      w[i] = std::max(w[i], columns(r[i]));
    }
  for (const auto& r : rows) {
    std::string line;
    for (std::size_t i = 0; i < r.size(); ++i) {
      const std::string pad(w[i] - columns(r[i]), ' ');
      line += i == 0 ? r[i] + pad : "  " + pad + r[i];
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out << "  " << line << "\n";
  }
}

std::string ms_text(double seconds) {
  const double v = seconds * 1e3;
  char b[32];
  if (v >= 100)
    std::snprintf(b, sizeof b, "%.0f", v);
  else if (v >= 10)
    std::snprintf(b, sizeof b, "%.1f", v);
  else if (v >= 1)
    std::snprintf(b, sizeof b, "%.2f", v);
  else
    std::snprintf(b, sizeof b, "%.3g", v);
  return b;
}

// The fastest valid row that `match` accepts; `failed` when rows ran but none was valid.
struct Best {
  const Row* row = nullptr;
  bool failed = false;
  std::string text(bool with_variant) const {
    if (row) return ms_text(row->result.time.median) + (with_variant ? " (" + row->variant + ")" : "");
    return failed ? "FAILED" : kDash;
  }
};
template <class Match>
Best best(const Report& r, Match match) {
  Best b;
  for (const auto& row : r.rows) {
    if (!row.result.ran || !match(row)) continue;
    if (!row.result.valid) {
      b.failed = true;
      continue;
    }
    if (!b.row || row.result.time.median < b.row->result.time.median) b.row = &row;
  }
  return b;
}

const driver::Parameter* parameter(const Report& r, const std::string& name) {
  for (const auto& p : r.parameters)
    if (p.name == name) return &p;
  return nullptr;
}
std::string parameter_or(const Report& r, const std::string& name, const std::string& fallback) {
  const auto* p = parameter(r, name);
  return p ? driver::parameter_text(*p) : fallback;
}

bool has_kernel(const Report& r, const std::string& prefix) {
  return std::any_of(r.rows.begin(), r.rows.end(),
                     [&](const Row& row) { return row.result.ran && row.kernel.rfind(prefix, 0) == 0; });
}

std::string hardware(const Report& r, Platform p) {
  const auto it = r.hardware.find(driver::platform_id(p));
  return it == r.hardware.end() ? "not present" : it->second;
}

// k of a conv3d row: "conv3d-k<k>", or "conv3d" with the run's one k.
int conv3d_k(const Report& r, const Row& row) {
  if (row.kernel.rfind("conv3d-k", 0) == 0) return std::atoi(row.kernel.c_str() + 8);
  if (row.kernel != "conv3d") return 0;
  const auto* p = parameter(r, "conv3d_k");
  return p && std::holds_alternative<long long>(p->value) ? int(std::get<long long>(p->value)) : 0;
}

// The paper's algorithm (a Table 1-2 column) of a conv3d variant.
enum Column { baseline, shared, streaming, fourier3d, hybrid, register_blocked, none };
Column column_of(const std::string& v) {
  auto starts = [&](const char* p) { return v.rfind(p, 0) == 0; };
  if (starts("kokkos-baseline@")) return baseline;
  if (starts("kokkos-shared@")) return shared;
  if (starts("kokkos-streaming@") || v == "native-cuda-streaming") return streaming;
  if (v == "cufft-3d" || v == "fftw-3d") return fourier3d;
  if (v == "cufft-hybrid" || v == "fftw-hybrid") return hybrid;
  if (starts("kokkos-register@") || v == "native-cuda-register") return register_blocked;
  return none;
}

void conv3d_table(const Report& r, std::ostream& out, bool gpu) {
  static const int paper_ks[] = {5, 7, 9, 11, 13, 15};
  // Table 1 (GT200) and Table 2 (4 Opteron cores), ms; 0: blank in the paper.
  static const int t1[6][5] = {{16, 11, 4, 24, 15},  {44, 15, 8, 34, 17},   {96, 48, 16, 39, 20},
                               {180, 77, 27, 44, 23}, {295, 0, 45, 74, 24}, {454, 0, 75, 56, 26}};
  static const char* t2[6][5] = {{"136", "117", "140", "128", "133"},       {"362", "289", "317", "235", "152"},
                                 {"1,018", "597", "614", "208", "213"},     {"1,954", "1,065", "1,135", "238", "237"},
                                 {"3,590", "1,733", "1,771", "267", "271"}, {"6,453", "2,676", "2,633", "338", "356"}};
  const Platform platform = gpu ? Platform::gpu : Platform::cpu;
  out << "\nTable " << (gpu ? 1 : 2) << " of Lin et al.: conv3d "
      << (gpu ? "on one GPU (paper: one GT200 of a Tesla S1070, CUDA / CUFFT)"
              : "on the CPU (paper: two dual-core 2.4 GHz Opterons, MCUDA / FFTW; ours: all threads)")
      << ", ms for 4 output frames of 720 x 560\n";
  out << "  ours: " << hardware(r, platform) << "; " << parameter_or(r, "conv3d_width", "?") << " x "
      << parameter_or(r, "conv3d_height", "?") << ", " << parameter_or(r, "conv3d_output_frames", "?")
      << " output frames";
  if (parameter_or(r, "conv3d_width", "") != "720" || parameter_or(r, "conv3d_height", "") != "560" ||
      parameter_or(r, "conv3d_output_frames", "") != "4")
    out << " (not the paper's size: --size paper)";
  out << "\n";
  std::vector<std::vector<std::string>> g;
  g.push_back({"", "BASELINE", "", "SHARED MEMORY", "", "STREAMING", "", "3-D FOURIER", "", "HYBRID FOURIER", "",
               "REGISTER"});
  g.push_back({"k", "paper", "ours", "paper", "ours", "paper", "ours", "paper", "ours", "paper", "ours", "ours"});
  // The paper's k, and any other k this run measured (blank paper cells).
  std::vector<int> ks(std::begin(paper_ks), std::end(paper_ks));
  for (const auto& row : r.rows) {
    const int k = conv3d_k(r, row);
    if (row.result.ran && k > 0 && std::find(ks.begin(), ks.end(), k) == ks.end()) ks.push_back(k);
  }
  std::sort(ks.begin(), ks.end());
  bool native_won = false;
  for (const int k : ks) {
    const int i = int(std::find(std::begin(paper_ks), std::end(paper_ks), k) - std::begin(paper_ks));
    std::vector<std::string> line = {std::to_string(k)};
    for (int c = 0; c <= register_blocked; ++c) {
      if (c != register_blocked) {
        if (i == 6)
          line.push_back("");
        else if (gpu)
          line.push_back(t1[i][c] ? std::to_string(t1[i][c]) : "(16 KB)");
        else
          line.push_back(t2[i][c]);
      }
      const Best b = best(r, [&](const Row& row) {
        return row.platform == platform && conv3d_k(r, row) == k && column_of(row.variant) == c;
      });
      std::string cell = b.text(false);
      if (b.row && b.row->native && gpu) {
        cell += "*";
        native_won = true;
      }
      line.push_back(cell);
    }
    g.push_back(line);
  }
  print_grid(g, out);
  out << "  ours: the fastest valid variant of the column's algorithm on this platform"
      << (gpu ? (native_won ? " (* native CUDA or cuFFT, else kokkos-*@Cuda)" : " (kokkos-*@Cuda, native CUDA, cuFFT)")
              : " (kokkos-*@OpenMP, FFTW)")
      << "; REGISTER (register-blocked) is beyond the paper\n";
}

// One row of a Table 3-5: a platform's best per kernel group.
struct PlatformLine {
  const char* label;
  Platform platform;
};
const PlatformLine kCpuGpu[] = {{"CPU, one thread (cpu-1)", Platform::cpu1},
                                {"CPU, all threads (cpu)", Platform::cpu},
                                {"GPU", Platform::gpu}};

void pairwise_table(const Report& r, std::ostream& out) {
  out << "\nTable 3 of Lin et al., the pairwise-distance column: ms (paper: one core of a 2.4 GHz Opteron, one GT200; "
         "its m, n, l are not given)\n";
  out << "  ours: m = " << parameter_or(r, "pairwise_m", "?") << ", n = " << parameter_or(r, "pairwise_n", "?")
      << ", l = " << parameter_or(r, "pairwise_l", "?") << "\n";
  const char* paper[] = {"5,036", kDash, "176"};
  std::vector<std::vector<std::string>> g = {{"", "paper", "ours (variant)"}};
  for (int i = 0; i < 3; ++i) {
    const Best b = best(r, [&](const Row& row) { return row.platform == kCpuGpu[i].platform && row.kernel == "pairwise"; });
    g.push_back({kCpuGpu[i].label, paper[i], b.text(true)});
  }
  print_grid(g, out);
}

void bspline_table(const Report& r, std::ostream& out) {
  out << "\nTable 4 of Lin et al.: cubic B-spline upscaling of one QCIF frame (176 x 144) by 7, ms (paper: Pentium D "
         "2.8 GHz one thread, GeForce 8800 GTX)\n";
  out << "  ours: " << parameter_or(r, "bspline_width", "?") << " x " << parameter_or(r, "bspline_height", "?")
      << " by " << parameter_or(r, "bspline_scale", "?") << ", " << parameter_or(r, "bspline_planes", "?")
      << " plane(s) (the paper does not say whether its times include chroma)\n";
  const char* paper[3][2] = {{"5", "1,689"}, {kDash, kDash}, {"1", "4"}};
  std::vector<std::vector<std::string>> g = {{"", "IIR", "", "FIR", ""}, {"", "paper", "ours", "paper", "ours"}};
  for (int i = 0; i < 3; ++i) {
    std::vector<std::string> line = {kCpuGpu[i].label};
    int j = 0;
    for (const char* kernel : {"bspline-iir", "bspline-fir"}) {
      const Best b = best(r, [&](const Row& row) { return row.platform == kCpuGpu[i].platform && row.kernel == kernel; });
      line.push_back(paper[i][j++]);
      line.push_back(b.text(true));
    }
    g.push_back(line);
  }
  print_grid(g, out);
}

void dibr_bilateral_table(const Report& r, std::ostream& out) {
  out << "\nTable 5 of Lin et al.: depth propagation and the depth-colour bilateral filter (DCBF, K = 11) at 800 x 600, "
         "ms (paper: Core 2 Duo E8400 one thread, GeForce 9800 GT)\n";
  out << "  ours: depth propagation " << parameter_or(r, "dibr_width", "?") << " x "
      << parameter_or(r, "dibr_height", "?") << " (atomic or sorted, the faster), DCBF "
      << parameter_or(r, "bilateral_width", "?") << " x " << parameter_or(r, "bilateral_height", "?") << ", K = "
      << parameter_or(r, "bilateral_k", "?") << "\n";
  const char* paper[3][2] = {{"38", "1,041"}, {kDash, kDash}, {"24", "14"}};
  std::vector<std::vector<std::string>> g = {{"", "DEPTH PROP.", "", "DCBF", ""},
                                             {"", "paper", "ours", "paper", "ours"}};
  double t[3][2] = {};
  for (int i = 0; i < 3; ++i) {
    std::vector<std::string> line = {kCpuGpu[i].label};
    for (int j = 0; j < 2; ++j) {
      const Best b = best(r, [&](const Row& row) {
        if (row.platform != kCpuGpu[i].platform) return false;
        return j == 0 ? (row.kernel == "dibr" || row.kernel == "dibr-sorted") : row.kernel == "bilateral";
      });
      if (b.row) t[i][j] = b.row->result.time.median;
      line.push_back(paper[i][j]);
      line.push_back(b.text(true));
    }
    g.push_back(line);
  }
  std::vector<std::string> speedup = {"speed-up, GPU over cpu-1"};
  const char* paper_speedup[] = {"1.6x", "74.4x"};
  for (int j = 0; j < 2; ++j) {
    speedup.push_back(paper_speedup[j]);
    char b[32];
    if (t[0][j] > 0 && t[2][j] > 0)
      std::snprintf(b, sizeof b, "%.1fx", t[0][j] / t[2][j]);
    else
      std::snprintf(b, sizeof b, "%s", kDash);
    speedup.push_back(b);
  }
  g.push_back(speedup);
  print_grid(g, out);
}

}  // namespace

void print_paper_tables(const Report& r, std::ostream& out) {
  if (r.command != "compare") return;
  if (has_kernel(r, "conv3d")) {
    conv3d_table(r, out, true);
    conv3d_table(r, out, false);
  }
  if (has_kernel(r, "pairwise")) pairwise_table(r, out);
  if (has_kernel(r, "bspline")) bspline_table(r, out);
  if (has_kernel(r, "dibr") || has_kernel(r, "bilateral")) dibr_bilateral_table(r, out);
}

}  // namespace tessera::video
