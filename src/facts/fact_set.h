// The facts of one job, extracted from its evidence document: each a value
// (or why it is missing) and the JSON pointer into the evidence document it
// came from, so findings can cite their evidence.
#pragma once

#include <map>
#include <optional>
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
  // The value when it was gathered and has type T (std::int64_t, double,
  // bool, std::string); none otherwise. For extractors that build on
  // facts set before them.
  template <class T>
  std::optional<T> value_of(const std::string& name) const {
    const auto& entry = get(name);
    if (!entry.value) return std::nullopt;
    if (const auto* value = std::get_if<T>(&entry.value.value())) return *value;
    return std::nullopt;
  }
  const std::map<std::string, FactEntry>& entries() const { return entries_; }

 private:
  std::map<std::string, FactEntry> entries_;
};

}  // namespace ftdiag::facts
