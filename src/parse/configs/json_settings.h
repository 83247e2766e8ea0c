// A JSON configuration file (a DeepSpeed config, an accelerate or trainer
// config saved as JSON) flattened to dotted keys, so that preflight can say
// "zero_optimization.offload_optimizer.device is cpu" without knowing every
// tool's schema.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>

#include "base/fact.h"

namespace ftdiag::parse {

using JsonSettings = std::map<std::string, std::string>;

// Bounds for a hostile or mistaken input: configs are a few KiB, a few
// hundred keys and nest about 4 levels.
inline constexpr std::size_t kMaxJsonSettingsBytes = 16 * 1024 * 1024;
inline constexpr std::size_t kMaxJsonSettingsKeys = 10000;
inline constexpr std::size_t kMaxJsonSettingsDepth = 64;

// Pure. The top level must be an object. Each leaf becomes one entry:
//   {"zero_optimization": {"stage": 2, "offload_optimizer": {"device": "cpu"}}}
//   -> "zero_optimization.stage" = "2", "zero_optimization.offload_optimizer.device" = "cpu"
// Array elements are key.0, key.1, ...; strings are unquoted (the string
// "2" and the number 2 both give "2"; HF's "auto" gives "auto"), booleans
// "true"/"false", null "null", numbers as written ("1e-5" stays "1e-5", an
// integer has no ".0"). An empty object or array is kept as "{}" or "[]", so
// that a present but empty section is seen. A repeated key replaces the
// earlier value and everything under it, as Python's json.load does. A key
// containing '.' is not escaped: "a.b" and {"a": {"b"}} flatten alike.
// Strict JSON, no comments: DeepSpeed reads its config with json.load.
//
// Missing(unparseable): malformed input ("line L, column C: message", the
// position in bytes), a top level that is not an object, input over
// kMaxJsonSettingsBytes, more than kMaxJsonSettingsKeys entries, nesting
// deeper than kMaxJsonSettingsDepth (the detail names the key where it
// happened). Never throws beyond allocation failure.
Fact<JsonSettings> flatten_json_settings(std::string_view text);

}  // namespace ftdiag::parse
