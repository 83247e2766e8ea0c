// The job's argv reaches it exactly as typed: words that look like ftdiag's
// own options belong to the job once its command has started, with or
// without "--".
#include <doctest/doctest.h>

#include "integration/harness.h"

namespace ftdiag::itest {
namespace {

const std::vector<std::string> kEcho = {"/bin/sh", "-c", "printf '%s|' \"$@\"", "sh"};

std::vector<std::string> with(std::vector<std::string> head, const std::vector<std::string>& tail) {
  head.insert(head.end(), tail.begin(), tail.end());
  return head;
}

}  // namespace

TEST_CASE("command line: after --, every word is the job's, including ftdiag's option names and another --") {
  TempDir tmp;
  auto argv = with({ftdiag_binary().string(), "run", "--job-dir", (tmp / "job").string(), "--interval", "0.1", "-q", "--"},
                   with(kEcho, {"--job-dir", "elsewhere", "-q", "--", "z"}));
  auto outcome = run(Launch{argv});
  REQUIRE_MESSAGE(outcome.exited_with(0), outcome.describe());
  CHECK(outcome.out == "--job-dir|elsewhere|-q|--|z|");
  CHECK(fs::exists(tmp / "job"));
  CHECK_FALSE(fs::exists("elsewhere"));
}

TEST_CASE("command line: without --, the job's command starts at its first word") {
  TempDir tmp;
  auto argv = with({ftdiag_binary().string(), "run", "--job-dir=" + (tmp / "job").string(), "-q"},
                   with(kEcho, {"-q", "--interval", "9", "--", "x"}));
  auto outcome = run(Launch{argv});
  REQUIRE_MESSAGE(outcome.exited_with(0), outcome.describe());
  CHECK(outcome.out == "-q|--interval|9|--|x|");
}

TEST_CASE("command line: no command, or an unknown option of ftdiag's, is a usage error") {
  auto none = run(Launch{{ftdiag_binary().string(), "run", "--quiet", "--"}});
  CHECK_MESSAGE(none.exited_with(2), none.describe());
  CHECK(none.err.find("no command") != std::string::npos);
  auto unknown = run(Launch{{ftdiag_binary().string(), "run", "--no-such-option", "--", "/bin/true"}});
  CHECK_MESSAGE(unknown.exited_with(2), unknown.describe());
  auto bad_interval = run(Launch{{ftdiag_binary().string(), "run", "--interval", "0", "--", "/bin/true"}});
  CHECK_MESSAGE(bad_interval.exited_with(2), bad_interval.describe());
}

TEST_CASE("command line: a mistyped command is named, with the command it is closest to") {
  auto typo = run(Launch{{ftdiag_binary().string(), "analzye", "job/"}});
  CHECK_MESSAGE(typo.exited_with(2), typo.describe());
  CHECK(typo.err.find("unknown command \"analzye\": did you mean \"ftdiag analyze\"?") != std::string::npos);
  CHECK(typo.err.find("run, ") != std::string::npos);
  auto prefix = run(Launch{{ftdiag_binary().string(), "pre"}});
  CHECK_MESSAGE(prefix.exited_with(2), prefix.describe());
  CHECK(prefix.err.find("did you mean \"ftdiag preflight\"?") != std::string::npos);
  auto far = run(Launch{{ftdiag_binary().string(), "diagnose"}});
  CHECK_MESSAGE(far.exited_with(2), far.describe());
  CHECK(far.err.find("unknown command \"diagnose\"") != std::string::npos);
  CHECK(far.err.find("did you mean") == std::string::npos);
  auto help = run(Launch{{ftdiag_binary().string(), "--help"}});
  CHECK_MESSAGE(help.exited_with(0), help.describe());
}

TEST_CASE("command line: every command's --help has an example, and run's usage line says where the job's command goes, once") {
  for (const char* command : {"run", "analyze", "preflight", "judge", "rules", "explain", "estimate"}) {
    CAPTURE(command);
    auto help = run(Launch{{ftdiag_binary().string(), command, "--help"}});
    CHECK_MESSAGE(help.exited_with(0), help.describe());
    CHECK(help.out.find("Example") != std::string::npos);
    CHECK(help.out.find(std::string("  ftdiag ") + command) != std::string::npos);
  }
  auto run_help = run(Launch{{ftdiag_binary().string(), "run", "--help"}});
  const auto& text = run_help.out;
  CHECK(text.find("Usage: ftdiag run [OPTIONS] [--] COMMAND [ARGS...]") != std::string::npos);
  CHECK(text.find("Usage:") == text.rfind("Usage:"));
  auto analyze_help = run(Launch{{ftdiag_binary().string(), "analyze", "--help"}});
  CHECK(analyze_help.out.find("kernel logs (dmesg") != std::string::npos);
}

TEST_CASE("command line: a mistyped option is named with the option it is closest to") {
  auto analyze = run(Launch{{ftdiag_binary().string(), "analyze", "--formt", "json", "job/"}});
  CHECK_MESSAGE(analyze.exited_with(2), analyze.describe());
  CHECK(analyze.err.find("ftdiag analyze: unknown option \"--formt\": did you mean \"--format\"?") != std::string::npos);
  auto estimate = run(Launch{{ftdiag_binary().string(), "estimate", "--param=7B"}});
  CHECK_MESSAGE(estimate.exited_with(2), estimate.describe());
  CHECK(estimate.err.find("did you mean \"--params\"?") != std::string::npos);
  auto job = run(Launch{{ftdiag_binary().string(), "run", "--job-dri", "x", "--", "/bin/true"}});
  CHECK_MESSAGE(job.exited_with(2), job.describe());
  CHECK(job.err.find("unknown option \"--job-dri\": did you mean \"--job-dir\"?") != std::string::npos);
  auto far = run(Launch{{ftdiag_binary().string(), "analyze", "--zzzzzzzz", "job/"}});
  CHECK_MESSAGE(far.exited_with(2), far.describe());
  CHECK(far.err.find("did you mean") == std::string::npos);
}

TEST_CASE("command line: a usage error quotes what was typed through the redaction step") {
  const std::string token = "hf_" + std::string(34, 'a');
  for (const auto& argv : std::vector<std::vector<std::string>>{
           {ftdiag_binary().string(), "analyze", "--hf-tokn=" + token, "job/"},
           {ftdiag_binary().string(), "run", "--hf-tokn=" + token, "--", "/bin/true"},
           {ftdiag_binary().string(), token},
           {ftdiag_binary().string(), "analyze", "--password=hunter2secret", "job/"}}) {
    CAPTURE(argv[1]);
    auto outcome = run(Launch{argv});
    CHECK_MESSAGE(outcome.exited_with(2), outcome.describe());
    CHECK(outcome.err.find("<redacted:") != std::string::npos);
    CHECK(outcome.err.find(token) == std::string::npos);
    CHECK(outcome.err.find("hunter2secret") == std::string::npos);
  }
}

// Guards against "nan" slipping through the range check (every comparison
// with NaN is false) into the run record and the sampler's timer.
TEST_CASE("command line: an --interval that is not a finite number is a usage error, before any job runs") {
  TempDir tmp;
  for (const char* interval : {"nan", "NaN", "-nan", "inf", "-inf", "1e999", "abc", ""}) {
    CAPTURE(interval);
    auto outcome = run(Launch{{ftdiag_binary().string(), "run", "--job-dir", (tmp / "job").string(), "--interval",
                               interval, "--", "/bin/sh", "-c", "echo ran"}});
    CHECK_MESSAGE(outcome.exited_with(2), outcome.describe());
    CHECK(outcome.err.find("--interval") != std::string::npos);
    CHECK(outcome.out.empty());
  }
  CHECK_FALSE(fs::exists(tmp / "job"));
}

}  // namespace ftdiag::itest
