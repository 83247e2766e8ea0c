// Finds the file a command names, the way execvp(3) searches PATH, but
// before the fork: the child then only calls execve, which is
// async-signal-safe, where execvp may allocate.
#pragma once

#include <string>
#include <string_view>
#include <variant>

namespace ftdiag::supervise {

// The search path when the environment has no PATH (glibc's confstr(_CS_PATH)).
inline constexpr std::string_view kDefaultSearchPath = "/bin:/usr/bin";

// A name with a '/' is the file itself. Otherwise each directory of
// `search_path` (an empty entry is the current directory) is tried in turn
// for an executable regular file, as execvp does. Returns the path, or the
// errno execvp would have failed with: ENOENT when nothing was found, EACCES
// when only files that cannot be executed were.
std::variant<std::string, int> resolve_command(std::string_view name, std::string_view search_path);

// PATH's value in an environment of "NAME=value" strings; the default when absent.
template <class Strings>
std::string_view search_path_of(const Strings& environment) {
  for (std::string_view entry : environment) {
    if (entry.starts_with("PATH=")) return entry.substr(5);
  }
  return kDefaultSearchPath;
}

}  // namespace ftdiag::supervise
