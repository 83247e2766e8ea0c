// A job whose job directory is on a filesystem that fills up, or was full
// from the start (a real tmpfs of 256 KiB). The job must not notice: its
// output reaches the terminal byte for byte and ftdiag exits as it did.
// ftdiag says so once on stderr, and `ftdiag analyze` says from when the
// record is incomplete and why — not "readable, N lines" nor "ftdiag was
// killed", as it did before.
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <regex>

#include <doctest/doctest.h>

#include "skip.h"
#include "integration/harness.h"

namespace ftdiag::itest {
namespace {

constexpr const char* kAnnouncement = "cannot write the record of this job";

// A tmpfs of `size` mounted on a fresh directory, unmounted at the end.
class SmallFilesystem {
 public:
  explicit SmallFilesystem(const fs::path& where, const char* size) : where_(where) {
    fs::create_directories(where_);
    const std::string options = std::string("size=") + size + ",mode=0700";
    mounted_ = ::mount("tmpfs", where_.c_str(), "tmpfs", 0, options.c_str()) == 0;
    if (!mounted_) why_ = std::string("cannot mount a tmpfs: ") + std::strerror(errno);
  }
  ~SmallFilesystem() {
    if (mounted_) ::umount2(where_.c_str(), MNT_DETACH);
  }
  bool mounted() const { return mounted_; }
  const std::string& why() const { return why_; }
  // Writes a file until the filesystem refuses: it is full then.
  void fill() const {
    std::ofstream out(where_ / "filler", std::ios::binary);
    const std::string block(4096, 'x');
    while (out.write(block.data(), static_cast<std::streamsize>(block.size())) && out.flush()) {}
  }

 private:
  fs::path where_;
  bool mounted_ = false;
  std::string why_;
};

int count_of(const std::string& text, std::string_view needle) {
  int count = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++count;
  return count;
}

// `ftdiag analyze` as a user reads it.
std::string analyze_text(const fs::path& path) {
  auto outcome = run(Launch{{ftdiag_binary().string(), "analyze", path.string()}});
  return outcome.out + outcome.err;
}

// The job prints `lines` lines of 100 bytes, then starts `helpers` short
// processes (each a few hundred bytes of journal), then exits 3.
std::vector<std::string> printing_job(int lines, int helpers = 0) {
  return {"/bin/sh", "-c",
          "i=0; while [ $i -lt " + std::to_string(lines) +
              " ]; do printf '%05d %093d\\n' $i 0; i=$((i+1)); done; "
              "i=0; while [ $i -lt " + std::to_string(helpers) + " ]; do /bin/true; i=$((i+1)); done; exit 3"};
}

std::string expected_output(int lines) {
  std::string out;
  char line[128];
  for (int i = 0; i < lines; ++i) {
    std::snprintf(line, sizeof line, "%05d %093d\n", i, 0);
    out += line;
  }
  return out;
}

void check_incomplete_record(const fs::path& job_dir, Outcome& outcome) {
  CHECK_MESSAGE(count_of(outcome.err, kAnnouncement) == 1, "stderr: ", outcome.err);
  CHECK_MESSAGE(outcome.err.find("No space left on device") != std::string::npos, "stderr: ", outcome.err);

  const std::string text = analyze_text(job_dir);
  static const std::regex incomplete("the record is incomplete from [0-9]{2}:[0-9]{2}:[0-9]{2}: no space left on device");
  CHECK_MESSAGE(std::regex_search(text, incomplete), text);
  CHECK_MESSAGE(text.find("ftdiag itself was killed") == std::string::npos, text);

  auto analysis = analyze(job_dir);
  auto runs = all_runs(analysis.document);
  REQUIRE_MESSAGE(runs.size() == 1, analysis.outcome.describe());
  bool noted = false;
  for (auto& note : runs[0]["notes"]) {
    if (!note.contains("write_failure") || note["write_failure"].is_null()) continue;
    noted = true;
    CHECK(note["write_failure"]["errno"] == ENOSPC);
    CHECK(note["write_failure"]["since"].get<double>() > 0);
  }
  CHECK_MESSAGE(noted, runs[0]["notes"].dump());
  // Not "readable, N lines": the console log lacks the job's last words.
  CHECK_MESSAGE(runs[0]["console"]["readable"].is_object(), runs[0]["console"]["readable"].dump());
}

bool is_root() { return ::geteuid() == 0; }

}  // namespace

TEST_CASE("full disk: a filesystem that fills mid-run costs the record, never the job, and says from when") {
  if (!is_root()) FTDIAG_SKIP("mounting a small tmpfs needs root");
  TempDir tmp;
  SmallFilesystem small(tmp / "fs", "256k");
  if (!small.mounted()) FTDIAG_SKIP(small.why());
  constexpr int kLines = 5000;  // 500 KB of output: twice the filesystem
  // Then 60 processes whose records need more journal pages than the disk
  // has left: only the reserve freed at the failure lets them and the end land.
  constexpr int kHelpers = 60;
  auto outcome = run(Launch{ftdiag_run(tmp / "fs" / "job", printing_job(kLines, kHelpers))}, 60);
  REQUIRE_MESSAGE(outcome.status, outcome.describe());
  CHECK_MESSAGE(outcome.exited_with(3), outcome.describe());
  CHECK_MESSAGE(outcome.out == expected_output(kLines), "the job's output was not passed through whole: ",
                outcome.out.size(), " bytes");
  check_incomplete_record(tmp / "fs" / "job", outcome);

  // The reserve let the end land: the job's status is known.
  auto analysis = analyze(tmp / "fs" / "job");
  auto& run = only_run(analysis.document);
  CHECK_MESSAGE(run["complete"] == true, run["notes"].dump());
  CHECK(run["job_status"]["exit_code"] == 3);
  // Every helper's end is recorded (summarised under "true", or "sh" when it
  // ended before its exec was seen), beside the job itself.
  std::uint64_t ended = 0;
  for (auto& summary : run["process_summary"]) ended += summary["count"].get<std::uint64_t>();
  for (auto& process : run["processes"]) ended += process["death"].is_object() ? 1 : 0;
  CHECK_MESSAGE(ended == kHelpers + 1, run["process_summary"].dump(), run["processes"].dump());
}

TEST_CASE("full disk: a filesystem full from the start still tells analyze from when and why") {
  if (!is_root()) FTDIAG_SKIP("mounting a small tmpfs needs root");
  TempDir tmp;
  SmallFilesystem small(tmp / "fs", "256k");
  if (!small.mounted()) FTDIAG_SKIP(small.why());
  small.fill();
  auto outcome = run(Launch{ftdiag_run(tmp / "fs" / "job", printing_job(20))}, 60);
  REQUIRE_MESSAGE(outcome.status, outcome.describe());
  CHECK_MESSAGE(outcome.exited_with(3), outcome.describe());
  CHECK(outcome.out == expected_output(20));
  check_incomplete_record(tmp / "fs" / "job", outcome);
}

}  // namespace ftdiag::itest
