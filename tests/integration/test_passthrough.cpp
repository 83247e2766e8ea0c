// The job's standard streams go through ftdiag unchanged: bytes in, bytes
// out, and a terminal stays a terminal; a consumer that stops reading blocks
// the job, never ftdiag; and the output does not depend on ftdiag being alive.
#include <fcntl.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <thread>

#include <doctest/doctest.h>

#include "integration/harness.h"

namespace ftdiag::itest {
namespace {

// The generator of tests/crashers/die.c "binary": 0..255, then xorshift32 bytes.
std::string pattern(std::size_t size, std::uint32_t seed) {
  std::string bytes(size, '\0');
  std::uint32_t state = seed;
  for (std::size_t at = 0; at < size; ++at) {
    if (at < 256) {
      bytes[at] = static_cast<char>(at);
      continue;
    }
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    bytes[at] = static_cast<char>(state >> 24);
  }
  return bytes;
}

// Where two byte strings first differ, for a readable failure.
std::string first_difference(const std::string& got, const std::string& want) {
  std::size_t at = 0;
  while (at < got.size() && at < want.size() && got[at] == want[at]) ++at;
  if (at == got.size() && at == want.size()) return "identical";
  return "sizes " + std::to_string(got.size()) + " vs " + std::to_string(want.size()) + ", first difference at byte " +
         std::to_string(at);
}

struct Terminal {
  int master = -1;
  int slave = -1;
  Terminal() {
    REQUIRE(::openpty(&master, &slave, nullptr, nullptr, nullptr) == 0);
    ::fcntl(master, F_SETFD, FD_CLOEXEC);
    ::fcntl(slave, F_SETFD, FD_CLOEXEC);
  }
  ~Terminal() {
    if (master >= 0) ::close(master);
    if (slave >= 0) ::close(slave);
  }
  // ftdiag must hold the only slave, so that its end reads as EIO here.
  void give_away_slave() {
    ::close(slave);
    slave = -1;
  }
};

// ftdiag switches its terminal to raw mode once the job runs, discarding what
// was typed before (TCSAFLUSH); keys typed after that must reach the job.
bool wait_for_raw_mode(int master) {
  int slave = ::open(::ptsname(master), O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (slave < 0) return false;
  bool raw = wait_until([&] {
    termios mode{};
    return ::tcgetattr(slave, &mode) == 0 && !(mode.c_lflag & ICANON);
  });
  ::close(slave);
  return raw;
}

// The state letter of /proc/PID/stat ('Z' for a process that ended and
// was not reaped yet), or 0 when it cannot be read.
char process_state(int pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  auto paren = text.rfind(')');
  return paren == std::string::npos || paren + 2 >= text.size() ? 0 : text[paren + 2];
}

// Whether a process other than `pid` is left in `pid`'s process group (the
// harness gives each ftdiag its own): once none is, the relays wrote everything.
bool others_in_group_of(int pid) {
  for (const auto& entry : fs::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos || std::stoi(name) == pid) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    auto paren = text.rfind(')');
    if (paren == std::string::npos) continue;
    std::istringstream fields(text.substr(paren + 2));
    std::string state;
    int ppid = 0, pgrp = 0;
    fields >> state >> ppid >> pgrp;
    if (pgrp == pid && state != "Z") return true;
  }
  return false;
}

int count_records(const fs::path& run_dir, std::string_view type) {
  int count = 0;
  for (auto& record : read_journal(run_dir)) count += record.value("type", "") == type;
  return count;
}

json* find_death(std::vector<json>& journal, int pid) {
  for (auto& record : journal) {
    if (record.value("type", "") == "death" && record.value("pid", 0) == pid) return &record;
  }
  return nullptr;
}

fs::path only_run_folder(const fs::path& job_dir) {
  fs::path folder;
  wait_until([&] {
    auto folders = run_folders(job_dir);
    if (folders.size() == 1) folder = folders[0];
    return !folder.empty();
  });
  return folder;
}

}  // namespace

TEST_CASE("passthrough: binary stdout and stderr arrive byte-exact through pipes") {
  constexpr std::size_t kSize = 3 << 20;
  TempDir tmp;
  auto outcome = run(Launch{ftdiag_run(tmp / "job", crasher_argv("die", {"binary", std::to_string(kSize)}))});
  REQUIRE_MESSAGE(outcome.exited_with(0), outcome.describe());
  const std::string want_out = pattern(kSize, 0x9e3779b9u);
  const std::string want_err = pattern(kSize / 2, 0x7f4a7c15u);
  CHECK_MESSAGE(outcome.out == want_out, "stdout: ", first_difference(outcome.out, want_out));
  CHECK_MESSAGE(outcome.err == want_err, "stderr: ", first_difference(outcome.err, want_err));
}

TEST_CASE("passthrough: stdin reaches the job (cat) unchanged") {
  constexpr std::size_t kSize = 1 << 20;
  TempDir tmp;
  int in[2];
  REQUIRE(::pipe2(in, O_CLOEXEC) == 0);
  Launch launch{ftdiag_run(tmp / "job", {"cat"})};
  launch.stdin_fd = in[0];
  Process ftdiag(launch);
  ::close(in[0]);
  const std::string data = pattern(kSize, 0x2545f491u);
  // Written from a thread: cat's output must be read while its input is written.
  std::thread writer([&] {
    std::size_t done = 0;
    while (done < data.size()) {
      ssize_t n = ::write(in[1], data.data() + done, data.size() - done);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    ::close(in[1]);
  });
  auto status = ftdiag.finish();
  writer.join();
  REQUIRE_MESSAGE(status, "ftdiag with cat did not end");
  CHECK_MESSAGE((WIFEXITED(*status) && WEXITSTATUS(*status) == 0), describe_status(status), " ", ftdiag.err());
  CHECK_MESSAGE(ftdiag.out() == data, first_difference(ftdiag.out(), data));
}

TEST_CASE("passthrough: a job sees a terminal when ftdiag has one, and its exit is mirrored") {
  TempDir tmp;
  Terminal terminal;
  termios before{};
  REQUIRE(::tcgetattr(terminal.slave, &before) == 0);
  Launch launch{ftdiag_run(tmp / "job", crasher_argv("die", {"tty", "7"}))};
  launch.terminal_fd = terminal.slave;
  Process ftdiag(launch);
  terminal.give_away_slave();
  ftdiag.capture_terminal(terminal.master);
  auto status = ftdiag.finish();
  REQUIRE(status);
  CHECK_MESSAGE((WIFEXITED(*status) && WEXITSTATUS(*status) == 7), describe_status(status), " ", ftdiag.terminal());
  CHECK_MESSAGE(ftdiag.terminal().find("tty stdin=1 stdout=1 stderr=1 tcgetattr=1") != std::string::npos,
                ftdiag.terminal());

  // ftdiag put its terminal in raw mode to relay keys; it must give it back.
  int slave = ::open(::ptsname(terminal.master), O_RDWR | O_NOCTTY | O_CLOEXEC);
  REQUIRE(slave >= 0);
  termios after{};
  CHECK(::tcgetattr(slave, &after) == 0);
  CHECK(after.c_lflag == before.c_lflag);
  CHECK(after.c_oflag == before.c_oflag);
  ::close(slave);

  auto analysis = analyze(tmp / "job");
  auto& run = only_run(analysis.document);
  CHECK(run["started"]["pseudo_terminal"] == true);
  bool logged = false;
  for (auto& line : run["console"]["tail"]) {
    if (line["text"].get<std::string>().find("tty stdin=1") != std::string::npos) logged = line["stream"] == "t";
  }
  CHECK_MESSAGE(logged, "no terminal line in the console tail: ", run["console"].dump());
}

TEST_CASE("passthrough: in terminal mode a death by signal is mirrored and typed input reaches the job") {
  SUBCASE("signal") {
    TempDir tmp;
    Terminal terminal;
    Launch launch{ftdiag_run(tmp / "job", crasher_argv("die", {"signal", "KILL"}))};
    launch.terminal_fd = terminal.slave;
    Process ftdiag(launch);
    terminal.give_away_slave();
    ftdiag.capture_terminal(terminal.master);
    auto status = ftdiag.finish();
    REQUIRE(status);
    CHECK_MESSAGE((WIFSIGNALED(*status) && WTERMSIG(*status) == SIGKILL), describe_status(status));
  }
  SUBCASE("input") {
    TempDir tmp;
    Terminal terminal;
    Launch launch{ftdiag_run(tmp / "job", crasher_argv("die", {"readline"}))};
    launch.terminal_fd = terminal.slave;
    Process ftdiag(launch);
    terminal.give_away_slave();
    ftdiag.capture_terminal(terminal.master);
    REQUIRE_MESSAGE(wait_for_raw_mode(terminal.master), "ftdiag never put its terminal in raw mode");
    const std::string typed = "hello from the keyboard\r";
    REQUIRE(::write(terminal.master, typed.data(), typed.size()) == static_cast<ssize_t>(typed.size()));
    auto line = ftdiag.wait_for_line("read: ");
    CHECK_MESSAGE(line == std::optional<std::string>("read: hello from the keyboard"), ftdiag.terminal());
    auto status = ftdiag.finish();
    REQUIRE(status);
    CHECK_MESSAGE((WIFEXITED(*status) && WEXITSTATUS(*status) == 0), describe_status(status));
  }
}


// Guards against the event loop writing to a stuck consumer: it used to poll
// forever inside its write, so samples, reaping and signal forwarding stopped
// until the consumer read again.
TEST_CASE("passthrough: a stdout nobody reads blocks the job, not ftdiag: samples and deaths go on, then every byte arrives") {
  constexpr std::size_t kSize = 8 << 20;  // far more than every pipe on the way holds
  TempDir tmp;
  Fifo release(tmp / "release");
  const fs::path child_pid_file = tmp / "child.pid";
  // A child that waits for the FIFO, then exits 3; meanwhile known bytes flood stdout and stderr.
  const std::string script = "\"$1\" await \"$2\" exit 3 >/dev/null & echo $! > \"$3\"; \"$1\" binary " +
                             std::to_string(kSize) + "; wait $!; exit 0";
  Process ftdiag(Launch{ftdiag_run(tmp / "job", {"/bin/sh", "-c", script, "sh", crasher("die").string(),
                                                   release.path().string(), child_pid_file.string()})});
  // Nothing reads ftdiag's stdout or stderr from here until finish().
  const fs::path run_dir = only_run_folder(tmp / "job");
  REQUIRE_MESSAGE(!run_dir.empty(), "no run folder");
  int child = -1;
  REQUIRE(wait_until([&] { return (child = pid_after(read_text(child_pid_file), "")) > 0; }));
  const int samples_before = count_records(run_dir, "sample");
  CHECK_MESSAGE(wait_until([&] { return count_records(run_dir, "sample") >= samples_before + 10; }, 10),
                "samples stopped while stdout was stuck: ", count_records(run_dir, "sample") - samples_before, " new");

  REQUIRE(release.write_line("go"));
  std::vector<json> journal;
  CHECK_MESSAGE(wait_until([&] { return journal = read_journal(run_dir), find_death(journal, child) != nullptr; }, 10),
                "the child's death was not recorded while stdout was stuck");
  if (json* death = find_death(journal, child)) CHECK((*death)["status"]["exit_code"] == 3);

  auto status = ftdiag.finish();
  REQUIRE(status);
  CHECK_MESSAGE((WIFEXITED(*status) && WEXITSTATUS(*status) == 0), describe_status(status), " ", ftdiag.err().substr(0, 300));
  const std::string want_out = pattern(kSize, 0x9e3779b9u);
  CHECK_MESSAGE(ftdiag.out() == want_out, "stdout: ", first_difference(ftdiag.out(), want_out));
}

// Guards against ftdiag holding the only read end of the job's output: when
// it ended, a process the job left behind died of SIGPIPE at its next print,
// and ftdiag waited a second for it before its verdict.
TEST_CASE("passthrough: a daemon the job leaves keeps printing after ftdiag ended at once") {
  TempDir tmp;
  Fifo release(tmp / "release");
  const fs::path marker = tmp / "daemon-done";
  const std::string script = "(read line < \"$1\"; echo daemon-still-here; touch \"$2\") & echo job-done";
  Process ftdiag(Launch{ftdiag_run(tmp / "job", {"/bin/sh", "-c", script, "sh", release.path().string(), marker.string()})});
  // Not read through the harness until the end: reaping ftdiag would end its process group.
  REQUIRE_MESSAGE(wait_until([&] { return process_state(ftdiag.pid()) == 'Z'; }), "ftdiag did not end with its job");

  const fs::path run_dir = only_run_folder(tmp / "job");
  auto journal = read_journal(run_dir);
  double job_died = 0, run_ended = 0;
  for (auto& record : journal) {
    if (record.value("type", "") == "death" && job_died == 0) job_died = record.value("time", 0.0);
    if (record.value("type", "") == "end") run_ended = record.value("time", 0.0);
  }
  REQUIRE((job_died > 0 && run_ended > 0));
  CHECK_MESSAGE(run_ended - job_died < 0.5, "the record ended ", run_ended - job_died, " s after the job");

  REQUIRE(release.write_line("go"));
  CHECK_MESSAGE(wait_until([&] { return fs::exists(marker); }, 10), "the daemon died at its print after ftdiag ended");
  // Reaping ftdiag ends its process group: first let the relays finish.
  CHECK(wait_until([&] { return !others_in_group_of(ftdiag.pid()); }, 10));
  auto status = ftdiag.finish();
  REQUIRE(status);
  CHECK_MESSAGE((WIFEXITED(*status) && WEXITSTATUS(*status) == 0), describe_status(status));
  CHECK(ftdiag.out() == "job-done\ndaemon-still-here\n");
}

// Guards against the job dying of SIGPIPE at its next print once ftdiag
// itself was SIGKILLed.
TEST_CASE("passthrough: a job outlives a SIGKILLed ftdiag and its output still arrives") {
  TempDir tmp;
  Fifo release(tmp / "release");
  const fs::path marker = tmp / "job-done";
  const std::string script = "echo started; read line < \"$1\"; echo after-ftdiag; touch \"$2\"";
  Process ftdiag(Launch{ftdiag_run(tmp / "job", {"/bin/sh", "-c", script, "sh", release.path().string(), marker.string()})});
  REQUIRE(ftdiag.wait_for_line("started"));
  ::kill(ftdiag.pid(), SIGKILL);
  REQUIRE(wait_until([&] { return process_state(ftdiag.pid()) == 'Z'; }));
  REQUIRE(release.write_line("go"));
  CHECK_MESSAGE(wait_until([&] { return fs::exists(marker); }, 10), "the job died at its print after ftdiag's death");
  CHECK(wait_until([&] { return !others_in_group_of(ftdiag.pid()); }, 10));
  auto status = ftdiag.finish();
  REQUIRE(status);
  CHECK(WIFSIGNALED(*status));
  CHECK(ftdiag.out() == "started\nafter-ftdiag\n");
}

}  // namespace ftdiag::itest
