#include "facts/facts_json.h"

#include <cstdint>

#include <fmt/format.h>

#include "facts/registry.h"

namespace ftdiag::facts {

Fact<FactSet> facts_from_json(const nlohmann::json& j) {
  if (!j.is_object()) return Missing{MissingReason::unparseable, "facts must be a JSON object"};
  FactSet facts;
  for (const auto& [name, value] : j.items()) {
    const FactSpec* spec = find_fact(name);
    if (!spec) return Missing{MissingReason::unparseable, fmt::format("unknown fact \"{}\"", name)};
    const bool fits = (spec->type == FactType::boolean && value.is_boolean()) ||
                      (spec->type == FactType::string && value.is_string()) ||
                      (spec->type == FactType::integer && value.is_number_integer()) ||
                      (spec->type == FactType::number && value.is_number());
    // Integers beyond int64 (an unsigned 2^64-1) would wrap: refuse them.
    const bool out_of_range = value.is_number_unsigned() && value.get<std::uint64_t>() > static_cast<std::uint64_t>(INT64_MAX);
    if (!fits || out_of_range) {
      return Missing{MissingReason::unparseable,
                     fmt::format("fact \"{}\" is of type {}, not {}", name, to_string(spec->type),
                                 out_of_range ? "an integer beyond 64 bits" : value.type_name())};
    }
    if (value.is_boolean()) facts.set(name, value.get<bool>());
    else if (value.is_string()) facts.set(name, value.get<std::string>());
    else if (spec->type == FactType::integer) facts.set(name, value.get<std::int64_t>());
    else facts.set(name, value.get<double>());
  }
  for (const auto& spec : fact_registry()) {
    if (!j.contains(std::string(spec.name))) {
      facts.set_missing(std::string(spec.name), Missing{MissingReason::not_present, "not in the fixture"});
    }
  }
  return facts;
}

nlohmann::json facts_to_json(const FactSet& facts) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, entry] : facts.entries()) {
    if (!entry.value) continue;
    const std::string& key = name;  // lambdas may not capture structured bindings (clang 14)
    std::visit([&](const auto& v) { j[key] = v; }, entry.value.value());
  }
  return j;
}

}  // namespace ftdiag::facts
