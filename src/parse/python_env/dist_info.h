// Installed distributions as the packaging standards record them: a
// `NAME-VERSION.dist-info/METADATA` (wheels) or `NAME-VERSION[-pyX.Y].egg-info`
// (setuptools: a directory holding PKG-INFO, or that file itself), whose
// header holds `Name:` and `Version:` in RFC 822 form. Pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/fact.h"

namespace ftdiag::parse {

// PEP 503's normalised name, with '.' and '_' folded too: lowercase, each
// run of '-', '_' and '.' one '-'. "Flash_Attn" -> "flash-attn",
// "nvidia_cuda_runtime_cu12" -> "nvidia-cuda-runtime-cu12".
std::string normalize_distribution_name(std::string_view name);

struct DistributionMetadata {
  std::string name;     // as written in Name:
  std::string version;  // as written in Version:
};

// Reads only the header (up to the first empty line); continuation lines
// are ignored, CRLF is accepted, field names are case-insensitive. Missing
// (unparseable) without both Name: and Version:.
Fact<DistributionMetadata> parse_distribution_metadata(std::string_view text);

struct DistributionEntry {
  enum class Kind { dist_info, egg_info };
  Kind kind = Kind::dist_info;
  std::string name;     // normalised
  std::string version;  // from the entry's name; may be empty (egg-info without one)
};

// "torch-2.7.0+cu128.dist-info", "torch-1.13.0a0+gitunknown.egg-info",
// "numpy-1.24.2-py3.11.egg-info", "cryptography.egg-info"; nullopt for any
// other name. Both formats escape '-' in names to '_', so the first '-'
// ends the name.
std::optional<DistributionEntry> parse_distribution_entry(std::string_view entry_name);

}  // namespace ftdiag::parse
