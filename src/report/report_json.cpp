#include "report/report_json.h"

#include "evidence/document_json.h"
#include "facts/incident.h"
#include "report/ranks_table.h"

namespace ftdiag::report {

using nlohmann::json;

namespace {

json optional_string(const std::optional<std::string>& s) { return s ? json(*s) : json(nullptr); }

json cited_to_json(const std::vector<rules::CitedFact>& cited) {
  json out = json::array();
  for (const auto& c : cited) {
    json value;
    std::visit([&](const auto& v) { value = v; }, c.value);
    out.push_back({{"fact", c.fact}, {"pointer", c.pointer}, {"value", value}, {"display", c.display}});
  }
  return out;
}

json weighed_to_json(const std::vector<rules::WeighedEvidence>& items) {
  json out = json::array();
  for (const auto& item : items) {
    out.push_back({{"says", item.says}, {"weight", item.weight}, {"evidence", cited_to_json(item.facts)}});
  }
  return out;
}

}  // namespace

json verdict_to_json(const rules::Verdict& verdict) {
  json needed = json::array();
  for (const auto& need : verdict.needed) {
    needed.push_back({{"id", need.id}, {"what", need.what}, {"how", need.how}, {"causes", need.causes},
                      {"missing_facts", need.missing_facts}});
  }
  return {{"cause", verdict.cause},
          {"confidence", verdict.confidence},
          {"scope", optional_string(verdict.scope)},
          {"summary", verdict.summary},
          {"rule", verdict.rule.empty() ? json(nullptr) : json(verdict.rule)},
          {"missing_facts", verdict.missing_facts},
          {"needed", std::move(needed)},
          {"notes", verdict.notes},
          {"ended_normally", verdict.ended_normally}};
}

json finding_to_json(const rules::Finding& f) {
  json out = {{"cause", f.cause.empty() ? json(nullptr) : json(f.cause)},
          {"rule", f.rule},
          {"title", f.title},
          {"confidence", f.confidence},
          {"scope", optional_string(f.scope)},
          {"summary", f.summary},
          {"evidence", cited_to_json(f.evidence)},
          {"supporting", weighed_to_json(f.supporting)},
          {"contradicting", weighed_to_json(f.contradicting)},
          {"remediation", f.remediation},
          {"references", f.references},
          {"consequence_of", optional_string(f.consequence_of)},
          {"refined_by", optional_string(f.refined_by)}};
  if (f.severity) out["severity"] = rules::to_string(*f.severity);
  return out;
}

json checks_to_json(const std::vector<rules::Finding>& checks) {
  json out = json::array();
  for (const auto& c : checks) out.push_back(finding_to_json(c));
  return out;
}

json report_to_json(const evidence::EvidenceDocument& document, const rules::Judgement& judgement) {
  json findings = json::array();
  for (const auto& f : judgement.findings) findings.push_back(finding_to_json(f));
  auto ranks = ranks_table(document, facts::find_incident(document));
  return {{"schema_version", kReportSchemaVersion},
          {"verdict", verdict_to_json(judgement.verdict)},
          {"findings", std::move(findings)},
          {"checks", checks_to_json(judgement.checks)},
          {"ranks", ranks.rows.empty() ? nlohmann::json(nullptr) : std::move(ranks.json)},
          {"evidence", evidence::document_to_json(document)}};
}

}  // namespace ftdiag::report
