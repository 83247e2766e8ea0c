#include "collect/configs/yaml_settings.h"

#include "collect/read_parsed.h"

namespace ftdiag::collect {

Fact<parse::DottedSettings> read_yaml_settings(const std::filesystem::path& path) {
  // One byte over the bound, so that flatten_yaml_settings sees the file is too large.
  return read_parsed(path, parse::kMaxYamlSettingsBytes + 1, parse::flatten_yaml_settings);
}

}  // namespace ftdiag::collect
