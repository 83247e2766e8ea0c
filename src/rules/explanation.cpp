#include "rules/explanation.h"

#include "facts/registry.h"

namespace ftdiag::rules {

namespace {

bool is_name_char(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.'; }

// Calls on_text / on_fact for the parts of a template. A "{" not followed by
// a fact name and "}" is plain text.
template <class OnText, class OnFact>
void walk(std::string_view text, OnText on_text, OnFact on_fact) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto open = text.find('{', i);
    if (open == std::string_view::npos) break;
    auto close = open + 1;
    while (close < text.size() && is_name_char(text[close])) ++close;
    if (close < text.size() && text[close] == '}' && close > open + 1) {
      on_text(text.substr(i, open - i));
      on_fact(text.substr(open + 1, close - open - 1));
      i = close + 1;
    } else {
      on_text(text.substr(i, open + 1 - i));
      i = open + 1;
    }
  }
  on_text(text.substr(i));
}

}  // namespace

std::vector<std::string> template_facts(std::string_view text) {
  std::vector<std::string> names;
  walk(text, [](std::string_view) {}, [&](std::string_view name) { names.emplace_back(name); });
  return names;
}

namespace {

// A value inside a sentence: one line (a command line may hold newlines, a
// console line control characters), and short enough to read.
std::string inline_text(std::string value) {
  constexpr std::size_t kLongest = 160;
  std::string out;
  bool space = false;
  for (const char c : value) {
    const bool blank = c == '\n' || c == '\r' || c == '\t' || c == ' ';
    if (blank) {
      space = !out.empty();
      continue;
    }
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) continue;
    if (space) out += ' ';
    space = false;
    out += c;
  }
  if (out.size() > kLongest) {
    // Cut between words when a space is near, so that no identifier (a pid,
    // a function, a path) is left half-written; else not inside a UTF-8 character.
    std::size_t cut = out.rfind(' ', kLongest);
    if (cut == std::string::npos || cut < kLongest / 2) {
      cut = kLongest;
      while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
    }
    out = out.substr(0, cut) + " …";
  }
  return out;
}

}  // namespace

std::string display_value(const facts::FactValue& value, facts::Unit unit) {
  if (const auto* text = std::get_if<std::string>(&value)) return inline_text(*text);
  return facts::format_value(value, unit);
}

namespace {

void render_part(std::string_view text, const facts::FactSet& facts, std::string& out) {
  walk(text, [&](std::string_view part) { out += part; },
       [&](std::string_view name) {
         const auto& entry = facts.get(std::string(name));
         const auto* spec = facts::find_fact(name);
         out += entry.value ? display_value(entry.value.value(), spec ? spec->unit : facts::Unit::none) : "unknown";
       });
}

bool all_known(std::string_view text, const facts::FactSet& facts) {
  for (const auto& name : template_facts(text)) {
    if (!facts.get(name).value) return false;
  }
  return true;
}

}  // namespace

std::string render_template(std::string_view text, const facts::FactSet& facts) {
  std::string out;
  for (;;) {
    const auto open = text.find("[[");
    const auto close = open == std::string_view::npos ? open : text.find("]]", open + 2);
    if (close == std::string_view::npos) break;
    render_part(text.substr(0, open), facts, out);
    std::string_view optional = text.substr(open + 2, close - open - 2), otherwise;
    if (const auto bar = optional.find("||"); bar != std::string_view::npos) {
      otherwise = optional.substr(bar + 2);
      optional = optional.substr(0, bar);
    }
    render_part(all_known(optional, facts) ? optional : otherwise, facts, out);
    text.remove_prefix(close + 2);
  }
  render_part(text, facts, out);
  return out;
}

}  // namespace ftdiag::rules
