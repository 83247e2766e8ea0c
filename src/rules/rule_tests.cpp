#include "rules/rule_tests.h"

#include <algorithm>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/read_file.h"
#include "evidence/document_json.h"
#include "evidence/json_input.h"
#include "facts/extract.h"
#include "facts/facts_json.h"
#include "rules/causes.h"
#include "rules/engine.h"

namespace ftdiag::rules {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

Fact<json> read_json(const fs::path& file) {
  auto text = read_small_file(file, 64 << 20);
  if (!text) return text.missing();
  auto parsed = evidence::parse_json_input(text.value(), {.allow_comments = true});
  if (auto* failure = std::get_if<evidence::JsonInputError>(&parsed)) {
    return Missing{MissingReason::unparseable, file.string() + ": " + failure->describe()};
  }
  return std::move(std::get<json>(parsed));
}

Fact<facts::FactSet> case_facts(const fs::path& dir) {
  if (fs::exists(dir / "facts.json")) {
    auto j = read_json(dir / "facts.json");
    if (!j) return j.missing();
    return facts::facts_from_json(j.value());
  }
  auto j = read_json(dir / "evidence.json");
  if (!j) return j.missing();
  // A whole report is accepted too: its "evidence" member is the document.
  const json& doc = j->contains("evidence") ? (*j)["evidence"] : j.value();
  auto document = evidence::document_from_json(doc);
  if (!document) return document.missing();
  return facts::extract_facts(document.value());
}

// Empty when expect.json says something checkable, else what is wrong with
// it: a misspelt key or a wrong type would otherwise pass silently.
std::string invalid_expectation(const json& expect) {
  if (!expect.is_object()) return "expect.json must be an object";
  std::size_t checks = 0;
  for (const auto& [key, value] : expect.items()) {
    if (key == "$comment") continue;
    ++checks;
    if (key == "fires") {
      if (!value.is_boolean()) return "\"fires\" must be true or false";
    } else if (key == "min_confidence" || key == "max_confidence") {
      if (!value.is_number() || value.get<double>() < 0 || value.get<double>() > 1) {
        return fmt::format("\"{}\" must be a number from 0 to 1", key);
      }
    } else if (key == "scope") {
      if (!value.is_null() && !(value.is_string() && is_valid_scope(value.get<std::string>()))) {
        return "\"scope\" must be null, \"node\", \"cgroup\" or \"userspace\"";
      }
    } else if (key == "consequence_of" || key == "refined_by") {
      if (!value.is_string() || value.get<std::string>().empty()) return fmt::format("\"{}\" must be a rule id", key);
    } else if (key == "verdict") {
      if (!value.is_string() || !find_cause(value.get<std::string>())) return "\"verdict\" must be a cause id (docs/causes.md)";
    } else {
      return fmt::format("unknown key \"{}\" (known: fires, min_confidence, max_confidence, scope, consequence_of, refined_by, verdict)", key);
    }
  }
  if (checks == 0) return "expect.json checks nothing: give at least \"fires\"";
  const bool fires = expect.value("fires", true);
  if (!fires) {
    for (const char* key : {"min_confidence", "max_confidence", "scope", "consequence_of", "refined_by"}) {
      if (expect.contains(key)) return fmt::format("\"{}\" cannot be checked on a rule expected not to fire", key);
    }
  }
  return {};
}

// Empty when the case passes.
std::string check(const json& expect, const std::string& rule_id, const Judgement& judgement) {
  auto finding = std::find_if(judgement.findings.begin(), judgement.findings.end(),
                              [&](const Finding& f) { return f.rule == rule_id; });
  if (finding == judgement.findings.end()) {
    finding = std::find_if(judgement.checks.begin(), judgement.checks.end(), [&](const Finding& f) { return f.rule == rule_id; });
    if (finding == judgement.checks.end()) finding = judgement.findings.end();
  }
  const bool fired = finding != judgement.findings.end();
  const bool want = expect.value("fires", true);
  if (fired != want) {
    return fmt::format("expected the rule {}to fire, but it {}", want ? "" : "not ",
                       fired ? fmt::format("did ({:.2f})", finding->confidence) : "did not");
  }
  if (fired) {
    if (expect.contains("min_confidence") && finding->confidence < expect["min_confidence"].get<double>()) {
      return fmt::format("confidence {:.2f} < expected minimum {}", finding->confidence, expect["min_confidence"].dump());
    }
    if (expect.contains("max_confidence") && finding->confidence > expect["max_confidence"].get<double>()) {
      return fmt::format("confidence {:.2f} > expected maximum {}", finding->confidence, expect["max_confidence"].dump());
    }
    if (expect.contains("scope")) {
      const std::string want_scope = expect["scope"].is_null() ? "null" : expect["scope"].get<std::string>();
      const std::string got = finding->scope.value_or("null");
      if (got != want_scope) return fmt::format("scope {} != expected {}", got, want_scope);
    }
    if (expect.contains("refined_by")) {
      const std::string got = finding->refined_by.value_or("null");
      if (got != expect["refined_by"].get<std::string>()) {
        return fmt::format("refined_by {} != expected {}", got, expect["refined_by"].dump());
      }
    }
    if (expect.contains("consequence_of")) {
      const std::string got = finding->consequence_of.value_or("null");
      if (got != expect["consequence_of"].get<std::string>()) {
        return fmt::format("consequence_of {} != expected {}", got, expect["consequence_of"].dump());
      }
    }
  }
  if (expect.contains("verdict") && judgement.verdict.cause != expect["verdict"].get<std::string>()) {
    return fmt::format("verdict {} != expected {}", judgement.verdict.cause, expect["verdict"].dump());
  }
  return {};
}

RuleTestResult run_case(const RuleSet& set, const std::string& rule_id, const fs::path& dir) {
  const auto& rules = set.rules;
  RuleTestResult result{fmt::format("{}/{}", rule_id, dir.filename().string()), false, {}};
  if (std::none_of(rules.begin(), rules.end(), [&](const Rule& r) { return r.id == rule_id; })) {
    result.detail = fmt::format("no rule named \"{}\" is loaded", rule_id);
    return result;
  }
  auto expect = read_json(dir / "expect.json");
  auto facts = case_facts(dir);
  if (!expect || !facts) {
    result.detail = !expect ? expect.missing().detail : facts.missing().detail;
    return result;
  }
  if (auto invalid = invalid_expectation(expect.value()); !invalid.empty()) {
    result.detail = fmt::format("{}: {}", (dir / "expect.json").string(), invalid);
    return result;
  }
  apply_tables(set.tables, facts.value());
  result.detail = check(expect.value(), rule_id, judge(rules, facts.value()));
  result.passed = result.detail.empty();
  return result;
}

std::vector<fs::path> sorted_subdirectories(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.is_directory(ec)) out.push_back(entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::vector<RuleTestResult> run_rule_tests(const RuleSet& rules, const fs::path& tests_dir) {
  std::vector<RuleTestResult> results;
  for (const auto& rule_dir : sorted_subdirectories(tests_dir)) {
    for (const auto& case_dir : sorted_subdirectories(rule_dir)) {
      results.push_back(run_case(rules, rule_dir.filename().string(), case_dir));
    }
  }
  return results;
}

}  // namespace ftdiag::rules
