#include "rules/rule_parser.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "evidence/json_input.h"
#include "rules/causes.h"
#include "rules/explanation.h"

namespace ftdiag::rules {

void RuleFileParser::parse() {
  auto parsed = evidence::parse_json_input(text_, {.allow_comments = true});
  if (auto* failure = std::get_if<evidence::JsonInputError>(&parsed)) {
    const TextPosition at = failure->line > 0 ? TextPosition{failure->line, failure->column} : locate(failure->pointer);
    into_.errors.push_back({file_, at, failure->pointer, failure->message});
    return;
  }
  json root = std::move(std::get<json>(parsed));
  if (!root.is_object() || !root.contains("rules") || !root["rules"].is_array()) {
    error("", "a rule file is an object {\"rules\": [ ... ]}");
    return;
  }
  for (const auto& [key, value] : root.items()) {
    if (key != "rules" && key != "$comment" && key != "kind") error("/" + escape_pointer_token(key), fmt::format("unknown key \"{}\"", key));
  }
  for (std::size_t i = 0; i < root["rules"].size(); ++i) {
    const auto before = errors_;
    auto parsed = rule(root["rules"][i], fmt::format("/rules/{}", i));
    if (parsed && errors_ == before) into_.rules.push_back(std::move(*parsed));
  }
}

std::optional<std::string> RuleFileParser::string_field(const json& j, const char* key, const std::string& at, bool required) {
  if (!j.contains(key)) {
    if (required) error(at, fmt::format("missing \"{}\"", key));
    return std::nullopt;
  }
  if (!j[key].is_string() || j[key].get<std::string>().empty()) {
    error(at + "/" + key, fmt::format("\"{}\" must be a non-empty string", key));
    return std::nullopt;
  }
  return j[key].get<std::string>();
}

void RuleFileParser::check_template(const std::string& text, const std::string& at) {
  for (const auto& name : template_facts(text)) {
    if (!facts::find_fact(name)) error(at, fmt::format("the text names an unknown fact \"{{{}}}\"", name));
  }
}

std::vector<WeightedCondition> RuleFileParser::weighted(const json& j, const char* key, const std::string& at) {
  std::vector<WeightedCondition> out;
  if (!j.contains(key)) return out;
  const std::string list_at = at + "/" + key;
  if (!j[key].is_array()) {
    error(list_at, fmt::format("\"{}\" is an array of {{\"if\": CONDITION, \"weight\": 0..1, \"says\": TEXT}}", key));
    return out;
  }
  for (std::size_t i = 0; i < j[key].size(); ++i) {
    const auto& item = j[key][i];
    const std::string item_at = fmt::format("{}/{}", list_at, i);
    if (!item.is_object() || !item.contains("if") || !item.contains("weight") || !item.contains("says")) {
      error(item_at, "needs \"if\", \"weight\" and \"says\"");
      continue;
    }
    for (const auto& [k, v] : item.items()) {
      if (k != "if" && k != "weight" && k != "says") error(item_at + "/" + escape_pointer_token(k), fmt::format("unknown key \"{}\"", k));
    }
    auto c = condition(item["if"], item_at + "/if");
    if (!item["weight"].is_number() || item["weight"].get<double>() < 0 || item["weight"].get<double>() > 1) {
      error(item_at + "/weight", "\"weight\" is a number from 0 to 1");
      continue;
    }
    auto says = string_field(item, "says", item_at, true);
    if (!c || !says) continue;
    check_template(*says, item_at + "/says");
    out.push_back({std::move(*c), item["weight"].get<double>(), *says});
  }
  return out;
}

std::optional<Rule> RuleFileParser::rule(const json& j, const std::string& at) {
  static const std::set<std::string> kKeys = {"id", "cause", "role", "title", "confidence", "when", "support",
                                              "against", "scope", "summary", "remediation", "references", "refines",
                                              "severity", "$comment"};
  if (!j.is_object()) {
    error(at, "a rule is an object");
    return std::nullopt;
  }
  for (const auto& [key, value] : j.items()) {
    if (!kKeys.count(key)) error(at + "/" + escape_pointer_token(key), fmt::format("unknown key \"{}\"", key));
  }
  Rule r;
  r.source = file_;
  auto id = string_field(j, "id", at, true);
  if (id) {
    r.id = *id;
    r.id_pointer = at + "/id";
    r.id_position = locate(r.id_pointer);
    if (!std::all_of(r.id.begin(), r.id.end(), [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-'; })) {
      error(at + "/id", "a rule id uses only a-z, 0-9 and '-'");
    }
  }
  if (auto role = string_field(j, "role", at, false)) {
    if (*role == "consequence") r.role = RuleRole::consequence;
    else if (*role == "check") r.role = RuleRole::check;
    else if (*role == "fallback") r.role = RuleRole::fallback;
    else if (*role != "primary") error(at + "/role", "\"role\" is \"primary\", \"consequence\", \"check\" or \"fallback\"");
  }
  // A check may name the cause it risks (shm-exhausted) or none (core dumps
  // disabled: a diagnosis would be blind, nothing would die of it).
  auto cause = string_field(j, "cause", at, r.role != RuleRole::check);
  const CauseSpec* cause_spec = cause ? find_cause(*cause) : nullptr;
  if (cause && !cause_spec) error(at + "/cause", fmt::format("unknown cause \"{}\" (see `ftdiag explain`)", *cause));
  if (cause) r.cause = *cause;
  if (auto severity = string_field(j, "severity", at, r.role == RuleRole::check)) {
    if (r.role != RuleRole::check) error(at + "/severity", "only a check (\"role\": \"check\") has a severity");
    if (*severity == "error") r.severity = Severity::error;
    else if (*severity == "warning") r.severity = Severity::warning;
    else if (*severity == "info") r.severity = Severity::info;
    else error(at + "/severity", "\"severity\" is \"error\", \"warning\" or \"info\"");
  }
  if (r.role == RuleRole::check && j.contains("refines")) error(at + "/refines", "a check refines nothing: it is not a verdict");
  r.title = string_field(j, "title", at, false).value_or(r.id);
  if (r.role == RuleRole::check && !j.contains("confidence")) {
    r.confidence = 1;  // a check's finding is as sure as its facts unless it says otherwise
  } else if (!j.contains("confidence") || !j["confidence"].is_number() || j["confidence"].get<double>() < 0 ||
      j["confidence"].get<double>() > 1) {
    error(at + (j.contains("confidence") ? "/confidence" : ""), "\"confidence\" is required: a number from 0 to 1");
  } else {
    r.confidence = j["confidence"].get<double>();
  }
  if (!j.contains("when")) {
    error(at, "missing \"when\"");
  } else if (auto c = condition(j["when"], at + "/when")) {
    r.when = std::move(*c);
  }
  if (j.contains("refines")) {
    r.refines_pointer = at + "/refines";
    r.refines_position = locate(r.refines_pointer);
    const auto& list = j["refines"];
    if (!list.is_array() || list.empty()) {
      error(r.refines_pointer, "\"refines\" is a non-empty array of rule ids");
    } else {
      for (std::size_t i = 0; i < list.size(); ++i) {
        if (!list[i].is_string() || list[i].get<std::string>().empty()) {
          error(fmt::format("{}/{}", r.refines_pointer, i), "a rule id (a non-empty string)");
        } else {
          r.refines.push_back(list[i].get<std::string>());
        }
      }
    }
  }
  r.support = weighted(j, "support", at);
  r.against = weighted(j, "against", at);
  if (r.role == RuleRole::fallback) {
    double most = r.confidence;
    for (const auto& s : r.support) most += s.weight;
    if (most > kFallbackMaxConfidence + 1e-9) {
      error(at + "/confidence", fmt::format("a fallback rule's confidence and support add up to at most {} (here {:.2f}): weak evidence is never sure",
                                            kFallbackMaxConfidence, most));
    }
  }
  if (j.contains("scope")) {
    if (cause_spec && !cause_spec->is_oom) error(at + "/scope", fmt::format("only OOM causes carry a scope; \"{}\" is not one", r.cause));
    if (!j["scope"].is_array()) {
      error(at + "/scope", "\"scope\" is an array of {\"if\": CONDITION, \"scope\": node|cgroup|userspace}");
    } else {
      for (std::size_t i = 0; i < j["scope"].size(); ++i) {
        const auto& item = j["scope"][i];
        const std::string item_at = fmt::format("{}/scope/{}", at, i);
        if (!item.is_object() || !item.contains("if") || !item.contains("scope")) {
          error(item_at, "needs \"if\" and \"scope\"");
          continue;
        }
        auto c = condition(item["if"], item_at + "/if");
        auto scope = string_field(item, "scope", item_at, true);
        if (scope && !is_valid_scope(*scope)) error(item_at + "/scope", "scope is node, cgroup or userspace");
        if (c && scope) r.scope.push_back({std::move(*c), *scope});
      }
    }
  }
  if (auto summary = string_field(j, "summary", at, true)) {
    r.summary = *summary;
    check_template(r.summary, at + "/summary");
  }
  if (!j.contains("remediation") || !j["remediation"].is_array() || j["remediation"].empty()) {
    error(at + (j.contains("remediation") ? "/remediation" : ""), "\"remediation\" is a non-empty array of steps");
  } else {
    for (std::size_t i = 0; i < j["remediation"].size(); ++i) {
      const auto& item = j["remediation"][i];
      const std::string step_at = fmt::format("{}/remediation/{}", at, i);
      // A step is a text, or {"step": TEXT, "unless": CONDITION} for advice
      // that does not fit every job.
      const bool conditional = item.is_object() && item.contains("step") && item.contains("unless") && item.size() == 2;
      const auto& step = conditional ? item["step"] : item;
      if (!step.is_string()) {
        error(step_at, "a remediation step is a string, or {\"step\": TEXT, \"unless\": CONDITION}");
        continue;
      }
      check_template(step.get<std::string>(), step_at);
      if (conditional) {
        if (auto c = condition(item["unless"], step_at + "/unless")) r.remediation_unless.emplace(r.remediation.size(), std::move(*c));
      }
      r.remediation.push_back(step.get<std::string>());
    }
  }
  if (j.contains("references")) {
    if (!j["references"].is_array() || !std::all_of(j["references"].begin(), j["references"].end(), [](const json& v) { return v.is_string(); })) {
      error(at + "/references", "\"references\" is an array of strings");
    } else {
      r.references = j["references"].get<std::vector<std::string>>();
    }
  }
  return r;
}

}  // namespace ftdiag::rules
