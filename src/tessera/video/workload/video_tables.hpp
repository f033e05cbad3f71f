#pragma once
// `compare video` prints Tables 1-5 of Lin et al. in the paper's shape after
// the results: the paper's numbers beside ours, from the rows of the run.
#include <iosfwd>

namespace tessera::driver {
struct Report;
}

namespace tessera::video {

void print_paper_tables(const driver::Report& r, std::ostream& out);

}  // namespace tessera::video
