#include "tessera/gluon/gluon_lhagrid.hpp"

#include "tessera/gluon/gluon_dglap.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <sys/stat.h>
#include <vector>

namespace tessera::gluon {
namespace {

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw std::invalid_argument("PDF set " + where + ": " + what);
}

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  const auto b = s.find_last_not_of(" \t\r");
  return s.substr(a, b - a + 1);
}

bool is_dir(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}
bool is_file(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::string basename_of(std::string dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  const auto s = dir.rfind('/');
  return s == std::string::npos ? dir : dir.substr(s + 1);
}

double parse_number(const std::string& tok, const std::string& where) {
  const std::string t = trim(tok);
  if (t.empty()) fail(where, "empty number");
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size() || errno == ERANGE) fail(where, "not a number: '" + t + "'");
  if (!std::isfinite(v)) fail(where, "non-finite value '" + t + "'");
  return v;
}

std::vector<double> parse_list(const std::string& value, const std::string& where) {
  const std::string v = trim(value);
  if (v.size() < 2 || v.front() != '[' || v.back() != ']') fail(where, "expected a one-line list [a, b, ...]");
  std::vector<double> out;
  std::stringstream ss(v.substr(1, v.size() - 2));
  std::string tok;
  while (std::getline(ss, tok, ',')) out.push_back(parse_number(tok, where));
  return out;
}

// Numbers of a whitespace-separated line.
std::vector<double> parse_row(const std::string& line, const std::string& where) {
  std::vector<double> out;
  std::istringstream is(line);
  std::string tok;
  while (is >> tok) out.push_back(parse_number(tok, where));
  return out;
}

std::map<std::string, std::string> read_info(const std::string& path) {
  std::ifstream in(path);
  if (!in) fail(path, "cannot open");
  std::map<std::string, std::string> kv;
  std::string line;
  while (std::getline(in, line)) {
    const auto hash = line.find('#');
    if (hash != std::string::npos) line = line.substr(0, hash);
    if (trim(line).empty()) continue;
    const auto colon = line.find(':');
    if (colon == std::string::npos) fail(path, "line without 'key: value': '" + trim(line) + "'");
    kv[trim(line.substr(0, colon))] = trim(line.substr(colon + 1));
  }
  return kv;
}

}  // namespace

PdfGridHost read_lhagrid1(const std::string& dir_in) {
  const std::string name = basename_of(dir_in);
  const std::string dir = dir_in;
  const std::string info_path = dir + "/" + name + ".info";
  const std::string dat_path = dir + "/" + name + "_0000.dat";
  if (!is_file(info_path)) fail(dir, "no " + name + ".info");
  if (!is_file(dat_path)) fail(dir, "no " + name + "_0000.dat");
  const auto info = read_info(info_path);
  auto get = [&](const std::string& k) -> std::string {
    const auto it = info.find(k);
    if (it == info.end()) fail(info_path, "missing key " + k);
    return it->second;
  };
  if (get("Format") != "lhagrid1") fail(info_path, "Format is '" + get("Format") + "', not lhagrid1");
  if (get("AlphaS_Type") != "ipol")
    fail(info_path, "AlphaS_Type '" + get("AlphaS_Type") + "' is not supported (ipol only)");
  PdfGridHost h;
  h.name = name;
  h.as_q = parse_list(get("AlphaS_Qs"), info_path + " AlphaS_Qs");
  h.as_val = parse_list(get("AlphaS_Vals"), info_path + " AlphaS_Vals");
  if (h.as_q.size() != h.as_val.size()) fail(info_path, "AlphaS_Qs and AlphaS_Vals differ in length");
  // alpha_s knots may repeat at flavour thresholds: keep the upper value.
  {
    std::vector<double> q, v;
    for (std::size_t i = 0; i < h.as_q.size(); ++i) {
      if (!q.empty() && h.as_q[i] == q.back()) {
        v.back() = h.as_val[i];
        continue;
      }
      q.push_back(h.as_q[i]);
      v.push_back(h.as_val[i]);
    }
    h.as_q = q;
    h.as_val = v;
  }

  std::ifstream in(dat_path);
  if (!in) fail(dat_path, "cannot open");
  std::string line;
  // Header up to the first "---".
  bool header_done = false;
  while (std::getline(in, line))
    if (trim(line) == "---") {
      header_done = true;
      break;
    }
  if (!header_done) fail(dat_path, "no '---' after the header");
  std::vector<std::vector<double>> block_q;
  std::vector<std::vector<double>> block_g;  // gluon values, x outer, Q inner
  int block = 0;
  while (true) {
    std::string lx, lq, lf;
    // Skip blank lines; end of file after a "---" is the end of the data.
    do {
      if (!std::getline(in, lx)) goto done;
    } while (trim(lx).empty());
    ++block;
    const std::string where = dat_path + " block " + std::to_string(block);
    if (!std::getline(in, lq) || !std::getline(in, lf)) fail(where, "truncated block header");
    const auto x = parse_row(lx, where + " x knots");
    const auto q = parse_row(lq, where + " Q knots");
    const auto f = parse_row(lf, where + " flavours");
    if (x.empty() || q.empty() || f.empty()) fail(where, "empty knot or flavour line");
    int gcol = -1;
    for (std::size_t i = 0; i < f.size(); ++i)
      if (f[i] == 21 || f[i] == 0) gcol = int(i);
    if (gcol < 0) fail(where, "no gluon (id 21 or 0) among the flavours");
    if (h.x.empty()) h.x = x;
    else if (x != h.x) fail(where, "x knots differ from the first block's");
    std::vector<double> g;
    g.reserve(x.size() * q.size());
    for (std::size_t r = 0; r < x.size() * q.size(); ++r) {
      if (!std::getline(in, line)) fail(where, "truncated: " + std::to_string(r) + " of " +
                                                   std::to_string(x.size() * q.size()) + " value rows");
      const auto v = parse_row(line, where + " values");
      if (v.size() != f.size())
        fail(where, "value row " + std::to_string(r + 1) + " has " + std::to_string(v.size()) + " columns, expected " +
                        std::to_string(f.size()));
      g.push_back(v[std::size_t(gcol)]);
    }
    if (!std::getline(in, line) || trim(line) != "---") fail(where, "block not closed by '---'");
    block_q.push_back(q);
    block_g.push_back(g);
  }
done:
  if (block_q.empty()) fail(dat_path, "no data block");
  // Stack the blocks in Q.
  const std::size_t nx = h.x.size();
  std::vector<std::pair<std::size_t, std::size_t>> cols;  // (block, q index)
  for (std::size_t b = 0; b < block_q.size(); ++b)
    for (std::size_t j = 0; j < block_q[b].size(); ++j) {
      const double q = block_q[b][j];
      if (!h.q.empty() && q == h.q.back()) {
        cols.back() = {b, j};
        continue;
      }
      h.q.push_back(q);
      cols.push_back({b, j});
    }
  h.xg.resize(nx * h.q.size());
  for (std::size_t i = 0; i < nx; ++i)
    for (std::size_t k = 0; k < h.q.size(); ++k) {
      const auto [b, j] = cols[k];
      h.xg[i * h.q.size() + k] = block_g[b][i * block_q[b].size() + j];
    }
  h.validate();
  return h;
}

PdfGridHost load_pdf(const std::string& name_or_path) {
  if (name_or_path == "toy") return toy_gluon_set();
  if (name_or_path == "lh-lo-toy") {
    static const PdfGridHost set = lh_lo_toy_set();  // evolved once per process
    return set;
  }
  if (name_or_path.empty()) throw std::invalid_argument("PDF set: empty name");
  if (is_dir(name_or_path)) return read_lhagrid1(name_or_path);
  if (name_or_path.find('/') == std::string::npos) {
    const char* env = std::getenv("LHAPDF_DATA_PATH");
    if (env) {
      std::stringstream ss(env);
      std::string d;
      while (std::getline(ss, d, ':'))
        if (!d.empty() && is_dir(d + "/" + name_or_path)) return read_lhagrid1(d + "/" + name_or_path);
    }
    throw std::invalid_argument("PDF set '" + name_or_path + "' not found (not 'toy', 'lh-lo-toy', a directory, " +
                                "or a set in LHAPDF_DATA_PATH" + (env ? std::string("=") + env : std::string(", which is unset")) +
                                ")");
  }
  throw std::invalid_argument("PDF set '" + name_or_path + "': no such directory");
}

void write_lhagrid1(const PdfGridHost& g, const std::string& dir) {
  g.validate();
  const std::string base = dir + "/" + g.name;
  auto put = [](const std::string& path, const std::string& text) {
    const std::string tmp = path + ".tmp";
    {
      std::ofstream out(tmp);
      out << text;
      if (!out) throw std::runtime_error("cannot write " + tmp);
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) throw std::runtime_error("cannot rename " + tmp);
  };
  auto num = [](double v) {
    char b[40];
    std::snprintf(b, sizeof b, "%.17g", v);
    return std::string(b);
  };
  std::ostringstream info;
  info << "SetDesc: " << g.name << " (gluon only, written by Tessera)\nFormat: lhagrid1\nNumMembers: 1\n"
       << "Flavors: [21]\nXMin: " << num(g.x.front()) << "\nXMax: " << num(g.x.back()) << "\nQMin: " << num(g.q.front())
       << "\nQMax: " << num(g.q.back()) << "\nAlphaS_Type: ipol\nAlphaS_Qs: [";
  for (std::size_t i = 0; i < g.as_q.size(); ++i) info << (i ? ", " : "") << num(g.as_q[i]);
  info << "]\nAlphaS_Vals: [";
  for (std::size_t i = 0; i < g.as_val.size(); ++i) info << (i ? ", " : "") << num(g.as_val[i]);
  info << "]\n";
  std::ostringstream dat;
  dat << "PdfType: central\nFormat: lhagrid1\n---\n";
  for (std::size_t i = 0; i < g.x.size(); ++i) dat << (i ? " " : "") << num(g.x[i]);
  dat << "\n";
  for (std::size_t i = 0; i < g.q.size(); ++i) dat << (i ? " " : "") << num(g.q[i]);
  dat << "\n21\n";
  for (double v : g.xg) dat << num(v) << "\n";
  dat << "---\n";
  put(base + ".info", info.str());
  put(base + "_0000.dat", dat.str());
}

}  // namespace tessera::gluon
