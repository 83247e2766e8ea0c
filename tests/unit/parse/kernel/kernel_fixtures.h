// Where the kernel-log tests find their fixtures, and small helpers to pick
// events out of a scan.
#pragma once

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "base/read_file.h"
#include "parse/kernel/kernel_log.h"

#ifndef FTDIAG_FIXTURES_DIR
#error "FTDIAG_FIXTURES_DIR must name the absolute path of tests/fixtures"
#endif

namespace ftdiag::parse::testing {

// A file of tests/fixtures/kernel-log; empty when unreadable, which the
// caller's assertions then reveal.
inline std::string kernel_fixture(std::string_view name) {
  return read_small_file(std::string(FTDIAG_FIXTURES_DIR) + "/kernel-log/" + std::string(name)).value_or("");
}

inline std::vector<KernelEvent> scan_text(std::string_view text, const KernelTextOptions& options = {}) {
  return scan_kernel_lines(split_kernel_log(text, options));
}

template <typename Event>
std::vector<Event> events_of(const std::vector<KernelEvent>& events) {
  std::vector<Event> out;
  for (const auto& event : events) {
    if (const auto* typed = std::get_if<Event>(&event)) out.push_back(*typed);
  }
  return out;
}

template <typename Event>
std::vector<Event> scan_for(std::string_view text) {
  return events_of<Event>(scan_text(text));
}

}  // namespace ftdiag::parse::testing
