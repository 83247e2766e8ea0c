// An environment as a list of "NAME=value" entries (what execve takes and
// /proc/PID/environ holds): the job's, read for it before it runs.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ftdiag {

// The value of the first entry named `name`; nullopt when none is.
inline std::optional<std::string> environment_value(const std::vector<std::string>& environment, std::string_view name) {
  for (const auto& entry : environment) {
    if (entry.size() > name.size() && entry.starts_with(name) && entry[name.size()] == '=') {
      return entry.substr(name.size() + 1);
    }
  }
  return std::nullopt;
}

}  // namespace ftdiag
