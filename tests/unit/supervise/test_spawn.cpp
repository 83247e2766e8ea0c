// spawn_job forks only while single-threaded, hands the job exactly the
// environment and signal state it is given, and resolves the command before
// the fork.
#include "supervise/spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <future>
#include <string>
#include <thread>

#include <doctest/doctest.h>

using ftdiag::supervise::InheritedSignals;
using ftdiag::supervise::spawn_job;
using ftdiag::supervise::SpawnFailure;
using ftdiag::supervise::SpawnRequest;

namespace {

// Runs the request with stdout into a pipe; returns what the job printed,
// or "" when it did not start. The job's exit code goes to `exit_code`.
std::string output_of(SpawnRequest request, int* exit_code = nullptr) {
  int ends[2];
  REQUIRE(::pipe2(ends, O_CLOEXEC) == 0);
  request.stdout_fd = ends[1];
  auto spawned = spawn_job(request);
  ::close(ends[1]);
  std::string out;
  char buffer[4096];
  for (ssize_t n; (n = ::read(ends[0], buffer, sizeof buffer)) > 0;) out.append(buffer, static_cast<std::size_t>(n));
  ::close(ends[0]);
  if (!std::holds_alternative<pid_t>(spawned)) return "";
  int status = 0;
  ::waitpid(std::get<pid_t>(spawned), &status, 0);
  if (exit_code) *exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

// The SigIgn mask from a /proc/PID/status text.
unsigned long long ignored_mask(const std::string& status) {
  auto at = status.find("SigIgn:");
  return at == std::string::npos ? 0 : std::stoull(status.substr(at + 7), nullptr, 16);
}

}  // namespace

// Guards against forking while another thread exists: a lock it holds at the
// fork (malloc's) stays held forever in the child.
TEST_CASE("spawn: refuses to fork while another thread exists, and says so") {
  std::promise<void> stop;
  std::thread other([done = stop.get_future()]() mutable { done.wait(); });
  auto spawned = spawn_job(SpawnRequest{.argv = {"/bin/true"}});
  stop.set_value();
  other.join();
  REQUIRE(std::holds_alternative<SpawnFailure>(spawned));
  const auto& failure = std::get<SpawnFailure>(spawned);
  CHECK(failure.stage == SpawnFailure::Stage::cannot_start);
  CHECK_MESSAGE(failure.message.find("threads exist") != std::string::npos, failure.message);
}

TEST_CASE("spawn: the job gets exactly the request's environment, and PATH is searched in it") {
  int code = -1;
  auto out = output_of(SpawnRequest{.argv = {"env"}, .environment = {"PATH=/nonexistent:/usr/bin:/bin", "FTDIAG_ONLY=1"}},
                       &code);
  CHECK(out == "PATH=/nonexistent:/usr/bin:/bin\nFTDIAG_ONLY=1\n");
  CHECK(code == 0);
}

TEST_CASE("spawn: a command that is missing or not executable fails with execvp's errno, before any fork") {
  auto missing = spawn_job(SpawnRequest{.argv = {"ftdiag-no-such-command"}, .environment = {"PATH=/usr/bin:/bin"}});
  REQUIRE(std::holds_alternative<SpawnFailure>(missing));
  CHECK(std::get<SpawnFailure>(missing).stage == SpawnFailure::Stage::exec);
  CHECK(std::get<SpawnFailure>(missing).error_number == ENOENT);
  auto directory = spawn_job(SpawnRequest{.argv = {"/tmp"}});
  REQUIRE(std::holds_alternative<SpawnFailure>(directory));
  CHECK(std::get<SpawnFailure>(directory).error_number == EACCES);
}

// Guards against the child resetting every disposition to SIG_DFL: a signal
// ignored by whoever started ftdiag (nohup) stays ignored for the job.
TEST_CASE("spawn: the job starts with the inherited ignored signals and mask, the rest at their defaults") {
  InheritedSignals inherited{};
  sigemptyset(&inherited.mask);
  sigemptyset(&inherited.ignored);
  sigaddset(&inherited.ignored, SIGHUP);
  // ftdiag's own state at the fork differs: SIGUSR1 ignored, SIGTERM blocked.
  struct sigaction ignore {}, previous {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGUSR1, &ignore, &previous);
  sigset_t term, old_mask;
  sigemptyset(&term);
  sigaddset(&term, SIGTERM);
  ::sigprocmask(SIG_BLOCK, &term, &old_mask);
  auto status = output_of(SpawnRequest{.argv = {"/bin/cat", "/proc/self/status"}, .signals = &inherited});
  ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  ::sigaction(SIGUSR1, &previous, nullptr);

  const auto ignored = ignored_mask(status);
  CHECK(((ignored >> (SIGHUP - 1)) & 1) == 1);
  CHECK(((ignored >> (SIGUSR1 - 1)) & 1) == 0);
  auto blocked_at = status.find("SigBlk:");
  REQUIRE(blocked_at != std::string::npos);
  CHECK(((std::stoull(status.substr(blocked_at + 7), nullptr, 16) >> (SIGTERM - 1)) & 1) == 0);
}

TEST_CASE("spawn: a script without a #! line runs with /bin/sh, as execvp would") {
  char path[] = "/tmp/ftdiag-spawn-script-XXXXXX";
  int fd = ::mkstemp(path);
  REQUIRE(fd >= 0);
  const std::string script = "echo \"from script $1\"\n";
  REQUIRE(::write(fd, script.data(), script.size()) == static_cast<ssize_t>(script.size()));
  ::fchmod(fd, 0700);
  ::close(fd);
  auto out = output_of(SpawnRequest{.argv = {path, "x"}});
  ::unlink(path);
  CHECK(out == "from script x\n");
}
