#pragma once
// Portable pairwise squared distances (eq. (3) of Lin et al.):
// P(i, j) = sum_k (F(i, k) - D(j, k))^2.
//  - tiled: a team owns a 16 x 16 tile of P; rows of F and D come through team
//    scratch in chunks of 16 features (each loaded value feeds 16 outputs);
//  - GEMM form: ||f_i||^2 + ||d_j||^2 - 2 F D^T through KokkosBlas::gemm,
//    clamped at 0 (the difference of large terms can round below zero).
#include "tessera/core/exec_space.hpp"

#include <KokkosBlas3_gemm.hpp>
#include <Kokkos_Core.hpp>

#include <cstdint>

namespace tessera::video::impl {

inline constexpr int pairwise_tile = 16;

inline std::size_t pairwise_scratch_bytes() {
  constexpr int b = pairwise_tile;
  return (std::size_t(b) * b + std::size_t(b) * (b + 1) + std::size_t(b) * b) * sizeof(float) + 256;
}

template <class ExecSpace, class FView, class DView, class PView>
void pairwise_tiled_kokkos(const ExecSpace& exec, const FView& F, const DView& D, const PView& P) {
  constexpr int b = pairwise_tile;
  const int m = int(F.extent(0)), n = int(D.extent(0)), l = int(F.extent(1));
  const int bi = (m + b - 1) / b, bj = (n + b - 1) / b;
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  using Scratch = Kokkos::View<float*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryUnmanaged>;
  Policy policy(exec, bi * bj, is_device_space_v<ExecSpace> ? b * b : 1);
  policy.set_scratch_size(0, Kokkos::PerTeam(pairwise_scratch_bytes()));
  Kokkos::parallel_for(
      "tessera::video::pairwise_tiled", policy, KOKKOS_LAMBDA(const Member& team) {
        const int i0 = (team.league_rank() / bj) * b, j0 = (team.league_rank() % bj) * b;
        Scratch fs(team.team_scratch(0), b * b);        // fs(ii * b + c)
        Scratch ds(team.team_scratch(0), b * (b + 1));  // ds(jj * (b + 1) + c): padded rows, no bank conflicts
        Scratch acc(team.team_scratch(0), b * b);
        for (int c0 = 0; c0 < l; c0 += b) {
          // Out-of-range rows and features load 0 on both sides: (0 - 0)^2 adds nothing.
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, b * b), [&](const int i) {
            const int r = i / b, c = i % b;
            const bool inc = c0 + c < l;
            fs(i) = (inc && i0 + r < m) ? float(F(i0 + r, c0 + c)) : 0.0f;
            ds(r * (b + 1) + c) = (inc && j0 + r < n) ? float(D(j0 + r, c0 + c)) : 0.0f;
          });
          team.team_barrier();
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, b * b), [&](const int i) {
            const int ii = i / b, jj = i % b;
            float a = c0 == 0 ? 0.0f : acc(i);
            for (int c = 0; c < b; ++c) {
              const float d = fs(ii * b + c) - ds(jj * (b + 1) + c);
              a += d * d;
            }
            acc(i) = a;
          });
          team.team_barrier();
        }
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, b * b), [&](const int i) {
          const int ii = i / b, jj = i % b;
          if (i0 + ii < m && j0 + jj < n) P(i0 + ii, j0 + jj) = l > 0 ? acc(i) : 0.0f;
        });
      });
}

// Squared row norms of A into norms.
template <class ExecSpace, class AView, class NView>
void pairwise_row_norms_kokkos(const ExecSpace& exec, const AView& A, const NView& norms) {
  const int l = int(A.extent(1));
  Kokkos::parallel_for(
      "tessera::video::pairwise_norms", Kokkos::RangePolicy<ExecSpace>(exec, 0, A.extent(0)),
      KOKKOS_LAMBDA(const int i) {
        float s = 0;
        for (int c = 0; c < l; ++c) s += float(A(i, c)) * float(A(i, c));
        norms(i) = s;
      });
}

// GEMM form with caller-provided norm workspaces fn (m) and dn (n).
// KokkosBlas::gemm (3.4) runs on the space's default instance: fence around it.
template <class ExecSpace, class FView, class DView, class PView, class NView>
void pairwise_gemm_kokkos(const ExecSpace& exec, const FView& F, const DView& D, const PView& P, const NView& fn,
                          const NView& dn) {
  pairwise_row_norms_kokkos(exec, F, fn);
  pairwise_row_norms_kokkos(exec, D, dn);
  exec.fence();
  KokkosBlas::gemm("N", "T", -2.0f, F, D, 0.0f, P);
  ExecSpace().fence();
  const int n = int(D.extent(0));
  Kokkos::parallel_for(
      "tessera::video::pairwise_gemm_finish",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, std::int64_t(F.extent(0)) * n),
      KOKKOS_LAMBDA(const std::int64_t k) {
        const int i = int(k / n), j = int(k % n);
        const float v = P(i, j) + fn(i) + dn(j);
        P(i, j) = v > 0.0f ? v : 0.0f;
      });
}

}  // namespace tessera::video::impl
