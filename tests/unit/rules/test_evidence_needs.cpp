#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "rules/evidence_needs.h"
#include "rules/rule_loader.h"
#include "facts/registry.h"
#include "rule_text.h"

using namespace ftdiag::rules;
using ftdiag::rules::testing::project_rules_dir;

namespace {

std::vector<EvidenceNeed> parse_needs(std::string_view text, std::vector<LoadError>& errors) {
  std::vector<EvidenceNeed> needs;
  parse_evidence_file(text, "evidence.json", needs, errors);
  return needs;
}

const char* const kTwoNeeds = R"({"kind": "evidence", "evidence": [
  {"id": "kernel-log", "facts": ["kernel.*", "oom.victim"], "what": "the kernel's log of {host}",
   "how": ["dmesg -T on {host}", "ftdiag analyze {path} --kernel-log kernel.log"]},
  {"id": "memory-record", "facts": ["cgroup.*", "oom.*"], "what": "the memory curve",
   "how": [{"step": "ftdiag run -- CMD", "unless_recorded": true}]}
]})";

}  // namespace

TEST_CASE("an evidence file gives its entries, with their fact patterns") {
  std::vector<LoadError> errors;
  const auto needs = parse_needs(kTwoNeeds, errors);
  REQUIRE(errors.empty());
  REQUIRE(needs.size() == 2);
  CHECK(needs[0].id == "kernel-log");
  CHECK(needs[0].provides("kernel.oom_kills"));
  CHECK(needs[0].provides("oom.victim"));
  CHECK_FALSE(needs[0].provides("oom.scope"));
  CHECK_FALSE(needs[0].provides("kernel_log.read"));  // "kernel.*" is the prefix "kernel.", not "kernel"
  CHECK(needs[1].provides("oom.scope"));
}

TEST_CASE("an evidence file with an unknown fact, a missing key, a stray key or a repeated id is refused, positioned") {
  std::vector<LoadError> errors;
  parse_needs(R"({"kind": "evidence", "evidence": [
    {"id": "a", "facts": ["kernel.oom_kils"], "what": "x", "how": ["y"]},
    {"id": "b", "facts": ["kernel.*"], "how": ["y"]},
    {"id": "c", "facts": ["nosuch.*"], "what": "x", "how": ["y"], "colour": "red"},
    {"id": "d", "facts": ["cgroup.*"], "what": "x", "how": [{"step": "y", "unless_recorded": "yes"}]},
    {"id": "e", "facts": ["cgroup.*"], "what": "x", "how": ["y"]},
    {"id": "e", "facts": ["oom.*"], "what": "x", "how": ["y"]}
  ]})",
        errors);
  std::vector<std::string> pointers;
  for (const auto& e : errors) pointers.push_back(e.pointer);
  CHECK(pointers == std::vector<std::string>{"/evidence/0/facts/0", "/evidence/1", "/evidence/2/colour", "/evidence/2/facts/0",
                                             "/evidence/3/how/0", "/evidence/5/id"});
  CHECK(errors.front().position.line == 2);
  CHECK(errors.front().message.find("kernel.oom_kils") != std::string::npos);

  errors.clear();
  parse_needs("{\"kind\": \"evidence\", \"evidence\": [", errors);
  CHECK(errors.size() == 1);
  errors.clear();
  parse_needs("[1, 2]", errors);
  CHECK(errors.size() == 1);
}

TEST_CASE("the evidence that decides the most causes comes first, each fact counted for the first entry that provides it") {
  std::vector<LoadError> errors;
  const auto needs = parse_needs(kTwoNeeds, errors);
  REQUIRE(errors.empty());
  const std::vector<UndecidedRule> undecided = {
      {"r1", "container-oom", {"cgroup.oom_kill"}},
      {"r2", "host-oom", {"cgroup.limit_bytes", "oom.scope"}},
      {"r3", "external-kill", {"death.sender_comm"}},  // provided by neither: no entry for it
      {"r4", "host-oom", {"kernel.oom_kills"}},
      // oom.victim belongs to kernel-log, listed first, though memory-record's oom.* matches it too.
      {"r5", "host-oom-dataloader", {"oom.victim"}},
      {"r6", "host-oom-growth", {"cgroup.peak_bytes"}},
  };
  const auto needed = needed_evidence(undecided, needs, {"gpu-node-07", "/jobs/run1"});
  REQUIRE(needed.size() == 2);
  CHECK(needed[0].id == "memory-record");  // three causes; the kernel's log two
  CHECK(needed[0].causes == std::vector<std::string>{"container-oom", "host-oom", "host-oom-growth"});
  CHECK(needed[0].missing_facts == std::vector<std::string>{"cgroup.limit_bytes", "cgroup.oom_kill", "cgroup.peak_bytes", "oom.scope"});
  CHECK(needed[1].id == "kernel-log");
  CHECK(needed[1].causes == std::vector<std::string>{"host-oom", "host-oom-dataloader"});
  CHECK(needed[1].what == "the kernel's log of gpu-node-07");
  CHECK(needed[1].how == std::vector<std::string>{"dmesg -T on gpu-node-07", "ftdiag analyze /jobs/run1 --kernel-log kernel.log"});

  const auto unnamed = needed_evidence(undecided, needs, {}, 1);
  REQUIRE(unnamed.size() == 1);
  CHECK(unnamed[0].id == "memory-record");
  const auto kernel = needed_evidence({{"r4", "host-oom", {"kernel.oom_kills"}}}, needs, {});
  REQUIRE(kernel.size() == 1);
  CHECK(kernel[0].how.front() == "dmesg -T on the node the job ran on");
  CHECK(kernel[0].how.back() == "ftdiag analyze the job's folder --kernel-log kernel.log");
  CHECK(needed_evidence({}, needs, {}).empty());

  // Recorded by `ftdiag run` already: its own step is left out, and the
  // entry with it, so the next entry takes its place.
  const auto recorded = needed_evidence(undecided, needs, {"gpu-node-07", "/jobs/run1", true});
  REQUIRE(recorded.size() == 1);
  CHECK(recorded[0].id == "kernel-log");
}

TEST_CASE("the built-in evidence file loads, and every registered fact is provided by one of its entries") {
  const RuleSet set = load_rules(project_rules_dir());
  for (const auto& e : set.errors) FAIL_CHECK(e.describe());
  REQUIRE_FALSE(set.evidence.empty());
  for (const auto& spec : ftdiag::facts::fact_registry()) {
    const bool provided = std::any_of(set.evidence.begin(), set.evidence.end(), [&](const EvidenceNeed& n) { return n.provides(spec.name); });
    CHECK_MESSAGE(provided, spec.name, " is provided by no entry of rules/evidence.json");
  }
}
