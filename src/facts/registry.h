// The one list of facts rules may use: name, type, unit, meaning.
//
// Rule loading checks every fact a rule names against it; docs/facts.md is
// generated from it (`ftdiag rules facts`), and a test keeps the two equal.
#pragma once

#include <span>
#include <string_view>

#include "facts/fact_value.h"

namespace ftdiag::facts {

struct FactSpec {
  std::string_view name;  // "cgroup.peak_ratio"
  FactType type;
  Unit unit;
  std::string_view meaning;
};

std::span<const FactSpec> fact_registry();

// Null when no fact has that name.
const FactSpec* find_fact(std::string_view name);

}  // namespace ftdiag::facts
