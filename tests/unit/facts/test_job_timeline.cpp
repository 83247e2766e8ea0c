#include <doctest/doctest.h>

#include "evidence_builder.h"
#include "facts/extract.h"
#include "facts/job_timeline.h"
#include "facts/node_clocks.h"

using namespace ftdiag;
using namespace ftdiag::facts;
using namespace ftdiag::facts::testing;

namespace {

// A rank of Slurm step 7.0 on `node`, started `started_at` s after kStart.
evidence::RunEvidence rank_run(const std::string& node, int rank, double started_at) {
  auto run = run_started();
  run.directory = node + "-rank" + std::to_string(rank);
  run.started.time = kStart + started_at;
  run.started.host = "machine";
  run.started.node = node;
  run.started.rank = rank;
  run.started.scheduler_job = "slurm 7.0";
  run.started.placement = {{"SLURM_NNODES", "3"}, {"SLURM_JOB_NODELIST", "node[1-3]"}};
  return run;
}

// One host per node, as the journal collector groups them.
evidence::EvidenceDocument nodes_document(std::vector<evidence::RunEvidence> runs) {
  evidence::EvidenceDocument d;
  d.generator = "ftdiag test";
  for (auto& run : runs) {
    const std::string node = evidence::node_of(run.started);
    auto& host = evidence::host_named(d, node);
    host.runs.push_back(std::move(run));
  }
  return d;
}

// The run's job dies `at` s after kStart, on the run's own clock.
void dies(evidence::RunEvidence& run, double at, ExitStatus status) {
  add_process(run, kJobPid, {"python3", "train.py"}, at, status);
  end_run(run, at, status);
}

}  // namespace

TEST_CASE("node list: Slurm's compact host lists expand as Slurm writes them") {
  using V = std::vector<std::string>;
  CHECK(expand_slurm_node_list("node[1-3,7],gpu-a01") == V{"node1", "node2", "node3", "node7", "gpu-a01"});
  CHECK(expand_slurm_node_list("node[01-03]") == V{"node01", "node02", "node03"});
  CHECK(expand_slurm_node_list("n[1-2]-ib,login") == V{"n1-ib", "n2-ib", "login"});
  CHECK(expand_slurm_node_list("solo") == V{"solo"});
  CHECK(expand_slurm_node_list("node[1-").empty());
  CHECK(expand_slurm_node_list("node[3-1]").empty());
  CHECK(expand_slurm_node_list("node[1-100000]", 10).size() == 10);
}

TEST_CASE("node clocks: a node whose runs of one Slurm step started 30 s apart from the others' has its clock moved by that") {
  auto a0 = rank_run("node1", 0, 0), a1 = rank_run("node1", 1, 0.2);
  auto b2 = rank_run("node2", 2, 30.1), b3 = rank_run("node2", 3, 30.3);
  auto c4 = rank_run("node3", 4, 0.4);
  const auto document = nodes_document({a0, a1, b2, b3, c4});
  const auto clocks = NodeClocks::estimate(document);
  REQUIRE(clocks.moved().size() == 1);
  CHECK(clocks.moved()[0].node == "node2");
  CHECK(clocks.moved()[0].offset_s == doctest::Approx(-29.9).epsilon(0.01));
  CHECK(clocks.offset_of("node1") == 0);
  CHECK(clocks.basis().find("Slurm step 7.0") != std::string::npos);
}

TEST_CASE("node clocks: without a step the nodes share, nothing is moved, and the basis says why") {
  auto a0 = rank_run("node1", 0, 0), b1 = rank_run("node2", 1, 40);
  a0.started.scheduler_job.clear();
  b1.started.scheduler_job.clear();
  const auto clocks = NodeClocks::estimate(nodes_document({a0, b1}));
  CHECK(clocks.moved().empty());
  CHECK(clocks.basis().find("no scheduler step") != std::string::npos);
}

TEST_CASE("job timeline: a kill on a node whose clock is behind is still the first failure, the teardown after it") {
  // node2's clock is 30 s behind: its OOM kill reads 30 s earlier than it was, its start too.
  auto a0 = rank_run("node1", 0, 0), a1 = rank_run("node1", 1, 0);
  auto b2 = rank_run("node2", 2, -30), b3 = rank_run("node2", 3, -30);
  dies(b3, 50 - 30, ExitStatus::killed(SIGKILL));
  dies(b2, 50.5 - 30, ExitStatus::killed(SIGTERM));
  dies(a0, 50.4, ExitStatus::killed(SIGTERM));
  dies(a1, 50.6, ExitStatus::killed(SIGTERM));
  const auto document = nodes_document({a0, a1, b2, b3});
  const auto incident = find_incident(document);
  REQUIRE(incident);
  const auto timeline = job_timeline(document, incident);
  REQUIRE(timeline.first);
  const auto& first = timeline.rows[*timeline.first];
  CHECK(first.node == "node2");
  CHECK(first.rank == 3);
  CHECK(first.role == RankRole::first_failure);
  for (const auto& row : timeline.rows) {
    if (row.rank == 3) continue;
    CHECK(row.role == RankRole::consequence);
    CHECK(row.label == "torn down");
    REQUIRE(row.since_first);
    CHECK(*row.since_first >= 0);
    CHECK(*row.since_first < 1);
  }
  CHECK(timeline.nodes == 2);
  CHECK(timeline.unrecorded_nodes == std::vector<std::string>{"node3"});
  const auto facts = extract_facts(document);
  CHECK(value_of<std::string>(facts, "death.node") == "node2");
  CHECK(value_of<std::int64_t>(facts, "nodes.clocks_moved") == 1);
  CHECK(value_of<std::int64_t>(facts, "nodes.unrecorded") == 1);
  CHECK(value_of<std::int64_t>(facts, "deaths.after_incident") == 3);
}

TEST_CASE("job timeline: a node whose journals stop with no end before any death elsewhere fell silent first") {
  auto a0 = rank_run("node1", 0, 0), a1 = rank_run("node1", 1, 0);
  auto b2 = rank_run("node2", 2, 0), b3 = rank_run("node2", 3, 0);
  for (auto* run : {&b2, &b3}) {
    run->heartbeats = 40;
    run->last_heartbeat = kStart + 40;
    run->last_record_time = kStart + 40.3;
  }
  dies(a0, 43, ExitStatus::exited(1));
  dies(a1, 43.2, ExitStatus::exited(1));
  const auto document = nodes_document({a0, a1, b2, b3});
  const auto timeline = job_timeline(document, find_incident(document));
  CHECK(timeline.silent_nodes == std::vector<std::string>{"node2"});
  REQUIRE(timeline.silent_lead);
  CHECK(*timeline.silent_lead == doctest::Approx(3));
  REQUIRE(timeline.first);
  CHECK(timeline.rows[*timeline.first].node == "node2");
  const auto facts = extract_facts(document);
  CHECK(value_of<std::string>(facts, "nodes.first_silent") == "node2");
  CHECK(value_of<std::int64_t>(facts, "nodes.silent") == 1);
  CHECK(value_of<std::int64_t>(facts, "nodes.consequence_runs") == 2);
}

TEST_CASE("job timeline: a node silent only after the deaths elsewhere did not start them") {
  auto a0 = rank_run("node1", 0, 0), b1 = rank_run("node2", 1, 0);
  b1.last_heartbeat = kStart + 60;
  b1.last_record_time = kStart + 60;
  dies(a0, 43, ExitStatus::killed(SIGKILL));
  const auto document = nodes_document({a0, b1});
  const auto timeline = job_timeline(document, find_incident(document));
  REQUIRE(timeline.silent_lead);
  CHECK(*timeline.silent_lead < 0);
  REQUIRE(timeline.first);
  CHECK(timeline.rows[*timeline.first].node == "node1");
}

TEST_CASE("job timeline: one run is no table's worth, and a run's own processes keep their order") {
  auto a0 = rank_run("node1", 0, 0);
  dies(a0, 10, ExitStatus::killed(SIGKILL));
  const auto document = nodes_document({a0});
  const auto timeline = job_timeline(document, find_incident(document));
  CHECK(timeline.rows.size() == 1);
  CHECK(timeline.silent_nodes.empty());
}

TEST_CASE("job timeline: a run of another Slurm step in a reused job directory is not a consequence") {
  auto a0 = rank_run("node1", 0, 0), b1 = rank_run("node2", 1, 0), old = rank_run("node1", 0, -3600);
  old.started.scheduler_job = "slurm 6.0";
  old.directory = "node1-rank0-2";
  dies(a0, 50, ExitStatus::killed(SIGKILL));
  dies(b1, 50.3, ExitStatus::killed(SIGTERM));
  dies(old, -3000, ExitStatus::exited(1));
  const auto document = nodes_document({a0, b1, old});
  const auto timeline = job_timeline(document, find_incident(document));
  REQUIRE(timeline.first);
  CHECK(timeline.rows[*timeline.first].rank == 0);
  for (const auto& row : timeline.rows) {
    if (row.directory == "node1-rank0-2") CHECK(row.role == RankRole::other_launch);
    if (row.rank == 1) CHECK(row.role == RankRole::consequence);
  }
}

TEST_CASE("job timeline: a run whose job exited 0 finished, whatever died inside it") {
  auto a0 = rank_run("node1", 0, 0), b1 = rank_run("node2", 1, 0);
  dies(a0, 50, ExitStatus::killed(SIGKILL));
  add_process(b1, 501, {"python3", "-c", "from multiprocessing.pool import ..."}, 40, ExitStatus::killed(SIGTERM));
  dies(b1, 52, ExitStatus::exited(0));
  const auto document = nodes_document({a0, b1});
  const auto timeline = job_timeline(document, find_incident(document));
  for (const auto& row : timeline.rows) {
    if (row.rank == 1) {
      CHECK(row.end == "exit 0");
      CHECK(row.role == RankRole::finished);
    }
  }
}
