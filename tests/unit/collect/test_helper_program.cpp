// run_helper on real programs: output, exit codes, deaths by signal, hangs
// (with a grandchild that keeps the pipes open), programs that do not exist,
// and the output cap.
#include <signal.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include <doctest/doctest.h>

#include "collect/helpers/helper_program.h"

using namespace ftdiag::collect;
using namespace std::chrono_literals;

namespace {

HelperResult run(std::vector<std::string> argv, std::chrono::milliseconds deadline = 10s) {
  HelperRequest request;
  request.argv = std::move(argv);
  request.deadline = deadline;
  return run_helper(request);
}

// True once `pid` is gone or a zombie (its new parent, init, reaps it when it
// gets to it); waits up to 5 s.
bool ends_soon(int pid) {
  for (int i = 0; i < 500; ++i) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    if (!std::getline(stat, text)) return true;
    const auto close = text.rfind(')');
    if (close != std::string::npos && close + 2 < text.size() && text[close + 2] == 'Z') return true;
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

}  // namespace

TEST_CASE("run_helper: /bin/echo's output, exit code 0") {
  const auto result = run({"/bin/echo", "hello", "world"});
  CHECK(result.ending == HelperResult::Ending::exited);
  CHECK(result.exit_code == 0);
  CHECK(result.succeeded());
  CHECK(result.output == "hello world\n");
  CHECK(result.errors.empty());
  CHECK_FALSE(result.output_truncated);
  CHECK(result.describe() == "exited with code 0");
}

TEST_CASE("run_helper: the exit code, and stderr apart from stdout") {
  const auto result = run({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"});
  CHECK(result.ending == HelperResult::Ending::exited);
  CHECK(result.exit_code == 3);
  CHECK_FALSE(result.succeeded());
  CHECK(result.output == "out\n");
  CHECK(result.errors == "err\n");
  CHECK(result.describe() == "exited with code 3");
}

TEST_CASE("run_helper: a name without a slash is looked up on PATH") {
  const auto result = run({"echo", "found"});
  CHECK(result.succeeded());
  CHECK(result.output == "found\n");
}

TEST_CASE("run_helper: a program killed by SIGSEGV") {
  const auto result = run({"/bin/sh", "-c", "kill -SEGV $$"});
  CHECK(result.ending == HelperResult::Ending::killed_by_signal);
  CHECK(result.signal == SIGSEGV);
  CHECK(result.describe() == "killed by SIGSEGV");
}

TEST_CASE("run_helper: a hang is killed at the deadline") {
  const auto result = run({"sleep", "30"}, 300ms);
  CHECK(result.ending == HelperResult::Ending::timed_out);
  CHECK(result.signal == SIGKILL);
  CHECK(result.seconds >= 0.29);
  CHECK(result.seconds < 5);
  CHECK(result.describe().starts_with("timed out after 0."));
}

TEST_CASE("run_helper: a grandchild that keeps the pipes open is killed with its group") {
  // The background sleep holds stdout and stderr; only killing the process
  // group ends it, and with it the wait.
  const auto result = run({"/bin/sh", "-c", "sleep 30 & echo $!; sleep 30"}, 300ms);
  CHECK(result.ending == HelperResult::Ending::timed_out);
  CHECK(result.seconds < 5);
  const int grandchild = std::atoi(result.output.c_str());
  REQUIRE(grandchild > 0);
  CHECK(ends_soon(grandchild));
}

TEST_CASE("run_helper: a child that exits while its grandchild holds the pipe is still timed out") {
  const auto result = run({"/bin/sh", "-c", "sleep 30 & exit 0"}, 300ms);
  CHECK(result.ending == HelperResult::Ending::timed_out);
  CHECK(result.seconds < 5);
}

TEST_CASE("run_helper: a program that does not exist could not start") {
  for (const char* program : {"/nonexistent/ftdiag-no-such-program", "ftdiag-no-such-program"}) {
    CAPTURE(program);
    const auto result = run({program});
    CHECK(result.ending == HelperResult::Ending::could_not_start);
    CHECK(result.start_error.find(program) != std::string::npos);
    CHECK(result.start_error.find("No such file") != std::string::npos);
    CHECK(result.describe().starts_with("could not start: "));
  }
  CHECK(run({}).ending == HelperResult::Ending::could_not_start);
}

TEST_CASE("run_helper: output past the cap is read and dropped") {
  HelperRequest request;
  // 1 MiB, more than a pipe holds: the writer only finishes if the rest is read.
  request.argv = {"head", "-c", "1048576", "/dev/zero"};
  request.max_output = 1000;
  request.deadline = 10s;
  const auto result = run_helper(request);
  CHECK(result.succeeded());
  CHECK(result.output.size() == 1000);
  CHECK(result.output_truncated);
}

TEST_CASE("run_helper: the environment given, stdin on /dev/null") {
  HelperRequest request;
  request.argv = {"/bin/sh", "-c", "echo \"$FTDIAG_TEST_VALUE\"; cat"};
  request.environment = std::vector<std::string>{"FTDIAG_TEST_VALUE=given", "PATH=/usr/bin:/bin"};
  request.deadline = 10s;
  const auto result = run_helper(request);
  CHECK(result.succeeded());  // cat read EOF at once
  CHECK(result.output == "given\n");
}

TEST_CASE("run_helper: the helper gets an empty signal mask and default dispositions") {
  // ftdiag blocks signals for its signalfd and ignores some; a helper
  // inheriting either would not die of its own SIGTERM here.
  sigset_t block, saved_mask;
  sigemptyset(&block);
  sigaddset(&block, SIGTERM);
  REQUIRE(pthread_sigmask(SIG_BLOCK, &block, &saved_mask) == 0);
  struct sigaction ignore {}, saved_action {};
  ignore.sa_handler = SIG_IGN;
  REQUIRE(sigaction(SIGUSR1, &ignore, &saved_action) == 0);

  const auto term = run({"/bin/sh", "-c", "kill -TERM $$; sleep 5"});
  const auto usr1 = run({"/bin/sh", "-c", "kill -USR1 $$; sleep 5"});

  sigaction(SIGUSR1, &saved_action, nullptr);
  pthread_sigmask(SIG_SETMASK, &saved_mask, nullptr);
  CHECK(term.ending == HelperResult::Ending::killed_by_signal);
  CHECK(term.signal == SIGTERM);
  CHECK(usr1.ending == HelperResult::Ending::killed_by_signal);
  CHECK(usr1.signal == SIGUSR1);
}

TEST_CASE("HelperResult::describe") {
  HelperResult result;
  result.ending = HelperResult::Ending::timed_out;
  result.seconds = 5.04;
  CHECK(result.describe() == "timed out after 5.0 s");
  result.ending = HelperResult::Ending::killed_by_signal;
  result.signal = SIGKILL;
  CHECK(result.describe() == "killed by SIGKILL");
  result.signal = 77;  // no signal has that number
  CHECK(result.describe() == "killed by signal 77");
  result.ending = HelperResult::Ending::could_not_start;
  result.start_error = "execve x: No such file or directory";
  CHECK(result.describe() == "could not start: execve x: No such file or directory");
}
