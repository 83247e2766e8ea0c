// A YAML configuration file (an accelerate config, an axolotl or
// LLaMA-Factory recipe) flattened to dotted keys exactly as json_settings.h
// flattens JSON, so that one key means one thing whatever the file's syntax.
#pragma once

#include <string>
#include <string_view>

#include "base/fact.h"
#include "parse/configs/dotted_settings.h"
#include "parse/configs/json_settings.h"

namespace ftdiag::parse {

// The bounds of JSON configs, for the same reasons.
inline constexpr std::size_t kMaxYamlSettingsBytes = kMaxJsonSettingsBytes;
inline constexpr std::size_t kMaxYamlSettingsKeys = kMaxJsonSettingsKeys;
inline constexpr std::size_t kMaxYamlSettingsDepth = kMaxJsonSettingsDepth;

// Pure. The first document's top level must be a mapping; later documents
// are not read. Leaves, sequences (key.0, key.1, ...), empty sections ("{}",
// "[]") and repeated keys flatten as in flatten_json_settings. Scalars are
// read as the tools that load these files read them (PyYAML, YAML 1.1): a
// plain true/yes/on (any of their three casings) gives "true", false/no/off
// "false", ~/null/an empty value "null"; a quoted scalar stays as written
// ('no' stays "no"); numbers stay as written ("1e-5"). An alias gives what
// its anchor gave (a copied section counts against the key bound, so an
// alias bomb stops there); the merge key "<<" merges into its mapping. A key
// that is a mapping or a sequence is refused.
//
// Missing(unparseable): malformed YAML ("line L, column C: message"), an
// empty document, a top level that is not a mapping, input over
// kMaxYamlSettingsBytes, more than kMaxYamlSettingsKeys entries, nesting
// deeper than kMaxYamlSettingsDepth. The detail is printable ASCII. Never
// throws beyond allocation failure.
Fact<DottedSettings> flatten_yaml_settings(std::string_view text);

// A plain (unquoted) scalar as PyYAML reads it: "yes" -> "true", "Off" ->
// "false", "~" or "" -> "null", anything else unchanged.
std::string yaml_plain_scalar(const std::string& value);

}  // namespace ftdiag::parse
