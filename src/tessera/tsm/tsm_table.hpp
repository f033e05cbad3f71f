#pragma once
// Configuration table of the native CUDA tall-skinny kernels: which compiled
// kernel a shape runs. The shipped defaults (the H100 table) are built in; a
// JSON table measured on another GPU can replace entries at run time
// (environment variable TESSERA_TSM_TABLE = its path). A table that cannot be
// read, is malformed, names another GPU or asks for a kernel this build did
// not compile is refused with a one-line reason and the defaults stay in use.
//
// Table format:
//   {"format": "tessera-tsm-table", "version": 1, "gpu": "NVIDIA H100 80GB HBM3",
//    "entries": [{"kernel": "tsmttsm", "type": "d", "m": 32, "n": 32, "tile": 4},
//                {"kernel": "tsmttsm", "type": "d", "m": 64, "n": 64, "mma": 4, "stages": 3},
//                {"kernel": "tsmttsm", "type": "d", "m": 40, "n": 40, "mma": 2, "stages": 3, "tiles": 5},
//                {"kernel": "tsmm", "type": "z", "m": 64, "n": 64, "mma": 2, "tiles": 4, "products": 3},
//                {"kernel": "tsmm", "type": "z", "m": 12, "n": 12, "mma": 2, "stages": 3, "tiles": 2, "products": 4},
//                {"kernel": "tsmm", "type": "z", "m": 8, "n": 16, "outputs": 2},
//                {"kernel": "tsmttsm", "type": "z", "m": 20, "n": 20, "mma": 2, "stages": 3, "tiles": 5, "real": 1},
//                {"kernel": "tsmttsm", "type": "d", "m": 50, "n": 50, "mma": 2, "stages": 3, "tiles": 4, "edge": 1},
//                ...]}
// "mma" selects the FP64 tensor-core kernels (sm_80 and later; older GPUs run
// the default register kernel instead).
#include <string>
#include <vector>

namespace tessera::tsm {

struct NativeConfig {
  int tile = 0;     // TSMTTSM: side of the square register tile (1, 2, 4, 8 double; 1, 2, 4 complex)
  int outputs = 0;  // TSMM: outputs per thread and row (1, 2, 4)
  // Tensor-core (DMMA m8n8k4) kernels when > 0, replacing tile/outputs.
  // TSMTTSM: a warp owns mma x mma tiles of 8x8 (1, 2, 4 double; 1, 2
  // complex); TSMM: 1 (m8n8k4, a warp computes 8 rows of B at a time) or 2
  // (m16n8k4, 16 rows per warp; sm_90 and later, else 1).
  int mma = 0;
  // TSMTTSM with mma: 0 loads fragments straight from global memory; 3 stages
  // the rows through shared memory with a three-stage cp.async pipeline.
  // Complex TSMM with mma 2 and products 4: 0 loads A into registers; 3 or 4
  // stages each warp's rows of A through shared memory (cp.async), up to
  // tsmm_z_stages_fit.
  int stages = 0;
  // Complex TSMM with mma 2 (m16n8k4, sm_90): the 8-column tiles of B a warp
  // owns (2 or 4), and the real products a complex one costs: 4 (re = ArCr -
  // AiCi, im = ArCi + AiCr) or 3 (Gauss: ArCr, AiCi, (Ar + Ai)(Cr + Ci)).
  // Double TSMTTSM with mma 2 stages 3: 0 (a warp owns 2 x 2 tiles of C) or
  // the 8-column tiles of a warp's strip of 16 rows (5 or 6; no products);
  // complex TSMTTSM with mma 1 stages 3: 0 or those of a strip of 8 rows (5 or 6).
  int tiles = 0;
  int products = 0;
  // Complex only, 1: the product run as the real one of 2M x 2N on the double
  // kernel that mma, stages and tiles name: a complex tall operand is a real
  // one of twice the columns (real and imaginary parts side by side), a
  // complex element of the small matrix a 2 x 2 real block. TSMM: mma 2 (M,
  // N <= 32; a beta with an imaginary part scales B first). TSMTTSM: the
  // staged kernels (M, N <= 32), whose block sum forms the complex result
  // from the real one's 2 x 2 blocks.
  int real = 0;
  // Double TSMTTSM strips (mma 2 stages 3, tiles 4 or 5), 1: C's rows past the
  // last multiple of 16 (at most two a strip of 16 rows with 4 tiles: M = 17..18,
  // 33..36, 49..54; one with 5 tiles) by FMA beside the strips' DMMAs, which
  // then cover 16 floor(M / 16) rows, not the next multiple of 16 (tsm_mma.cuh, Edge).
  int edge = 0;
};

// "tile 4", "outputs 2", "mma 4", "mma 4 stages 3", "mma 2 stages 3 tiles 5", "mma 2 tiles 4 products 3",
// "mma 2 real", "mma 2 stages 3 tiles 4 edge": the entry's kernel in a table's words.
std::string config_name(bool tsmttsm, const NativeConfig& c);
// The compiled candidates of a kernel and type (tuning, tests).
std::vector<NativeConfig> compiled_configs(bool tsmttsm, bool complex);

struct TableEntry {
  bool tsmttsm = true;
  bool complex = false;
  int m = 0, n = 0;
  NativeConfig config;
};

struct Table {
  std::string gpu;
  std::vector<TableEntry> entries;
};

// TSMM shapes with a compile-time kernel in double behind "outputs 1" (rows
// contiguous and 16-byte aligned; other layouts run the register kernel):
// M = N up to 15 and the 3 x 17 of the paper's M != N set (at 16 the m16n8k4
// kernel: 95% of copy against 80%, an H200).
inline bool tsmm_small_shape(int M, int N) { return (M == N && M >= 1 && M <= 15) || (M == 3 && N == 17); }

// TSMTTSM shapes with a compile-time kernel in double behind "tile 1" (rows
// contiguous and 16-byte aligned; other layouts run the tensor-core kernel):
// where it ran faster than the tensor-core warps on an H200 (2026-12-01:
// 1.05-1.33x, 1.12x at 31; even sides with unpadded rows 1.07-1.26x at 14..30;
// 0.95x at 8 with padded pairs, 0.99x at 29).
inline bool tsmttsm_small_shape(int M, int N) {
  return M == N && (M == 7 || (M >= 9 && M <= 31 && M != 29));
}

// The register TSMM kernel launches every block its rows need, one pass each,
// where alpha C (built in each block's shared memory) has at most 64
// elements; else as many blocks as are resident, looping over K.
inline bool tsmm_single_pass(int M, int N) { return M * N <= 64; }

// The tensor-core TSMM kernels' persistent launches hand their warps items
// (16-row blocks) in chunks from a counter, in row order (tsm_kernels.cuh,
// WarpItems): the fewest items, a power of two, whose rows of A and B reach
// 16 KiB in double, 64 KiB in complex. From an H200 sweep of 1..32 items at
// every M = N 9..64 (double), 4..64 by 4 (complex) and 12 M != N shapes:
// geometric means 1.039x (double) and 1.047x (complex) the static order, the
// worst shape 0.97x (double 52) and 0.98x (complex 64); smaller chunks lost
// up to 0.4x (docs/perf/tsm.md, "Work in row order").
inline int tsmm_ticket_items(bool complex, int M, int N) {
  const long item = 16L * (M + N) * (complex ? 16 : 8), chunk = complex ? 65536 : 16384;
  int per = 1;
  while (per * item < chunk) per *= 2;
  return per;
}

// Complex TSMM with mma 2: the 8-column tiles a warp owns (one or two tiles
// of B in all, N <= 16, always take the 2-tile kernel, whose registers leave
// room for two blocks an SM) and the items a row block of 16 rows splits
// into; the items take equal shares of its tiles where they can (N = 40 with
// 4 tiles: 3 + 2, not 4 + 1).
inline int tsmm_z_warp_tiles(int N, int tiles) { return (N + 7) / 8 <= 2 ? 2 : tiles; }
inline int tsmm_z_items_a_row_block(int N, int tiles) {
  const int nt = (N + 7) / 8, t = tsmm_z_warp_tiles(N, tiles);
  return (nt + t - 1) / t;
}

// Complex TSMM with A staged (mma 2, stages 3 or 4): a warp's stage holds 16
// rows of A at a row stride of M rounded up to 4 elements; a block's 8 warps'
// stages and alpha C fit the 227 KiB of an sm_90 SM's shared memory while
// stages x stride <= 96 (M <= 32 with 3 stages, M <= 24 with 4).
inline int tsmm_z_stage_stride(int M) { return (M + 3) / 4 * 4; }
inline bool tsmm_z_stages_fit(int M, int stages) { return stages * tsmm_z_stage_stride(M) <= 96; }

// Edge rows by FMA (NativeConfig::edge) a double strip of 16 rows holds: 2 with
// 4 tiles, 1 with 5 (two would pass the 128 registers of the prefetching
// strips), none otherwise. The kernels are compiled for these counts.
constexpr int strip_edge_rows(int tiles) { return tiles == 4 ? 2 : tiles == 5 ? 1 : 0; }

// The shipped choice for a shape (M, N in 1..64).
NativeConfig default_config(bool tsmttsm, bool complex, int M, int N);
// Double TSMTTSM's tensor-core warps for M x N (the default where no register tile or compile-time kernel is).
NativeConfig tsmttsm_double_warps(int M, int N);
// Whether this build has the kernel `c` names, and it fits the shape (a
// block of 256 threads holds at least one thread per tile; the tensor-core
// TSMTTSM's warps for one K slice fit a block of 512).
bool config_usable(bool tsmttsm, bool complex, int M, int N, const NativeConfig& c);

// Parses and checks a table; std::invalid_argument (one line, naming
// `source`) when it is malformed, has an unusable entry, or names a GPU other
// than `expected_gpu` (not checked when empty).
Table parse_table(const std::string& json_text, const std::string& source, const std::string& expected_gpu = "");
// The same from a file.
Table load_table(const std::string& path, const std::string& expected_gpu = "");

// What a call of this shape runs: the active table's entry, else the default.
NativeConfig choose_config(bool tsmttsm, bool complex, int M, int N);
// Installs `t` as the active table (tests, tuning); an empty table restores the defaults.
void set_active_table(const Table& t);
// Loads TESSERA_TSM_TABLE once (if set) for the GPU named `gpu`; later calls do nothing.
void init_table_from_environment(const std::string& gpu);
// "defaults", "table <path> (<n> entries)" or "refused tsm table <path>: <reason>; defaults in use".
std::string table_status();

}  // namespace tessera::tsm
