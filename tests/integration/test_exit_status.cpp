// ftdiag run exits the way its job did, and the evidence records every death
// in the tree with the right status and the mechanism that saw it.
#include <signal.h>
#include <sys/wait.h>

#include <doctest/doctest.h>

#include "integration/harness.h"

namespace ftdiag::itest {
namespace {

struct Death {
  const char* name;
  int signal;
  std::vector<std::string> mode;  // die's arguments
};

const Death kDeaths[] = {
    {"SIGKILL", SIGKILL, {"signal", "KILL"}}, {"SIGSEGV", SIGSEGV, {"segv"}},
    {"SIGABRT", SIGABRT, {"abort"}},          {"SIGTERM", SIGTERM, {"signal", "TERM"}},
    {"SIGBUS", SIGBUS, {"bus"}},
};

bool any_core_file(const fs::path& dir) {
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().filename().string().starts_with("core")) return true;
  }
  return false;
}

bool netlink_works(json& run) {
  auto& netlink = run["started"]["mechanisms"]["netlink"];
  if (netlink == true) return true;
  MESSAGE("the netlink process connector is unavailable here (", netlink.dump(),
          "); grandchild deaths can only be seen by /proc scans");
  return false;
}

// The worker's pid as the launcher printed it.
int worker_pid(const std::string& out) { return pid_after(out, "launcher: worker 0 pid "); }

}  // namespace

TEST_CASE("exit_status: the job's exit code is ftdiag's exit code") {
  for (int code : {0, 1, 3, 255}) {
    CAPTURE(code);
    TempDir tmp;
    auto outcome = run(Launch{ftdiag_run(tmp / "job", crasher_argv("die", {"exit", std::to_string(code)}))});
    CHECK_MESSAGE(outcome.exited_with(code), outcome.describe());

    auto analysis = analyze(tmp / "job");
    REQUIRE_MESSAGE(analysis.outcome.exited_with(0), analysis.outcome.describe());
    auto& run = only_run(analysis.document);
    CHECK(run["complete"] == true);
    CHECK(run["job_status"]["exit_code"] == code);
    CHECK(run["job_status"]["signal"].is_null());
    const int job_pid = run["started"]["job_pid"].get<int>();
    json* job = find_process(run, job_pid);
    REQUIRE_MESSAGE(job, "the job's process is not in the evidence");
    REQUIRE(job->at("death").is_object());
    CHECK(job->at("death")["status"]["exit_code"] == code);
    CHECK(has_witness(job->at("death"), "waitpid"));
  }
}

TEST_CASE("exit_status: a job that ends at once appears once in the evidence, with both witnesses") {
  // The job can be dead before ftdiag reads the netlink events of its birth;
  // those late events must not announce a second process with the same pid.
  for (int attempt = 0; attempt < 5; ++attempt) {
    CAPTURE(attempt);
    TempDir tmp;
    REQUIRE(run(Launch{ftdiag_run(tmp / "job", crasher_argv("die", {"exit", "0"}))}).exited_with(0));
    auto analysis = analyze(tmp / "job");
    auto& run = only_run(analysis.document);
    const int job_pid = run["started"]["job_pid"].get<int>();
    CHECK_MESSAGE(count_processes(run, job_pid) == 1, "processes: ", run["processes"].dump());
    json* job = find_process(run, job_pid);
    REQUIRE(job);
    CHECK(has_witness(job->at("death"), "waitpid"));
    if (run["started"]["mechanisms"]["netlink"] == true) CHECK(has_witness(job->at("death"), "netlink"));
  }
}

TEST_CASE("exit_status: a job killed by a signal makes ftdiag die by the same signal, without a core") {
  for (const auto& death : kDeaths) {
    CAPTURE(death.name);
    TempDir tmp;
    Launch launch{ftdiag_run(tmp / "job", crasher_argv("die", death.mode))};
    // The job may dump core (into the temp dir, core_pattern permitting);
    // ftdiag itself must not, whatever limit it inherited.
    launch.cwd = tmp.path();
    launch.core_limit = 64 << 20;
    auto outcome = run(launch);
    REQUIRE_MESSAGE(outcome.status, outcome.describe());
    CHECK_MESSAGE(outcome.killed_by(death.signal), outcome.describe());
    CHECK_FALSE(WCOREDUMP(*outcome.status));

    auto analysis = analyze(tmp / "job");
    REQUIRE_MESSAGE(analysis.outcome.exited_with(0), analysis.outcome.describe());
    auto& run = only_run(analysis.document);
    CHECK(run["complete"] == true);
    CHECK(run["job_status"]["signal"] == death.signal);
    CHECK(run["job_status"]["signal_name"] == death.name);
    CHECK(run["job_status"]["launcher_code"] == -death.signal);
    json* job = find_process(run, run["started"]["job_pid"].get<int>());
    REQUIRE(job);
    REQUIRE(job->at("death").is_object());
    auto& status = job->at("death")["status"];
    CHECK(status["signal"] == death.signal);
    CHECK(has_witness(job->at("death"), "waitpid"));
    // Ground truth for the core flag: whether a core file appeared.
    CHECK(status["core_dumped"] == any_core_file(tmp.path()));
  }
}

TEST_CASE("exit_status: a worker's death under a launcher is recorded by netlink, ftdiag exits like the launcher") {
  for (const auto& death : kDeaths) {
    CAPTURE(death.name);
    TempDir tmp;
    std::vector<std::string> job = crasher_argv("launcher", {"1", crasher("die").string()});
    job.insert(job.end(), death.mode.begin(), death.mode.end());
    auto outcome = run(Launch{ftdiag_run(tmp / "job", job)});
    CHECK_MESSAGE(outcome.exited_with(1), outcome.describe());
    CHECK(outcome.err.find("exitcode    : " + std::to_string(-death.signal)) != std::string::npos);
    const int worker = worker_pid(outcome.out);
    REQUIRE_MESSAGE(worker > 0, "the launcher printed no worker pid: ", outcome.out);

    auto analysis = analyze(tmp / "job");
    REQUIRE_MESSAGE(analysis.outcome.exited_with(0), analysis.outcome.describe());
    auto& run = only_run(analysis.document);
    CHECK(run["job_status"]["exit_code"] == 1);
    json* launcher = find_process(run, run["started"]["job_pid"].get<int>());
    REQUIRE(launcher);
    CHECK(has_witness(launcher->at("death"), "waitpid"));

    json* process = find_process(run, worker);
    REQUIRE_MESSAGE(process, "worker ", worker, " is not in the evidence: ", run["processes"].dump());
    CHECK(process->at("ppid") == run["started"]["job_pid"]);
    REQUIRE_MESSAGE(process->at("death").is_object(), "the worker's death was not recorded");
    auto& died = process->at("death");
    CHECK(died["status"]["signal"] == death.signal);
    if (netlink_works(run)) CHECK_MESSAGE(has_witness(died, "netlink"), died.dump());
    CHECK_MESSAGE(count_processes(run, worker) == 1, run["processes"].dump());
  }
}

namespace {

// Starts `ftdiag run --no-netlink -- launcher [--hold-zombies HOLD] 1 die await GO segv`
// and waits until a /proc scan has seen the worker, so its death can only be
// missed by a bug. Returns the worker's pid.
int start_watched_worker(Process& ftdiag, const fs::path& job_dir) {
  auto line = ftdiag.wait_for_line("waiting pid=");
  REQUIRE_MESSAGE(line, "the worker did not start: ", ftdiag.out(), ftdiag.err());
  const int worker = pid_after(*line, "waiting pid=");
  REQUIRE(worker > 0);
  auto seen = [&] {
    auto folders = run_folders(job_dir);
    if (folders.size() != 1) return false;
    for (auto& record : read_journal(folders[0])) {
      if (record["type"] == "process" && record["pid"] == worker) return true;
    }
    return false;
  };
  REQUIRE_MESSAGE(wait_until(seen), "no /proc scan saw worker ", worker);
  return worker;
}

std::vector<std::string> watched_job(const fs::path& go_fifo, const std::vector<std::string>& launcher_options) {
  std::vector<std::string> job = crasher_argv("launcher", launcher_options);
  for (const char* arg : {"1"}) job.push_back(arg);
  for (const auto& arg : crasher_argv("die", {"await", go_fifo.string(), "segv"})) job.push_back(arg);
  return job;
}

}  // namespace

TEST_CASE("exit_status: with --no-netlink a worker's death is still recorded") {
  const std::vector<std::string> kNoNetlink = {"--no-netlink"};

  SUBCASE("the launcher reaps at once: a /proc scan sees it vanish") {
    TempDir tmp;
    Fifo go(tmp / "go");
    Process ftdiag(Launch{ftdiag_run(tmp / "job", watched_job(go.path(), {}), kNoNetlink)});
    const int worker = start_watched_worker(ftdiag, tmp / "job");
    REQUIRE(go.write_line("go"));
    auto status = ftdiag.finish();
    CHECK_MESSAGE((status && WIFEXITED(*status) && WEXITSTATUS(*status) == 1), describe_status(status));

    auto analysis = analyze(tmp / "job");
    auto& run = only_run(analysis.document);
    CHECK(run["started"]["mechanisms"]["netlink"].contains("missing"));
    json* process = find_process(run, worker);
    REQUIRE(process);
    REQUIRE_MESSAGE(process->at("death").is_object(), "the worker's death was not recorded: ", process->dump());
    auto& died = process->at("death");
    CHECK_FALSE(has_witness(died, "netlink"));
    CHECK((has_witness(died, "proc-zombie") || has_witness(died, "subreaper") || has_witness(died, "proc-scan")));
    if (died["status"].contains("missing")) {
      // Only a scan that found it gone may not know how it ended.
      CHECK_MESSAGE(died["witnesses"] == json::array({"proc-scan"}), died.dump());
    } else {
      CHECK(died["status"]["signal"] == SIGSEGV);
    }
    json* launcher = find_process(run, run["started"]["job_pid"].get<int>());
    REQUIRE(launcher);
    CHECK(has_witness(launcher->at("death"), "waitpid"));
  }

  SUBCASE("the launcher leaves the worker a zombie: the scan reads its status") {
    TempDir tmp;
    Fifo go(tmp / "go");
    Fifo reap(tmp / "reap");
    Process ftdiag(Launch{ftdiag_run(tmp / "job", watched_job(go.path(), {"--hold-zombies", reap.path().string()}),
                                     kNoNetlink)});
    const int worker = start_watched_worker(ftdiag, tmp / "job");
    REQUIRE(go.write_line("go"));
    auto death_recorded = [&] {
      for (auto& record : read_journal(run_folders(tmp / "job").at(0))) {
        if (record["type"] == "death" && record["pid"] == worker) return true;
      }
      return false;
    };
    const bool recorded = wait_until(death_recorded);
    CHECK_MESSAGE(recorded, "the zombie worker's death was not recorded while it was a zombie");
    REQUIRE(reap.write_line("reap"));
    auto status = ftdiag.finish();
    CHECK_MESSAGE((status && WIFEXITED(*status) && WEXITSTATUS(*status) == 1), describe_status(status));

    auto analysis = analyze(tmp / "job");
    auto& run = only_run(analysis.document);
    json* process = find_process(run, worker);
    REQUIRE(process);
    REQUIRE(process->at("death").is_object());
    CHECK_MESSAGE(has_witness(process->at("death"), "proc-zombie"), process->at("death").dump());
    CHECK(process->at("death")["status"]["signal"] == SIGSEGV);
  }
}

}  // namespace ftdiag::itest
