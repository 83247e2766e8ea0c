// /proc/PID/environ: the variables that say a process's place in a
// distributed job (RANK, LOCAL_RANK, WORLD_SIZE, ...), and only those: an
// environment holds secrets (tokens, keys) that must never reach evidence.
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace ftdiag::parse {

// The variables kept (docs/evidence.md lists them).
bool is_role_variable(std::string_view name);

// Pure and total: NUL-separated NAME=VALUE entries; only role variables are
// kept, values cut at 256 bytes.
std::map<std::string, std::string> parse_role_environment(std::string_view text);

}  // namespace ftdiag::parse
