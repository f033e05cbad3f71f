#pragma once
// LHAPDF6 lhagrid1 sets (gluon only): the .info file (a YAML subset: scalar
// keys and one-line [a, b, ...] lists) and the central member's _0000.dat
// (blocks separated by "---": x knots, Q knots, flavour ids, then x*f values,
// x outer, Q inner, one column per flavour). Blocks are stacked in Q (a Q
// knot shared by two blocks is kept once, from the upper block); all blocks
// must have the same x knots. alpha_s from the set's AlphaS_Qs/AlphaS_Vals
// (AlphaS_Type: ipol). Every malformed input is refused with one line
// (std::invalid_argument).
#include "tessera/gluon/gluon_pdf.hpp"

#include <string>

namespace tessera::gluon {

// The set named `name_or_path`: "toy" (the built-in toy gluon set, not
// evolved), "lh-lo-toy" (the built-in LO DGLAP set, gluon_dglap.hpp), a set
// directory (containing <dirname>.info and <dirname>_0000.dat), or a set
// name looked up in the directories of LHAPDF_DATA_PATH (colon-separated).
PdfGridHost load_pdf(const std::string& name_or_path);

// Reads the set in directory `dir`.
PdfGridHost read_lhagrid1(const std::string& dir);

// Writes `grid` as an lhagrid1 set <dir>/<name>.info and <dir>/<name>_0000.dat
// (gluon id 21 only; values to 17 digits, so reading back is exact). Files
// are written to temporaries and renamed.
void write_lhagrid1(const PdfGridHost& grid, const std::string& dir);

}  // namespace tessera::gluon
