// The condition language of rules (condition.h), parsed and checked against
// the fact registry: every fact known, every operand of the fact's type,
// every pattern valid and bounded.
#include <fmt/format.h>
#include <re2/re2.h>

#include "facts/version_order.h"
#include "rules/rule_parser.h"

namespace ftdiag::rules {

std::optional<facts::FactValue> RuleFileParser::operand(const json& j, const facts::FactSpec& spec, const std::string& at) {
  using facts::FactType;
  if (facts::is_numeric(spec.type) && j.is_number()) {
    if (j.is_number_integer()) return facts::FactValue{j.get<std::int64_t>()};
    return facts::FactValue{j.get<double>()};
  }
  if (spec.type == FactType::string && j.is_string()) {
    if (spec.unit == facts::Unit::version && !facts::looks_like_version(j.get<std::string>())) {
      error(at, fmt::format("fact \"{}\" is a version; \"{}\" does not read as one", spec.name, j.get<std::string>()));
      return std::nullopt;
    }
    return facts::FactValue{j.get<std::string>()};
  }
  if (spec.type == FactType::boolean && j.is_boolean()) return facts::FactValue{j.get<bool>()};
  // Quote a scalar operand (short); name the type of anything else: a hostile
  // operand may be huge or nested deep.
  std::string shown = j.is_primitive() ? j.dump() : std::string("an ") + j.type_name();
  if (shown.size() > 80) shown = shown.substr(0, 77) + "...";
  error(at, fmt::format("fact \"{}\" is of type {}; cannot compare it with {}", spec.name, facts::to_string(spec.type), shown));
  return std::nullopt;
}

std::optional<Condition> RuleFileParser::comparison(const json& j, const std::string& at) {
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
      if (!facts::is_numeric(spec->type) && spec->unit != facts::Unit::version) {
        error(value_at, fmt::format("fact \"{}\" is of type {}; \"{}\" needs a number or a version", c.fact, facts::to_string(spec->type), op_key));
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
  c.version_order = spec->unit == facts::Unit::version;
  if (value.is_object()) return other_fact_comparison(std::move(c), value, *spec, value_at);
  auto v = operand(value, *spec, value_at);
  if (!v) return std::nullopt;
  c.operands.push_back(std::move(*v));
  return c;
}

// {"fact": A, OP: {"fact": B}}: both facts known, of types that compare.
std::optional<Condition> RuleFileParser::other_fact_comparison(Condition c, const json& value, const facts::FactSpec& spec,
                                                               const std::string& at) {
  if (value.size() != 1 || !value.contains("fact") || !value["fact"].is_string()) {
    error(at, "a comparison's value is a constant or {\"fact\": NAME}");
    return std::nullopt;
  }
  c.other_fact = value["fact"].get<std::string>();
  const facts::FactSpec* other = facts::find_fact(c.other_fact);
  if (!other) {
    error(at + "/fact", fmt::format("unknown fact \"{}\" (see `ftdiag rules facts`)", c.other_fact));
    return std::nullopt;
  }
  const bool both_numeric = facts::is_numeric(spec.type) && facts::is_numeric(other->type);
  const bool both_versions = spec.unit == facts::Unit::version && other->unit == facts::Unit::version;
  // A version and a plain string are both strings, but "0" = "libcudart.so" as versions: refused.
  const bool same_plain = spec.type == other->type && (spec.unit == facts::Unit::version) == (other->unit == facts::Unit::version) &&
                          (c.op == Condition::Op::eq || c.op == Condition::Op::ne);
  if (!both_numeric && !both_versions && !same_plain) {
    const auto kind = [](const facts::FactSpec& f) {
      return f.unit == facts::Unit::none ? std::string(facts::to_string(f.type))
                                         : fmt::format("{} {}", facts::to_string(f.type), facts::to_string(f.unit));
    };
    error(at + "/fact", fmt::format("cannot compare \"{}\" ({}) with \"{}\" ({})", spec.name, kind(spec), other->name, kind(*other)));
    return std::nullopt;
  }
  return c;
}

std::optional<Condition> RuleFileParser::condition(const json& j, const std::string& at, int depth) {
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

}  // namespace ftdiag::rules
