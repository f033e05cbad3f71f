// The tsm workload for the driver: TSMTTSM (C = alpha op(A)^T B + beta C) or
// TSMM (B = alpha A C + beta B) with alpha = 1, double or complex, every
// variant on the same random inputs, validated per element against a double
// reference with the bound 4 (inner + 4) eps (|alpha| |X||Y| + |beta| |out0|).
#include "tessera/tsm/workload/tsm_workload.hpp"

#include "tessera/core/random.hpp"
#include "tessera/core/timer.hpp"
#include "tessera/driver/mpi_session.hpp"
#include "tessera/driver/workload_helpers.hpp"
#include "tessera/tsm/tsm.hpp"
#include "tessera/tsm/tsm_table.hpp"

#include <nlohmann/json.hpp>

#include <Kokkos_Core.hpp>
#include <KokkosBlas3_gemm.hpp>

#if TESSERA_TSM_HAS_CBLAS
#include <cblas.h>
#endif
#if defined(KOKKOS_ENABLE_CUDA)
#include <cublas_v2.h>
#endif
#if TESSERA_TSM_HAS_CUBLASLT
#include "tessera/tsm/workload/tsm_cublaslt.hpp"
#endif
#if TESSERA_HAS_MPI
#include "tessera/tsm/tsm_mpi.hpp"

#include <mpi.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <fstream>
#include <ostream>
#include <limits>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <tuple>
#include <utility>
#include <vector>

namespace tessera::tsm {

using driver::KernelResult;
using driver::MemoryNeed;
using driver::Options;
using driver::OptionSpec;
using driver::Parameter;
using driver::Platform;
using driver::Progress;
using driver::RunSettings;
using driver::Runner;
using driver::UsageError;
using driver::VariantTable;

namespace {

using zc = Kokkos::complex<double>;
constexpr double kEps = std::numeric_limits<double>::epsilon();

inline double absval(double x) { return std::fabs(x); }
inline double absval(const zc& x) { return std::hypot(x.real(), x.imag()); }
inline double conj_if(bool, double x) { return x; }
inline zc conj_if(bool c, const zc& x) { return c ? zc(x.real(), -x.imag()) : x; }

template <class T>
KOKKOS_INLINE_FUNCTION T random_value(std::uint64_t seed, std::uint64_t i) {
  if constexpr (std::is_same_v<T, double>)
    return random_uniform(seed, i, -1, 1);
  else
    return T(random_uniform(seed, 2 * i, -1, 1), random_uniform(seed, 2 * i + 1, -1, 1));
}

// Element i of a contiguous operand is random_value(seed, first + i): the
// same values as the host copy's (integer hashing, an exact 2x - 1), written
// by the operand's own space, so a GPU variant copies nothing from the host.
template <class T>
struct CounterFill {
  T* data;
  std::uint64_t seed, first;
  KOKKOS_INLINE_FUNCTION void operator()(std::size_t i) const { data[i] = random_value<T>(seed, first + i); }
};
template <class ExecSpace, class View>
void fill_counter(const ExecSpace& exec, const View& v, std::uint64_t seed, std::uint64_t first) {
  using T = typename View::non_const_value_type;
  Kokkos::parallel_for("tessera::tsm::inputs", Kokkos::RangePolicy<ExecSpace>(exec, 0, v.size()),
                       CounterFill<T>{v.data(), seed, first});
}

// Inputs, all row-major: X (K x M), Y (K x N), S (M x N). TSMTTSM: S = op(X)^T Y + beta S;
// TSMM: Y = X S + beta Y. The reference and each element's error scale for the output.
template <class T>
struct Problem {
  std::vector<T> X, Y, S, ref;
  std::vector<double> scale;
};

class TsmWorkload final : public driver::Workload {
 public:
  std::string name() const override { return "tsm"; }
  std::string description() const override {
    return "tall & skinny GEMM (Ernst, Hager, Thies, Wellein): TSMTTSM C = A^T B + beta C, TSMM B = A C + beta B";
  }
  std::vector<OptionSpec> options() const override {
    return {{"kernel", "tsmttsm|tsmm", "tsmttsm", "TSMTTSM (C = op(A)^T B + beta C) or TSMM (B = A C + beta B)"},
            {"type", "d|z", "d", "double or complex double"},
            {"m", "M", "8", "columns of A (1..64)"},
            {"n", "N", "", "columns of B (1..64; default M)"},
            {"k", "K", "4194304", "rows of the tall matrices (>= 0; 1e6 accepted)"},
            {"trans", "t|c", "t", "TSMTTSM: A^T (t) or the conjugate transpose A^H (c)"},
            {"beta", "X", "0", "beta (0: the output is not read)"},
            {"sweep", "", "",
             "compare: one problem per side (--sides), K = 2^29 / M (double) or 2^28 / M (complex), so the tall "
             "operands hold 8 GiB, unless --k; one table, --csv / --json / --png over every point"},
            {"sides", "LIST", "", "the sweep's sides: M (M = N), A-B (M = N from A to B) or MxN, comma-separated "
             "(default 1-64); MxN takes K = 2^30 / (M + N) (2^29 complex)"},
            {"no-validate", "", "",
             "time only: no reference, rows are not checked (for kernels run with a switch that makes their "
             "results wrong on purpose, e.g. TESSERA_TSM_SKIP_GLOBAL_REDUCTION=1)"}};
  }
  void configure(const Options& opts) override {
    kernel_ = driver::get_choice(opts, "kernel", {"tsmttsm", "tsmm"}, "tsmttsm");
    complex_ = driver::get_choice(opts, "type", {"d", "z"}, "d") == "z";
    m_ = int(opts.get_int("m", 8, 1, max_skinny));
    n_ = opts.get("n", "").empty() ? m_ : int(opts.get_int("n", m_, 1, max_skinny));
    k_ = opts.get_count("k", 1LL << 22, 0, 1LL << 40);
    conj_ = driver::get_choice(opts, "trans", {"t", "c"}, "t") == "c";
    beta_ = opts.get_double("beta", 0.0, -1e300, 1e300);
    no_validate_ = opts.has("no-validate");
    sweep_.clear();
    sweep_k_ = opts.has("k") ? k_ : -1;
    if (opts.has("sides") && !opts.has("sweep")) throw UsageError("--sides goes with --sweep");
    if (opts.has("sweep")) {
      if (opts.has("m") || opts.has("n")) throw UsageError("--sweep sets M and N (choose them with --sides)");
      sweep_ = parse_sides(opts.get("sides"));
      select_sweep_point(0);
    }
    split_rows();
  }
  int sweep_size() const override { return int(sweep_.size()); }
  void select_sweep_point(int i) override {
    std::tie(m_, n_) = sweep_.at(std::size_t(i));
    // The tall operands at 8 GiB: 2^30 double elements, 2^29 complex, over M + N columns.
    k_ = sweep_k_ >= 0 ? sweep_k_ : (2LL << (complex_ ? 28 : 29)) / (m_ + n_);
    split_rows();
    pd_ = {};  // the previous point's inputs
    pz_ = {};
  }
  std::string sweep_label(int i) const override {
    const auto [m, n] = sweep_.at(std::size_t(i));
    return m == n ? std::to_string(m) : std::to_string(m) + "x" + std::to_string(n);
  }
  std::string sweep_axis() const override {
    const bool square = std::all_of(sweep_.begin(), sweep_.end(), [](auto s) { return s.first == s.second; });
    return square ? "M = N" : "M x N";
  }
  std::string problem_summary() const override {
    std::ostringstream s;
    s << (tsmttsm() ? (conj_ ? "C = A^H B" : "C = A^T B") : "B = A C") << (beta_ != 0 ? " + beta out" : "") << ", "
      << (complex_ ? "complex double" : "double") << ", M = " << m_ << ", N = " << n_ << ", K = " << k_ << " ("
      << (double(tall_elements()) * elem() / double(1 << 20)) << " MiB of tall operands";
    if (driver::world_size() > 1)
      s << ", K split over " << driver::world_size() << " MPI ranks"
        << (tsmttsm() ? ": local products summed with MPI_Allreduce" : ", no communication");
    s << ")" << (no_validate_ ? ", not validated" : "");
    return s.str();
  }
  std::vector<Parameter> parameters() const override {
    return {{"kernel", kernel_},
            {"type", std::string(complex_ ? "z" : "d")},
            {"m", (long long)m_},
            {"n", (long long)n_},
            {"k", k_},
            {"trans", std::string(conj_ ? "c" : "t")},
            {"beta", beta_}};
  }
  MemoryNeed memory_need() const override {
    // This rank's rows.
    const double in = double(kl_ * (m_ + n_) + (long long)m_ * n_) * elem();
    const double out = double(tsmttsm() ? (long long)m_ * n_ : kl_ * n_);
    // Device: one variant's Views (inputs + output). Host: inputs, reference,
    // error scales, the output's reset copy, and one variant's Views, which a
    // host-space variant (kokkos@OpenMP, kokkos@Serial) allocates there.
    const double views = in + out * elem();
    return {in + out * (2 * elem() + 8) + views, views};
  }
  std::vector<std::string> demo_arguments() const override {
    return {"--kernel", "tsmttsm", "--m", "16", "--k", "1000000", "--repeats", "5"};
  }
  std::vector<OptionSpec> tune_options() const override {
    return {{"output", "FILE", "tsm_table.json", "the table to write (load it with TESSERA_TSM_TABLE=FILE)"},
            {"kernels", "LIST", "tsmttsm,tsmm", "kernels to tune"},
            {"types", "LIST", "d,z", "scalar types to tune (d, z)"},
            {"ms", "LIST", "1,2,3,4,5,6,7,8,10,12,16,20,24,28,32,36,40,48,56,64", "M = N values to tune"},
            {"mb", "MIB", "2048", "size of the tall operands per shape (MiB)"},
            {"repeats", "N", "5", "timed repeats per candidate (median)"}};
  }
  void tune(const Options& opts, Progress& progress, std::ostream& out) override;
  void prepare(std::uint64_t seed, Progress& progress) override {
    seed_ = seed;
    progress.message(no_validate_ ? "tsm: random inputs" : "tsm: random inputs and the reference");
    if (complex_)
      make_problem(seed, pz_);
    else
      make_problem(seed, pd_);
  }

 protected:
  void declare_variants(VariantTable& t) override {
    // Several MPI ranks: the variants on Kokkos Views (a rank's partial C is
    // summed through tsm::mpi); the host-vector ones run on one rank only.
    const bool one_rank = driver::world_size() == 1;
    if (one_rank)
      t.add("serial-reference", Platform::cpu1, "plain C++ loops, one thread",
            [this](const RunSettings& rs) { return dispatch([&](auto& p) { return run_serial(rs, p); }); });
    t.add_portable("kokkos", "portable TeamPolicy kernels (register tiles, team-scratch sums)",
                   [this](auto tag) -> Runner {
                     using E = typename decltype(tag)::space;
                     return [this](const RunSettings& rs) {
                       return dispatch([&](auto& p) { return run_views<E>(rs, p, Call::portable); });
                     };
                   });
    const char* native = "native CUDA kernels (what tessera::tsm selects on Cuda)";
#if TESSERA_HAS_CUDA_NATIVE
    t.add_native("native-cuda", Platform::gpu, native, [this](const RunSettings& rs) {
      return dispatch([&](auto& p) { return run_views<Kokkos::Cuda>(rs, p, Call::api); });
    }, "");
#else
    t.add_native("native-cuda", Platform::gpu, native, {}, "a Cuda build with TESSERA_ENABLE_CUDA_NATIVE");
#endif
    const char* cublas = "vendor: cublasDgemm/Zgemm on the column-major reinterpretation (paper §1.5)";
#if defined(KOKKOS_ENABLE_CUDA)
    t.add("cublas", Platform::gpu, cublas, [this](const RunSettings& rs) {
      return dispatch([&](auto& p) { return run_views<Kokkos::Cuda>(rs, p, Call::cublas); });
    });
#else
    t.add("cublas", Platform::gpu, cublas, {}, "Kokkos' Cuda backend (cuBLAS)");
#endif
    const char* cublaslt =
        "vendor: cublasLtMatmul, FP64 compute, the heuristic's best algorithm (split-K), 32 MiB workspace";
#if TESSERA_TSM_HAS_CUBLASLT
    t.add("cublaslt", Platform::gpu, cublaslt, [this](const RunSettings& rs) {
      return dispatch([&](auto& p) { return run_views<Kokkos::Cuda>(rs, p, Call::cublaslt); });
    });
#else
    t.add("cublaslt", Platform::gpu, cublaslt, {}, "Kokkos' Cuda backend and cuBLASLt");
#endif
    t.add_portable("kokkosblas-gemm",
                   "KokkosBlas::gemm of Kokkos Kernels 3.4.01 (transposed products with small M N run its own "
                   "DotBasedGEMM, not a vendor BLAS)",
                   [this](auto tag) -> Runner {
                     using E = typename decltype(tag)::space;
                     return [this](const RunSettings& rs) {
                       return dispatch([&](auto& p) { return run_views<E>(rs, p, Call::kokkosblas); });
                     };
                   },
                   driver::openmp | driver::cuda);
    const char* openblas = "vendor: OpenBLAS cblas_dgemm/zgemm, row-major, all threads";
#if TESSERA_TSM_HAS_CBLAS
    if (one_rank)
      t.add("openblas", Platform::cpu, openblas,
            [this](const RunSettings& rs) { return dispatch([&](auto& p) { return run_openblas(rs, p); }); });
#else
    t.add("openblas", Platform::cpu, openblas, {}, "OpenBLAS (libopenblas-dev) at configure time");
#endif
    t.set_default(Platform::gpu, TESSERA_HAS_CUDA_NATIVE ? "native-cuda" : "kokkos@Cuda");
    t.set_default(Platform::cpu, "kokkos@OpenMP");
    t.set_default(Platform::cpu1, "kokkos@Serial");
  }

 private:
  enum class Call { portable, api, cublas, cublaslt, kokkosblas };
#if TESSERA_HAS_CUDA_NATIVE
  struct Tuned {
    NativeConfig best, fallback;       // fallback: the built-in default
    double best_s = 0, default_s = 0;  // default_s: 0 where the default is no compiled candidate
  };
  template <class T>
  Tuned tune_shape(bool tsmttsm, int m, long long K, int repeats);
#endif

  // Under MPI the K rows are split over the ranks (as evenly as they go);
  // the small matrix is replicated.
  void split_rows() {
    const long long P = driver::world_size(), r = driver::world_rank();
    k0_ = k_ / P * r + std::min(r, k_ % P);
    kl_ = k_ / P + (r < k_ % P ? 1 : 0);
  }
  // "1,8,3x17,20-22" -> (1, 1), (8, 8), (3, 17), (20, 20), (21, 21), (22, 22); empty: M = N = 1..64.
  static std::vector<std::pair<int, int>> parse_sides(const std::string& list) {
    std::vector<std::pair<int, int>> out;
    if (list.empty()) {
      for (int m = 1; m <= max_skinny; ++m) out.emplace_back(m, m);
      return out;
    }
    auto side = [](const std::string& t) {  // 1..64, digits only; else 0
      if (t.empty() || t.size() > 2 || t.find_first_not_of("0123456789") != std::string::npos) return 0;
      const int v = std::stoi(t);
      return v >= 1 && v <= max_skinny ? v : 0;
    };
    for (const auto& item : driver::split_list(list)) {
      const auto dash = item.find('-');
      if (dash != std::string::npos) {  // A-B: M = N from A to B
        const int a = side(item.substr(0, dash)), b = side(item.substr(dash + 1));
        if (a == 0 || b < a)
          throw UsageError("--sides: '" + item + "' is not a range A-B with 1 <= A <= B <= " +
                           std::to_string(max_skinny));
        for (int m = a; m <= b; ++m) out.emplace_back(m, m);
        continue;
      }
      const auto x = item.find('x');
      const int m = side(item.substr(0, x)), n = x == std::string::npos ? m : side(item.substr(x + 1));
      if (m == 0 || n == 0)
        throw UsageError("--sides: '" + item + "' is not M or MxN with M, N in 1.." + std::to_string(max_skinny));
      out.emplace_back(m, n);
    }
    if (out.empty()) throw UsageError("--sides: no sides given");
    return out;
  }

  bool tsmttsm() const { return kernel_ == "tsmttsm"; }
  double elem() const { return complex_ ? 16.0 : 8.0; }
  long long tall_elements() const { return k_ * (m_ + n_); }
  long long out_elements() const { return tsmttsm() ? (long long)m_ * n_ : k_ * n_; }

  template <class F>
  std::vector<KernelResult> dispatch(F&& f) {
    if (complex_) return f(pz_);
    return f(pd_);
  }

  template <class T>
  void make_problem(std::uint64_t seed, Problem<T>& p) {
    // This rank's rows [k0_, k0_ + kl_): the global problem's values (counter-based).
    const std::size_t K = std::size_t(kl_), M = std::size_t(m_), N = std::size_t(n_);
    const std::uint64_t x0 = std::uint64_t(k0_) * M, y0 = std::uint64_t(k0_) * N;
    p.X.resize(K * M);
    p.Y.resize(K * N);
    p.S.resize(M * N);
    using Host = Kokkos::DefaultHostExecutionSpace;
    using Vector = Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    fill_counter(Host(), Vector(p.X.data(), K * M), seed, x0);
    fill_counter(Host(), Vector(p.Y.data(), K * N), seed + 1, y0);
    fill_counter(Host(), Vector(p.S.data(), M * N), seed + 2, 0);
    Kokkos::fence();
    if (no_validate_) return;
    const T* x = p.X.data();
    const T* y = p.Y.data();
    const T beta = T(beta_);
    if (tsmttsm()) {
      // Partial sums over chunks of rows in parallel, then added in order.
      const std::size_t chunks = std::max<std::size_t>(1, std::min<std::size_t>(256, K / 1024));
      std::vector<T> part(chunks * M * N, T(0));
      std::vector<double> mag(chunks * M * N, 0.0);
      T* pp = part.data();
      double* pm = mag.data();
      const bool cj = conj_;
      Kokkos::parallel_for("tessera::tsm::reference", Kokkos::RangePolicy<Host>(0, chunks), [=](std::size_t c) {
        const std::size_t k0 = K * c / chunks, k1 = K * (c + 1) / chunks;
        T* acc = pp + c * M * N;
        double* am = pm + c * M * N;
        for (std::size_t k = k0; k < k1; ++k)
          for (std::size_t m = 0; m < M; ++m) {
            const T a = conj_if(cj, x[k * M + m]);
            const double aa = absval(a);
            for (std::size_t n = 0; n < N; ++n) {
              acc[m * N + n] += a * y[k * N + n];
              am[m * N + n] += aa * absval(y[k * N + n]);
            }
          }
      });
      Kokkos::fence();
      p.ref.assign(M * N, T(0));
      p.scale.assign(M * N, 0.0);
      for (std::size_t c = 0; c < chunks; ++c)
        for (std::size_t e = 0; e < M * N; ++e) {
          p.ref[e] += part[c * M * N + e];
          p.scale[e] += mag[c * M * N + e];
        }
#if TESSERA_HAS_MPI
      if (driver::world_size() > 1) {  // the ranks' rows summed (complex: as pairs of doubles)
        MPI_Allreduce(MPI_IN_PLACE, p.ref.data(), int(M * N * sizeof(T) / sizeof(double)), MPI_DOUBLE, MPI_SUM,
                      MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, p.scale.data(), int(M * N), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      }
#endif
      for (std::size_t e = 0; e < M * N; ++e)
        if (beta_ != 0) {
          p.ref[e] += beta * p.S[e];
          p.scale[e] += std::fabs(beta_) * absval(p.S[e]);
        }
    } else {
      p.ref.assign(K * N, T(0));
      p.scale.assign(K * N, 0.0);
      T* r = p.ref.data();
      double* sc = p.scale.data();
      const T* s = p.S.data();
      const double b = beta_;
      Kokkos::parallel_for("tessera::tsm::reference", Kokkos::RangePolicy<Host>(0, K), [=](std::size_t k) {
        for (std::size_t n = 0; n < N; ++n) {
          T acc(0);
          double mg = 0;
          for (std::size_t m = 0; m < M; ++m) {
            acc += x[k * M + m] * s[m * N + n];
            mg += absval(x[k * M + m]) * absval(s[m * N + n]);
          }
          if (b != 0) {
            acc += T(b) * y[k * N + n];
            mg += std::fabs(b) * absval(y[k * N + n]);
          }
          r[k * N + n] = acc;
          sc[k * N + n] = mg;
        }
      });
      Kokkos::fence();
    }
  }

  KernelResult result() const {
    KernelResult r;
    r.kernel = kernel_;
    const double M = m_, N = n_, K = double(k_);
    r.flops = (complex_ ? 8.0 : 2.0) * M * N * K;
    r.bytes = elem() * (M * K + N * K + M * N) + (beta_ != 0 ? elem() * double(out_elements()) : 0.0);
    r.bound = driver::Bound::roofline;
    r.traffic = tsmttsm() ? driver::Traffic::read : driver::Traffic::copy;
    r.arith = driver::Arith::fp64;
    r.working_set = r.bytes;
    r.tolerance = 4 * (double(tsmttsm() ? k_ : m_) + 4) * kEps;
    return r;
  }

  // Largest |out - ref| / scale over the elements (inf for NaN or a nonzero
  // error where the scale is 0), over all ranks.
  template <class T>
  void check(KernelResult& r, const Problem<T>& p, const T* out) const {
    if (no_validate_) {
      r.valid = true;
      r.checked = false;
      r.note += std::string(r.note.empty() ? "" : "; ") + "not validated (--no-validate)";
      return;
    }
    double e = 0;
    for (std::size_t i = 0; i < p.ref.size(); ++i) {
      const double d = absval(out[i] - p.ref[i]);
      double q = p.scale[i] > 0 ? d / p.scale[i] : (d == 0 ? 0.0 : std::numeric_limits<double>::infinity());
      if (!(q == q)) q = std::numeric_limits<double>::infinity();
      e = std::max(e, q);
    }
    r.error = driver::world_max(e);
    r.valid = e <= r.tolerance;
  }

  // The output's initial contents: S or Y, NaN when beta = 0 (must not be read).
  template <class T>
  std::vector<T> initial_output(const Problem<T>& p) const {
    const std::vector<T>& src = tsmttsm() ? p.S : p.Y;
    if (beta_ != 0) return src;
    const double q = std::numeric_limits<double>::quiet_NaN();
    return std::vector<T>(src.size(), T(q));
  }

  template <class T>
  void serial_product(const Problem<T>& p, T* out) const {
    const std::size_t K = std::size_t(k_), M = std::size_t(m_), N = std::size_t(n_);
    const T beta = T(beta_);
    if (tsmttsm()) {
      for (std::size_t e = 0; e < M * N; ++e) out[e] = beta_ != 0 ? beta * out[e] : T(0);
      for (std::size_t k = 0; k < K; ++k)
        for (std::size_t m = 0; m < M; ++m) {
          const T a = conj_if(conj_, p.X[k * M + m]);
          for (std::size_t n = 0; n < N; ++n) out[m * N + n] += a * p.Y[k * N + n];
        }
    } else {
      for (std::size_t k = 0; k < K; ++k)
        for (std::size_t n = 0; n < N; ++n) {
          T acc(0);
          for (std::size_t m = 0; m < M; ++m) acc += p.X[k * M + m] * p.S[m * N + n];
          out[k * N + n] = beta_ != 0 ? acc + beta * out[k * N + n] : acc;
        }
    }
  }

  template <class T>
  std::vector<KernelResult> run_serial(const RunSettings& rs, const Problem<T>& p) const {
    KernelResult r = result();
    r.ran = true;
    std::vector<T> out = initial_output(p);
    r.time = time_repeats(HostClock{}, rs.warmup, rs.repeats, [&] { serial_product(p, out.data()); });
    out = initial_output(p);
    serial_product(p, out.data());
    check(r, p, out.data());
    return {r};
  }

#if TESSERA_TSM_HAS_CBLAS
  template <class T>
  void cblas_product(const Problem<T>& p, T* out) const {
    const int K = int(k_), M = m_, N = n_;
    if constexpr (std::is_same_v<T, double>) {
      if (tsmttsm())
        cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, M, N, K, 1.0, p.X.data(), M, p.Y.data(), N, beta_, out, N);
      else
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, K, N, M, 1.0, p.X.data(), M, p.S.data(), N, beta_, out, N);
    } else {
      const T one(1), beta(beta_);
      if (tsmttsm())
        cblas_zgemm(CblasRowMajor, conj_ ? CblasConjTrans : CblasTrans, CblasNoTrans, M, N, K, &one, p.X.data(), M,
                    p.Y.data(), N, &beta, out, N);
      else
        cblas_zgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, K, N, M, &one, p.X.data(), M, p.S.data(), N, &beta,
                    out, N);
    }
  }
  template <class T>
  std::vector<KernelResult> run_openblas(const RunSettings& rs, const Problem<T>& p) const {
    KernelResult r = result();
    if (k_ > (1LL << 31) - 1) {
      r.note = "K above the 32-bit BLAS interface";
      return {r};
    }
    r.ran = true;
    std::vector<T> out = initial_output(p);
    r.time = time_repeats(HostClock{}, rs.warmup, rs.repeats, [&] { cblas_product(p, out.data()); });
    out = initial_output(p);
    cblas_product(p, out.data());
    check(r, p, out.data());
    return {r};
  }
#endif

  // Median over repeats; with several ranks each repeat starts after a
  // barrier and counts the slowest rank.
  template <class ExecSpace, class F>
  TimingStats time_calls(const ExecSpace& exec, const RunSettings& rs, F&& f) const {
    if (driver::world_size() == 1) return time_repeats(exec, rs.warmup, rs.repeats, f);
    for (int i = 0; i < rs.warmup; ++i) f();
    exec.fence();
    std::vector<double> t;
    for (int i = 0; i < rs.repeats; ++i) {
      driver::world_barrier();
      const auto t0 = std::chrono::steady_clock::now();
      f();
      exec.fence();
      t.push_back(driver::world_max(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()));
    }
    return summarize(std::move(t));
  }

#if defined(KOKKOS_ENABLE_CUDA)
  // A cuBLAS handle on the instance's stream; gemm calls keep the last status.
  struct Cublas {
    cublasHandle_t h = nullptr;
    cublasStatus_t st = CUBLAS_STATUS_SUCCESS;
    explicit Cublas(cudaStream_t s) {
      if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) throw std::runtime_error("cublasCreate failed");
      cublasSetStream(h, s);
    }
    ~Cublas() { cublasDestroy(h); }
    Cublas(const Cublas&) = delete;
    Cublas& operator=(const Cublas&) = delete;
  };

  // Row-major X (K x M) is column-major X~ (M x K): C^T = Y~ op(X~)^T, B^T = S~ X~
  // (paper §1.5). Z is Y (TSMTTSM) or S (TSMM); `to` the output.
  template <class T>
  void cublas_product(Cublas& c, int K, const T* X, const T* Z, T b, T* to) const {
    const int M = m_, N = n_;
    if constexpr (std::is_same_v<T, double>) {
      const double one = 1;
      if (tsmttsm())
        c.st = cublasDgemm(c.h, CUBLAS_OP_N, CUBLAS_OP_T, N, M, K, &one, Z, N, X, M, &b, to, N);
      else
        c.st = cublasDgemm(c.h, CUBLAS_OP_N, CUBLAS_OP_N, N, K, M, &one, Z, N, X, M, &b, to, N);
    } else {
      const cuDoubleComplex one = make_cuDoubleComplex(1, 0), beta = make_cuDoubleComplex(b.real(), b.imag());
      auto r = [](const T* x) { return reinterpret_cast<const cuDoubleComplex*>(x); };
      if (tsmttsm())
        c.st = cublasZgemm(c.h, CUBLAS_OP_N, conj_ ? CUBLAS_OP_C : CUBLAS_OP_T, N, M, K, &one, r(Z), N, r(X), M,
                           &beta, reinterpret_cast<cuDoubleComplex*>(to), N);
      else
        c.st = cublasZgemm(c.h, CUBLAS_OP_N, CUBLAS_OP_N, N, K, M, &one, r(Z), N, r(X), M, &beta,
                           reinterpret_cast<cuDoubleComplex*>(to), N);
    }
  }
#endif

  // Every variant on Kokkos Views: this rank's rows of X and Y, S whole. With
  // several ranks TSMTTSM's local product goes into a partial P (beta = 0)
  // that tsm::mpi::sum_over_ranks adds to S, beta S once.
  template <class ExecSpace, class T>
  std::vector<KernelResult> run_views(const RunSettings& rs, const Problem<T>& p, Call call) const {
    using Mem = typename ExecSpace::memory_space;
    using View = Kokkos::View<T**, Kokkos::LayoutRight, Mem>;
    const std::size_t K = std::size_t(kl_), M = std::size_t(m_), N = std::size_t(n_);
    ExecSpace exec;
    View X("tsm::X", K, M), Y("tsm::Y", K, N), S("tsm::S", M, N);
    View& out = tsmttsm() ? S : Y;
    const View& Z = tsmttsm() ? Y : S;  // the second input
    // The inputs as make_problem's host copy (seeds seed_, + 1, + 2; this rank's rows).
    const std::uint64_t x0 = std::uint64_t(k0_) * M, y0 = std::uint64_t(k0_) * N;
    fill_counter(exec, X, seed_, x0);
    if (tsmttsm())
      fill_counter(exec, Y, seed_ + 1, y0);
    else
      fill_counter(exec, S, seed_ + 2, 0);
    // The output's start (initial_output): NaN where beta = 0 (never read), else the problem's.
    auto reset = [&] {
      if (beta_ == 0)
        Kokkos::deep_copy(exec, out, T(std::numeric_limits<double>::quiet_NaN()));
      else if (tsmttsm())
        fill_counter(exec, S, seed_ + 2, 0);
      else
        fill_counter(exec, Y, seed_ + 1, y0);
      exec.fence();
    };
    reset();

    KernelResult r = result();
    const T one(1), beta(beta_);
    // The local product into `to` with beta b.
    std::function<void(T, const View&)> product;
    auto portable = [&](T b, const View& to) {
      if (tsmttsm())
        impl::tsmttsm_kokkos(exec, conj_, one, X, Y, b, to);
      else
        impl::tsmm_kokkos(exec, one, X, S, b, to);
    };
#if defined(KOKKOS_ENABLE_CUDA)
    std::unique_ptr<Cublas> blas;
#endif
#if TESSERA_TSM_HAS_CUBLASLT
    std::unique_ptr<LtGemm> lt;
#endif
    if (call == Call::portable) {
      product = portable;
    } else if (call == Call::api) {
      if (tsmttsm() && impl::tsmttsm_prefers_portable(complex_, m_, n_))
        r.note = "double, M != N, a thin side: tessera::tsm runs the portable kernel here";
      product = [&](T b, const View& to) {
        if (tsmttsm())
          tsm::tsmttsm(exec, conj_ ? "C" : "T", one, X, Y, b, to);
        else
          tsm::tsmm(exec, one, X, S, b, to);
      };
    } else if (call == Call::kokkosblas) {
      if (k_ == 0) {
        r.note = "K = 0 not offered";
        return {r};
      }
      // Kokkos Kernels 3.4 queues gemm on the default instance of the space.
      product = [&](T b, const View& to) {
        if (tsmttsm())
          KokkosBlas::gemm(conj_ ? "C" : "T", "N", one, X, Y, b, to);
        else
          KokkosBlas::gemm("N", "N", one, X, S, b, to);
      };
    } else {
      if (call == Call::cublas && k_ > (1LL << 31) - 1) {
        r.note = "K above the 32-bit cuBLAS interface";
        return {r};
      }
#if defined(KOKKOS_ENABLE_CUDA)
      if constexpr (std::is_same_v<ExecSpace, Kokkos::Cuda>) {
        if (call == Call::cublas) {
          blas = std::make_unique<Cublas>(exec.cuda_stream());
          product = [&](T b, const View& to) { cublas_product(*blas, int(K), X.data(), Z.data(), b, to.data()); };
        }
#if TESSERA_TSM_HAS_CUBLASLT
        if (call == Call::cublaslt) {
          if (k_ == 0) {
            r.note = "K = 0 not offered";
            return {r};
          }
          lt = std::make_unique<LtGemm>(tsmttsm(), complex_, conj_, m_, n_, (long long)std::max<std::size_t>(K, 1),
                                        exec.cuda_stream());
          // Every rank must run (or skip) the variant alike.
          if (driver::world_max(lt->usable() ? 0.0 : 1.0) != 0) {
            r.note = lt->usable() ? "cuBLASLt offers no algorithm on another rank" : lt->note();
            return {r};
          }
          product = [&](T b, const View& to) {
            const std::complex<double> c(b);
            const double bb[2] = {c.real(), c.imag()};
            lt->run(X.data(), Z.data(), bb, to.data());
          };
        }
#endif
      }
#endif
      if (!product) {
        r.note = "needs the Cuda backend";
        return {r};
      }
    }
    // A rank without rows (of a problem with some): its share is 0 (TSMTTSM)
    // or nothing (TSMM); the portable kernel does that without relying on how
    // a library treats an empty operand.
    if (K == 0 && k_ > 0 && call != Call::api) product = portable;

    const bool split = tsmttsm() && driver::world_size() > 1;
    View P;
    if (split) P = View("tsm::P", M, N);
    std::function<void()> f = [&] { product(beta, out); };
#if TESSERA_HAS_MPI
    if (split)
      f = [&] {
        product(T(0), P);
        mpi::sum_over_ranks(MPI_COMM_WORLD, exec, P, beta, S);
      };
#endif
    r.ran = true;
    r.time = time_calls(exec, rs, f);
    reset();
    f();
    exec.fence();
    Kokkos::fence();
#if defined(KOKKOS_ENABLE_CUDA)
    if (blas && blas->st != CUBLAS_STATUS_SUCCESS)
      throw std::runtime_error("cuBLAS gemm failed (status " + std::to_string(int(blas->st)) + ")");
#endif
#if TESSERA_TSM_HAS_CUBLASLT
    if (lt) r.note = lt->note();
#endif
    if (no_validate_) {
      check(r, p, static_cast<const T*>(nullptr));  // marks the row; the output stays where it is
      return {r};
    }
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
    check(r, p, h.data());
    return {r};
  }

  std::string kernel_ = "tsmttsm";
  bool complex_ = false, conj_ = false;
  int m_ = 8, n_ = 8;
  long long k_ = 1LL << 22;
  double beta_ = 0;
  bool no_validate_ = false;
  long long k0_ = 0, kl_ = 1LL << 22;  // this rank's rows [k0_, k0_ + kl_) of K
  std::vector<std::pair<int, int>> sweep_;  // --sweep: (M, N) per point
  std::uint64_t seed_ = 1;                  // prepare()'s: the views' inputs by counter
  long long sweep_k_ = -1;                  // --k with --sweep; -1: K from the point's sides
  Problem<double> pd_;
  Problem<zc> pz_;
};


void TsmWorkload::tune(const Options& opts, Progress& progress, std::ostream& out) {
  const std::string path = opts.get("output", "tsm_table.json");
  const auto kernels = opts.get_list("kernels", "tsmttsm,tsmm");
  const auto types = opts.get_list("types", "d,z");
  const auto ms = opts.get_list("ms", "1,2,4,8,16,32,64");
  const double mib = opts.get_double("mb", 2048, 1, 1 << 20);
  const int repeats = int(opts.get_int("repeats", 5, 1, 1000));
  for (const auto& k : kernels)
    if (k != "tsmttsm" && k != "tsmm") throw UsageError("--kernels: unknown kernel '" + k + "' (tsmttsm, tsmm)");
  for (const auto& t : types)
    if (t != "d" && t != "z") throw UsageError("--types: unknown type '" + t + "' (d, z)");
  std::vector<int> sizes;
  for (const auto& m : ms) {
    Options o;
    o.set("ms", m);
    sizes.push_back(int(o.get_int("ms", 1, 1, max_skinny)));
  }
#if TESSERA_HAS_CUDA_NATIVE
  {
    std::ofstream probe(path + ".tmp");
    if (!probe) throw UsageError("--output: cannot write '" + path + "'");
  }
  // Loads TESSERA_TSM_TABLE (if set) now, so it cannot replace the candidates later.
  (void)native_cuda::tsm_native_config(true, false, 1, 1);
  int dev = 0;
  cudaDeviceProp prop{};
  cudaGetDevice(&dev);
  cudaGetDeviceProperties(&prop, dev);
  nlohmann::json entries = nlohmann::json::array();
  const double total = double(kernels.size() * types.size() * sizes.size());
  double done = 0;
  for (const auto& kernel : kernels)
    for (const auto& type : types)
      for (int m : sizes) {
        const bool tt = kernel == "tsmttsm", z = type == "z";
        const double s = z ? 16 : 8;
        const long long K = std::max(1LL, (long long)(mib * 1048576.0 / (s * 2 * m)));
        const Tuned t = z ? tune_shape<zc>(tt, m, K, repeats) : tune_shape<double>(tt, m, K, repeats);
        const NativeConfig& best = t.best;
        nlohmann::json e = {{"kernel", kernel}, {"type", type}, {"m", m}, {"n", m}};
        if (best.mma > 0) {
          e["mma"] = best.mma;
          if (best.stages > 0) e["stages"] = best.stages;
          if (best.tiles > 0) e["tiles"] = best.tiles;
          if (best.products > 0) e["products"] = best.products;
          if (best.real > 0) e["real"] = best.real;
          if (best.edge > 0) e["edge"] = best.edge;
        } else if (tt)
          e["tile"] = best.tile;
        else
          e["outputs"] = best.outputs;
        entries.push_back(e);
        // The built-in default beside the winner: where they differ, how much a table entry would gain.
        out << kernel << " " << type << " M = N = " << m << ": " << config_name(tt, best) << ", " << t.best_s * 1e3
            << " ms at K = " << K << "; default " << config_name(tt, t.fallback);
        if (t.default_s > 0) out << ", " << t.default_s * 1e3 << " ms (" << t.default_s / t.best_s << "x)";
        out << "\n";
        progress.update("tune tsm", ++done, total);
      }
  progress.finish("tune tsm");
  set_active_table(Table{});
  const nlohmann::json table = {
      {"format", "tessera-tsm-table"}, {"version", 1}, {"gpu", std::string(prop.name)}, {"entries", entries}};
  {
    std::ofstream f(path + ".tmp");
    f << table.dump(1) << "\n";
    if (!f) throw std::runtime_error("writing " + path + ".tmp failed");
  }
  if (std::rename((path + ".tmp").c_str(), path.c_str()) != 0) throw std::runtime_error("renaming to " + path + " failed");
  out << "wrote " << path << " (" << entries.size() << " entries for " << prop.name << ")\n";
#else
  (void)progress;
  (void)out;
  (void)repeats;
  throw UsageError("tune tsm measures the native CUDA kernels: a Cuda build with TESSERA_ENABLE_CUDA_NATIVE");
#endif
}

#if TESSERA_HAS_CUDA_NATIVE
// Times every compiled candidate of one shape (M = N = m) on the GPU through
// the public API, the candidate installed as the only table entry.
template <class T>
TsmWorkload::Tuned TsmWorkload::tune_shape(bool tt, int m, long long K, int repeats) {
  using View = Kokkos::View<T**, Kokkos::LayoutRight, Kokkos::CudaSpace>;
  Kokkos::Cuda exec;
  View X("tsm::tune::X", K, m), Y("tsm::tune::Y", K, m), S("tsm::tune::S", m, m);
  Kokkos::deep_copy(X, T(0.5));
  Kokkos::deep_copy(Y, T(0.25));
  Kokkos::deep_copy(S, T(0.125));
  const bool z = !std::is_same_v<T, double>;
  std::vector<NativeConfig> cands;
  for (const auto& nc : compiled_configs(tt, z))
    if (config_usable(tt, z, m, m, nc)) cands.push_back(nc);
  const NativeConfig fallback = default_config(tt, z, m, m);
  const std::string default_name = config_name(tt, fallback);
  Tuned best{fallback, fallback, std::numeric_limits<double>::infinity(), 0.0};
  for (const auto& c : cands) {
    TableEntry e;
    e.tsmttsm = tt;
    e.complex = z;
    e.m = e.n = m;
    e.config = c;
    set_active_table(Table{"", {e}});
    const auto t = time_repeats(exec, 1, repeats, [&] {
      if (tt)
        tsm::tsmttsm(exec, "T", T(1), X, Y, T(0), S);
      else
        tsm::tsmm(exec, T(1), X, S, T(0), Y);
    });
    if (config_name(tt, c) == default_name) best.default_s = t.median;
    if (t.median < best.best_s) best.best = c, best.best_s = t.median;
  }
  return best;
}
#endif

}  // namespace

std::unique_ptr<driver::Workload> make_tsm_workload() { return std::make_unique<TsmWorkload>(); }

}  // namespace tessera::tsm
