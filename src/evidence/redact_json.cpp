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

}  // namespace

bool redact_json(nlohmann::json& value) {
  if (value.is_string()) return replace_if_changed(value, redact_text(value.get_ref<const std::string&>()));
  bool changed = false;
  if (value.is_array()) {
    const bool all_strings = !value.empty() && std::all_of(value.begin(), value.end(), [](const auto& v) { return v.is_string(); });
    if (all_strings) return replace_if_changed(value, redact_argv(value.get<std::vector<std::string>>()));
    for (auto& item : value) changed = redact_json(item) || changed;
  } else if (value.is_object()) {
    for (auto it = value.begin(); it != value.end(); ++it) {
      if (it.value().is_string()) {
        changed = replace_if_changed(it.value(), redact_env_value(it.key(), it.value().get_ref<const std::string&>())) || changed;
      } else {
        changed = redact_json(it.value()) || changed;
      }
    }
  }
  return changed;
}

}  // namespace ftdiag::evidence
