// himeno_same_state A.h5 B.h5 [--field-only]: exit 0 when the two Himeno
// state files hold bit-identical p fields (and gosa histories, unless
// --field-only: runs on different rank counts sum gosa in other orders).
#include "tessera/himeno/himeno_checkpoint.hpp"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

using namespace tessera::himeno;

int main(int argc, char** argv) {
  if (argc < 3 || argc > 4 || (argc == 4 && std::string(argv[3]) != "--field-only")) {
    std::fprintf(stderr, "usage: himeno_same_state A.h5 B.h5 [--field-only]\n");
    return 2;
  }
  try {
    const CheckpointInfo a = read_checkpoint_info(argv[1]), b = read_checkpoint_info(argv[2]);
    if (a.grid.str() != b.grid.str() || a.precision != b.precision || a.sweeps != b.sweeps) {
      std::printf("different runs: %s %s %d sweeps vs %s %s %d sweeps\n", a.grid.str().c_str(), a.precision.c_str(),
                  a.sweeps, b.grid.str().c_str(), b.precision.c_str(), b.sweeps);
      return 1;
    }
    const Slab whole = slab_decomposition(a.grid, 1, 0);
    const std::size_t bytes = std::size_t(a.grid.points()) * (a.double_storage() ? 8 : 4);
    std::vector<char> pa(bytes), pb(bytes);
    read_checkpoint_field(argv[1], a, whole, pa.data());
    read_checkpoint_field(argv[2], b, whole, pb.data());
    if (std::memcmp(pa.data(), pb.data(), bytes) != 0) {
      std::printf("p differs\n");
      return 1;
    }
    if (argc == 3 && a.gosa != b.gosa) {
      std::printf("gosa histories differ\n");
      return 1;
    }
    std::printf("same state: %s, %d sweeps\n", a.grid.str().c_str(), a.sweeps);
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "himeno_same_state: %s\n", e.what());
    return 2;
  }
}
