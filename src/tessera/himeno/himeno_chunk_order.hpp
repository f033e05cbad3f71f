#pragma once
// Block order shared by the one-plane Himeno kernels on GPUs. Each p plane
// is read for three planes of output; visiting whole planes one after the
// other, the 14 streams of XL double (4 MB a plane each) pass 56 MB through
// the H100's 50 MB L2 between those reads, and p comes from DRAM up to three
// times. So the (j, k) tiles of a plane come in chunks of j-tiles, and a chunk
// walks all its planes before the next starts: its plane of 14 streams is
// kept to about 4 MiB (the halo rows it shares with the next chunk are read
// twice: under 1% more traffic).
#include <algorithm>
#include <cstddef>

#if defined(__CUDACC__)
#define TESSERA_HIMENO_HOST_DEVICE __host__ __device__
#else
#define TESSERA_HIMENO_HOST_DEVICE
#endif

namespace tessera::himeno {

// Block b of a launch over nkt x njt x ni tiles in chunk order: the k-tile
// fastest, then the j-tiles of a chunk (cj of them; the last chunk may have
// fewer), then the planes, then the chunks.
struct ChunkOrder {
  int nkt, njt, ni, cj;  // tiles along k and j, planes, j-tiles per chunk
  TESSERA_HIMENO_HOST_DEVICE void tile(unsigned b, int& kt, int& jt, int& i) const {
    kt = int(b % unsigned(nkt));
    const unsigned r = b / unsigned(nkt), per_chunk = unsigned(cj) * unsigned(ni);
    const int c = int(r / per_chunk), rem = int(r - unsigned(c) * per_chunk);
    const int width = njt - c * cj < cj ? njt - c * cj : cj;  // (no std::min in device code)
    i = rem / width;
    jt = c * cj + rem % width;
  }
};

// j-tiles per chunk for tiles of rows_per_tile rows of nk elements of elem bytes.
inline int chunk_tiles(int nk, int rows_per_tile, std::size_t elem, int j_tiles) {
  constexpr std::size_t kBudget = std::size_t(4) << 20, kStreams = 14;
  const std::size_t chunk_row = kStreams * std::size_t(nk) * elem * std::size_t(rows_per_tile);
  const std::size_t cj = std::max<std::size_t>(1, kBudget / std::max<std::size_t>(1, chunk_row));
  return int(std::min<std::size_t>(cj, std::size_t(std::max(1, j_tiles))));
}

}  // namespace tessera::himeno
