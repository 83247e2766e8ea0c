#include "evidence/redact_document.h"

#include "evidence/document_json.h"
#include "evidence/redact_json.h"

namespace ftdiag::evidence {

Fact<bool> apply_redaction(EvidenceDocument& document, Redaction redaction) {
  if (redaction == Redaction::off) {
    if (document.redaction != "on") document.redaction = "off";
    return true;
  }
  nlohmann::json json = document_to_json(document);
  redact_json(json);
  auto redacted = document_from_json(json);
  if (!redacted) return Missing{MissingReason::failed, "the redacted evidence does not read back: " + redacted.missing().detail};
  document = std::move(redacted).value();
  document.redaction = "on";
  return true;
}

}  // namespace ftdiag::evidence
