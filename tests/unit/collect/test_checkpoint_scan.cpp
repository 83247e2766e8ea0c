// Checkpoint folders built as the HF Trainer and DeepSpeed write them, whole
// and cut short at the points a kill during a save leaves them.
#include <doctest/doctest.h>

#include <string>

#include "collect/weights/checkpoint_scan.h"
#include "collect/weights/weight_files.h"
#include "scratch_tree.h"

using namespace ftdiag;
using namespace ftdiag::collect;
using ftdiag::collect::testing::ScratchTree;

namespace {

// A safetensors file with one tensor of `data` bytes; `keep` bytes of it written.
std::string safetensors(std::size_t data, std::optional<std::size_t> keep = std::nullopt) {
  const std::string header = R"({"__metadata__":{"format":"pt"},"w":{"dtype":"U8","shape":[)" + std::to_string(data) +
                             R"(],"data_offsets":[0,)" + std::to_string(data) + "]}}";
  std::string file;
  for (int i = 0; i < 8; ++i) file.push_back(static_cast<char>((header.size() >> (8 * i)) & 0xff));
  file += header + std::string(data, '\x01');
  if (keep) file.resize(*keep);
  return file;
}

// torch.save's zip archive: local header first, end record last.
std::string torch_zip(bool whole) {
  std::string file = std::string("PK\x03\x04", 4) + std::string(1000, 'z');
  if (whole) file += std::string("PK\x05\x06", 4) + std::string(18, '\0');
  return file;
}

CheckpointScan scan(const std::filesystem::path& folder) {
  auto result = scan_checkpoint(folder);
  REQUIRE(result.has_value());
  return *result;
}

}  // namespace

TEST_CASE("checkpoint_scan: a whole HF Trainer checkpoint") {
  ScratchTree tree;
  tree.write("checkpoint-500/model.safetensors", safetensors(64));
  tree.write("checkpoint-500/config.json", R"({"architectures": ["LlamaForCausalLM"]})");
  tree.write("checkpoint-500/optimizer.pt", torch_zip(true));
  tree.write("checkpoint-500/trainer_state.json", R"({"global_step": 500})");
  const auto s = scan(tree.path("checkpoint-500"));
  CHECK(s.step == 500);
  CHECK(s.files == 4);
  CHECK(s.bytes > 64);
  CHECK(s.modified.has_value());
  CHECK(s.complete.has_value());
}

TEST_CASE("checkpoint_scan: a sharded checkpoint with a shard missing") {
  ScratchTree tree;
  tree.write("checkpoint-1000/model.safetensors.index.json",
             R"({"metadata": {}, "weight_map": {"a": "model-00001-of-00002.safetensors", "b": "model-00002-of-00002.safetensors"}})");
  tree.write("checkpoint-1000/model-00001-of-00002.safetensors", safetensors(16));
  tree.write("checkpoint-1000/trainer_state.json", R"({"global_step": 1000})");
  const auto s = scan(tree.path("checkpoint-1000"));
  REQUIRE_FALSE(s.complete);
  CHECK(s.complete.missing().reason == MissingReason::not_present);
  CHECK(s.complete.missing().detail.find("model-00002-of-00002.safetensors, which is missing") != std::string::npos);
}

TEST_CASE("checkpoint_scan: truncated and empty weights, no trainer state") {
  ScratchTree tree;
  tree.write("checkpoint-20/model.safetensors", safetensors(4096, 3000));
  tree.write("checkpoint-20/optimizer.pt", torch_zip(false));
  const auto s = scan(tree.path("checkpoint-20"));
  REQUIRE_FALSE(s.complete);
  CHECK(s.complete.missing().reason == MissingReason::unparseable);
  const auto& detail = s.complete.missing().detail;
  CHECK(detail.find("model.safetensors is truncated") != std::string::npos);
  CHECK(detail.find("optimizer.pt is truncated") != std::string::npos);
  CHECK(detail.find("trainer_state.json is missing") != std::string::npos);
  ScratchTree empty;
  empty.write("checkpoint-30/pytorch_model.bin", "");
  empty.write("checkpoint-30/trainer_state.json", "{}");
  CHECK(scan(empty.path("checkpoint-30")).complete.missing().detail.find("pytorch_model.bin is empty") != std::string::npos);
}

TEST_CASE("checkpoint_scan: tmp-checkpoint is never whole") {
  ScratchTree tree;
  tree.write("tmp-checkpoint-300/model.safetensors", safetensors(8));
  tree.write("tmp-checkpoint-300/trainer_state.json", "{}");
  const auto s = scan(tree.path("tmp-checkpoint-300"));
  CHECK(s.layout == parse::CheckpointLayout::trainer_temporary);
  REQUIRE_FALSE(s.complete);
  CHECK(s.complete.missing().detail.find("renames it to checkpoint-300") != std::string::npos);
}

TEST_CASE("checkpoint_scan: DeepSpeed global_step folders and `latest`") {
  ScratchTree tree;
  for (const char* step : {"global_step100", "global_step200"}) {
    tree.write(std::string(step) + "/mp_rank_00_model_states.pt", torch_zip(true));
    tree.write(std::string(step) + "/bf16_zero_pp_rank_0_mp_rank_00_optim_states.pt", torch_zip(true));
    tree.write(std::string(step) + "/bf16_zero_pp_rank_1_mp_rank_00_optim_states.pt", torch_zip(true));
  }
  tree.write("latest", "global_step100");
  CHECK(scan(tree.path("global_step100")).complete.has_value());
  const auto cut = scan(tree.path("global_step200"));
  REQUIRE_FALSE(cut.complete);
  CHECK(cut.complete.missing().detail.find("`latest` names global_step100") != std::string::npos);
  tree.write("latest", "global_step200");
  CHECK(scan(tree.path("global_step200")).complete.has_value());
  std::filesystem::remove(tree.path("global_step200/bf16_zero_pp_rank_0_mp_rank_00_optim_states.pt"));
  CHECK(scan(tree.path("global_step200")).complete.missing().detail.find("rank(s) 0 are missing") != std::string::npos);
}

TEST_CASE("checkpoint_scan: an HF checkpoint whose weights are DeepSpeed's") {
  ScratchTree tree;
  tree.write("checkpoint-50/global_step50/zero_pp_rank_0_mp_rank_00_model_states.pt", torch_zip(true));
  tree.write("checkpoint-50/global_step50/zero_pp_rank_0_mp_rank_00_optim_states.pt", torch_zip(true));
  tree.write("checkpoint-50/trainer_state.json", "{}");
  const auto without_latest = scan(tree.path("checkpoint-50"));
  REQUIRE_FALSE(without_latest.complete);
  CHECK(without_latest.complete.missing().detail.find("no `latest`") != std::string::npos);
  tree.write("checkpoint-50/latest", "global_step50\n");
  CHECK(scan(tree.path("checkpoint-50")).complete.has_value());
}

TEST_CASE("weight_files: safetensors files are judged by their header and length") {
  ScratchTree tree;
  auto problem = [&](const std::string& name, const std::string& bytes) {
    const auto file = tree.write(name, bytes);
    return weight_file_problem(file, bytes.size());
  };
  CHECK(problem("whole.safetensors", safetensors(64)) == std::nullopt);
  CHECK(*problem("huge.safetensors", std::string(8, '\xff') + "{}") ==
        "huge.safetensors: a header length of 18446744073709551615 bytes is over the format's limit of 100000000: "
        "not a safetensors file");
  CHECK(problem("short.safetensors", "abc")->starts_with("short.safetensors: 3 bytes, shorter than the 8"));
  CHECK(problem("header.safetensors", safetensors(64, 20))->starts_with("header.safetensors is truncated inside its header"));
  CHECK(*problem("data.safetensors", safetensors(64, 100)) ==
        "data.safetensors is truncated: its tensors need 64 bytes after the header, the file holds 6");
  CHECK(problem("garbage.safetensors", std::string("\x04\0\0\0\0\0\0\0nope", 12))->starts_with("garbage.safetensors: "));
  CHECK(*problem("long.safetensors", safetensors(64) + "tail") ==
        "long.safetensors: 4 bytes follow the last tensor's data (readers refuse such a file)");
}
