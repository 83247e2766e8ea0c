// The job's standard streams go through ftdiag unchanged: bytes in, bytes
// out, and a terminal stays a terminal.
#include <fcntl.h>
#include <pty.h>
#include <signal.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cstdint>
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

}  // namespace ftdiag::itest
