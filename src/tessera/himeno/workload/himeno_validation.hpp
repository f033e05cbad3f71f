#pragma once
// Checks a run's gosa history and final p (this rank's owned planes) against
// the reference. Bounds (docs/himeno.md): a sweep's rounding differs between
// evaluation orders (FMA contraction on GPUs) by at most about K eps max|p|
// per point, and sweeps do not amplify differences (|1 - omega bnd| + omega
// bnd a3 sum|coef| <= 1 for both initial states), so after n sweeps p agrees
// to K n eps max|p|. ss is a small difference of O(max|p|) terms, so
// gosa = sum ss^2 is checked by Cauchy-Schwarz: |d gosa| <= 2 e sqrt(N gosa)
// + N e^2 with e the bound on ss (2 K n eps max|p|), plus the summation's own
// N eps(A) gosa.
#include "tessera/core/validate.hpp"
#include "tessera/driver/mpi_session.hpp"
#include "tessera/driver/workload.hpp"
#include "tessera/himeno/workload/himeno_reference.hpp"

#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace tessera::himeno::workload {

template <class S, class A>
void check_run(driver::KernelResult& r, const Reference& ref, const std::vector<double>& gosa, const S* p_owned,
               double interior_points, int iters) {
  constexpr double K = 32;
  const double eps = std::numeric_limits<S>::epsilon(), n_pts = interior_points;
  r.tolerance = K * iters * eps;
  r.error = driver::world_max(max_relative_error(p_owned, ref.p.data(), ref.p.size()));
  std::string worst = "final p";
  r.valid = r.error <= r.tolerance;
  for (int n = 0; n < iters; ++n) {
    const double g = ref.gosa[n], e = 2 * K * (n + 1) * eps * ref.pmax;
    const double tol = n_pts * std::numeric_limits<A>::epsilon() * g + 2 * e * std::sqrt(n_pts * g) + n_pts * e * e;
    const double diff = std::abs(gosa[n] - g);
    if (!(diff <= tol)) {  // also catches NaN
      r.valid = false;
      r.error = g > 0 ? diff / g : diff;
      r.tolerance = g > 0 ? tol / g : tol;
      worst = "gosa of sweep " + std::to_string(n + 1);
      break;
    }
  }
  std::ostringstream note;
  note << std::scientific << std::setprecision(6) << "final gosa " << gosa.back() << " (reference "
       << ref.gosa.back() << ")";
  if (!r.valid) note << "; " << worst << " differs: relative error " << r.error << " > tolerance " << r.tolerance;
  r.note = note.str();
  r.observables = {{"gosa", gosa.back(), ""}};
}

}  // namespace tessera::himeno::workload
