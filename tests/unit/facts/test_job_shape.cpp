#include <doctest/doctest.h>

#include <csignal>

#include "evidence_builder.h"
#include "facts/extract.h"

using namespace ftdiag;
using namespace ftdiag::facts;
using namespace ftdiag::facts::testing;

TEST_CASE("job shape: DeepSpeed is told by a command line, and known absent only when the command lines are") {
  SUBCASE("the deepspeed launcher") {
    auto run = run_started();
    add_process(run, kJobPid, {"/usr/bin/deepspeed", "--num_gpus", "2", "train.py"});
    const auto facts = extract_facts(document_of({run}));
    CHECK(facts.value_of<bool>("job.deepspeed") == true);
  }
  SUBCASE("torchrun with --deepspeed ds_z2.json for the Trainer") {
    auto run = run_started();
    add_process(run, kJobPid, {"torchrun", "--nproc-per-node", "2", "train.py", "--deepspeed", "ds_z2.json"});
    CHECK(extract_facts(document_of({run})).value_of<bool>("job.deepspeed") == true);
  }
  SUBCASE("a plain Python job") {
    auto run = run_started();
    add_process(run, kJobPid, {"python3", "train.py"}, 5.0, ExitStatus::killed(SIGKILL));
    const auto facts = extract_facts(document_of({run}));
    CHECK(facts.value_of<bool>("job.deepspeed") == false);
    CHECK(facts.value_of<std::int64_t>("job.ranks") == 1);
  }
  SUBCASE("no record of the job: unknown") {
    evidence::EvidenceDocument empty;
    const auto facts = extract_facts(empty);
    CHECK_FALSE(facts.value_of<bool>("job.deepspeed").has_value());
    CHECK_FALSE(facts.value_of<std::int64_t>("job.ranks").has_value());
  }
}

TEST_CASE("job shape: the ranks of the run are counted by their role") {
  auto run = run_started();
  add_process(run, kJobPid, {"torchrun", "--nproc-per-node", "2", "train.py"});
  for (int rank = 0; rank < 2; ++rank) {
    auto& p = add_process(run, kJobPid + 1 + rank, {"python3", "-u", "train.py"}, 5.0, ExitStatus::killed(SIGKILL));
    p.environment = {{"RANK", std::to_string(rank)}, {"LOCAL_RANK", std::to_string(rank)}};
  }
  CHECK(extract_facts(document_of({run})).value_of<std::int64_t>("job.ranks") == 2);
}
