// The facts of one job, extracted from its evidence document: each a value
// (or why it is missing) and the JSON pointer into the evidence document it
// came from, so findings can cite their evidence.
#pragma once

#include <map>
#include <string>

#include "base/fact.h"
#include "facts/fact_value.h"

namespace ftdiag::facts {

struct FactEntry {
  Fact<FactValue> value = Missing{MissingReason::not_present, "not gathered"};
  std::string pointer;  // "/runs/0/memory/cgroup_peak_bytes"; empty when derived from several
};

class FactSet {
 public:
  void set(std::string name, FactValue value, std::string pointer = {});
  void set_missing(std::string name, Missing why);
  // Every registered fact not set is reported missing with this reason.
  const FactEntry& get(const std::string& name) const;
  const std::map<std::string, FactEntry>& entries() const { return entries_; }

 private:
  std::map<std::string, FactEntry> entries_;
};

}  // namespace ftdiag::facts
