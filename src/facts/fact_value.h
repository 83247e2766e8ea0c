// The values rules reason about: a small closed set of types, so that rule
// loading can check every comparison against the fact registry.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

namespace ftdiag::facts {

enum class FactType { boolean, integer, number, string };

// What a number means, for explanations and validation ("98%" vs "0.98").
// `version` marks a string fact that orders as a version (facts/version_order.h).
enum class Unit { none, bytes, seconds, ratio, count, signal, version };

using FactValue = std::variant<bool, std::int64_t, double, std::string>;

std::string_view to_string(FactType type);
std::string_view to_string(Unit unit);

// The type a value holds. Integers and numbers compare with each other.
FactType type_of(const FactValue& value);
bool is_numeric(FactType type);
double as_number(const FactValue& value);  // for integer or number values

// "512.0 MiB", "12.3 s", "98%", "SIGKILL (9)", "3", "true", a string as is.
std::string format_value(const FactValue& value, Unit unit);

}  // namespace ftdiag::facts
