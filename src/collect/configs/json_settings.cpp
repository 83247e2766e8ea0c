#include "collect/configs/json_settings.h"

#include "collect/read_parsed.h"

namespace ftdiag::collect {

Fact<parse::JsonSettings> read_json_settings(const std::filesystem::path& path) {
  // One byte over the bound, so that flatten_json_settings sees the file is too large.
  return read_parsed(path, parse::kMaxJsonSettingsBytes + 1, parse::flatten_json_settings);
}

}  // namespace ftdiag::collect
