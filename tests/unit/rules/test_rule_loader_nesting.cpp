// Hostile nesting in a rule file must become a load error, never a crash of
// ftdiag. Each case runs in a child process so that a stack overflow fails
// this test instead of killing the whole test binary.
#include <doctest/doctest.h>

#include <csignal>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

#include "rule_text.h"

using namespace ftdiag::rules;
using namespace ftdiag::rules::testing;

namespace {

enum ChildExit { kRefused = 0, kAccepted = 3 };

// How parsing `text` ended in a child process: an exit code, or the signal
// that killed it (as 128 + signal).
int parse_in_child(const std::string& text) {
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    // The test framework's crash handlers would report from the child too.
    for (int sig : {SIGSEGV, SIGBUS, SIGABRT, SIGILL}) std::signal(sig, SIG_DFL);
    const RuleSet set = parse_text(text);
    _exit(set.rules.empty() && !set.errors.empty() ? kRefused : kAccepted);
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::string rule_with_when(const std::string& when) {
  return R"({"rules": [{"id": "deep", "cause": "external-kill", "confidence": 0.5, "when": )" + when +
         R"(, "summary": "s", "remediation": ["r"]}]})";
}

}  // namespace

TEST_CASE("rule loader: conditions nested 20000 deep are refused without a crash") {
  const int depth = 20000;
  std::string when;
  for (int i = 0; i < depth; ++i) when += R"({"not": )";
  when += R"({"fact": "death.signal", "eq": 9})";
  when += std::string(depth, '}');
  CHECK(parse_in_child(rule_with_when(when)) == kRefused);
}

TEST_CASE("rule loader: an operand of deeply nested arrays is refused without a crash") {
  const int depth = 200000;
  const std::string when = R"({"fact": "death.signal", "eq": )" + std::string(depth, '[') + std::string(depth, ']') + "}";
  CHECK(parse_in_child(rule_with_when(when)) == kRefused);
}

TEST_CASE("rule loader: moderate nesting still loads") {
  std::string when;
  for (int i = 0; i < 50; ++i) when += R"({"not": )";
  when += R"({"fact": "death.signal", "eq": 9})" + std::string(50, '}');
  const RuleSet set = parse_text(rule_with_when(when));
  CHECK(set.ok());
  CHECK(set.rules.size() == 1);
}

TEST_CASE("rule loader: a number beyond a double is a rule error at its position") {
  const std::string text = rule_with_when(R"({"fact": "death.signal", "eq": 1e999})");
  const RuleSet set = parse_text(text);
  REQUIRE(set.errors.size() == 1);
  const auto& e = set.errors.front();
  CHECK(e.message.find("number out of range") != std::string::npos);
  CHECK(e.position.line == position_of(text, "1e999").line);
  CHECK(e.position.column == position_of(text, "1e999").column);
  CHECK(set.rules.empty());
}
