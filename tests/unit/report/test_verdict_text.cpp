#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "report/verdict_text.h"

using namespace ftdiag;
using ftdiag::report::TextStyle;

namespace {

std::size_t rows_of(const std::string& text) { return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')); }

// A likely verdict whose every part is long: reasons, fixes, what would make it sure.
rules::Judgement long_judgement() {
  rules::Judgement j;
  auto& v = j.verdict;
  v.cause = "framework-bug-segfault";
  v.rule = "native-fault";
  v.confidence = 0.65;
  const std::string words(40, 'w');
  v.summary = "The job crashed with SIGSEGV in a library: " + words + " " + words + " " + words + " " + words + " " + words;
  rules::Finding f;
  f.cause = v.cause;
  f.rule = v.rule;
  f.confidence = v.confidence;
  for (int i = 0; i < 4; ++i) f.supporting.push_back({"reason " + std::to_string(i) + ": " + words + " " + words + " " + words, 0.1, {}});
  for (int i = 0; i < 4; ++i) f.remediation.push_back("fix " + std::to_string(i) + ": " + words + " " + words + " " + words);
  j.findings.push_back(f);
  for (int i = 0; i < 3; ++i) {
    v.needed.push_back({"need", "what would decide: " + words + " " + words, {"step one " + words, "step two " + words}, {"host-oom"}, {}});
  }
  return j;
}

}  // namespace

TEST_CASE("verdict text: the compact verdict fits a screen of the style's rows, keeping the headline, the numbers and a fix") {
  TextStyle style;
  style.width = 80;
  const auto text = report::render_verdict(long_judgement(), style);
  INFO(text);
  CHECK(rows_of(text) <= style.rows);
  CHECK(text.rfind("ftdiag verdict: the job crashed inside framework or extension code", 0) == 0);
  CHECK(text.find("framework-bug-segfault, confidence 65%") != std::string::npos);
  CHECK(text.find("1. fix 0:") != std::string::npos);
  CHECK(text.find("more in --verbose") != std::string::npos);
}

TEST_CASE("verdict text: --verbose says everything, whatever the screen") {
  TextStyle style;
  style.width = 80;
  style.verbose = true;
  const auto text = report::render_verdict(long_judgement(), style);
  for (const char* part : {"reason 3:", "4. fix 3:", "step two"}) CHECK_MESSAGE(text.find(part) != std::string::npos, part);
  CHECK(rows_of(text) > style.rows);
}

TEST_CASE("verdict text: the headline says the cause in words, with the scope's words for an OOM") {
  rules::Verdict v;
  v.cause = "host-oom-checkpoint-save";
  v.scope = "cgroup";
  CHECK(report::verdict_headline(v) ==
        "The job ran out of host memory while saving a checkpoint (at the memory limit of its container or allocation)");
  v.cause = "container-oom";
  CHECK(report::verdict_headline(v) == "The job hit the memory limit of its container or allocation");
  v.ended_normally = true;
  CHECK(report::verdict_headline(v) == "The job ended normally");
}
