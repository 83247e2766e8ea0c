// The stable cause ids (part of the JSON contract) and what each means.
#pragma once

#include <span>
#include <string_view>

namespace ftdiag::rules {

struct CauseSpec {
  std::string_view id;
  std::string_view meaning;
  bool is_oom;  // OOM causes carry a scope: node, cgroup or userspace
  std::string_view headline;  // what happened, in a sentence for a tired reader
};

std::span<const CauseSpec> cause_catalogue();
const CauseSpec* find_cause(std::string_view id);

inline constexpr std::string_view kUnknownCause = "unknown";

// The scopes an OOM verdict may carry.
bool is_valid_scope(std::string_view scope);

// Where an OOM's memory ran out, in words: "the node's RAM", ...
std::string_view scope_words(std::string_view scope);

}  // namespace ftdiag::rules
