#include "evidence/redact_json.h"

#include "base/redact.h"

namespace ftdiag::evidence {

void redact_json(nlohmann::json& value) {
  if (value.is_string()) {
    value = redact_text(value.get_ref<const std::string&>());
  } else if (value.is_array()) {
    const bool all_strings = !value.empty() && std::all_of(value.begin(), value.end(), [](const auto& v) { return v.is_string(); });
    if (all_strings) {
      value = redact_argv(value.get<std::vector<std::string>>());
      return;
    }
    for (auto& item : value) redact_json(item);
  } else if (value.is_object()) {
    for (auto it = value.begin(); it != value.end(); ++it) {
      if (it.value().is_string()) {
        it.value() = redact_env_value(it.key(), it.value().get_ref<const std::string&>());
      } else {
        redact_json(it.value());
      }
    }
  }
}

}  // namespace ftdiag::evidence
