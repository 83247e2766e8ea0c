// Settings of a configuration as dotted keys -> values as text, the one shape
// every config reader gives (JSON, YAML, fragments, command lines):
//   "zero_optimization.offload_optimizer.device" -> "cpu"
// The same type as JsonSettings (json_settings.h), so readers mix freely.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>

namespace ftdiag::parse {

using DottedSettings = std::map<std::string, std::string>;

// At most max_bytes of text, control bytes and non-ASCII as '?', "..." when
// cut: a parser's message or a key quoted in a Missing's detail ends up in
// JSON documents, which must stay valid UTF-8 whatever the input held.
std::string printable_excerpt(std::string_view text, std::size_t max_bytes = 160);

// "line L, column C" (1-based, in bytes) of the byte at offset.
std::string line_column_of(std::string_view text, std::size_t offset);

}  // namespace ftdiag::parse
