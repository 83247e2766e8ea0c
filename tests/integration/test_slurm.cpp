// Many ranks on many nodes under a real Slurm (tests/slurm/cluster.sh: one
// slurmctld, two `slurmd -N` nodes on this machine, memory enforced by
// Slurm's cgroup plugin). Each job is a real sbatch script whose srun starts
// `ftdiag run` per task, every rank a real torch process meeting the others
// over TCP (gloo), all writing one shared job directory; then one `ftdiag
// analyze` of that directory names the first failure and marks the rest.
#include <sys/socket.h>
#include <netinet/in.h>
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "skip.h"
#include "integration/harness.h"
#include "integration/slurm_cluster.h"

namespace ftdiag::itest {
namespace {

constexpr double kJobSeconds = 150;

int free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t size = sizeof address;
  ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size);
  ::close(fd);
  return ntohs(address.sin_port);
}

// The batch script a user writes: srun starts ftdiag per task, into one job
// directory on a filesystem every node sees, with the job's whole output in it.
// `launch`: what each task runs before the job's script ("" for a rank per
// task; a per-node torchrun otherwise).
fs::path write_batch_script(const TempDir& tmp, const fs::path& job_dir, const std::string& job_arguments,
                            const std::string& srun_options = "", const std::string& launch = "") {
  const auto script = tmp / "train.sbatch";
  write_text(script, "#!/bin/bash\n"
                     "export MASTER_ADDR=127.0.0.1 MASTER_PORT=" + std::to_string(free_port()) + "\n"
                     "srun --kill-on-bad-exit=1 " + srun_options + " " + ftdiag_binary().string() + " run -q --heartbeat 1 --job-dir " +
                     job_dir.string() + " -- " + kDebianPython + " " + launch + " " + FTDIAG_SOURCE_DIR +
                     "/tests/torch_jobs/slurm_ranks.py " + job_arguments + "\n");
  fs::permissions(script, fs::perms::owner_all);
  return script;
}

std::vector<std::string> batch_options(const TempDir& tmp, const fs::path& job_dir, const std::string& memory_per_node) {
  return {"-N", "2", "--ntasks-per-node=2", "--mem=" + memory_per_node, "-D", tmp.path().string(),
          "-o", (job_dir / "slurm-%j.out").string()};
}

json facts_of(const fs::path& job_dir) {
  const auto printed = run(Launch{{ftdiag_binary().string(), "analyze", job_dir.string(), "--facts"}}, 120);
  try {
    return json::parse(printed.out);
  } catch (const json::exception&) {
    FAIL_CHECK("no facts: " << printed.describe());
    return json::object();
  }
}

bool torch_and_root(std::string& why) {
  if (::geteuid() != 0) return why = "needs root (slurmd runs jobs in cgroups)", false;
  if (!torch_available()) return why = "needs Debian's python3-torch", false;
  return true;
}

// What every case starts from: a two-node cluster of its own and an empty
// job directory on "shared storage"; `skip` says why the case cannot run here.
struct SlurmSetup {
  TempDir tmp;  // first: the cluster is stopped before its folder goes
  std::optional<SlurmCluster> cluster;
  fs::path job_dir;
  std::string skip;

  SlurmSetup() {
    if (!torch_and_root(skip)) return;
    cluster.emplace(tmp / "slurm", 2);
    if (!cluster->available()) {
      skip = cluster->why_not();
      return;
    }
    job_dir = tmp / "shared" / "job";
    fs::create_directories(job_dir);
  }
};

// Moves every time of a run folder's journal and console by `seconds`: the
// records of a node whose clock is that far off.
void shift_clock(const fs::path& run_dir, double seconds) {
  std::string journal;
  for (auto record : read_journal(run_dir)) {
    for (const char* key : {"time", "last_heartbeat"}) {
      if (record.contains(key) && record[key].is_number()) record[key] = record[key].get<double>() + seconds;
    }
    journal += record.dump() + "\n";
  }
  write_text(run_dir / "journal.jsonl", journal);
  std::ifstream in(run_dir / "console.log");
  std::string console, line;
  while (std::getline(in, line)) {
    const auto space = line.find(' ');
    if (space == std::string::npos) continue;
    console += fmt::format("{:.6f}{}\n", std::stod(line.substr(0, space)) + seconds, line.substr(space));
  }
  write_text(run_dir / "console.log", console);
}

TEST_CASE("slurm: a rank over its node's memory limit on node 2 of 2 is the first failure, the other ranks its consequences, also with one node's clock 30 s behind") {
  SlurmSetup setup;
  if (!setup.skip.empty()) FTDIAG_SKIP(setup.skip);
  const TempDir& tmp = setup.tmp;
  const SlurmCluster& cluster = *setup.cluster;
  const fs::path& job_dir = setup.job_dir;
  // Each rank holds ~250 MiB; rank 3 (node 2's second task) then grows 16 MiB a step.
  const auto script = write_batch_script(tmp, job_dir, "--scenario rank-oom --victim 3 --steps-before 20");
  const auto job = cluster.submit(script, batch_options(tmp, job_dir, "900M"));
  REQUIRE(job);
  REQUIRE_MESSAGE(cluster.wait_for_end(*job, kJobSeconds), "job " << *job << " did not end");

  const auto folders = run_folders(job_dir);
  std::vector<std::string> names;
  for (const auto& f : folders) names.push_back(f.filename().string());
  const std::vector<std::string> expected_names{"node1-rank0", "node1-rank1", "node2-rank2", "node2-rank3"};
  CHECK_MESSAGE(names == expected_names, fmt::format("{}", fmt::join(names, " ")));

  auto analysis = analyze(job_dir);
  auto& report = analysis.report;
  INFO(analysis.outcome.out.substr(0, 4000));
  const std::string cause = report["verdict"]["cause"].is_string() ? report["verdict"]["cause"].get<std::string>() : "";
  CHECK_MESSAGE((cause == "host-oom-growth" || cause == "container-oom"), cause);
  CHECK(report["verdict"]["scope"] == "cgroup");
  const auto first = report["ranks"]["runs"][report["ranks"]["first"].get<std::size_t>()];
  CHECK(first["node"] == "node2");
  CHECK(first["rank"] == 3);
  CHECK(first["end"] == "SIGKILL");
  for (const auto& row : report["ranks"]["runs"]) {
    if (row["rank"] == 3) continue;
    CHECK_MESSAGE(row["role"] == "consequence", row.dump());
  }
  auto facts = facts_of(job_dir);
  CHECK(facts["death.node"] == "node2");
  CHECK(facts["death.rank"] == 3);
  CHECK(facts["job.nodes"] == 2);
  // Slurm's own report of the kill, from the job's output, and the kernel's record naming rank 3's process.
  CHECK_MESSAGE(facts["log.oom_reported"] == true, facts.dump().substr(0, 2000));
  CHECK_MESSAGE(facts["oom.killed_by_kernel"] == true, facts.dump().substr(0, 2000));
  CHECK_MESSAGE(facts["oom.victim"].get<std::string>().starts_with(fmt::format("pid {} ", facts["death.pid"].get<int>())), facts["oom.victim"].dump());

  // Node 1's clock 30 s behind: its ranks' teardown now reads 29 s before
  // the OOM kill; the common start of the step sets it right.
  for (const auto& folder : folders) {
    if (folder.filename().string().starts_with("node1-")) shift_clock(folder, -30);
  }
  auto skewed = analyze(job_dir);
  INFO(skewed.outcome.out.substr(0, 4000));
  const auto skewed_first = skewed.report["ranks"]["runs"][skewed.report["ranks"]["first"].get<std::size_t>()];
  CHECK(skewed_first["node"] == "node2");
  CHECK(skewed_first["rank"] == 3);
  CHECK(skewed.report["verdict"]["cause"] == report["verdict"]["cause"]);
  // Two nodes: either may be the one set against the other.
  REQUIRE(skewed.report["ranks"]["clocks"]["moved"].size() == 1);
  const auto moved = skewed.report["ranks"]["clocks"]["moved"][0];
  CHECK(std::fabs(moved["offset_s"].get<double>()) == doctest::Approx(30).epsilon(0.1));
  const auto text = run(Launch{{ftdiag_binary().string(), "analyze", job_dir.string()}}, 120);
  // The text states the offset the report holds (estimated from start times, so 29.9 as well as 30.0).
  const auto stated = fmt::format("s clock is {:.1f} s", std::fabs(moved["offset_s"].get<double>()));
  CHECK_MESSAGE(joined(text.out).find(stated) != std::string::npos, stated << "\n" << text.out);
}

TEST_CASE("slurm: one ftdiag per node around torchrun with a c10d rendezvous: the rank over its memory limit is the first failure") {
  SlurmSetup setup;
  if (!setup.skip.empty()) FTDIAG_SKIP(setup.skip);
  const TempDir& tmp = setup.tmp;
  const SlurmCluster& cluster = *setup.cluster;
  const fs::path& job_dir = setup.job_dir;
  // The rendezvous decides which node's agent holds ranks 2 and 3.
  const std::string torchrun = fmt::format("{}/tests/torch_jobs/torchrun.py --nnodes 2 --nproc_per_node 2 --rdzv_backend c10d "
                                           "--rdzv_endpoint 127.0.0.1:{} --rdzv_id ftdiag-test --max_restarts 0",
                                           FTDIAG_SOURCE_DIR, free_port());
  const auto script = write_batch_script(tmp, job_dir, "--scenario rank-oom --victim 3 --steps-before 20", "--ntasks-per-node=1", torchrun);
  auto options = batch_options(tmp, job_dir, "900M");
  options[2] = "--ntasks-per-node=1";
  const auto job = cluster.submit(script, options);
  REQUIRE(job);
  REQUIRE_MESSAGE(cluster.wait_for_end(*job, kJobSeconds), "job " << *job << " did not end");
  CHECK(run_folders(job_dir).size() == 2);  // one per node
  auto analysis = analyze(job_dir);
  auto& report = analysis.report;
  INFO(analysis.outcome.out.substr(0, 4000));
  const std::string cause = report["verdict"]["cause"].is_string() ? report["verdict"]["cause"].get<std::string>() : "";
  CHECK_MESSAGE((cause == "host-oom-growth" || cause == "container-oom"), cause);
  const auto first = report["ranks"]["runs"][report["ranks"]["first"].get<std::size_t>()];
  CHECK(first["rank"] == 3);  // the dying process's own RANK, not the task's
  CHECK(first["end"].get<std::string>().starts_with("SIGKILL"));
  auto facts = facts_of(job_dir);
  CHECK(facts["death.rank"] == 3);
  CHECK(facts["death.node"] == first["node"]);
  for (const auto& row : report["ranks"]["runs"]) {
    if (row == first) continue;
    CHECK_MESSAGE(row["role"] == "consequence", row.dump());
  }
}

TEST_CASE("slurm: ftdiag around srun inside sbatch reads Slurm's own report of the rank over its memory limit") {
  SlurmSetup setup;
  if (!setup.skip.empty()) FTDIAG_SKIP(setup.skip);
  const TempDir& tmp = setup.tmp;
  const SlurmCluster& cluster = *setup.cluster;
  const fs::path& job_dir = setup.job_dir;
  // The batch script's node runs ftdiag around srun: it sees srun's output
  // and how the step ended, not the ranks on the nodes.
  const auto script = tmp / "train.sbatch";
  write_text(script, "#!/bin/bash\n"
                     "export MASTER_ADDR=127.0.0.1 MASTER_PORT=" + std::to_string(free_port()) + "\n" +
                     ftdiag_binary().string() + " run -q --job-dir " + job_dir.string() + " -- srun --kill-on-bad-exit=1 " +
                     kDebianPython + " " + FTDIAG_SOURCE_DIR + "/tests/torch_jobs/slurm_ranks.py --scenario rank-oom --victim 3 --steps-before 20\n");
  fs::permissions(script, fs::perms::owner_all);
  const auto job = cluster.submit(script, batch_options(tmp, job_dir, "900M"));
  REQUIRE(job);
  REQUIRE_MESSAGE(cluster.wait_for_end(*job, kJobSeconds), "job " << *job << " did not end");
  CHECK(run_folders(job_dir).size() == 1);
  auto analysis = analyze(job_dir);
  INFO(analysis.outcome.out.substr(0, 4000));
  const std::string cause = analysis.report["verdict"]["cause"].is_string() ? analysis.report["verdict"]["cause"].get<std::string>() : "";
  // Slurm said which task ran out of memory, and on which node: a host OOM at a cgroup's limit.
  CHECK_MESSAGE((cause == "container-oom" || cause == "host-oom-growth"), cause);
  CHECK(analysis.report["verdict"]["scope"] == "cgroup");
  auto facts = facts_of(job_dir);
  CHECK(facts["log.oom_reported"] == true);
  CHECK_MESSAGE(facts.dump().find("node2") != std::string::npos, "the report names node2");
}

TEST_CASE("slurm: a step at its time limit is an external kill by Slurm, with the reason") {
  SlurmSetup setup;
  if (!setup.skip.empty()) FTDIAG_SKIP(setup.skip);
  const TempDir& tmp = setup.tmp;
  const SlurmCluster& cluster = *setup.cluster;
  const fs::path& job_dir = setup.job_dir;
  const auto script = write_batch_script(tmp, job_dir, "--scenario train --max-seconds 600");
  auto options = batch_options(tmp, job_dir, "900M");
  options.insert(options.end(), {"-t", "1"});  // Slurm's least: a minute (seconds round up to one)
  const auto job = cluster.submit(script, options);
  REQUIRE(job);
  // slurmctld looks at time limits every 30 s: the step ends 60 to 100 s in.
  REQUIRE_MESSAGE(cluster.wait_for_end(*job, 200), "job " << *job << " did not end");
  auto analysis = analyze(job_dir);
  INFO(analysis.outcome.out.substr(0, 4000));
  CHECK(analysis.report["verdict"]["cause"] == "external-kill");
  auto facts = facts_of(job_dir);
  CHECK_MESSAGE(facts["log.scheduler_cancel"] == "time-limit", facts["log.scheduler_cancel"].dump());
  CHECK(analysis.report["verdict"]["summary"].get<std::string>().find("TIME LIMIT") != std::string::npos);
  for (const auto& row : analysis.report["ranks"]["runs"]) CHECK_MESSAGE(row["end"] != "no end", row.dump());
}

TEST_CASE("slurm: a job cancelled by scancel is an external kill by Slurm, with the reason") {
  SlurmSetup setup;
  if (!setup.skip.empty()) FTDIAG_SKIP(setup.skip);
  const TempDir& tmp = setup.tmp;
  const SlurmCluster& cluster = *setup.cluster;
  const fs::path& job_dir = setup.job_dir;
  const auto script = write_batch_script(tmp, job_dir, "--scenario train --max-seconds 600");
  const auto job = cluster.submit(script, batch_options(tmp, job_dir, "900M"));
  REQUIRE(job);
  const auto output = job_dir / ("slurm-" + *job + ".out");
  REQUIRE_MESSAGE(wait_until([&] { return read_text(output).find("'loss'") != std::string::npos; }, 90), read_text(output));
  CHECK(cluster.command({"scancel", *job}).exited_with(0));
  REQUIRE_MESSAGE(cluster.wait_for_end(*job, kJobSeconds), "job " << *job << " did not end");
  auto analysis = analyze(job_dir);
  INFO(analysis.outcome.out.substr(0, 4000));
  CHECK(analysis.report["verdict"]["cause"] == "external-kill");
  auto facts = facts_of(job_dir);
  CHECK_MESSAGE(facts["log.scheduler_cancel"] == "cancelled", facts["log.scheduler_cancel"].dump());
}

TEST_CASE("slurm: a node that vanishes mid-run is reported as a lost node, not as a crash") {
  SlurmSetup setup;
  if (!setup.skip.empty()) FTDIAG_SKIP(setup.skip);
  const TempDir& tmp = setup.tmp;
  const SlurmCluster& cluster = *setup.cluster;
  const fs::path& job_dir = setup.job_dir;
  const auto script = write_batch_script(tmp, job_dir, "--scenario train --max-seconds 600");
  const auto job = cluster.submit(script, batch_options(tmp, job_dir, "900M"));
  REQUIRE(job);
  const auto output = job_dir / ("slurm-" + *job + ".out");
  REQUIRE_MESSAGE(wait_until([&] { return read_text(output).find("'loss'") != std::string::npos; }, 90), read_text(output));
  // Let a heartbeat or two reach the journals, then node 2 goes at once, as
  // in a power loss: its slurmd first (nothing restarts or reports), then
  // every process of its Slurm cgroups, ftdiag included: no goodbye.
  ::usleep(2'500'000);
  const int slurmd = cluster.slurmd_pid("node2");
  REQUIRE(slurmd > 0);
  ::kill(slurmd, SIGKILL);
  int killed = 0;
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const auto name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const auto cgroup = read_text(entry.path() / "cgroup");
    const auto environ = read_text(entry.path() / "environ");
    const bool on_node2 = cgroup.find("/slurm_node2/") != std::string::npos || cgroup.find("/slurm_node2\n") != std::string::npos ||
                          environ.find("SLURMD_NODENAME=node2") != std::string::npos;
    if (on_node2) killed += ::kill(std::stoi(name), SIGKILL) == 0;
  }
  CHECK(killed >= 3);  // ftdiag twice, its ranks, slurmstepd
  // Node 1's ranks lose their peers and fail; their ftdiag records that and ends.
  REQUIRE_MESSAGE(wait_until([&] {
                    int ended = 0;
                    for (const auto& folder : run_folders(job_dir)) {
                      if (!folder.filename().string().starts_with("node1-")) continue;
                      for (const auto& record : read_journal(folder)) ended += record["type"] == "end";
                    }
                    return ended == 2;
                  }, 90),
                  "node 1's runs did not end");
  cluster.command({"scancel", *job});
  auto analysis = analyze(job_dir);
  INFO(analysis.outcome.out.substr(0, 4000));
  CHECK(analysis.report["verdict"]["cause"] == "node-lost");
  auto facts = facts_of(job_dir);
  CHECK(facts["nodes.first_silent"] == "node2");
  CHECK(facts["death.node"] == "node2");
  CHECK(facts["nodes.silent_lead"].get<double>() > 0);
  for (const auto& row : analysis.report["ranks"]["runs"]) {
    if (row["node"] == "node2") {
      CHECK_MESSAGE((row["role"] == "fell silent" || row["role"] == "first failure"), row.dump());
      CHECK(row["end"] == "no end");
    } else {
      CHECK_MESSAGE(row["role"] == "consequence", row.dump());
    }
  }
}

}  // namespace
}  // namespace ftdiag::itest
