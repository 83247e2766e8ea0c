#include "facts/fact_value.h"

#include <fmt/format.h>

#include "evidence/exit_status.h"
#include "base/units.h"

namespace ftdiag::facts {

std::string_view to_string(FactType type) {
  switch (type) {
    case FactType::boolean: return "boolean";
    case FactType::integer: return "integer";
    case FactType::number: return "number";
    case FactType::string: return "string";
  }
  return "?";
}

std::string_view to_string(Unit unit) {
  switch (unit) {
    case Unit::none: return "";
    case Unit::bytes: return "bytes";
    case Unit::seconds: return "seconds";
    case Unit::ratio: return "ratio";
    case Unit::count: return "count";
    case Unit::signal: return "signal";
    case Unit::version: return "version";
  }
  return "?";
}

FactType type_of(const FactValue& value) {
  switch (value.index()) {
    case 0: return FactType::boolean;
    case 1: return FactType::integer;
    case 2: return FactType::number;
    default: return FactType::string;
  }
}

bool is_numeric(FactType type) { return type == FactType::integer || type == FactType::number; }

double as_number(const FactValue& value) {
  if (const auto* i = std::get_if<std::int64_t>(&value)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&value)) return *d;
  if (const auto* b = std::get_if<bool>(&value)) return *b ? 1 : 0;
  return 0;
}

std::string format_value(const FactValue& value, Unit unit) {
  if (const auto* s = std::get_if<std::string>(&value)) return *s;
  if (const auto* b = std::get_if<bool>(&value)) return *b ? "true" : "false";
  const double number = as_number(value);
  switch (unit) {
    case Unit::bytes: return number < 0 ? fmt::format("{}", number) : format_bytes(static_cast<std::uint64_t>(number));
    case Unit::seconds: return format_duration(number);
    case Unit::ratio:
      // Small shares matter ("0.3% of RAM left"): keep a decimal below 10%.
      return number < 0.1 ? fmt::format("{:.1f}%", number * 100) : fmt::format("{:.0f}%", number * 100);
    case Unit::signal: {
      const int sig = static_cast<int>(number);
      return fmt::format("{} ({})", evidence::signal_name(sig), sig);
    }
    case Unit::count:
    case Unit::version:
    case Unit::none: break;
  }
  if (std::holds_alternative<std::int64_t>(value)) return fmt::format("{}", std::get<std::int64_t>(value));
  return fmt::format("{:.3g}", number);
}

}  // namespace ftdiag::facts
