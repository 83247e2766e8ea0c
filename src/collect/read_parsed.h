// Glue between read_small_file and a pure parser, shared by the thin readers.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string_view>
#include <utility>

#include "base/fact.h"
#include "base/read_file.h"

namespace ftdiag::collect {

// Reads at most max_bytes of path and hands the text to parse (a callable
// taking std::string_view and returning Fact<T>). A read failure keeps its
// errno-derived reason; a parse failure gets the path prefixed to its detail
// so the user can see which file was not understood.
template <class Parse>
auto read_parsed(const std::filesystem::path& path, std::size_t max_bytes, Parse&& parse)
    -> decltype(parse(std::string_view{})) {
  auto content = read_small_file(path, max_bytes);
  if (!content) return content.missing();
  auto parsed = std::forward<Parse>(parse)(std::string_view(*content));
  if (!parsed) {
    return Missing{parsed.missing().reason, path.string() + ": " + parsed.missing().detail};
  }
  return parsed;
}

}  // namespace ftdiag::collect
