// Settings out of YAML-looking lines that are not a whole YAML document:
// an accelerate config as `accelerate env` prints it inside a report
//
//   - `Accelerate` default config:
//           - compute_environment: LOCAL_MACHINE
//           - deepspeed_config: {'zero_stage': 3, 'offload_optimizer_device': 'cpu'}
//
// or a recipe pasted with prose around it. Each `key: value` line is a
// setting; nesting follows indentation; a "- " before a key is dropped (a
// report's bullet), a "- item" alone is an element of the key above it; a
// value in braces or brackets is read with read_brace_fragment. A line
// whose key is not a name (spaces, backticks: "Python version: 3.10") is
// prose and passed over.
#pragma once

#include <string_view>

#include "parse/configs/brace_fragment.h"

namespace ftdiag::parse {

// Pure and total: any bytes, time linear in the text. Plain values are read
// as PyYAML reads them (yaml_plain_scalar), quoted ones as written.
LenientReading read_yaml_lines(std::string_view text);

}  // namespace ftdiag::parse
