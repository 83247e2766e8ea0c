#include "rules/condition.h"

#include <fmt/format.h>
#include <re2/re2.h>

#include "facts/version_order.h"

namespace ftdiag::rules {

namespace {

using facts::FactValue;

bool equal(const FactValue& a, const FactValue& b) {
  if (facts::is_numeric(facts::type_of(a)) && facts::is_numeric(facts::type_of(b))) {
    return facts::as_number(a) == facts::as_number(b);
  }
  return a == b;
}

Truth from(bool b) { return b ? Truth::yes : Truth::no; }

// lt/lte/gt/gte: numbers, or versions when the fact's unit says so.
int order(const Condition& c, const FactValue& value, const FactValue& operand) {
  if (c.version_order) {
    const auto* a = std::get_if<std::string>(&value);
    const auto* b = std::get_if<std::string>(&operand);
    return facts::compare_versions(a ? *a : std::string(), b ? *b : std::string());
  }
  const double a = facts::as_number(value), b = facts::as_number(operand);
  return a < b ? -1 : (a > b ? 1 : 0);
}

Truth compare(const Condition& c, const facts::FactSet& facts, EvaluationTrace* trace) {
  const auto& entry = facts.get(c.fact);
  if (c.op == Condition::Op::exists) {
    const bool wanted = std::get<bool>(c.operands.at(0));
    return from(entry.value.has_value() == wanted);
  }
  if (!entry.value) {
    if (trace) trace->missing.insert(c.fact);
    return Truth::unknown;
  }
  const FactValue& value = entry.value.value();
  const FactValue* operand = c.operands.empty() ? nullptr : &c.operands[0];
  if (!c.other_fact.empty()) {
    const auto& other = facts.get(c.other_fact);
    if (!other.value) {
      if (trace) trace->missing.insert(c.other_fact);
      return Truth::unknown;
    }
    operand = &other.value.value();
  }
  switch (c.op) {
    case Condition::Op::eq: return from(c.version_order ? order(c, value, *operand) == 0 : equal(value, *operand));
    case Condition::Op::ne: return from(c.version_order ? order(c, value, *operand) != 0 : !equal(value, *operand));
    case Condition::Op::lt: return from(order(c, value, *operand) < 0);
    case Condition::Op::lte: return from(order(c, value, *operand) <= 0);
    case Condition::Op::gt: return from(order(c, value, *operand) > 0);
    case Condition::Op::gte: return from(order(c, value, *operand) >= 0);
    case Condition::Op::matches: {
      const auto* text = std::get_if<std::string>(&value);
      return from(text && c.regex && RE2::PartialMatch(*text, *c.regex));
    }
    case Condition::Op::in:
      for (const auto& operand : c.operands) {
        if (equal(value, operand)) return Truth::yes;
      }
      return Truth::no;
    case Condition::Op::exists: break;
  }
  return Truth::no;
}

std::string_view op_text(Condition::Op op) {
  switch (op) {
    case Condition::Op::eq: return "=";
    case Condition::Op::ne: return "!=";
    case Condition::Op::lt: return "<";
    case Condition::Op::lte: return "<=";
    case Condition::Op::gt: return ">";
    case Condition::Op::gte: return ">=";
    case Condition::Op::matches: return "matches";
    case Condition::Op::exists: return "exists";
    case Condition::Op::in: return "in";
  }
  return "?";
}

std::string operand_text(const FactValue& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return fmt::format("\"{}\"", *s);
  return facts::format_value(v, facts::Unit::none);
}

}  // namespace

Truth evaluate(const Condition& condition, const facts::FactSet& facts, EvaluationTrace* trace) {
  switch (condition.kind) {
    case Condition::Kind::compare: {
      Truth t = compare(condition, facts, trace);
      if (t == Truth::yes && trace) {
        trace->used.insert(condition.fact);
        if (!condition.other_fact.empty()) trace->used.insert(condition.other_fact);
      }
      return t;
    }
    case Condition::Kind::negation: {
      // A negation's facts are not evidence *for* anything: trace only what is missing.
      EvaluationTrace inner;
      Truth t = evaluate(condition.children.at(0), facts, &inner);
      if (trace) trace->missing.insert(inner.missing.begin(), inner.missing.end());
      return t == Truth::unknown ? t : from(t == Truth::no);
    }
    case Condition::Kind::all: {
      Truth result = Truth::yes;
      for (const auto& child : condition.children) {
        Truth t = evaluate(child, facts, trace);
        if (t == Truth::no) return Truth::no;
        if (t == Truth::unknown) result = Truth::unknown;
      }
      return result;
    }
    case Condition::Kind::any: {
      Truth result = Truth::no;
      for (const auto& child : condition.children) {
        Truth t = evaluate(child, facts, trace);
        if (t == Truth::yes) return Truth::yes;
        if (t == Truth::unknown) result = Truth::unknown;
      }
      return result;
    }
  }
  return Truth::unknown;
}

std::string describe(const Condition& c) {
  switch (c.kind) {
    case Condition::Kind::compare:
      if (c.op == Condition::Op::exists) {
        return fmt::format("{} {}", c.fact, std::get<bool>(c.operands.at(0)) ? "is known" : "is missing");
      }
      if (c.op == Condition::Op::in) {
        std::vector<std::string> items;
        for (const auto& v : c.operands) items.push_back(operand_text(v));
        return fmt::format("{} in [{}]", c.fact, fmt::join(items, ", "));
      }
      if (!c.other_fact.empty()) return fmt::format("{} {} {}", c.fact, op_text(c.op), c.other_fact);
      return fmt::format("{} {} {}", c.fact, op_text(c.op), operand_text(c.operands.at(0)));
    case Condition::Kind::negation: return fmt::format("not ({})", describe(c.children.at(0)));
    case Condition::Kind::all:
    case Condition::Kind::any: {
      std::vector<std::string> parts;
      for (const auto& child : c.children) {
        auto text = describe(child);
        parts.push_back(child.kind == Condition::Kind::all || child.kind == Condition::Kind::any ? "(" + text + ")" : text);
      }
      return fmt::format("{}", fmt::join(parts, c.kind == Condition::Kind::all ? " and " : " or "));
    }
  }
  return "?";
}

void collect_facts(const Condition& condition, std::set<std::string>& out) {
  if (condition.kind == Condition::Kind::compare) {
    out.insert(condition.fact);
    if (!condition.other_fact.empty()) out.insert(condition.other_fact);
  }
  for (const auto& child : condition.children) collect_facts(child, out);
}

}  // namespace ftdiag::rules
