// The plain-log collector and the inventory it reads from, on a real folder:
// a console log is read; sources, configs, binaries, checkpoint folders, the
// run folders of `ftdiag run`, folders past the depth limit and unreadable
// folders are not; a symlink loop ends; kernel lines join the host's kernel
// evidence.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "collectors/inventory.h"
#include "collectors/log_files.h"
#include "journal/job_directory.h"
#include "skip.h"
#include "unit/collectors/log_scan_testing.h"
#include "unit/permission_checks.h"

namespace {

namespace fs = std::filesystem;
using namespace ftdiag;
using namespace ftdiag::collectors;

struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/ftdiag-log-files-XXXXXX";
    REQUIRE(::mkdtemp(tmpl) != nullptr);
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::permissions(path / "locked", fs::perms::owner_all, fs::perm_options::add, ec);  // left unreadable by a test
    fs::remove_all(path, ec);
  }
};

void write(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream out(file, std::ios::binary);
  out << text;
  REQUIRE(out.good());
}

const std::string kTeardown = "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 21119 closing signal SIGTERM\n";
const std::string kOomKill =
    "[ 8123.456801] Memory cgroup out of memory: Killed process 629 (python) total-vm:1000kB, anon-rss:900kB, "
    "file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:10kB oom_score_adj:0\n";

// Every place below holds lines that would give events if read as a log.
struct JobFolder {
  TempDir dir;
  fs::path root = dir.path;

  JobFolder() {
    write(root / "console.log", "step 1\n" + kTeardown + kOomKill);
    write(root / "train.py", "# prints: " + kTeardown);
    write(root / "config.yaml", "comment: \"" + kTeardown + "\"\n");
    std::string elf("\x7f" "ELF\x02\x01\x01\0\0\0\0\0\0\0\0\0", 16);
    write(root / "trainer_binary", elf + std::string(4096, '\0') + kTeardown);
    write(root / "checkpoint-500" / "trainer.log", kTeardown);
    write(root / "global_step500" / "notes.txt", kTeardown);
    write(root / "run-20240508" / std::string(evidence::kJournalFileName), "{}\n");
    write(root / "run-20240508" / "launcher.log", kTeardown);
    write(root / ".git" / "logs" / "HEAD", kTeardown);
    fs::path deep = root;
    for (int depth = 1; depth <= 7; ++depth) {
      deep /= "d" + std::to_string(depth);
      write(deep / ("at-depth-" + std::to_string(depth) + ".log"), kTeardown);
    }
    fs::create_directory_symlink(root, root / "loop");         // a folder that holds itself
    fs::create_symlink(root / "ping.log", root / "pong.log");  // a link loop of files
    fs::create_symlink(root / "pong.log", root / "ping.log");
    fs::create_symlink("console.log", root / "latest.log");  // a link to a log in the folder is read
  }

  std::vector<std::string> relative(const std::vector<fs::path>& files) const {
    std::vector<std::string> out;
    for (const auto& f : files) out.push_back(f.lexically_relative(root).string());
    return out;
  }
};

bool contains(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

// The files of an inventory outside checkpoint folders, or those in one.
std::vector<fs::path> listed(const Inventory& inventory, bool in_checkpoint = false) {
  std::vector<fs::path> out;
  for (const auto& file : inventory.files()) {
    if (file.in_checkpoint == in_checkpoint) out.push_back(file.path);
  }
  return out;
}

}  // namespace

TEST_CASE("inventory: files to depth 6, never in run folders, hidden folders or links to folders, checkpoints listed but not entered") {
  JobFolder job;
  const auto walk = Inventory::of(job.root);
  const auto files = job.relative(listed(walk));
  CHECK(contains(files, "console.log"));
  CHECK(contains(files, "latest.log"));
  CHECK(contains(files, "train.py"));  // listed: the collectors choose by name and content
  CHECK(contains(files, "d1/d2/d3/d4/d5/d6/at-depth-6.log"));
  CHECK_FALSE(contains(files, "d1/d2/d3/d4/d5/d6/d7/at-depth-7.log"));
  CHECK_FALSE(contains(files, "checkpoint-500/trainer.log"));
  CHECK_FALSE(contains(files, "global_step500/notes.txt"));
  CHECK(job.relative(listed(walk, true)) == std::vector<std::string>{"checkpoint-500/trainer.log", "global_step500/notes.txt"});
  CHECK(job.relative(walk.checkpoint_folders()) == std::vector<std::string>{"checkpoint-500", "global_step500"});
  CHECK(job.relative(walk.run_folders()) == std::vector<std::string>{"run-20240508"});
  CHECK_FALSE(walk.root_is_run_folder());
  CHECK_FALSE(contains(files, "run-20240508/launcher.log"));
  CHECK_FALSE(contains(files, ".git/logs/HEAD"));
  CHECK_FALSE(contains(files, "ping.log"));
  for (const auto& f : files) CHECK(f.rfind("loop/", 0) != 0);
  CHECK(walk.problems().empty());
  CHECK(walk.files_not_listed() == 0);
  CHECK(walk.not_listed().empty());
  // In path order, whatever order the walk found them in.
  CHECK(files[0] == "config.yaml");
  CHECK(files[1] == "console.log");
  CHECK(files[2] == "d1/at-depth-1.log");
  const auto all = listed(walk);
  CHECK(std::is_sorted(all.begin(), all.end()));
  CHECK(listed(Inventory::of(job.root)) == all);
  // The walk's own orders: breadth first, and the budget's (named like evidence, then near the root).
  const auto file_at = [&](const std::string& relative) {
    return *std::find_if(walk.files().begin(), walk.files().end(), [&](const auto& f) { return f.path == job.root / relative; });
  };
  CHECK(file_at("train.py").visit < file_at("d1/at-depth-1.log").visit);
  CHECK(file_at("d1/at-depth-1.log").rank < file_at("train.py").rank);

  const auto capped = Inventory::of(job.root, InventoryLimits{.max_depth = 6, .max_files = 3});
  CHECK(listed(capped).size() == 3);
  CHECK(capped.files_not_listed() == all.size() - 3);
  CHECK(capped.not_listed().find("past the 3 files read") != std::string::npos);

  const auto one = Inventory::of(job.root / "console.log");
  CHECK(one.root_is_file());
  CHECK(listed(one) == std::vector<fs::path>{job.root / "console.log"});
  const auto none = Inventory::of(job.root / "no-such-file");
  CHECK(none.files().empty());
  CHECK_FALSE(none.tree());

  const auto run = Inventory::of(job.root / "run-20240508");
  CHECK(run.root_is_run_folder());
  CHECK(run.run_folders() == std::vector<fs::path>{job.root / "run-20240508"});
}

TEST_CASE("inventory: a file's head is read once, past the NULs a copytruncate left") {
  TempDir dir;
  write(dir.path / "rotated.log", std::string(10000, '\0') + kTeardown);
  const auto inventory = Inventory::of(dir.path);
  REQUIRE(inventory.files().size() == 1);
  const auto& head = inventory.head(0);
  REQUIRE(head);
  CHECK(head->nul_head == 10000);
  CHECK(head->text == kTeardown);
  CHECK(&inventory.head(0) == &head);
}

TEST_CASE("log files: only text that is not a source, config or binary is read as a log") {
  JobFolder job;
  CHECK(is_plain_log(job.root / "console.log"));
  CHECK(is_plain_log(job.root / "latest.log"));
  CHECK_FALSE(is_plain_log(job.root / "train.py"));
  CHECK_FALSE(is_plain_log(job.root / "config.yaml"));
  CHECK_FALSE(is_plain_log(job.root / "trainer_binary"));
  CHECK_FALSE(is_plain_log(job.root / "run-20240508" / std::string(evidence::kJournalFileName)));
}

TEST_CASE("log files: the collector reads the logs of a job folder, and the kernel lines in them") {
  JobFolder job;
  const LogFilesCollector collector;
  CHECK(collector.recognises(Inventory::of(job.root)));
  const CollectContext context{.phases = &collectors::testing::project_phases(),
                               .line_events = &parse::testing::project_table(),
                               .read_this_host = false};
  evidence::EvidenceDocument document;
  const auto report = collector.collect(Inventory::of(job.root), context, document);
  CHECK(report.outcome);
  REQUIRE(document.hosts.size() == 1);
  const auto& host = document.hosts[0];
  std::vector<std::string> read;
  for (const auto& log : host.logs) read.push_back(fs::path(log.from.file).lexically_relative(job.root).string());
  // Logs come in path order.
  CHECK(read == std::vector<std::string>{"console.log", "d1/at-depth-1.log", "d1/d2/at-depth-2.log",
                                         "d1/d2/d3/at-depth-3.log", "d1/d2/d3/d4/at-depth-4.log",
                                         "d1/d2/d3/d4/d5/at-depth-5.log", "d1/d2/d3/d4/d5/d6/at-depth-6.log",
                                         "latest.log"});
  CHECK(report.sources.size() == read.size());
  for (const auto& log : host.logs) {
    CAPTURE(log.from.file);
    REQUIRE(log.events.size() == 1);
    CHECK(log.events[0].kind == "launcher-teardown");
    CHECK(log.events[0].from.collector == "log-files");
  }
  CHECK(host.logs[0].events[0].from.line == 2);
  CHECK(host.logs[0].kernel_lines == 1);
  // The same kill in console.log and in the link to it is one record.
  REQUIRE(host.kernel);
  REQUIRE(host.kernel->records.size() == 1);
  CHECK(host.kernel->records[0].kind == "oom-kill");
  CHECK(host.kernel->records[0].pid == 629);
  CHECK(host.kernel->records[0].from.line == 3);
}

TEST_CASE("log files: a folder that cannot be read is named, and the rest is read") {
  JobFolder job;
  const test::PermissionChecksApply as_a_user;
  if (!as_a_user.active()) FTDIAG_SKIP("root reads a folder without read permission, and its capabilities cannot be lowered here");
  write(job.root / "locked" / "secret.log", kTeardown);
  fs::permissions(job.root / "locked", fs::perms::none);
  const auto walk = Inventory::of(job.root);
  REQUIRE(walk.problems().size() == 1);
  CHECK(walk.problems()[0].find("locked") != std::string::npos);
  CHECK(contains(job.relative(listed(walk)), "console.log"));
  CHECK_FALSE(contains(job.relative(listed(walk)), "locked/secret.log"));

  const LogFilesCollector collector;
  const CollectContext context{.phases = &collectors::testing::project_phases(),
                               .line_events = &parse::testing::project_table(),
                               .read_this_host = false};
  evidence::EvidenceDocument document;
  const auto report = collector.collect(Inventory::of(job.root), context, document);
  // The logs read make the outcome; the folder that could not be is named beside them.
  CHECK(report.outcome);
  CHECK(std::any_of(report.sources.begin(), report.sources.end(),
                    [](const std::string& s) { return s.find("locked") != std::string::npos; }));
  REQUIRE(document.hosts.size() == 1);
  CHECK(document.hosts[0].logs.size() == 8);
}

TEST_CASE("log files: a folder with nothing to read is not recognised") {
  TempDir dir;
  write(dir.path / "train.py", kTeardown);
  write(dir.path / "checkpoint-100" / "log.txt", kTeardown);
  CHECK_FALSE(LogFilesCollector().recognises(Inventory::of(dir.path)));
  write(dir.path / "nohup.out", kTeardown);
  CHECK(LogFilesCollector().recognises(Inventory::of(dir.path)));
}
