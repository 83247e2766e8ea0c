// The doctest main of every test binary, with skips that ctest can see:
// a case that cannot run here calls FTDIAG_SKIP (skip.h). When every case that
// ran was skipped the binary exits 77 (ctest's SKIP_RETURN_CODE for these
// binaries); when some ran, it prints how many were skipped. A run asked for
// named cases that ran none fails: ctest's name and the case's disagree (a
// ';' in a case name splits it into two ctest tests that match nothing), and
// such a test would otherwise pass without running.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>

#include "skip.h"

namespace ftdiag::test {
namespace {

struct Tally {
  int cases_run = 0;
  std::set<std::string> skipped;  // names of the cases that skipped
  std::string current;
};

Tally& tally() {
  static Tally instance;
  return instance;
}

// Counts the test cases that run (each case once, whatever its subcases).
struct SkipListener : doctest::IReporter {
  explicit SkipListener(const doctest::ContextOptions&) {}
  void report_query(const doctest::QueryData&) override {}
  void test_run_start() override {}
  void test_run_end(const doctest::TestRunStats&) override {}
  void test_case_start(const doctest::TestCaseData& data) override {
    tally().current = data.m_name;
    ++tally().cases_run;
  }
  void test_case_reenter(const doctest::TestCaseData&) override {}
  void test_case_end(const doctest::CurrentTestCaseStats&) override {}
  void test_case_exception(const doctest::TestCaseException&) override {}
  void subcase_start(const doctest::SubcaseSignature&) override {}
  void subcase_end() override {}
  void log_assert(const doctest::AssertData&) override {}
  void log_message(const doctest::MessageData&) override {}
  void test_case_skipped(const doctest::TestCaseData&) override {}
};

}  // namespace

void mark_skipped(const std::string& why) {
  tally().skipped.insert(tally().current);
  std::fprintf(stderr, "SKIPPED: %s: %s\n", tally().current.c_str(), why.c_str());
}

bool filters_test_cases(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg.starts_with("--test-case=") || arg.starts_with("-tc=") || arg.starts_with("--source-file=") ||
        arg.starts_with("-sf="))
      return true;
  }
  return false;
}

}  // namespace ftdiag::test

DOCTEST_REGISTER_LISTENER("ftdiag-skips", 1, ftdiag::test::SkipListener);

int main(int argc, char** argv) {
  doctest::Context context(argc, argv);
  const int result = context.run();
  if (context.shouldExit()) return result;
  const auto& tally = ftdiag::test::tally();
  if (tally.cases_run == 0 && ftdiag::test::filters_test_cases(argc, argv)) {
    std::fprintf(stderr, "no test case matched the --test-case or --source-file filter: nothing ran\n");
    return 1;
  }
  if (result != 0 || tally.skipped.empty()) return result;
  if (static_cast<int>(tally.skipped.size()) == tally.cases_run) return ftdiag::test::kSkipExitCode;
  if (std::getenv("FTDIAG_TEST_WHOLE_FILE") != nullptr) {
    std::fprintf(stderr,
                 "%zu of %d test cases skipped in a run of a whole file: ctest would show it passed. "
                 "tests/CMakeLists.txt lists a file case by case when it calls FTDIAG_SKIP itself; "
                 "call it there, not from a helper\n",
                 tally.skipped.size(), tally.cases_run);
    return 1;
  }
  std::fprintf(stderr, "%zu of %d test cases skipped (they cannot run here)\n", tally.skipped.size(),
               tally.cases_run);
  return result;
}
