// A worker OOM-killed where ftdiag cannot see how it died: inside a pid
// namespace (a container entrypoint, where the process connector is not
// available) or with --no-netlink, a grandchild reaped by its own launcher
// just vanishes. The cgroup's OOM-kill counter still rose: the verdict must
// be the OOM, and say it was inferred.
#include <signal.h>
#include <unistd.h>

#include <string>

#include <doctest/doctest.h>

#include "skip.h"
#include "integration/cgroup_sandbox.h"
#include "integration/harness.h"
#include "integration/memory_limits.h"

namespace ftdiag::itest {
namespace {

// A launcher whose one worker allocates until the cgroup's OOM killer takes it.
std::vector<std::string> launcher_with_allocating_worker() {
  std::vector<std::string> argv = {crasher("launcher").string(), "1"};
  for (const auto& a : crasher_argv("alloc", {std::to_string(kOomTestLimitMiB / 8), "20", "4096"})) argv.push_back(a);
  return argv;
}

// Where the kernel's log can be read, its record names the victim (tied to
// the vanished process by pid, or inside the namespace by cgroup and time);
// where it cannot, the SIGKILL is inferred and the verdict says so.
void check_inferred_oom(const fs::path& job_dir, const std::string& matched_by) {
  auto analysis = analyze(job_dir);
  REQUIRE_MESSAGE(analysis.outcome.exited_with(0), analysis.outcome.describe());
  auto& report = analysis.report;
  auto& verdict = report["verdict"];
  INFO("verdict: ", verdict.dump(), "\nfindings: ", report["findings"].dump());
  CHECK(verdict["cause"] == "container-oom");
  CHECK(verdict["scope"] == "cgroup");
  const bool kernel_read = only_run(analysis.document)["started"]["mechanisms"]["kernel-log"] == true;
  const std::string expected = kernel_read ? "the kernel's record was tied to the job's process by " + matched_by : "inferred";
  bool said = false;
  for (auto& f : report["findings"]) {
    if (f["rule"] != verdict["rule"]) continue;
    for (auto& s : f["supporting"]) said |= s["says"].get<std::string>().find(expected) != std::string::npos;
  }
  CHECK_MESSAGE(said, "the verdict does not say: ", expected);
  if (kernel_read) {
    CHECK_MESSAGE(report["findings"].dump().find("it OOM-killed pid") != std::string::npos, "the verdict does not name the victim");
  }
}

}  // namespace

TEST_CASE("inferred oom: a worker OOM-killed inside a pid namespace (no netlink) is container-oom, inferred") {
  if (!pid_namespaces_available()) FTDIAG_SKIP("cannot create a pid namespace here (needs root or user namespaces)");
  auto made = MemoryCgroupSandbox::create_any(kOomTestLimit);
  if (auto* why_not = std::get_if<std::string>(&made)) FTDIAG_SKIP(*why_not);
  const auto& cgroup = std::get<std::unique_ptr<MemoryCgroupSandbox>>(made);
  TempDir tmp;
  std::vector<std::string> argv = {"/usr/bin/unshare", "--pid", "--fork", "--mount-proc"};
  for (const auto& a : ftdiag_run(tmp / "job", launcher_with_allocating_worker())) argv.push_back(a);
  Launch launch{argv};
  launch.cgroup_procs = cgroup->procs_file();
  auto outcome = run(launch, 60);
  // The launcher saw its worker die and exited 1.
  REQUIRE_MESSAGE(outcome.exited_with(1), outcome.describe());
  check_inferred_oom(tmp / "job", "cgroup and time");
}

TEST_CASE("inferred oom: the same with --no-netlink, outside any namespace") {
  auto made = MemoryCgroupSandbox::create_any(kOomTestLimit);
  if (auto* why_not = std::get_if<std::string>(&made)) FTDIAG_SKIP(*why_not);
  const auto& cgroup = std::get<std::unique_ptr<MemoryCgroupSandbox>>(made);
  TempDir tmp;
  Launch launch{ftdiag_run(tmp / "job", launcher_with_allocating_worker(), {"--no-netlink"})};
  launch.cgroup_procs = cgroup->procs_file();
  auto outcome = run(launch, 60);
  REQUIRE_MESSAGE(outcome.exited_with(1), outcome.describe());
  check_inferred_oom(tmp / "job", "pid");
}

}  // namespace ftdiag::itest
