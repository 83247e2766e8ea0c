// A JSON configuration file read and flattened to dotted keys
// (parse/configs/json_settings.h).
#pragma once

#include <filesystem>

#include "base/fact.h"
#include "parse/configs/json_settings.h"

namespace ftdiag::collect {

// Reads path (at most kMaxJsonSettingsBytes) and flattens it. A read failure
// keeps its errno reason (not_present, permission_denied); a parse failure has
// the path before its detail.
Fact<parse::JsonSettings> read_json_settings(const std::filesystem::path& path);

}  // namespace ftdiag::collect
