// JSON form of a Fact: the plain value when gathered, otherwise
// {"missing": {"reason": "permission-denied", "detail": "..."}}.
// A std::optional value is null when empty (e.g. a cgroup limit of "max").
#pragma once

#include <optional>

#include <nlohmann/json.hpp>

#include "base/fact.h"

namespace ftdiag::evidence {

nlohmann::json missing_to_json(const Missing& missing);
// True when `j` is the JSON form of a Missing.
bool is_missing_json(const nlohmann::json& j);
Missing missing_from_json(const nlohmann::json& j);

template <class T>
nlohmann::json value_to_json(const T& value) {
  return nlohmann::json(value);
}
template <class T>
nlohmann::json value_to_json(const std::optional<T>& value) {
  return value ? value_to_json(*value) : nlohmann::json(nullptr);
}

template <class T>
nlohmann::json fact_to_json(const Fact<T>& fact) {
  return fact.has_value() ? value_to_json(fact.value()) : missing_to_json(fact.missing());
}

template <class T>
T value_from_json(const nlohmann::json& j, T* /*tag*/) {
  return j.get<T>();
}
template <class T>
std::optional<T> value_from_json(const nlohmann::json& j, std::optional<T>* /*tag*/) {
  if (j.is_null()) return std::nullopt;
  return value_from_json(j, static_cast<T*>(nullptr));
}

// Reads a Fact field from an object; a missing key reads as not-present.
// Throws nlohmann::json::exception on a type mismatch (callers catch at the
// boundary where a whole line or file is parsed).
template <class T>
Fact<T> fact_from_json(const nlohmann::json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end()) return Missing{MissingReason::not_present, std::string("no ") + key};
  if (is_missing_json(*it)) return missing_from_json(*it);
  return value_from_json(*it, static_cast<T*>(nullptr));
}

}  // namespace ftdiag::evidence
