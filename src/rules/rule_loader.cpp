#include "rules/rule_loader.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <re2/re2.h>

#include "base/read_file.h"
#include "facts/registry.h"
#include "rules/causes.h"
#include "rules/explanation.h"

namespace ftdiag::rules {

using nlohmann::json;

std::string LoadError::describe() const {
  return fmt::format("{}:{}:{}{}: {}", file, position.line, position.column,
                     pointer.empty() ? "" : fmt::format(" ({})", pointer), message);
}

namespace {

// Validation state for one file.
class FileParser {
 public:
  FileParser(std::string_view text, std::string file, RuleSet& into)
      : text_(text), file_(std::move(file)), into_(into), positions_(index_json_positions(text)) {}

  void parse();

 private:
  // The position of a pointer, or of its nearest indexed ancestor.
  TextPosition locate(const std::string& pointer) const {
    for (std::string p = pointer;; p = p.substr(0, p.rfind('/'))) {
      if (auto it = positions_.find(p); it != positions_.end()) return it->second;
      if (p.empty()) return {};
    }
  }

  void error(const std::string& pointer, std::string message) {
    ++errors_;
    into_.errors.push_back({file_, locate(pointer), pointer, std::move(message)});
  }

  std::optional<Rule> rule(const json& j, const std::string& at);
  std::optional<Condition> condition(const json& j, const std::string& at, int depth = 0);
  std::optional<Condition> comparison(const json& j, const std::string& at);
  std::optional<facts::FactValue> operand(const json& j, const facts::FactSpec& spec, const std::string& at);
  void check_template(const std::string& text, const std::string& at);
  std::optional<std::string> string_field(const json& j, const char* key, const std::string& at, bool required);
  std::vector<WeightedCondition> weighted(const json& j, const char* key, const std::string& at);

  std::string_view text_;
  std::string file_;
  RuleSet& into_;
  std::map<std::string, TextPosition> positions_;
  std::size_t errors_ = 0;
};

void FileParser::parse() {
  json root = json::parse(text_, nullptr, /*allow_exceptions=*/false, /*ignore_comments=*/true);
  if (root.is_discarded()) {
    // Re-parse with exceptions only to get nlohmann's byte offset.
    try {
      (void)json::parse(text_, nullptr, true, true);
    } catch (const json::parse_error& e) {
      TextPosition at;
      for (std::size_t i = 0; i + 1 < e.byte && i < text_.size(); ++i) {
        if (text_[i] == '\n') {
          ++at.line;
          at.column = 1;
        } else {
          ++at.column;
        }
      }
      into_.errors.push_back({file_, at, "", fmt::format("not valid JSON: {}", e.what())});
      return;
    }
  }
  if (!root.is_object() || !root.contains("rules") || !root["rules"].is_array()) {
    error("", "a rule file is an object {\"rules\": [ ... ]}");
    return;
  }
  for (const auto& [key, value] : root.items()) {
    if (key != "rules" && key != "$comment") error("/" + escape_pointer_token(key), fmt::format("unknown key \"{}\"", key));
  }
  for (std::size_t i = 0; i < root["rules"].size(); ++i) {
    const auto before = errors_;
    auto parsed = rule(root["rules"][i], fmt::format("/rules/{}", i));
    if (parsed && errors_ == before) into_.rules.push_back(std::move(*parsed));
  }
}

std::optional<std::string> FileParser::string_field(const json& j, const char* key, const std::string& at, bool required) {
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

void FileParser::check_template(const std::string& text, const std::string& at) {
  for (const auto& name : template_facts(text)) {
    if (!facts::find_fact(name)) error(at, fmt::format("the text names an unknown fact \"{{{}}}\"", name));
  }
}

std::optional<facts::FactValue> FileParser::operand(const json& j, const facts::FactSpec& spec, const std::string& at) {
  using facts::FactType;
  if (facts::is_numeric(spec.type) && j.is_number()) {
    if (j.is_number_integer()) return facts::FactValue{j.get<std::int64_t>()};
    return facts::FactValue{j.get<double>()};
  }
  if (spec.type == FactType::string && j.is_string()) return facts::FactValue{j.get<std::string>()};
  if (spec.type == FactType::boolean && j.is_boolean()) return facts::FactValue{j.get<bool>()};
  // Quote a scalar operand (short); name the type of anything else: a hostile
  // operand may be huge or nested deep.
  std::string shown = j.is_primitive() ? j.dump() : std::string("an ") + j.type_name();
  if (shown.size() > 80) shown = shown.substr(0, 77) + "...";
  error(at, fmt::format("fact \"{}\" is of type {}; cannot compare it with {}", spec.name, facts::to_string(spec.type), shown));
  return std::nullopt;
}

std::optional<Condition> FileParser::comparison(const json& j, const std::string& at) {
  static const std::map<std::string, Condition::Op> kOps = {
      {"eq", Condition::Op::eq},   {"ne", Condition::Op::ne},           {"lt", Condition::Op::lt},
      {"lte", Condition::Op::lte}, {"gt", Condition::Op::gt},           {"gte", Condition::Op::gte},
      {"matches", Condition::Op::matches}, {"exists", Condition::Op::exists}, {"in", Condition::Op::in}};
  Condition c;
  c.kind = Condition::Kind::compare;
  if (!j["fact"].is_string()) {
    error(at + "/fact", "\"fact\" must be a string");
    return std::nullopt;
  }
  c.fact = j["fact"].get<std::string>();
  const facts::FactSpec* spec = facts::find_fact(c.fact);
  if (!spec) {
    error(at + "/fact", fmt::format("unknown fact \"{}\" (see `ftdiag rules facts`)", c.fact));
    return std::nullopt;
  }
  std::string op_key;
  for (const auto& [key, value] : j.items()) {
    if (key == "fact") continue;
    if (!kOps.count(key)) {
      error(at + "/" + escape_pointer_token(key), fmt::format("unknown operator \"{}\" (eq ne lt lte gt gte matches exists in)", key));
      return std::nullopt;
    }
    if (!op_key.empty()) {
      error(at, "a comparison has exactly one operator");
      return std::nullopt;
    }
    op_key = key;
  }
  if (op_key.empty()) {
    error(at, "a comparison needs an operator (eq ne lt lte gt gte matches exists in)");
    return std::nullopt;
  }
  c.op = kOps.at(op_key);
  const json& value = j[op_key];
  const std::string value_at = at + "/" + op_key;
  switch (c.op) {
    case Condition::Op::exists:
      if (!value.is_boolean()) {
        error(value_at, "\"exists\" takes true or false");
        return std::nullopt;
      }
      c.operands.push_back(value.get<bool>());
      return c;
    case Condition::Op::lt:
    case Condition::Op::lte:
    case Condition::Op::gt:
    case Condition::Op::gte:
      if (!facts::is_numeric(spec->type)) {
        error(value_at, fmt::format("fact \"{}\" is of type {}; \"{}\" needs a number", c.fact, facts::to_string(spec->type), op_key));
        return std::nullopt;
      }
      break;
    case Condition::Op::matches: {
      if (spec->type != facts::FactType::string || !value.is_string()) {
        error(value_at, fmt::format("\"matches\" needs a string fact and a pattern (\"{}\" is of type {})", c.fact, facts::to_string(spec->type)));
        return std::nullopt;
      }
      const auto pattern = value.get<std::string>();
      if (pattern.size() > kMaxPatternLength) {
        error(value_at, fmt::format("pattern longer than {} characters", kMaxPatternLength));
        return std::nullopt;
      }
      RE2::Options options;
      options.set_log_errors(false);
      options.set_max_mem(kMaxPatternMemory);
      auto regex = std::make_shared<const RE2>(pattern, options);
      if (!regex->ok()) {
        error(value_at, fmt::format("bad or too large regular expression: {}", regex->error()));
        return std::nullopt;
      }
      c.regex = std::move(regex);
      c.operands.push_back(pattern);
      return c;
    }
    case Condition::Op::in:
      if (!value.is_array() || value.empty()) {
        error(value_at, "\"in\" takes a non-empty array");
        return std::nullopt;
      }
      for (std::size_t i = 0; i < value.size(); ++i) {
        auto v = operand(value[i], *spec, fmt::format("{}/{}", value_at, i));
        if (!v) return std::nullopt;
        c.operands.push_back(std::move(*v));
      }
      return c;
    default: break;
  }
  auto v = operand(value, *spec, value_at);
  if (!v) return std::nullopt;
  c.operands.push_back(std::move(*v));
  return c;
}

std::optional<Condition> FileParser::condition(const json& j, const std::string& at, int depth) {
  // Real rules nest a few levels; a bound keeps a hostile file from
  // exhausting the stack of the recursive parser and evaluator.
  constexpr int kMaxConditionDepth = 100;
  if (depth > kMaxConditionDepth) {
    error(at, fmt::format("conditions nested deeper than {} levels", kMaxConditionDepth));
    return std::nullopt;
  }
  if (!j.is_object() || j.size() == 0) {
    error(at, "a condition is an object: {\"all\": [...]}, {\"any\": [...]}, {\"not\": ...} or {\"fact\": ..., OP: ...}");
    return std::nullopt;
  }
  if (j.contains("fact")) return comparison(j, at);
  if (j.size() != 1) {
    error(at, "a condition has exactly one of \"all\", \"any\", \"not\" (or is a comparison with \"fact\")");
    return std::nullopt;
  }
  // The single member (an iterator, not items(): its proxy is a temporary).
  const auto member = j.begin();
  const std::string key = member.key();
  const json& value = member.value();
  Condition c;
  if (key == "not") {
    c.kind = Condition::Kind::negation;
    auto inner = condition(value, at + "/not", depth + 1);
    if (!inner) return std::nullopt;
    c.children.push_back(std::move(*inner));
    return c;
  }
  if (key != "all" && key != "any") {
    error(at + "/" + escape_pointer_token(key), fmt::format("unknown condition \"{}\" (all any not fact)", key));
    return std::nullopt;
  }
  c.kind = key == "all" ? Condition::Kind::all : Condition::Kind::any;
  if (!value.is_array() || value.empty()) {
    error(at + "/" + key, fmt::format("\"{}\" takes a non-empty array of conditions", key));
    return std::nullopt;
  }
  for (std::size_t i = 0; i < value.size(); ++i) {
    auto child = condition(value[i], fmt::format("{}/{}/{}", at, key, i), depth + 1);
    if (!child) return std::nullopt;
    c.children.push_back(std::move(*child));
  }
  return c;
}

std::vector<WeightedCondition> FileParser::weighted(const json& j, const char* key, const std::string& at) {
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

std::optional<Rule> FileParser::rule(const json& j, const std::string& at) {
  static const std::set<std::string> kKeys = {"id", "cause", "role", "title", "confidence", "when", "support",
                                              "against", "scope", "summary", "remediation", "references", "$comment"};
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
  auto cause = string_field(j, "cause", at, true);
  const CauseSpec* cause_spec = cause ? find_cause(*cause) : nullptr;
  if (cause && !cause_spec) error(at + "/cause", fmt::format("unknown cause \"{}\" (see `ftdiag explain`)", *cause));
  if (cause) r.cause = *cause;
  if (auto role = string_field(j, "role", at, false)) {
    if (*role == "consequence") r.role = RuleRole::consequence;
    else if (*role != "primary") error(at + "/role", "\"role\" is \"primary\" or \"consequence\"");
  }
  r.title = string_field(j, "title", at, false).value_or(r.id);
  if (!j.contains("confidence") || !j["confidence"].is_number() || j["confidence"].get<double>() < 0 ||
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
  r.support = weighted(j, "support", at);
  r.against = weighted(j, "against", at);
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
      const auto& step = j["remediation"][i];
      if (!step.is_string()) {
        error(fmt::format("{}/remediation/{}", at, i), "a remediation step is a string");
        continue;
      }
      check_template(step.get<std::string>(), fmt::format("{}/remediation/{}", at, i));
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

}  // namespace

void parse_rule_file(std::string_view text, const std::string& file_name, RuleSet& into) {
  FileParser(text, file_name, into).parse();
}

RuleSet load_rules(const std::filesystem::path& file_or_directory) {
  RuleSet set;
  std::vector<std::filesystem::path> files;
  std::error_code ec;
  if (std::filesystem::is_directory(file_or_directory, ec)) {
    for (const auto& entry : std::filesystem::directory_iterator(file_or_directory, ec)) {
      const auto& p = entry.path();
      if (entry.is_regular_file(ec) && p.extension() == ".json" && p.filename() != "phases.json") files.push_back(p);
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
    parse_rule_file(text.value(), shown, one);
    merge_rules(set, std::move(one));
  }
  return set;
}

void merge_rules(RuleSet& base, RuleSet more) {
  for (auto& error : more.errors) base.errors.push_back(std::move(error));
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

}  // namespace ftdiag::rules
