// A test that cannot run on this machine says so, and ctest reports it as
// skipped, never as passed.
//
//   if (!namespaces_available()) FTDIAG_SKIP("cannot create a pid namespace here");
//
// FTDIAG_SKIP returns from the enclosing function, so use it in the test
// case's own body. test_main.cpp exits with kSkipExitCode when every test
// case that ran was skipped (ctest runs each case on its own, with
// SKIP_RETURN_CODE set to it), and prints how many were skipped otherwise.
#pragma once

#include <string>

namespace ftdiag::test {

inline constexpr int kSkipExitCode = 77;

// Records that the running test case was skipped, and why (printed).
void mark_skipped(const std::string& why);

}  // namespace ftdiag::test

#define FTDIAG_SKIP(why)                   \
  do {                                     \
    ::ftdiag::test::mark_skipped(why);     \
    return;                                \
  } while (false)
