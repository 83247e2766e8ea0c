// The report contract (docs/report-json.md): what `ftdiag analyze --format
// json`, `ftdiag judge` and later `ftdiag preflight` print.
#pragma once

#include <nlohmann/json.hpp>

#include "evidence/document.h"
#include "rules/engine.h"

namespace ftdiag::report {

// Bumped on any incompatible change of the report's JSON form.
// 2: verdict.notes, findings[].refined_by; 3: checks[] (findings with a
// severity about a risk), findings[].title.
inline constexpr int kReportSchemaVersion = 6;

nlohmann::json report_to_json(const evidence::EvidenceDocument& document, const rules::Judgement& judgement);

nlohmann::json finding_to_json(const rules::Finding& finding);
nlohmann::json verdict_to_json(const rules::Verdict& verdict);
nlohmann::json checks_to_json(const std::vector<rules::Finding>& checks);

}  // namespace ftdiag::report
