// The configs and checkpoints collectors over a folder a crashed job left:
// what they read, what they pass over, and what they say they could not read.
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include "unit/collect/scratch_tree.h"
#include "collectors/checkpoint_dirs.h"
#include "collectors/config_files.h"
#include "skip.h"
#include "unit/permission_checks.h"

using namespace ftdiag;
using namespace ftdiag::collectors;
using ftdiag::collect::testing::ScratchTree;

namespace {

const evidence::ConfigEvidence* config_of_kind(const evidence::EvidenceDocument& document, std::string_view kind) {
  for (const auto& config : document.hosts.at(0).configs) {
    if (config.kind == kind) return &config;
  }
  return nullptr;
}

bool mentions(const evidence::CollectorReport& report, std::string_view text) {
  return std::any_of(report.sources.begin(), report.sources.end(), [&](const std::string& s) { return s.find(text) != std::string::npos; });
}

// What a post-mortem folder holds: configs, a launch script, checkpoints,
// and things the collectors must pass over.
void write_job_folder(const ScratchTree& tree) {
  tree.write("ds_config.json", R"({"train_micro_batch_size_per_gpu": 4, "zero_optimization": {"stage": 3}})");
  tree.write("run.sh", "#!/bin/bash\ndeepspeed --num_gpus 8 train.py --deepspeed ds_config.json --save_steps 500\n");
  tree.write("hostfile", "node1 slots=8\nnode2 slots=8\n");
  tree.write("notes/config-snippets.txt", "\"zero_optimization\": {\n\"stage\": 2,\n");
  tree.write("output/checkpoint-500/model.safetensors", std::string("\x02\0\0\0\0\0\0\0{}", 10));
  tree.write("output/checkpoint-500/trainer_state.json", R"({"global_step": 500, "max_steps": 2000, "save_steps": 500, "log_history": []})");
  tree.write("output/checkpoint-500/config.json", R"({"architectures": ["LlamaForCausalLM"], "hidden_size": 8, "num_hidden_layers": 2})");
  tree.write("output/tmp-checkpoint-1000/trainer_state.json", "{}");
  tree.write("garbage.json", std::string("\x00\x01\xff\xfe{\"zero_optimization\": 1}", 28));
  tree.write(".git/config.json", R"({"zero_optimization": {"stage": 1}})");
  tree.write("site-packages/pkg/ds.json", R"({"zero_optimization": {"stage": 1}})");
  tree.write("ftdiag-run/journal.jsonl", "{}\n");
  tree.write("ftdiag-run/ds.json", R"({"zero_optimization": {"stage": 1}})");
  tree.write("big/config.json", "{\"zero_optimization\": {\"stage\": 1}, \"pad\": \"" + std::string(kMaxConfigBytes, 'x') + "\"}");
  std::filesystem::create_directory_symlink(tree.root(), tree.path("loop"));
}

}  // namespace

TEST_CASE("config collectors: configs of every kind under a job folder, the rest passed over") {
  ScratchTree tree;
  write_job_folder(tree);
  ConfigFilesCollector collector;
  REQUIRE(collector.recognises(Inventory::of(tree.root())));
  evidence::EvidenceDocument document;
  const auto report = collector.collect(Inventory::of(tree.root()), {}, document);
  CHECK(report.outcome.has_value());
  REQUIRE(document.hosts.size() == 1);
  const auto* deepspeed = config_of_kind(document, "deepspeed");
  REQUIRE(deepspeed);
  CHECK(deepspeed->from.collector == "configs");
  CHECK(deepspeed->settings.at("zero_optimization.stage") == "3");
  REQUIRE(config_of_kind(document, "launch-command"));
  CHECK(config_of_kind(document, "launch-command")->settings.at("args.save_steps") == "500");
  CHECK(config_of_kind(document, "hostfile")->settings.at("host_count") == "2");
  CHECK(config_of_kind(document, "trainer-state")->settings.at("global_step") == "500");
  CHECK_FALSE(config_of_kind(document, "model-config"));  // only trainer_state.json is read in a checkpoint
  // Two DeepSpeed configs: the file and the pasted fragment; none from .git,
  // site-packages, the run folder, the binary file or the loop.
  std::size_t deepspeed_configs = 0;
  for (const auto& config : document.hosts[0].configs) {
    CAPTURE(config.from.file);
    CHECK(config.from.file.find("/loop/") == std::string::npos);
    if (config.kind == "deepspeed") ++deepspeed_configs;
    if (config.settings.count("zero_optimization.stage")) CHECK(config.settings.at("zero_optimization.stage") != "1");
  }
  CHECK(deepspeed_configs == 2);
  CHECK(mentions(report, "config-snippets.txt (read as a fragment"));
  CHECK(mentions(report, "big/config.json: skipped"));
}

TEST_CASE("config collectors: checkpoint folders with their completeness") {
  ScratchTree tree;
  write_job_folder(tree);
  CheckpointDirsCollector collector;
  REQUIRE(collector.recognises(Inventory::of(tree.root())));
  CHECK_FALSE(collector.recognises(Inventory::of(tree.path("notes"))));
  evidence::EvidenceDocument document;
  const auto report = collector.collect(Inventory::of(tree.root()), {}, document);
  CHECK(report.outcome.has_value());
  const auto& checkpoints = document.hosts.at(0).checkpoints;
  REQUIRE(checkpoints.size() == 2);  // not again through the loop
  CHECK(checkpoints[0].step == 500u);
  CHECK(checkpoints[0].complete.has_value());
  CHECK(checkpoints[1].step == 1000u);
  REQUIRE_FALSE(checkpoints[1].complete);
  CHECK(checkpoints[1].complete.missing().detail.find("tmp-checkpoint-1000") != std::string::npos);
}

TEST_CASE("config collectors: a folder with nothing of theirs") {
  ScratchTree tree;
  tree.write("data/train.json", R"([{"instruction": "a", "output": "b"}])");
  tree.write("README.txt", "hello");
  CHECK_FALSE(ConfigFilesCollector().recognises(Inventory::of(tree.root())));
  CHECK_FALSE(CheckpointDirsCollector().recognises(Inventory::of(tree.root())));
  evidence::EvidenceDocument document;
  const auto report = ConfigFilesCollector().collect(Inventory::of(tree.root()), {}, document);
  REQUIRE_FALSE(report.outcome);
  CHECK(report.outcome.missing().reason == MissingReason::not_present);
}

TEST_CASE("config collectors: a folder that cannot be read is said to be so") {
  ScratchTree tree;
  const test::PermissionChecksApply as_a_user;
  if (!as_a_user.active()) FTDIAG_SKIP("root reads a folder whatever its mode, and its capabilities cannot be lowered here");
  tree.write("locked/ds.json", R"({"zero_optimization": {"stage": 3}})");
  std::filesystem::permissions(tree.path("locked"), std::filesystem::perms::none);
  evidence::EvidenceDocument document;
  const auto report = ConfigFilesCollector().collect(Inventory::of(tree.root()), {}, document);
  std::filesystem::permissions(tree.path("locked"), std::filesystem::perms::owner_all);
  REQUIRE_FALSE(report.outcome);
  CHECK(report.outcome.missing().reason == MissingReason::permission_denied);
  CHECK(report.outcome.missing().detail.find("locked") != std::string::npos);
}
