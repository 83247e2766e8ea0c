#include "evidence/fact_json.h"

namespace ftdiag::evidence {

nlohmann::json missing_to_json(const Missing& missing) {
  return {{"missing", {{"reason", to_string(missing.reason)}, {"detail", missing.detail}}}};
}

bool is_missing_json(const nlohmann::json& j) {
  return j.is_object() && j.size() == 1 && j.contains("missing") && j["missing"].is_object();
}

Missing missing_from_json(const nlohmann::json& j) {
  const auto& inner = j.at("missing");
  return Missing{missing_reason_from_string(inner.value("reason", "failed")),
                 inner.value("detail", "")};
}

}  // namespace ftdiag::evidence
