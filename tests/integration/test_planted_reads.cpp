// `ftdiag analyze PATH`, run as root on a folder another user prepared,
// reads only what that user could read and never follows a link out of the
// folder, saying what it refused (docs/evidence.md, "Files and links"); a
// log is still found behind a head of NULs and behind a crowded data folder.
#include <sys/stat.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include <fstream>

#include "integration/harness.h"
#include "skip.h"

namespace ftdiag::itest {
namespace {

constexpr uid_t kNobody = 65534;
constexpr const char* kSecret = "ROOT-ONLY-SECRET-4242";
const fs::path kTrainLog = fs::path(FTDIAG_SOURCE_DIR) / "tests/fixtures/logs/multi-host/node0/train.log";

Analysis analyze_json(const fs::path& path) {
  Analysis analysis;
  analysis.outcome = run(Launch{{ftdiag_binary().string(), "analyze", path.string(), "--format", "json", "--no-host-logs"}}, 120);
  if (analysis.outcome.exited_with(0)) {
    analysis.report = json::parse(analysis.outcome.out);
    analysis.document = analysis.report["evidence"];
  }
  return analysis;
}

// A root-only file whose content every reader would keep: JSON a config
// reader takes, text a log reader takes.
void write_secret(const fs::path& file) {
  write_text(file, std::string("{\"zero_optimization\": {\"stage\": 2}, \"note\": \"") + kSecret + "\"}\n" + kSecret + " torch 2.1.0\n");
  fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::replace);
}

std::string sources_of(json& document, const std::string& collector) {
  std::string all;
  for (auto& report : document["collectors"]) {
    if (report["name"] != collector) continue;
    for (auto& source : report["sources"]) all += source.get<std::string>() + "\n";
    all += report.dump() + "\n";
  }
  return all;
}

bool has_log_ending(json& document, const std::string& suffix) {
  for (auto& host : document["hosts"]) {
    for (auto& log : host["logs"]) {
      if (log["from"]["file"].get<std::string>().ends_with(suffix)) return true;
    }
  }
  return false;
}

}  // namespace

TEST_CASE("planted reads: links out of a user's folder and a root-only file in it are refused, said, and never copied into the report") {
  if (::geteuid() != 0) FTDIAG_SKIP("not root: the folder must belong to another user");
  TempDir tmp;
  const fs::path secret = tmp / "secret";
  write_secret(secret);
  fs::create_directory(tmp / "rootdir");
  write_secret(tmp / "rootdir" / "secret2");
  fs::permissions(tmp / "rootdir", fs::perms::owner_all, fs::perm_options::replace);
  const fs::path tree = tmp / "job";
  fs::create_directory(tree);
  fs::copy_file(kTrainLog, tree / "job.log");  // the job's own log: read
  fs::create_symlink(secret, tree / "train.log");
  fs::create_symlink(tmp / "rootdir" / "secret2", tree / "console.log");
  fs::create_symlink(secret, tree / "ds_config.json");
  fs::create_symlink("../secret", tree / "env_report.txt");
  write_secret(tree / "notes.log");  // root's, 0600, in the user's folder
  for (const auto& entry : fs::directory_iterator(tree)) REQUIRE(::lchown(entry.path().c_str(), kNobody, kNobody) == 0);
  REQUIRE(::lchown((tree / "notes.log").c_str(), 0, 0) == 0);
  REQUIRE(::chown(tree.c_str(), kNobody, kNobody) == 0);

  auto analysis = analyze_json(tree);
  REQUIRE_MESSAGE(analysis.outcome.exited_with(0), analysis.outcome.describe());
  CHECK(analysis.outcome.out.find(kSecret) == std::string::npos);
  CHECK(analysis.outcome.err.find(kSecret) == std::string::npos);
  CHECK(has_log_ending(analysis.document, "job/job.log"));
  const std::string logs = sources_of(analysis.document, "log-files");
  CAPTURE(logs);
  CHECK(logs.find("train.log: the link leaves the tree") != std::string::npos);
  CHECK(logs.find("console.log: the link leaves the tree") != std::string::npos);
  CHECK(logs.find("env_report.txt: the link leaves the tree") != std::string::npos);
  CHECK(logs.find("notes.log: the tree's owner (uid 65534) cannot read it") != std::string::npos);
  const std::string configs = sources_of(analysis.document, "configs");
  CAPTURE(configs);
  CHECK(configs.find("ds_config.json: the link leaves the tree") != std::string::npos);
}

TEST_CASE("planted reads: a log whose first 4 KiB or 1 MiB are NULs (a copytruncate) is read past them, named alone or in its folder") {
  for (const std::size_t nuls : {std::size_t{4096}, std::size_t{1} << 20}) {
    CAPTURE(nuls);
    TempDir tmp;
    const fs::path log = tmp / "train.log";
    {
      std::ofstream out(log, std::ios::binary);
      out << std::string(nuls, '\0') << read_text(kTrainLog);
    }
    for (const fs::path& path : {log, tmp.path()}) {
      CAPTURE(path);
      auto analysis = analyze_json(path);
      REQUIRE_MESSAGE(analysis.outcome.exited_with(0), analysis.outcome.describe());
      CHECK_MESSAGE(analysis.report["verdict"]["cause"] == "host-oom-checkpoint-save", analysis.report["verdict"].dump());
      CHECK(has_log_ending(analysis.document, "/train.log"));
      const std::string logs = sources_of(analysis.document, "log-files");
      CHECK_MESSAGE(logs.find(std::to_string(nuls) + " NUL bytes at its start skipped") != std::string::npos, logs);
    }
  }
}

TEST_CASE("planted reads: a data folder of 25000 files does not use up the walk before the job's train.log, and is named as skipped") {
  TempDir tmp;
  fs::create_directories(tmp / "data");
  for (int i = 0; i < 25000; ++i) {
    std::ofstream(tmp / "data" / ("shard-" + std::to_string(i) + ".txt")) << "sample " << i << "\n";
  }
  fs::create_directories(tmp / "outputs");
  fs::copy_file(kTrainLog, tmp / "outputs" / "train.log");
  auto analysis = analyze_json(tmp.path());
  REQUIRE_MESSAGE(analysis.outcome.exited_with(0), analysis.outcome.describe());
  CHECK(has_log_ending(analysis.document, "outputs/train.log"));
  CHECK_MESSAGE(analysis.report["verdict"]["cause"] == "host-oom-checkpoint-save", analysis.report["verdict"].dump());
  const std::string logs = sources_of(analysis.document, "log-files");
  CHECK_MESSAGE(logs.find("25000 files under") != std::string::npos, logs);
  CHECK_MESSAGE(logs.find("most under data (25000)") != std::string::npos, logs);
}

}  // namespace ftdiag::itest
