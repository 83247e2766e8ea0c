// Jobs that are really OOM-killed by a memory cgroup, shared by the tests
// that judge them (test_verdict.cpp) and the tests that report them
// (test_reports.cpp).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "integration/cgroup_sandbox.h"
#include "integration/harness.h"
#include "integration/memory_limits.h"
#include "skip.h"

namespace ftdiag::itest {

// A memory cgroup of kOomTestLimit, whichever version this host offers;
// nullptr (after marking the test skipped, with why) when none.
inline std::unique_ptr<MemoryCgroupSandbox> any_memory_cgroup() {
  auto made = MemoryCgroupSandbox::create_any(kOomTestLimit);
  if (auto* cgroup = std::get_if<std::unique_ptr<MemoryCgroupSandbox>>(&made)) return std::move(*cgroup);
  ftdiag::test::mark_skipped(std::get<std::string>(made));
  return nullptr;
}

// A shell line that prints `before`, then becomes the allocator.
inline std::vector<std::string> print_then_alloc(const std::string& before, const std::vector<std::string>& alloc_args) {
  std::string script = "printf '%s\\n' \"$1\"; shift; exec \"$@\"";
  std::vector<std::string> argv = {"/bin/sh", "-c", script, "sh", before};
  for (const auto& a : crasher_argv("alloc", alloc_args)) argv.push_back(a);
  return argv;
}

// ftdiag_run without --quiet: the summary and verdict go to stderr.
inline std::vector<std::string> loud(std::vector<std::string> argv) {
  std::erase(argv, std::string("--quiet"));
  return argv;
}

}  // namespace ftdiag::itest
