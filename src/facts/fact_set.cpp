#include "facts/fact_set.h"

namespace ftdiag::facts {

void FactSet::set(std::string name, FactValue value, std::string pointer) {
  entries_[std::move(name)] = FactEntry{std::move(value), std::move(pointer)};
}

void FactSet::set_missing(std::string name, Missing why) {
  // A reason without words helps no one reading the report.
  if (why.detail.empty()) why.detail = "not recorded in the evidence";
  entries_[std::move(name)] = FactEntry{std::move(why), {}};
}

const FactEntry& FactSet::get(const std::string& name) const {
  static const FactEntry kNotGathered{};
  auto it = entries_.find(name);
  return it == entries_.end() ? kNotGathered : it->second;
}

}  // namespace ftdiag::facts
