// `ftdiag analyze` of a kernel log alone (dmesg, journalctl -k, syslog
// renderings of real and reference records): the verdict names the kernel's
// own account, with the victim, its memory and the limit. And --kernel-log
// brings another machine's log to a job directory.
#include <doctest/doctest.h>

#include "integration/harness.h"

namespace ftdiag::itest {
namespace {

fs::path fixture(const std::string& name) { return fs::path(FTDIAG_SOURCE_DIR) / "tests/fixtures/kernel-log" / name; }

Analysis analyze_args(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {ftdiag_binary().string(), "analyze", "--format", "json", "--no-host-logs"};
  argv.insert(argv.end(), args.begin(), args.end());
  Analysis analysis;
  analysis.outcome = run(Launch{argv}, 60);
  if (analysis.outcome.exited_with(0)) {
    analysis.report = json::parse(analysis.outcome.out);
    analysis.document = analysis.report["evidence"];
  }
  return analysis;
}

struct Golden {
  const char* file;
  const char* cause;
  const char* scope;     // "" when none
  const char* summary_has;
};

}  // namespace

TEST_CASE("analyze kernel logs: each rendering of a real OOM kill, and older kernels' records, give the kernel's verdict") {
  const Golden cases[] = {
      {"oom-memcg-v1.dmesg.txt", "container-oom", "cgroup", "killed pid 5165 (python3)"},
      {"oom-memcg-v1.dmesg-T.txt", "container-oom", "cgroup", "killed pid 5165 (python3)"},
      {"oom-memcg-v1.dmesg-x.txt", "container-oom", "cgroup", "killed pid 5165 (python3)"},
      {"oom-memcg-v1.dmesg-r.txt", "container-oom", "cgroup", "killed pid 5165 (python3)"},
      {"oom-memcg-v1.kmsg.txt", "container-oom", "cgroup", "killed pid 5165 (python3)"},
      {"oom-memcg-v1.journal-json.txt", "container-oom", "cgroup", "killed pid 5165 (python3)"},
      {"oom-memcg-v1.syslog.txt", "container-oom", "cgroup", "killed pid 5165 (python3)"},
      {"oom-memcg-v1-multiproc.dmesg.txt", "container-oom", "cgroup", "killed pid 5932 (a b) (c)"},
      {"global-6.1-caller.dmesg.txt", "host-oom", "node", "killed pid 473206 (doxygen)"},
      {"rhel7-3.10-memcg.syslog.txt", "container-oom", "cgroup", "limit of 64.0 GiB"},
      {"nvidia-xid.dmesg.txt", "gpu-hardware-xid", "", "Xid"},
      {"segfault-and-traps.dmesg.txt", "framework-bug-segfault", "", "segfault at 0"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.file);
    auto analysis = analyze_args({fixture(c.file).string()});
    REQUIRE_MESSAGE(analysis.outcome.exited_with(0), analysis.outcome.describe());
    auto& verdict = analysis.report["verdict"];
    CHECK_MESSAGE(verdict["cause"] == c.cause, verdict.dump());
    if (*c.scope) CHECK_MESSAGE(verdict["scope"] == c.scope, verdict.dump());
    CHECK_MESSAGE(verdict["summary"].get<std::string>().find(c.summary_has) != std::string::npos, verdict.dump());
  }
}

TEST_CASE("analyze kernel logs: --kernel-log names a log that is not in the path, an unreadable one is a clear error") {
  TempDir tmp;
  auto outcome = run(Launch{ftdiag_run(tmp / "job", crasher_argv("die", {"exit", "0"}))}, 30);
  REQUIRE_MESSAGE(outcome.exited_with(0), outcome.describe());
  auto analysis = analyze_args({(tmp / "job").string(), "--kernel-log", fixture("oom-memcg-v1.dmesg.txt").string()});
  REQUIRE_MESSAGE(analysis.outcome.exited_with(0), analysis.outcome.describe());
  auto& hosts = analysis.document["hosts"];
  bool read = false;
  for (auto& host : hosts) {
    if (host["kernel"].contains("records")) read |= host["kernel"]["from"]["file"] == fixture("oom-memcg-v1.dmesg.txt").string();
  }
  CHECK_MESSAGE(read, hosts.dump());
  // The job succeeded: the other machine's OOM kill is not its incident.
  CHECK(analysis.report["verdict"]["cause"] != "container-oom");

  auto missing = analyze_args({(tmp / "job").string(), "--kernel-log", (tmp / "no-such-file").string()});
  CHECK_MESSAGE(missing.outcome.exited_with(3), missing.outcome.describe());
  CHECK(missing.outcome.err.find("cannot read the kernel log") != std::string::npos);
}

}  // namespace ftdiag::itest
