// Any text that may hold a training configuration, read as well as its
// state allows: a whole DeepSpeed JSON or accelerate YAML, a fragment
// pasted out of one, a shell script with the launch command, a hostfile,
// an environment report with accelerate's config in it. The kind
// (config_kind.h, plus "launch-command" and "hostfile") comes from what the
// text holds, never from the file's name.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "parse/configs/dotted_settings.h"

namespace ftdiag::parse {

struct ConfigReading {
  std::string kind;
  DottedSettings settings;
  // Why the text was read leniently (the strict parser's complaint), or why
  // the reading stopped early: printable, empty when the text was whole.
  std::string note;
};

// Pure and total. Tries, in order: a hostfile; a whole JSON object (a
// trainer state keeps only the last of its log_history); a whole YAML
// mapping; a launch command (launch_command.h); then a fragment, as JSON or
// a Python dict (brace_fragment.h) when it starts with a brace or a quote,
// else as YAML lines (yaml_lines.h). nullopt when none of these gives
// settings of a known kind.
std::optional<ConfigReading> read_config_text(std::string_view text);

}  // namespace ftdiag::parse
