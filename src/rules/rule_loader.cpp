#include "rules/rule_loader.h"

#include <algorithm>
#include <functional>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/read_file.h"
#include "evidence/json_input.h"
#include "rules/rule_parser.h"

namespace ftdiag::rules {

std::string LoadError::describe() const {
  return fmt::format("{}:{}:{}{}: {}", file, position.line, position.column,
                     pointer.empty() ? "" : fmt::format(" ({})", pointer), message);
}

void parse_rule_file(std::string_view text, const std::string& file_name, RuleSet& into) {
  RuleFileParser(text, file_name, into).parse();
}

std::optional<DataFileKind> data_file_kind(std::string_view kind) {
  if (kind == "rules") return DataFileKind::rules;
  if (kind == "table") return DataFileKind::table;
  if (kind == "evidence") return DataFileKind::evidence;
  if (kind == "phases" || kind == "log-events" || kind == "failure-words") return DataFileKind::collector_patterns;
  return std::nullopt;
}

namespace {

// The file's declared kind, read from its parsed top level; rules when it
// declares none or cannot be parsed (the rule parser then says why).
Fact<DataFileKind> kind_of(std::string_view text) {
  auto parsed = evidence::parse_json_input(text, {.allow_comments = true});
  const auto* root = std::get_if<nlohmann::json>(&parsed);
  if (!root || !root->is_object() || !root->contains("kind")) return DataFileKind::rules;
  const auto& kind = (*root)["kind"];
  if (!kind.is_string()) return Missing{MissingReason::unparseable, "\"kind\" must be a string"};
  if (auto known = data_file_kind(kind.get<std::string>())) return *known;
  return Missing{MissingReason::unparseable,
                 fmt::format("unknown kind \"{}\" (rules, table, evidence, phases, log-events, failure-words)", kind.get<std::string>())};
}

}  // namespace

RuleSet load_rules(const std::filesystem::path& file_or_directory) {
  RuleSet set;
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  if (std::filesystem::is_directory(file_or_directory, ec)) {
    for (const auto& entry : std::filesystem::directory_iterator(file_or_directory, ec)) {
      const auto& p = entry.path();
      if (entry.is_regular_file(ec) && p.extension() == ".json") files.push_back(p);
    }
    std::sort(files.begin(), files.end());
    if (ec) set.errors.push_back({file_or_directory.string(), {}, "", "cannot list: " + ec.message()});
  } else {
    files.push_back(file_or_directory);
  }
  for (const auto& file : files) {
    auto text = read_small_file(file, 16 << 20);
    if (!text) {
      set.errors.push_back({file.string(), {}, "", text.missing().detail});
      continue;
    }
    RuleSet one;
    // Name files as "<dir>/<file>" so messages and listings stay short and
    // read the same wherever the rules are installed.
    const auto shown = file.has_parent_path() ? (file.parent_path().filename() / file.filename()).string() : file.string();
    const auto kind = kind_of(text.value());
    if (!kind) {
      set.errors.push_back({shown, {}, "/kind", kind.missing().detail});
      continue;
    }
    if (kind.value() == DataFileKind::collector_patterns) continue;  // read by their collectors
    if (kind.value() == DataFileKind::table) {
      parse_table_file(text.value(), shown, set.tables, set.errors);
      continue;
    }
    if (kind.value() == DataFileKind::evidence) {
      parse_evidence_file(text.value(), shown, set.evidence, set.errors);
      continue;
    }
    parse_rule_file(text.value(), shown, one);
    merge_rules(set, std::move(one));
  }
  return set;
}

void merge_rules(RuleSet& base, RuleSet more) {
  for (auto& error : more.errors) base.errors.push_back(std::move(error));
  for (auto& table : more.tables) base.tables.push_back(std::move(table));
  for (auto& need : more.evidence) base.evidence.push_back(std::move(need));
  for (auto& rule : more.rules) {
    auto same = std::find_if(base.rules.begin(), base.rules.end(), [&](const Rule& r) { return r.id == rule.id; });
    if (same != base.rules.end()) {
      base.errors.push_back({rule.source, rule.id_position, rule.id_pointer,
                             fmt::format("rule id \"{}\" is also defined in {}", rule.id, same->source)});
      continue;
    }
    base.rules.push_back(std::move(rule));
  }
}

std::vector<LoadError> check_refinements(const std::vector<Rule>& rules, const std::vector<Rule>& also_known) {
  std::vector<LoadError> errors;
  auto find = [&](const std::string& id) -> const Rule* {
    for (const auto* list : {&rules, &also_known}) {
      auto it = std::find_if(list->begin(), list->end(), [&](const Rule& r) { return r.id == id; });
      if (it != list->end()) return &*it;
    }
    return nullptr;
  };
  auto fail = [&](const Rule& r, std::string message) {
    errors.push_back({r.source, r.refines_position, r.refines_pointer, std::move(message)});
  };
  for (const auto& r : rules) {
    if (!r.refines.empty() && r.role != RuleRole::primary) fail(r, "only a primary rule refines another");
    for (const auto& id : r.refines) {
      const Rule* target = find(id);
      if (id == r.id) fail(r, "a rule cannot refine itself");
      else if (!target) fail(r, fmt::format("refines \"{}\", which is not a loaded rule", id));
      else if (target->role != RuleRole::primary) {
        fail(r, fmt::format("refines \"{}\", which is not a primary rule ({})", id,
                            target->role == RuleRole::check ? "a check" : target->role == RuleRole::fallback ? "a fallback" : "a consequence"));
      }
    }
  }
  // A cycle (a refines b refines a) would leave no most specific rule:
  // depth-first over the references, where reaching a rule still open
  // closes a cycle. The depth is at most the number of rules.
  enum class Mark { open, done };
  std::map<std::string, Mark> marks;
  std::vector<std::string> trail;
  std::function<void(const Rule&)> visit = [&](const Rule& r) {
    marks[r.id] = Mark::open;
    trail.push_back(r.id);
    for (const auto& id : r.refines) {
      const Rule* next = find(id);
      if (!next || next == &r) continue;
      if (auto it = marks.find(id); it == marks.end()) {
        visit(*next);
      } else if (it->second == Mark::open) {
        auto cycle = std::vector<std::string>(std::find(trail.begin(), trail.end(), id), trail.end());
        cycle.push_back(id);
        fail(r, fmt::format("refinements form a cycle: {}", fmt::join(cycle, " -> ")));
      }
    }
    trail.pop_back();
    marks[r.id] = Mark::done;
  };
  for (const auto& r : rules) {
    if (!marks.count(r.id)) visit(r);
  }
  return errors;
}

}  // namespace ftdiag::rules
