// Settings out of JSON or a Python dict, whole or a pasted part of one: the
// way configs reach a post-mortem when a user copies them out of an editor
// or a log.
//
//     "zero_optimization": {            starts inside an object
//     "stage": 3,
//     "sub_group_size": 1e9,            ends early (the paste, or the file, was cut)
//   {'zero_stage': 3, 'offload_optimizer_device': 'cpu'}     Python's repr
//
// Single or double quotes, True/False/None (read as true/false/null),
// trailing or missing commas, // and # comments are all accepted. A value
// whose object was never closed is kept; a '}' that closes an object the
// fragment never opened is passed over (its keys stay at the level they were
// read at: the fragment does not say what enclosed them).
#pragma once

#include <string>
#include <string_view>

#include "parse/configs/dotted_settings.h"

namespace ftdiag::parse {

struct LenientReading {
  DottedSettings settings;
  // Why the reading stopped before the end of the text (a bound: more than
  // kMaxJsonSettingsKeys settings, nesting deeper than
  // kMaxJsonSettingsDepth), printable; empty when it read it all.
  std::string stopped;
};

// Pure and total: any bytes, time linear in the text, no recursion. Keys and
// values are as in flatten_json_settings (strings unquoted, numbers as
// written, "a.0" for array elements, "{}"/"[]" for sections closed empty).
LenientReading read_brace_fragment(std::string_view text);

}  // namespace ftdiag::parse
