#pragma once
// Shared helpers of the tall-skinny GEMM tests: random operands in any layout,
// a long-double reference, and a per-element tolerance proportional to
// K eps (|alpha| |A|^T |B| + |beta| |C|), since atomics vary the summation order.
#include "exec_spaces.hpp"
#include "tessera/core/random.hpp"
#include "tessera/tsm/tsm.hpp"

#include <cmath>
#include <algorithm>
#include <complex>
#include <limits>
#include <string>
#include <vector>

namespace tsm_test {

using zc = Kokkos::complex<double>;
using lz = std::complex<long double>;

inline lz wide(double x) { return lz(x, 0); }
inline lz wide(const zc& x) { return lz(x.real(), x.imag()); }
inline long double mag(double x) { return std::fabs((long double)x); }
inline long double mag(const zc& x) { return std::abs(wide(x)); }
inline bool isnan_any(double x) { return std::isnan(x); }
inline bool isnan_any(const zc& x) { return std::isnan(x.real()) || std::isnan(x.imag()); }

template <class T>
T make(double re, double im);
template <>
inline double make<double>(double re, double) {
  return re;
}
template <>
inline zc make<zc>(double re, double im) {
  return zc(re, im);
}
template <class T>
T nan_value() {
  const double q = std::numeric_limits<double>::quiet_NaN();
  return make<T>(q, q);
}

// Row-major host matrix.
template <class T>
struct HostMat {
  int rows = 0, cols = 0;
  std::vector<T> v;
  T& operator()(int i, int j) { return v[std::size_t(i) * cols + j]; }
  const T& operator()(int i, int j) const { return v[std::size_t(i) * cols + j]; }
};

template <class T>
HostMat<T> random_mat(int rows, int cols, std::uint64_t seed) {
  HostMat<T> h{rows, cols, std::vector<T>(std::size_t(rows) * cols)};
  for (std::size_t i = 0; i < h.v.size(); ++i)
    h.v[i] = make<T>(tessera::random_uniform(seed, 2 * i, -1, 1), tessera::random_uniform(seed, 2 * i + 1, -1, 1));
  return h;
}

template <class T>
HostMat<T> filled(int rows, int cols, T x) {
  return HostMat<T>{rows, cols, std::vector<T>(std::size_t(rows) * cols, x)};
}

// A device View of layout L holding h. Layouts "stride" and "block": column
// blocks of wider row-major Views whose other columns hold NaN (read by
// mistake -> NaN); stride: row strides M + 3 at a 16-byte aligned column, N +
// 5 at an 8-byte one; block: both at column 2 of Views 4 wider (odd row
// strides at odd sides: the native stages' odd-row copies); sectors: both at
// column 4 (32 bytes in) of Views 8 wider.
enum class Lay { right, left, stride, block, sectors };

template <class T, class Exec>
using StrideView = Kokkos::View<T**, Kokkos::LayoutStride, typename Exec::memory_space>;

template <class T, class Exec, class L>
Kokkos::View<T**, L, typename Exec::memory_space> to_device(const HostMat<T>& h) {
  Kokkos::View<T**, L, typename Exec::memory_space> d("m", h.rows, h.cols);
  auto m = Kokkos::create_mirror_view(d);
  for (int i = 0; i < h.rows; ++i)
    for (int j = 0; j < h.cols; ++j) m(i, j) = h(i, j);
  Kokkos::deep_copy(d, m);
  return d;
}

template <class T, class Exec>
StrideView<T, Exec> to_device_block(const HostMat<T>& h, int offset = 2, int pad = 3) {
  Kokkos::View<T**, Kokkos::LayoutRight, typename Exec::memory_space> w("wide", h.rows, h.cols + pad);
  auto m = Kokkos::create_mirror_view(w);
  for (int i = 0; i < h.rows; ++i)
    for (int j = 0; j < h.cols + pad; ++j)
      m(i, j) = (j >= offset && j < offset + h.cols) ? h(i, j - offset) : nan_value<T>();
  Kokkos::deep_copy(w, m);
  return StrideView<T, Exec>(Kokkos::subview(w, Kokkos::ALL, std::make_pair(offset, offset + h.cols)));
}

template <class T, class V>
HostMat<T> to_host(const V& d) {
  // Through a contiguous copy in d's own space: Kokkos copies strided Views
  // between spaces only when both are contiguous.
  Kokkos::View<T**, Kokkos::LayoutRight, typename V::memory_space> c("contiguous", d.extent(0), d.extent(1));
  Kokkos::deep_copy(c, d);
  auto m = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), c);
  HostMat<T> h{int(d.extent(0)), int(d.extent(1)), std::vector<T>(d.extent(0) * d.extent(1))};
  for (int i = 0; i < h.rows; ++i)
    for (int j = 0; j < h.cols; ++j) h(i, j) = m(i, j);
  return h;
}

struct Reference {
  std::vector<lz> value;
  std::vector<long double> tol;
};

// A matrix widened once for the reference: real and imaginary parts and
// magnitudes in long double (no per-product complex library calls).
struct Wide {
  int rows, cols;
  std::vector<long double> re, im, mag;
  template <class T>
  explicit Wide(const HostMat<T>& h, bool conj = false)
      : rows(h.rows), cols(h.cols), re(h.v.size()), im(h.v.size()), mag(h.v.size()) {
    for (std::size_t i = 0; i < h.v.size(); ++i) {
      const lz z = wide(h.v[i]);
      re[i] = z.real();
      im[i] = conj ? -z.imag() : z.imag();
      mag[i] = tsm_test::mag(h.v[i]);
    }
  }
};

// out(i, j) = alpha sum_p X(p, i) Y(p, j) + beta Z(i, j) with X given as
// (inner x rows) and Y as (inner x cols); trans_x false reads X(i, p) instead.
template <class T>
Reference ref_product(const Wide& X, bool trans_x, const Wide& Y, T alpha, T beta, const HostMat<T>& Z, int inner,
                      int rows, int cols) {
  const long double eps = std::numeric_limits<double>::epsilon();
  Reference r{std::vector<lz>(std::size_t(rows) * cols), std::vector<long double>(std::size_t(rows) * cols)};
  // Rows of the output are independent (each one's sums in the same order on
  // any thread count): a TSMM reference of 10^5 rows in long double takes
  // seconds on one core.
#pragma omp parallel
  {
    std::vector<long double> sr(cols), si(cols), sa(cols);
#pragma omp for schedule(static)
    for (int i = 0; i < rows; ++i) {
      std::fill(sr.begin(), sr.end(), 0.0L);
      std::fill(si.begin(), si.end(), 0.0L);
      std::fill(sa.begin(), sa.end(), 0.0L);
      for (int p = 0; p < inner; ++p) {
        const std::size_t xi = trans_x ? std::size_t(p) * X.cols + i : std::size_t(i) * X.cols + p;
        const long double xr = X.re[xi], xm = X.im[xi], xa = X.mag[xi];
        const std::size_t y0 = std::size_t(p) * Y.cols;
        for (int j = 0; j < cols; ++j) {
          sr[j] += xr * Y.re[y0 + j] - xm * Y.im[y0 + j];
          si[j] += xr * Y.im[y0 + j] + xm * Y.re[y0 + j];
          sa[j] += xa * Y.mag[y0 + j];
        }
      }
      for (int j = 0; j < cols; ++j) {
        lz v = wide(alpha) * lz(sr[j], si[j]);
        long double g = mag(alpha) * sa[j];
        if (!(beta == T(0))) {
          v += wide(beta) * wide(Z(i, j));
          g += mag(beta) * mag(Z(i, j));
        }
        r.value[std::size_t(i) * cols + j] = v;
        r.tol[std::size_t(i) * cols + j] = 4 * (inner + 4) * eps * g + 1e-300L;
      }
    }
  }  // omp parallel
  return r;
}

// C = alpha op(A)^T B + beta C0 (beta = 0: C0 ignored).
template <class T>
Reference ref_tsmttsm(bool conj, T alpha, const HostMat<T>& A, const HostMat<T>& B, T beta, const HostMat<T>& C0) {
  return ref_product(Wide(A, conj), true, Wide(B), alpha, beta, C0, A.rows, A.cols, B.cols);
}

// B = alpha A C + beta B0.
template <class T>
Reference ref_tsmm(T alpha, const HostMat<T>& A, const HostMat<T>& C, T beta, const HostMat<T>& B0) {
  return ref_product(Wide(A), false, Wide(C), alpha, beta, B0, A.cols, A.rows, C.cols);
}

// Number of elements off the reference (NaN counts); the first one described in *first.
template <class T>
int count_bad(const HostMat<T>& got, const Reference& ref, std::string* first) {
  int bad = 0;
  for (int i = 0; i < got.rows; ++i)
    for (int j = 0; j < got.cols; ++j) {
      const std::size_t e = std::size_t(i) * got.cols + j;
      const T x = got(i, j);
      const long double err = std::abs(wide(x) - ref.value[e]);
      if (isnan_any(x) || !(err <= ref.tol[e])) {
        if (bad++ == 0 && first)
          *first = "(" + std::to_string(i) + "," + std::to_string(j) + "): got " + std::to_string(double(wide(x).real())) +
                   "+" + std::to_string(double(wide(x).imag())) + "i, want " +
                   std::to_string(double(ref.value[e].real())) + "+" + std::to_string(double(ref.value[e].imag())) +
                   "i, tolerance " + std::to_string(double(ref.tol[e]));
      }
    }
  return bad;
}

}  // namespace tsm_test
