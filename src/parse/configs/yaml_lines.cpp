#include "parse/configs/yaml_lines.h"

#include <vector>

#include <fmt/format.h>

#include "base/text.h"
#include "parse/configs/json_settings.h"
#include "parse/configs/yaml_settings.h"

namespace ftdiag::parse {
namespace {

struct Section {
  std::size_t indent = 0;
  std::string path;
  std::size_t children = 0;
  std::size_t next_index = 0;
};

bool is_key_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '.' || c == '/';
}

std::string_view unquote(std::string_view text) {
  if (text.size() >= 2 && (text.front() == '"' || text.front() == '\'') && text.back() == text.front()) {
    return text.substr(1, text.size() - 2);
  }
  return text;
}

// "key: value" or "key:" -> the key and the rest; nullopt for prose.
struct KeyLine {
  std::string key;
  std::string_view value;
};
std::optional<KeyLine> key_line(std::string_view content) {
  const auto colon = content.find(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  if (colon + 1 < content.size() && content[colon + 1] != ' ' && content[colon + 1] != '\t') return std::nullopt;  // "http://..."
  const auto key = unquote(text::trim(content.substr(0, colon)));
  if (key.empty()) return std::nullopt;
  for (char c : key) {
    if (!is_key_char(c)) return std::nullopt;
  }
  return KeyLine{std::string(key), text::trim(content.substr(colon + 1))};
}

// A value as PyYAML reads it: a trailing " # comment" dropped, quotes removed.
std::string scalar_value(std::string_view value) {
  if (!value.empty() && (value.front() == '"' || value.front() == '\'')) return std::string(unquote(value));
  if (const auto comment = value.find(" #"); comment != std::string_view::npos) value = text::trim(value.substr(0, comment));
  return yaml_plain_scalar(std::string(value));
}

class LineReader {
 public:
  LenientReading run(std::string_view text) {
    for (auto line : text::lines(text)) {
      if (!stopped_.empty()) break;
      take(line);
    }
    while (!sections_.empty()) pop();
    return {std::move(settings_), std::move(stopped_)};
  }

 private:
  void take(std::string_view line) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::size_t indent = 0;
    while (indent < line.size() && (line[indent] == ' ' || line[indent] == '\t')) ++indent;
    std::string_view content = line.substr(indent);
    if (content.empty() || content.front() == '#') return;
    bool bullet = false;
    if (content.starts_with("- ") || content.starts_with("* ") || content == "-") {
      bullet = true;
      content = text::trim(content.substr(1));
      indent += 2;  // a bullet's key sits deeper than the key the list belongs to
    }
    while (!sections_.empty() && sections_.back().indent >= indent) pop();
    if (auto found = key_line(content)) return keyed(indent, std::move(*found));
    if (bullet && !sections_.empty()) element(content);
  }

  std::string child_path(const std::string& key) {
    if (sections_.empty()) return key;
    ++sections_.back().children;
    return sections_.back().path + '.' + key;
  }

  void keyed(std::size_t indent, KeyLine found) {
    std::string path = child_path(found.key);
    if (found.value.empty()) {
      if (sections_.size() >= kMaxJsonSettingsDepth) {
        stopped_ = fmt::format("nested deeper than {} levels (at {})", kMaxJsonSettingsDepth, printable_excerpt(path));
        return;
      }
      sections_.push_back(Section{.indent = indent, .path = std::move(path)});
      return;
    }
    if (found.value.front() == '{' || found.value.front() == '[') return flow(path, found.value);
    put(path, scalar_value(found.value));
  }

  // "- q_proj" under "target_modules:" -> target_modules.0.
  void element(std::string_view content) {
    auto& section = sections_.back();
    ++section.children;
    put(fmt::format("{}.{}", section.path, section.next_index++), scalar_value(content));
  }

  // The value as the only key of an object: read_brace_fragment then names its settings.
  void flow(const std::string& path, std::string_view value) {
    auto inner = read_brace_fragment(fmt::format("{{\"v\": {}}}", value));
    if (!inner.stopped.empty()) stopped_ = std::move(inner.stopped);
    for (auto& [key, setting] : inner.settings) {
      if (!stopped_.empty()) break;
      put(path + key.substr(1), std::move(setting));
    }
  }

  // A key with nothing under it is YAML's null.
  void pop() {
    if (sections_.back().children == 0) put(sections_.back().path, "null");
    sections_.pop_back();
  }

  void put(const std::string& key, std::string value) {
    settings_.insert_or_assign(key, std::move(value));
    if (settings_.size() > kMaxJsonSettingsKeys) stopped_ = fmt::format("more than {} settings: not a configuration", kMaxJsonSettingsKeys);
  }

  std::vector<Section> sections_;
  DottedSettings settings_;
  std::string stopped_;
};

}  // namespace

LenientReading read_yaml_lines(std::string_view text) { return LineReader().run(text); }

}  // namespace ftdiag::parse
