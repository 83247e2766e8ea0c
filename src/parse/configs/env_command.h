// The words of a launch command that pick its program: env(1)'s prefix
// (`env PATH=… -u X python3 train.py`, a shebang's `env -S python3 -u`),
// and which names are Python interpreters or shells. Pure functions.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ftdiag::parse {

// The search path when the environment has no PATH (glibc's confstr(_CS_PATH)).
inline constexpr std::string_view kDefaultSearchPath = "/bin:/usr/bin";

struct EnvCommand {
  std::vector<std::string> command;        // what env runs; empty when nothing follows
  std::optional<std::string> search_path;  // PATH as env changed it (PATH=…, -u PATH, -i)
};

// The arguments after "env", as GNU env reads them: options (-i, -0, -v,
// -u NAME, -C DIR, their long forms, "--") and NAME=VALUE assignments are
// consumed; -S STRING is split into words that are read in turn; the first
// other word starts the command.
EnvCommand strip_env(std::span<const std::string> arguments);

// env -S's splitting: words separated by spaces or tabs; '…' quotes
// literally, "…" quotes with backslash escapes, a backslash outside quotes
// escapes the next character.
std::vector<std::string> split_env_string(std::string_view text);

// The last component of a path: "/usr/bin/python3" -> "python3".
std::string_view command_basename(std::string_view path);

// python, python3, python3.11, python3.13t, pypy3, pypy3.10.
bool is_python_name(std::string_view basename);
// sh, bash, dash, zsh, ksh, fish.
bool is_shell_name(std::string_view basename);

}  // namespace ftdiag::parse
