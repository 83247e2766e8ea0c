#include "evidence/redact_json.h"

#include <algorithm>

#include "base/redact.h"

namespace ftdiag::evidence {

namespace {

template <class T>
bool replace_if_changed(nlohmann::json& value, T redacted) {
  if (value == redacted) return false;
  value = std::move(redacted);
  return true;
}

// `lines` carries a private key block from one string of an array to the
// next; each array starts its own sequence.
bool redact_in(nlohmann::json& value, LineRedactor& lines) {
  if (value.is_string()) return replace_if_changed(value, lines.text(value.get_ref<const std::string&>()));
  bool changed = false;
  if (value.is_array()) {
    LineRedactor sequence;
    const bool all_strings = !value.empty() && std::all_of(value.begin(), value.end(), [](const auto& v) { return v.is_string(); });
    if (all_strings) return replace_if_changed(value, sequence.argv(value.get<std::vector<std::string>>()));
    for (auto& item : value) changed = redact_in(item, sequence) || changed;
  } else if (value.is_object()) {
    for (auto it = value.begin(); it != value.end(); ++it) {
      if (it.value().is_string()) {
        changed = replace_if_changed(it.value(), lines.named_value(it.key(), it.value().get_ref<const std::string&>())) || changed;
      } else {
        changed = redact_in(it.value(), lines) || changed;
      }
    }
  }
  return changed;
}

}  // namespace

bool redact_json(nlohmann::json& value) {
  LineRedactor lines;
  return redact_in(value, lines);
}

}  // namespace ftdiag::evidence
