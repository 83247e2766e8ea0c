// A memory cgroup reused from an earlier job (a Slurm allocation, a
// long-lived container): its kernel peak and OOM counter start at that job's
// values. A small job run after an OOM kill in the same cgroup must be
// reported with its own peak and no OOM kill — not "peak 64 MiB of 64 MiB
// (100%), oom_kill 1" as before.
#include <signal.h>

#include <regex>

#include <doctest/doctest.h>

#include "skip.h"
#include "integration/cgroup_sandbox.h"
#include "integration/harness.h"
#include "integration/memory_limits.h"

namespace ftdiag::itest {
namespace {

constexpr std::uint64_t kReusedCgroupLimit = kOomTestLimit;
// The small job's own peak stays far below the earlier job's (at the limit).
// It counts ftdiag too, which shares the cgroup: a sanitized ftdiag alone
// is ~140 MiB (its shadow memory), more than a quarter of the 512 MiB limit.
#ifdef FTDIAG_SANITIZED
constexpr std::uint64_t kOwnPeakCeiling = kReusedCgroupLimit / 2;
#else
constexpr std::uint64_t kOwnPeakCeiling = kReusedCgroupLimit / 4;
#endif

std::uint64_t read_number(const fs::path& file) { return std::stoull(read_text(file)); }

std::uint64_t oom_kills(const MemoryCgroupSandbox& cgroup) {
  const std::string text = read_text(cgroup.directory() / "memory.oom_control");
  const auto at = text.find("oom_kill ");
  return at == std::string::npos ? 0 : std::stoull(text.substr(at + 9));
}

// The earlier job: OOM-killed in the cgroup, leaving its peak at the limit.
void earlier_job_killed_by_oom(const MemoryCgroupSandbox& cgroup) {
  Launch earlier{crasher_argv("alloc", {"4", "5", "4096"})};
  earlier.cgroup_procs = cgroup.procs_file();
  auto outcome = run(earlier, 60);
  REQUIRE_MESSAGE(outcome.killed_by(SIGKILL), outcome.describe());
  REQUIRE(oom_kills(cgroup) >= 1);
  REQUIRE(read_number(cgroup.directory() / "memory.max_usage_in_bytes") >= kReusedCgroupLimit / 10 * 9);
}

struct SmallJob {
  json run;
  std::string text;  // `ftdiag analyze --verbose` as a user reads it
  json verdict;
};

// A small job under ftdiag in the same cgroup: a shell that sleeps 0.3 s.
SmallJob small_job_after(const MemoryCgroupSandbox& cgroup, const TempDir& tmp) {
  Launch launch{ftdiag_run(tmp / "job", {"/bin/sh", "-c", "sleep 0.3"})};
  launch.cgroup_procs = cgroup.procs_file();
  auto outcome = run(launch, 60);
  REQUIRE_MESSAGE(outcome.exited_with(0), outcome.describe());
  auto analysis = analyze(tmp / "job");
  SmallJob job;
  job.run = only_run(analysis.document);
  job.verdict = analysis.report["verdict"];
  auto text = run(Launch{{ftdiag_binary().string(), "analyze", "--verbose", (tmp / "job").string()}});
  job.text = text.out;
  return job;
}

void check_own_figures(SmallJob& job) {
  auto& memory = job.run["memory"];
  INFO("memory: ", memory.dump());
  REQUIRE(memory["cgroup_peak_bytes"].is_number());
  CHECK(memory["cgroup_peak_bytes"].get<std::uint64_t>() < kOwnPeakCeiling);
  CHECK_MESSAGE(job.text.find("oom_kill 0") != std::string::npos, job.text);
  CHECK_MESSAGE(job.text.find("(100%)") == std::string::npos, job.text);
  CHECK_MESSAGE(job.verdict["cause"] != "container-oom", job.verdict.dump());
}

std::unique_ptr<MemoryCgroupSandbox> sandbox_or_skip_reason(std::string& why) {
  auto created = MemoryCgroupSandbox::create_v1(kReusedCgroupLimit);
  if (auto* reason = std::get_if<std::string>(&created)) {
    why = *reason;
    return nullptr;
  }
  return std::move(std::get<std::unique_ptr<MemoryCgroupSandbox>>(created));
}

}  // namespace

TEST_CASE("reused cgroup v1: a job alone in it after an OOM kill gets its own peak (reset) and no OOM kill") {
  std::string why;
  auto cgroup = sandbox_or_skip_reason(why);
  if (!cgroup) FTDIAG_SKIP(why);
  earlier_job_killed_by_oom(*cgroup);
  TempDir tmp;
  auto job = small_job_after(*cgroup, tmp);
  check_own_figures(job);
  CHECK(job.run["memory"]["cgroup"]["peak_reset"] == true);
  CHECK(job.run["memory"]["cgroup"]["shared_with"] == "");  // the job's tree had it to itself
  // The kernel's peak, reset as the job started, is the job's own.
  CHECK(job.run["memory"]["cgroup"]["peak_bytes"].get<std::uint64_t>() < kOwnPeakCeiling);
}

TEST_CASE("reused cgroup v1: shared with another process, the peak is sampled and the reason given") {
  std::string why;
  auto cgroup = sandbox_or_skip_reason(why);
  if (!cgroup) FTDIAG_SKIP(why);
  earlier_job_killed_by_oom(*cgroup);
  // A process of someone else's that stays in the cgroup: its peak is not ours to reset.
  Launch other{{"/bin/sleep", "30"}};
  other.cgroup_procs = cgroup->procs_file();
  Process neighbour(other);
  TempDir tmp;
  auto job = small_job_after(*cgroup, tmp);
  check_own_figures(job);
  auto& reset = job.run["memory"]["cgroup"]["peak_reset"];
  REQUIRE_MESSAGE(reset.is_object(), reset.dump());
  const std::string detail = reset["missing"]["detail"].get<std::string>();
  CHECK_MESSAGE(detail.find("(sleep) shares the cgroup") != std::string::npos, detail);
  // Who shares it is recorded, and the summary says the figures are the cgroup's.
  const auto shared_with = job.run["memory"]["cgroup"]["shared_with"];
  CHECK_MESSAGE(shared_with.is_string(), shared_with.dump());
  CHECK_MESSAGE(shared_with.dump().find("(sleep)") != std::string::npos, shared_with.dump());
  CHECK_MESSAGE(job.text.find("shared with pid") != std::string::npos, job.text);
  CHECK_MESSAGE(job.text.find("(sampled: the cgroup's, not the job's alone)") != std::string::npos, job.text);
  // The kernel's figure is still the earlier job's: left as read, unused.
  CHECK(read_number(cgroup->directory() / "memory.max_usage_in_bytes") >= kReusedCgroupLimit / 10 * 9);
}

}  // namespace ftdiag::itest
