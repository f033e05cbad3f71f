#pragma once
// Portable depth-colour bilateral filter: a team owns a tile of outputs,
// stages the tile's depth and luma plus the K/2 halo, and the two look-up
// tables, in team scratch (shared memory on GPUs), then each thread filters
// its pixels from there. Unknown depth (d <= 0 or NaN) does not contribute;
// a pixel without any known neighbour (W_A = 0) stays unknown (0).
#include "tessera/core/exec_space.hpp"
#include "tessera/video/impl/bilateral_host.hpp"
#include "tessera/video/impl/bilateral_math.hpp"
#include "tessera/video/impl/bilateral_window.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace tessera::video::impl {

inline constexpr int kBilateralTileX = 32, kBilateralTileY = 8;

// On host spaces with AVX2 and FMA (`simd`) the vector kernel of
// bilateral_host.hpp runs instead.
template <class ExecSpace, class Depth, class Luma, class Out>
void bilateral_kokkos(const ExecSpace& exec, const Depth& depth, const Luma& luma, const Out& out,
                      const BilateralTables& tab, bool simd = true) {
  if constexpr (!is_device_space_v<ExecSpace>) {
    if (simd && bilateral_host(exec, depth, luma, out, tab)) return;
  }
  (void)simd;
  using Team = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  using Scratch = typename ExecSpace::scratch_memory_space;
  using FloatTile = Kokkos::View<float*, Scratch, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using ByteTile = Kokkos::View<std::uint8_t*, Scratch, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  constexpr int TX = kBilateralTileX, TY = kBilateralTileY;
  const int h = int(depth.extent(0)), w = int(depth.extent(1));
  const int r = tab.radius;
  const int sx = TX + 2 * r, sy = TY + 2 * r;
  const int tiles_x = (w + TX - 1) / TX, tiles_y = (h + TY - 1) / TY;
  const int nlut = 2 * r * r + 1;
  const std::size_t scratch = FloatTile::shmem_size(std::size_t(sx) * sy) + FloatTile::shmem_size(nlut) +
                              FloatTile::shmem_size(256) + ByteTile::shmem_size(std::size_t(sx) * sy);
  Kokkos::TeamPolicy<ExecSpace> policy(exec, tiles_x * tiles_y, Kokkos::AUTO);
  Kokkos::parallel_for(
      "tessera::video::bilateral", policy.set_scratch_size(0, Kokkos::PerTeam(scratch)),
      KOKKOS_LAMBDA(const Team& team) {
        const int x0 = (team.league_rank() % tiles_x) * TX, y0 = (team.league_rank() / tiles_x) * TY;
        FloatTile d(team.team_scratch(0), std::size_t(sx) * sy);
        FloatTile gs(team.team_scratch(0), nlut);
        FloatTile gr(team.team_scratch(0), 256);
        ByteTile lum(team.team_scratch(0), std::size_t(sx) * sy);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, sx * sy), [&](const int i) {
          const int y = y0 - r + i / sx, x = x0 - r + i % sx;
          const bool in = y >= 0 && y < h && x >= 0 && x < w;
          const float v = in ? float(depth(y, x)) : 0.0f;
          d(i) = v > 0.0f ? v : 0.0f;  // unknown (<= 0, NaN) and outside -> 0: skipped below
          lum(i) = in ? std::uint8_t(luma(y, x)) : std::uint8_t(0);
        });
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, nlut), [&](const int i) { gs(i) = tab.spatial[i]; });
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, 256), [&](const int i) { gr(i) = tab.range[i]; });
        team.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(team, TX * TY), [&](const int i) {
          const int ty = i / TX, tx = i % TX;
          const int y = y0 + ty, x = x0 + tx;
          if (y >= h || x >= w) return;
          const int centre = (ty + r) * sx + tx + r;
          out(y, x) = bilateral_window_mean(d.data() + centre, lum.data() + centre, sx, gs.data(), gr.data(), r);
        });
      });
}

}  // namespace tessera::video::impl
