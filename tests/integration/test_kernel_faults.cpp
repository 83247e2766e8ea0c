// A real segfault and a real general protection fault under `ftdiag run`:
// the kernel logs each ("segfault at ...", "traps: ... general protection
// fault"), ftdiag reads the line live from /dev/kmsg and ties it to the
// process by its pid; the function and file:line are named from the
// crasher's DWARF; the verdict quotes them.
#include <signal.h>
#include <unistd.h>

#include <string>

#include <doctest/doctest.h>

#include "skip.h"
#include "integration/harness.h"

namespace ftdiag::itest {
namespace {

// The fault event of the run's kernel evidence for `pid`, or null.
json* fault_of(json& run, int pid) {
  auto& kernel = run["kernel"];
  if (!kernel.contains("records")) return nullptr;
  for (auto& record : kernel["records"]) {
    if (record["kind"] == "fault" && record["pid"] == pid) return &record;
  }
  return nullptr;
}

void check_fault_recorded(const std::string& mode, const std::string& kind, const std::string& function) {
  TempDir tmp;
  auto outcome = run(Launch{ftdiag_run(tmp / "job", crasher_argv("die", {mode}))}, 30);
  REQUIRE_MESSAGE(outcome.killed_by(SIGSEGV), outcome.describe());
  auto analysis = analyze(tmp / "job");
  REQUIRE_MESSAGE(analysis.outcome.exited_with(0), analysis.outcome.describe());
  auto& run = only_run(analysis.document);
  auto& mechanisms = run["started"]["mechanisms"];
  if (mechanisms["kernel-log"] != true) FTDIAG_SKIP("the kernel log cannot be read here: " + mechanisms["kernel-log"].dump());
  if (mechanisms["kernel-fault-lines"] != true) {
    // The evidence must say why no line can be expected.
    CHECK(mechanisms["kernel-fault-lines"].dump().find("exception-trace") != std::string::npos);
    FTDIAG_SKIP("the kernel does not log faults here: " + mechanisms["kernel-fault-lines"].dump());
  }
  const int job = run["started"]["job_pid"].get<int>();
  json* fault = fault_of(run, job);
  INFO("kernel evidence: ", run["kernel"].dump());
  REQUIRE_MESSAGE(fault, "no fault record for pid ", job);
  CHECK(fault->at("details")["fault"] == kind);
  CHECK(fault->at("details")["comm"] == "die");
  CHECK(fault->at("signal") == SIGSEGV);
  // Named from the crasher's own DWARF (built with -g): function and file:line.
  auto& details = fault->at("details");
  CHECK(details["function"] == function);
  REQUIRE(details["source"].is_string());
  CHECK(details["source"].get<std::string>().find("die.c:") != std::string::npos);
  auto& report = analysis.report;
  INFO("findings: ", report["findings"].dump());
  CHECK_MESSAGE(report["verdict"]["cause"] == "framework-bug-segfault", report["verdict"].dump());
  CHECK_MESSAGE(report["findings"].dump().find("the kernel logged the fault") != std::string::npos, "the verdict does not quote the kernel");
  CHECK_MESSAGE(report["findings"].dump().find("it faulted in " + function + " at ") != std::string::npos,
                "the verdict does not name the function and line");
}

}  // namespace

TEST_CASE("kernel faults: a real segfault's kernel line is read live and tied to the job's pid") {
  check_fault_recorded("segv", "segfault", "crash_by_null_dereference");
}

TEST_CASE("kernel faults: a real general protection fault's kernel line is read live and tied to the job's pid") {
  check_fault_recorded("gpf", "general-protection", "crash_by_general_protection");
}

}  // namespace ftdiag::itest
