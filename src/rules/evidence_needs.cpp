#include "rules/evidence_needs.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "facts/registry.h"
#include "rules/data_file.h"
#include "rules/rule_loader.h"

namespace ftdiag::rules {

namespace {

using json = nlohmann::json;

bool pattern_matches(std::string_view pattern, std::string_view fact) {
  if (pattern.size() > 2 && pattern.ends_with(".*")) return fact.starts_with(pattern.substr(0, pattern.size() - 1));
  return pattern == fact;
}

bool names_a_registered_fact(std::string_view pattern) {
  for (const auto& spec : facts::fact_registry()) {
    if (pattern_matches(pattern, spec.name)) return true;
  }
  return false;
}

class EvidenceFileParser {
 public:
  EvidenceFileParser(std::string_view text, std::string file, std::vector<LoadError>& errors)
      : file_(std::move(file)), errors_(errors), positions_(index_json_positions(text)) {}

  void parse(const json& root, std::vector<EvidenceNeed>& into) {
    for (const auto& [key, value] : root.items()) {
      if (key != "kind" && key != "evidence") error("/" + escape_pointer_token(key), fmt::format("unknown key \"{}\" (kind, evidence)", key));
    }
    if (!root.contains("evidence") || !root["evidence"].is_array()) {
      error("", "an evidence file is {\"kind\": \"evidence\", \"evidence\": [{\"id\", \"facts\", \"what\", \"how\"}, ...]}");
      return;
    }
    std::set<std::string> ids;
    const auto& entries = root["evidence"];
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const std::string at = fmt::format("/evidence/{}", i);
      auto need = entry(entries[i], at);
      if (!need) continue;
      if (!ids.insert(need->id).second) {
        error(at + "/id", fmt::format("evidence id \"{}\" is used twice", need->id));
        continue;
      }
      into.push_back(std::move(*need));
    }
  }

 private:
  void error(const std::string& pointer, std::string message) {
    errors_.push_back({file_, nearest_position(positions_, pointer), pointer, std::move(message)});
  }

  std::optional<std::vector<std::string>> strings(const json& j, const std::string& key, const std::string& at) {
    if (!j.contains(key) || !j[key].is_array() || j[key].empty()) {
      error(at, fmt::format("\"{}\" is a list of one or more strings", key));
      return std::nullopt;
    }
    std::vector<std::string> out;
    for (std::size_t i = 0; i < j[key].size(); ++i) {
      const auto& item = j[key][i];
      if (!item.is_string() || item.get<std::string>().empty()) {
        error(fmt::format("{}/{}/{}", at, key, i), "a non-empty string");
        return std::nullopt;
      }
      out.push_back(item.get<std::string>());
    }
    return out;
  }

  // "how": strings, or {"step": TEXT, "unless_recorded": BOOL}.
  void steps(const json& j, const std::string& at, EvidenceNeed& need) {
    if (!j.contains("how") || !j["how"].is_array() || j["how"].empty()) {
      error(at, "\"how\" is a list of one or more steps");
      return;
    }
    for (std::size_t i = 0; i < j["how"].size(); ++i) {
      const auto& item = j["how"][i];
      const std::string item_at = fmt::format("{}/how/{}", at, i);
      if (item.is_string() && !item.get<std::string>().empty()) {
        need.how.push_back({item.get<std::string>(), false});
        continue;
      }
      const bool well_formed = item.is_object() && item.contains("step") && item["step"].is_string() &&
                               !item["step"].get<std::string>().empty() &&
                               (!item.contains("unless_recorded") || item["unless_recorded"].is_boolean()) &&
                               item.size() == (item.contains("unless_recorded") ? 2u : 1u);
      if (!well_formed) {
        error(item_at, "a step is a non-empty string, or {\"step\": TEXT, \"unless_recorded\": true}");
        continue;
      }
      need.how.push_back({item["step"].get<std::string>(), item.value("unless_recorded", false)});
    }
  }

  std::optional<EvidenceNeed> entry(const json& j, const std::string& at) {
    if (!j.is_object()) {
      error(at, "an entry is {\"id\", \"facts\", \"what\", \"how\"}");
      return std::nullopt;
    }
    const std::size_t errors_before = errors_.size();
    for (const auto& [key, value] : j.items()) {
      if (key != "id" && key != "facts" && key != "what" && key != "how") {
        error(at + "/" + escape_pointer_token(key), fmt::format("unknown key \"{}\" (id, facts, what, how)", key));
      }
    }
    EvidenceNeed need;
    need.source = file_;
    for (const char* key : {"id", "what"}) {
      if (!j.contains(key) || !j[key].is_string() || j[key].get<std::string>().empty()) {
        error(at, fmt::format("an entry needs \"{}\": a non-empty string", key));
      }
    }
    if (j.contains("id") && j["id"].is_string()) need.id = j["id"].get<std::string>();
    if (j.contains("what") && j["what"].is_string()) need.what = j["what"].get<std::string>();
    if (auto facts = strings(j, "facts", at)) {
      for (std::size_t i = 0; i < facts->size(); ++i) {
        if (!names_a_registered_fact((*facts)[i])) error(fmt::format("{}/facts/{}", at, i), fmt::format("\"{}\" names no registered fact", (*facts)[i]));
      }
      need.facts = std::move(*facts);
    }
    steps(j, at, need);
    if (errors_.size() != errors_before) return std::nullopt;
    return need;
  }

  std::string file_;
  std::vector<LoadError>& errors_;
  std::map<std::string, TextPosition> positions_;
};

std::string fill_places(std::string text, const EvidencePlaces& places) {
  auto replace_all = [&](std::string_view name, const std::string& with) {
    for (std::size_t at; (at = text.find(name)) != std::string::npos;) text.replace(at, name.size(), with);
  };
  replace_all("{host}", places.host.empty() ? "the node the job ran on" : places.host);
  replace_all("{path}", places.path.empty() ? "the job's folder" : places.path);
  return text;
}

}  // namespace

bool EvidenceNeed::provides(std::string_view fact) const {
  return std::any_of(facts.begin(), facts.end(), [&](const std::string& pattern) { return pattern_matches(pattern, fact); });
}

void parse_evidence_file(std::string_view text, const std::string& file_name, std::vector<EvidenceNeed>& into,
                         std::vector<LoadError>& errors) {
  const auto root = parse_data_file_object(
      text, file_name, "an evidence file is an object {\"kind\": \"evidence\", \"evidence\": [...]}", errors);
  if (!root) return;
  EvidenceFileParser(text, file_name, errors).parse(*root, into);
}

std::vector<NeededEvidence> needed_evidence(const std::vector<UndecidedRule>& undecided, const std::vector<EvidenceNeed>& needs,
                                            const EvidencePlaces& places, std::size_t most) {
  struct Tally {
    std::map<std::string, std::size_t> rules_by_cause;
    std::set<std::string> facts;
  };
  std::vector<Tally> tallies(needs.size());
  for (const auto& rule : undecided) {
    std::set<std::size_t> helped;
    for (const auto& fact : rule.missing_facts) {
      // The first entry that provides a fact is the evidence for it.
      for (std::size_t i = 0; i < needs.size(); ++i) {
        if (!needs[i].provides(fact)) continue;
        tallies[i].facts.insert(fact);
        helped.insert(i);
        break;
      }
    }
    for (const std::size_t i : helped) ++tallies[i].rules_by_cause[rule.cause];
  }
  auto has_step = [&](const EvidenceNeed& need) {
    return std::any_of(need.how.begin(), need.how.end(), [&](const EvidenceNeed::Step& s) { return !(s.unless_recorded && places.recorded); });
  };
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < needs.size(); ++i) {
    if (!tallies[i].rules_by_cause.empty() && has_step(needs[i])) order.push_back(i);
  }
  // Most causes first; ties in the file's order, which puts the evidence
  // that is easiest to get first.
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return tallies[a].rules_by_cause.size() > tallies[b].rules_by_cause.size();
  });
  if (order.size() > most) order.resize(most);
  std::vector<NeededEvidence> needed;
  for (const std::size_t i : order) {
    NeededEvidence n;
    n.id = needs[i].id;
    n.what = fill_places(needs[i].what, places);
    for (const auto& step : needs[i].how) {
      if (!(step.unless_recorded && places.recorded)) n.how.push_back(fill_places(step.text, places));
    }
    std::vector<std::pair<std::string, std::size_t>> causes(tallies[i].rules_by_cause.begin(), tallies[i].rules_by_cause.end());
    std::stable_sort(causes.begin(), causes.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    for (auto& [cause, count] : causes) n.causes.push_back(cause);
    n.missing_facts.assign(tallies[i].facts.begin(), tallies[i].facts.end());
    needed.push_back(std::move(n));
  }
  return needed;
}

}  // namespace ftdiag::rules
