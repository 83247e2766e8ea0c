#include "parse/configs/config_text.h"

#include "parse/configs/brace_fragment.h"
#include "parse/configs/config_kind.h"
#include "parse/configs/hostfile.h"
#include "parse/configs/json_settings.h"
#include "parse/configs/launch_command.h"
#include "parse/configs/trainer_state.h"
#include "parse/configs/yaml_lines.h"
#include "parse/configs/yaml_settings.h"

namespace ftdiag::parse {
namespace {

char first_significant(std::string_view text) {
  for (char c : text) {
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return c;
  }
  return '\0';
}

std::optional<ConfigReading> of_known_kind(DottedSettings settings, std::string note) {
  auto kind = config_kind(settings);
  if (!kind) return std::nullopt;
  return ConfigReading{std::move(*kind), std::move(settings), std::move(note)};
}

// A whole document; the parser's complaint when it is not one.
Fact<DottedSettings> whole_document(std::string_view text, char first) {
  if (first == '{') return looks_like_trainer_state(text) ? read_trainer_state(text) : flatten_json_settings(text);
  return flatten_yaml_settings(text);
}

}  // namespace

std::optional<ConfigReading> read_config_text(std::string_view text) {
  if (auto hosts = read_hostfile(text)) return ConfigReading{"hostfile", std::move(*hosts), {}};
  const char first = first_significant(text);
  auto whole = whole_document(text, first);
  if (whole) return of_known_kind(std::move(whole.value()), {});
  if (auto command = read_launch_command(text)) return ConfigReading{"launch-command", std::move(*command), {}};
  const bool braces = first == '{' || first == '"' || first == '\'';
  auto fragment = braces ? read_brace_fragment(text) : read_yaml_lines(text);
  std::string note = "read as a fragment: " + whole.missing().detail;
  if (!fragment.stopped.empty()) note += "; stopped early: " + fragment.stopped;
  return of_known_kind(std::move(fragment.settings), std::move(note));
}

}  // namespace ftdiag::parse
