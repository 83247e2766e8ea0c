// What ftdiag creates is created under the run folder's open descriptor,
// never through a link planted by the job or by the owner of a shared folder,
// with private modes whatever the umask, and nothing is left that holds
// nothing (docs/evidence.md, "Files and links").
#include <sys/stat.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include "integration/harness.h"

namespace ftdiag::itest {
namespace {

// A file only its owner may touch, standing for /etc/shadow or a key.
fs::path victim_file(const TempDir& tmp, const std::string& name) {
  const fs::path file = tmp / name;
  write_text(file, "ROOT-ONLY CONTENT\n");
  fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::replace);
  return file;
}

Outcome run_shell_job(const fs::path& job_dir, const std::string& script) {
  return run(Launch{ftdiag_run(job_dir, {"/bin/sh", "-c", script})}, 60);
}

// Every entry of a run folder: files 0600 and not empty (console.log aside:
// the job's own output, which may be none), folders 0700, no socket left.
void check_private_and_nothing_empty(const fs::path& run_dir) {
  for (const auto& entry : fs::recursive_directory_iterator(run_dir)) {
    const auto name = entry.path().filename().string();
    CAPTURE(name);
    CHECK(name != "probe.sock");
    if (entry.is_symlink()) continue;
    if (entry.is_directory()) {
      CHECK(octal_mode(entry.path()) == "700");
      continue;
    }
    CHECK(octal_mode(entry.path()) == "600");
    if (name != "console.log") CHECK(fs::file_size(entry.path()) > 0);
  }
}

}  // namespace

TEST_CASE("planted links: environment.json and its temporary name planted as links by the job leave their targets as they were") {
  TempDir tmp;
  const auto victim = victim_file(tmp, "victim");
  const auto victim2 = victim_file(tmp, "victim2");
  const fs::path job_dir = tmp / "job";
  // The job plants both the old temporary name and the final name.
  const std::string script = "ln -s " + victim.string() + " \"$FTDIAG_RUN_DIR/environment.json.tmp\" && ln -s " +
                             victim2.string() + " \"$FTDIAG_RUN_DIR/environment.json\"";
  auto outcome = run_shell_job(job_dir, script);
  REQUIRE_MESSAGE(outcome.exited_with(0), outcome.describe());
  CHECK(read_text(victim) == "ROOT-ONLY CONTENT\n");
  CHECK(read_text(victim2) == "ROOT-ONLY CONTENT\n");
  auto folders = run_folders(job_dir);
  REQUIRE(folders.size() == 1);
  const fs::path written = folders[0] / "environment.json";
  CHECK_FALSE(fs::is_symlink(written));  // the link was replaced, not followed
  CHECK(fs::is_regular_file(written));
  CHECK(octal_mode(written) == "600");
}

TEST_CASE("planted links: a run folder swapped for a link during the run gets nothing more written through the link") {
  TempDir tmp;
  const fs::path elsewhere = tmp / "elsewhere";
  fs::create_directory(elsewhere);
  const fs::path job_dir = tmp / "job";
  const std::string script = "mv \"$FTDIAG_RUN_DIR\" \"$FTDIAG_RUN_DIR.moved\" && ln -s " + elsewhere.string() +
                             " \"$FTDIAG_RUN_DIR\"";
  auto outcome = run_shell_job(job_dir, script);
  REQUIRE_MESSAGE(outcome.exited_with(0), outcome.describe());
  CHECK(fs::is_empty(elsewhere));
  fs::path moved;
  for (const auto& entry : fs::directory_iterator(job_dir)) {
    if (entry.path().filename().string().ends_with(".moved")) moved = entry.path();
  }
  REQUIRE_FALSE(moved.empty());
  CHECK(fs::is_regular_file(moved / "environment.json"));
  CHECK(fs::is_regular_file(moved / "journal.jsonl"));
}

TEST_CASE("planted links: preflight --save-environment never writes through a link at FILE.tmp or FILE") {
  TempDir tmp;
  const auto victim = victim_file(tmp, "victim");
  const auto victim2 = victim_file(tmp, "victim2");
  const fs::path file = tmp / "saved.json";
  fs::create_symlink(victim, tmp / "saved.json.tmp");
  fs::create_symlink(victim2, file);
  Launch launch{{ftdiag_binary().string(), "preflight", "--save-environment", file.string()}};
  launch.umask = 0;
  auto outcome = run(launch, 60);
  const bool checked = outcome.exited_with(0) || outcome.exited_with(1);  // 1: checks found problems
  CHECK_MESSAGE(checked, outcome.describe());
  CHECK(read_text(victim) == "ROOT-ONLY CONTENT\n");
  CHECK(read_text(victim2) == "ROOT-ONLY CONTENT\n");
  CHECK_FALSE(fs::is_symlink(file));
  CHECK(octal_mode(file) == "600");
  CHECK(json::parse(read_text(file), nullptr, false).is_object());
  // No temporary file stays behind.
  for (const auto& entry : fs::directory_iterator(tmp.path())) {
    const auto name = entry.path().filename().string();
    const bool temporary = name.find(".tmp") != std::string::npos && name != "saved.json.tmp";
    CHECK_MESSAGE(!temporary, name);
  }
}

TEST_CASE("planted links: under umask 000 every file of a Python job's run is 0600, every folder 0700, and the probe socket is gone") {
  TempDir tmp;
  const fs::path job_dir = tmp / "job";
  // A parent and two forked children, as DataLoader workers are.
  const std::string program =
      "import os\n"
      "pids = [os.fork() for _ in range(1)]\n"
      "if pids[0] == 0:\n"
      "    child = os.fork()\n"
      "    if child: os.waitpid(child, 0)\n"
      "    os._exit(0)\n"
      "os.waitpid(pids[0], 0)\n";
  Launch launch{ftdiag_run(job_dir, {"/usr/bin/python3", "-c", program})};
  launch.umask = 0;
  auto outcome = run(launch, 60);
  REQUIRE_MESSAGE(outcome.exited_with(0), outcome.describe());
  auto folders = run_folders(job_dir);
  REQUIRE(folders.size() == 1);
  check_private_and_nothing_empty(folders[0]);
  int probe_files = 0;
  for (const auto& entry : fs::directory_iterator(folders[0])) {
    if (entry.path().filename().string().starts_with("python-probe.")) ++probe_files;
  }
  CHECK(probe_files == 3);  // the probe ran in all three processes
}

TEST_CASE("planted links: after real deaths of each kind under umask 000, the run folder is private and holds nothing empty") {
  const std::vector<std::pair<std::string, std::vector<std::string>>> jobs = {
      {"native segfault", crasher_argv("die", {"segv"})},
      {"abort", crasher_argv("die", {"abort"})},
      {"Python segfault in native code", {"/usr/bin/python3", "-c", "import ctypes; ctypes.string_at(0)"}},
      {"Python killed by SIGKILL", {"/usr/bin/python3", "-c", "import os, signal; os.kill(os.getpid(), signal.SIGKILL)"}},
      {"Python exception", {"/usr/bin/python3", "-c", "raise SystemExit('failed')"}},
  };
  for (const auto& [what, argv] : jobs) {
    CAPTURE(what);
    TempDir tmp;
    Launch launch{ftdiag_run(tmp / "job", argv)};
    launch.umask = 0;
    auto outcome = run(launch, 60);
    CHECK_MESSAGE(!outcome.exited_with(0), outcome.describe());
    auto folders = run_folders(tmp / "job");
    REQUIRE(folders.size() == 1);
    check_private_and_nothing_empty(folders[0]);
  }
}

}  // namespace ftdiag::itest
