// nlohmann JSON for every type with a field table (fields.h), and for the
// wrappers around them: Fact<T> (the value, or {"missing": {...}}),
// std::optional<T> (null when empty), vectors and string-keyed maps.
//
// Readers throw (nlohmann::json::exception or std::invalid_argument) on a
// wrong type or a missing required key; callers catch at the boundary where a
// whole line or document is read, so one bad value costs that record only.
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/fact.h"
#include "evidence/exit_status.h"
#include "evidence/fact_json.h"
#include "evidence/fields.h"

namespace ftdiag::evidence {

using nlohmann::json;

// ---- declarations first, so the templates below see every overload ----
template <class T>
  requires std::is_arithmetic_v<T>
json write_json(T value);
inline json write_json(const std::string& value) { return value; }
inline json write_json(char code) { return std::string(1, code); }  // one-letter codes ("o", "e")
json write_json(const ExitStatus& status);
template <class T>
json write_json(const Fact<T>& fact);
template <class T>
json write_json(const std::optional<T>& value);
template <class T>
json write_json(const std::vector<T>& values);
template <class T>
json write_json(const std::map<std::string, T>& values);
template <Described T>
json write_json(const T& value);

template <class T>
  requires std::is_arithmetic_v<T>
void read_json(const json& j, T& out);
inline void read_json(const json& j, std::string& out) { out = j.get<std::string>(); }
void read_json(const json& j, char& out);
void read_json(const json& j, ExitStatus& out);
template <class T>
void read_json(const json& j, Fact<T>& out);
template <class T>
void read_json(const json& j, std::optional<T>& out);
template <class T>
void read_json(const json& j, std::vector<T>& out);
template <class T>
void read_json(const json& j, std::map<std::string, T>& out);
template <Described T>
void read_json(const json& j, T& out);

// ---- writing ----
template <class T>
  requires std::is_arithmetic_v<T>
json write_json(T value) {
  return json(value);
}
template <class T>
json write_json(const Fact<T>& fact) {
  return fact.has_value() ? write_json(fact.value()) : missing_to_json(fact.missing());
}
template <class T>
json write_json(const std::optional<T>& value) {
  return value ? write_json(*value) : json(nullptr);
}
template <class T>
json write_json(const std::vector<T>& values) {
  json array = json::array();
  for (const auto& v : values) array.push_back(write_json(v));
  return array;
}
template <class T>
json write_json(const std::map<std::string, T>& values) {
  json object = json::object();
  for (const auto& [key, v] : values) object[key] = write_json(v);
  return object;
}
template <Described T>
json write_json(const T& value) {
  json object = json::object();
  for_each_field<T>([&](const auto& f) { object[std::string(f.key)] = write_json(value.*(f.member)); });
  // Keys computed from the others, written for readers of the JSON and
  // never read back (e.g. a run's "complete").
  if constexpr (requires { Fields<T>::add_derived(value, object); }) Fields<T>::add_derived(value, object);
  return object;
}

// ---- reading ----

// A value to read into: T{}, or for a Fact (which has no default) a Missing.
template <class T>
struct Blank {
  static T make() { return T{}; }
};
template <class T>
struct Blank<Fact<T>> {
  static Fact<T> make() { return Missing{}; }
};

template <class T>
  requires std::is_arithmetic_v<T>
void read_json(const json& j, T& out) {
  out = j.get<T>();
}
template <class T>
void read_json(const json& j, Fact<T>& out) {
  if (is_missing_json(j)) {
    out = missing_from_json(j);
    return;
  }
  T value{};
  read_json(j, value);
  out = std::move(value);
}
template <class T>
void read_json(const json& j, std::optional<T>& out) {
  if (j.is_null()) {
    out.reset();
    return;
  }
  T value = Blank<T>::make();
  read_json(j, value);
  out = std::move(value);
}
template <class T>
void read_json(const json& j, std::vector<T>& out) {
  if (!j.is_array()) throw std::invalid_argument("expected an array");
  out.clear();
  out.reserve(j.size());
  for (const auto& item : j) read_json(item, out.emplace_back(Blank<T>::make()));
}
template <class T>
void read_json(const json& j, std::map<std::string, T>& out) {
  if (!j.is_object()) throw std::invalid_argument("expected an object");
  out.clear();
  for (const auto& [key, item] : j.items()) {
    T value = Blank<T>::make();
    read_json(item, value);
    out.insert_or_assign(key, std::move(value));
  }
}

// What an absent optional key leaves behind: the default, except that a Fact
// says why it is missing.
template <class M>
void mark_absent(M& /*member*/, std::string_view /*key*/) {}
template <class T>
void mark_absent(Fact<T>& member, std::string_view key) {
  member = Missing{MissingReason::not_present, "no " + std::string(key)};
}

template <Described T>
void read_json(const json& j, T& out) {
  if (!j.is_object()) throw std::invalid_argument("expected an object");
  for_each_field<T>([&](const auto& f) {
    auto it = j.find(f.key);
    if (it == j.end() || (it->is_null() && f.presence == Presence::required)) {
      if (f.presence == Presence::required) throw std::invalid_argument("no \"" + std::string(f.key) + "\"");
      mark_absent(out.*(f.member), f.key);
      return;
    }
    try {
      read_json(*it, out.*(f.member));
    } catch (const std::exception& e) {
      throw std::invalid_argument("\"" + std::string(f.key) + "\": " + e.what());
    }
  });
}

}  // namespace ftdiag::evidence
