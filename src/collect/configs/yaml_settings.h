// A YAML configuration file read and flattened to dotted keys
// (parse/configs/yaml_settings.h).
#pragma once

#include <filesystem>

#include "base/fact.h"
#include "parse/configs/yaml_settings.h"

namespace ftdiag::collect {

// Reads path (at most kMaxYamlSettingsBytes) and flattens it; a read failure
// keeps its errno reason, a parse failure has the path before its detail.
Fact<parse::DottedSettings> read_yaml_settings(const std::filesystem::path& path);

}  // namespace ftdiag::collect
