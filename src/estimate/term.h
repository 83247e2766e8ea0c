// A figure of an estimate with the arithmetic that gave it, so a report can
// show how "149 GB" came about and a reader can check it.
#pragma once

#include <string>
#include <vector>

namespace ftdiag::estimate {

struct Term {
  std::string name;     // "weights", "checkpoint save: every rank's state-dict copy"
  double bytes = 0;
  std::string formula;  // "8 ranks x 2 B x 7.00 B parameters"

  bool operator==(const Term&) const = default;
};

double sum(const std::vector<Term>& terms);

// "7.00 B", "350 M": a parameter count as formulas print it.
std::string parameters_text(double parameters);
// "13.0 GiB": a size in formulas and reasons, in the units the rest of
// ftdiag prints (base/units.h).
std::string size_text(double bytes);
// "1 rank", "8 ranks".
std::string ranks_text(double ranks);

}  // namespace ftdiag::estimate
