// The signal trace on the real kernel, as root: real kills and faults, their
// records read back from the private tracefs instance, and the instance gone
// afterwards, also when its owner is SIGKILLed. Skipped without root or
// tracefs.
#include "supervise/signal_trace.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "skip.h"

using ftdiag::MissingReason;
using ftdiag::parse::SignalGenerated;
using ftdiag::supervise::SignalTrace;
using ftdiag::supervise::SignalTraceOptions;

namespace {

using Clock = std::chrono::steady_clock;

// Not root, or no tracefs here: the case is skipped, not passed.
std::optional<std::string> why_unavailable(const ftdiag::Fact<SignalTrace>& trace) {
  if (trace) return std::nullopt;
  const auto reason = trace.missing().reason;
  if (reason == MissingReason::permission_denied || reason == MissingReason::unsupported) return trace.missing().detail;
  return std::nullopt;
}

// The message of a REQUIRE, evaluated also when it passes.
std::string why_not(const ftdiag::Fact<SignalTrace>& trace) { return trace ? std::string{} : trace.missing().detail; }

double monotonic_now() {
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
}

std::string first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

std::string own_comm() { return first_line("/proc/self/comm"); }

// The test runner's handlers (doctest reports a signal as a crash) must not
// outlive the fork: a signalled child dies of its signal.
void default_signal_actions() {
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig != SIGKILL && sig != SIGSTOP) ::signal(sig, SIG_DFL);
  }
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
}

// A child named `name` that runs `body` once it has its name, and says so
// before: the parent signals it only then, so the record names it. The
// child never returns into the test runner.
pid_t fork_named(const char* name, const std::function<void()>& body) {
  int ready[2];
  REQUIRE(::pipe(ready) == 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::close(ready[0]);
    default_signal_actions();
    ::prctl(PR_SET_NAME, name);
    [[maybe_unused]] ssize_t said = ::write(ready[1], "r", 1);
    ::close(ready[1]);
    body();
    ::_exit(0);
  }
  ::close(ready[1]);
  char byte;
  REQUIRE(::read(ready[0], &byte, 1) == 1);
  ::close(ready[0]);
  return pid;
}

void wait_forever() {
  while (true) ::pause();
}

int wait_status(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

// Reads records until `done` says so or `timeout` passes; returns them all.
std::vector<SignalGenerated> read_until(SignalTrace& trace, const std::function<bool(const std::vector<SignalGenerated>&)>& done,
                                        std::chrono::milliseconds timeout = std::chrono::seconds(5)) {
  std::vector<SignalGenerated> records;
  const auto deadline = Clock::now() + timeout;
  while (!done(records) && Clock::now() < deadline) {
    pollfd readable{trace.fd(), POLLIN, 0};
    ::poll(&readable, 1, 100);
    for (auto& record : trace.read_available()) records.push_back(std::move(record));
  }
  return records;
}

std::optional<SignalGenerated> find(const std::vector<SignalGenerated>& records, int signal, pid_t target) {
  for (const auto& record : records) {
    if (record.signal == signal && record.target_pid == target) return record;
  }
  return std::nullopt;
}

// The faults below run in a child with the default action, no core file, and
// no sanitizer in the way: the kernel's own SIGSEGV is what is traced.
__attribute__((no_sanitize("address", "undefined"))) void load_from(std::uintptr_t address) {
  ::signal(SIGSEGV, SIG_DFL);
  rlimit no_core{0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
  volatile int sink = *reinterpret_cast<volatile int*>(address);
  (void)sink;
}

volatile std::uintptr_t null_address = 0;

}  // namespace

TEST_CASE("signal trace: without tracefs or root, open says why") {
  SignalTraceOptions nowhere;
  nowhere.tracefs.candidates = {"/nonexistent/tracing"};
  nowhere.tracefs.mount_point = "/nonexistent/tracing";
  auto trace = SignalTrace::open(nowhere);
  REQUIRE_FALSE(trace);
  MESSAGE("no tracefs: " << trace.missing().detail);
  CHECK(trace.missing().detail.find("tracefs is not mounted and cannot be mounted") != std::string::npos);
  CHECK((trace.missing().reason == MissingReason::unsupported ||
         trace.missing().reason == MissingReason::permission_denied));
  if (::geteuid() != 0) {
    auto refused = SignalTrace::open();
    REQUIRE_FALSE(refused);
    MESSAGE("unprivileged: " << refused.missing().detail);
    CHECK(refused.missing().reason == MissingReason::permission_denied);
    CHECK(refused.missing().detail.find("needs root") != std::string::npos);
  }
}

TEST_CASE("signal trace: names the sender of a kill, of a SIGTERM from another process, and of a fault") {
  auto trace = SignalTrace::open();
  if (auto why = why_unavailable(trace)) FTDIAG_SKIP(*why);
  REQUIRE_MESSAGE(trace, why_not(trace));
  CHECK(trace->timestamps_monotonic());
  const double before = monotonic_now();

  const pid_t killed = fork_named("sig-target", wait_forever);
  REQUIRE(::kill(killed, SIGKILL) == 0);
  const pid_t terminated = fork_named("sig-target", wait_forever);
  int hold[2];
  REQUIRE(::pipe(hold) == 0);
  // The sender stays alive, blocked, until its record is read: the tracer
  // saves a comm when its task is switched out, and looks it up when printing.
  const pid_t scheduler = fork_named("scheduler", [&] {
    ::close(hold[1]);
    ::kill(terminated, SIGTERM);
    char byte;
    [[maybe_unused]] ssize_t n = ::read(hold[0], &byte, 1);
  });
  const pid_t faulted = fork_named("sig-fault", [] { load_from(null_address); });

  auto records = read_until(trace.value(), [&](const auto& seen) {
    return find(seen, SIGKILL, killed) && find(seen, SIGTERM, terminated) && find(seen, SIGSEGV, faulted);
  });
  const double after = monotonic_now();
  ::close(hold[1]);
  ::close(hold[0]);
  CHECK(WTERMSIG(wait_status(killed)) == SIGKILL);
  CHECK(WTERMSIG(wait_status(terminated)) == SIGTERM);
  CHECK(WTERMSIG(wait_status(faulted)) == SIGSEGV);
  wait_status(scheduler);

  auto kill_record = find(records, SIGKILL, killed);
  REQUIRE(kill_record);
  CHECK(kill_record->sender_pid == ::getpid());
  CHECK(kill_record->sender_comm == own_comm());
  CHECK(kill_record->target_comm == "sig-target");
  CHECK(kill_record->code == SI_USER);
  CHECK(kill_record->group);
  CHECK(kill_record->result == 0);
  CHECK(kill_record->timestamp >= before - 0.001);
  CHECK(kill_record->timestamp <= after + 0.001);

  auto term_record = find(records, SIGTERM, terminated);
  REQUIRE(term_record);
  CHECK(term_record->sender_pid == scheduler);
  CHECK(term_record->sender_comm == "scheduler");
  CHECK(term_record->code == SI_USER);

  // A NULL dereference: the faulting task is the sender, with SEGV_MAPERR;
  // the kernel generated it (si_code > 0).
  auto fault_record = find(records, SIGSEGV, faulted);
  REQUIRE(fault_record);
  CHECK(fault_record->sender_pid == faulted);
  CHECK(fault_record->code == SEGV_MAPERR);
  CHECK(ftdiag::parse::generated_by_kernel(fault_record->code));
  CHECK_FALSE(fault_record->group);
  CHECK(trace->unparsed_lines() == 0);
}

#if defined(__x86_64__)
TEST_CASE("signal trace: a general-protection fault is sent by the kernel (SI_KERNEL)") {
  auto trace = SignalTrace::open();
  if (auto why = why_unavailable(trace)) FTDIAG_SKIP(*why);
  REQUIRE_MESSAGE(trace, why_not(trace));
  // A non-canonical address faults with #GP, not a page fault: the kernel
  // sends SIGSEGV with SI_KERNEL, as its OOM killer sends SIGKILL.
  const pid_t faulted = fork_named("sig-gp", [] { load_from(0x8000000000000000ULL); });
  auto records = read_until(trace.value(), [&](const auto& seen) { return find(seen, SIGSEGV, faulted).has_value(); });
  CHECK(WTERMSIG(wait_status(faulted)) == SIGSEGV);
  auto record = find(records, SIGSEGV, faulted);
  REQUIRE(record);
  CHECK(record->code == SI_KERNEL);
  CHECK(record->sender_pid == faulted);
}
#endif

TEST_CASE("signal trace: signals outside the filter are not recorded") {
  SignalTraceOptions only_sigusr1;
  only_sigusr1.signals = {SIGUSR1};
  auto trace = SignalTrace::open(only_sigusr1);
  if (auto why = why_unavailable(trace)) FTDIAG_SKIP(*why);
  REQUIRE_MESSAGE(trace, why_not(trace));
  const pid_t target = fork_named("sig-target", wait_forever);
  REQUIRE(::kill(target, SIGKILL) == 0);
  wait_status(target);
  const pid_t second = fork_named("sig-target", wait_forever);
  REQUIRE(::kill(second, SIGUSR1) == 0);
  wait_status(second);
  auto records = read_until(trace.value(), [&](const auto& seen) { return find(seen, SIGUSR1, second).has_value(); });
  CHECK(find(records, SIGUSR1, second));
  CHECK_FALSE(find(records, SIGKILL, target));
}

TEST_CASE("signal trace: the instance is gone once the trace is destroyed") {
  std::string path;
  {
    auto trace = SignalTrace::open();
    if (auto why = why_unavailable(trace)) FTDIAG_SKIP(*why);
    REQUIRE_MESSAGE(trace, why_not(trace));
    path = trace->instance_path();
    CHECK(path.ends_with("/instances/ftdiag-" + std::to_string(::getpid())));
    CHECK(std::filesystem::is_directory(path));
    CHECK(first_line(path + "/trace_clock").find("[mono]") != std::string::npos);
    // 64 KiB per CPU, as the kernel rounds it (to whole pages with their headers).
    const int buffer_kb = std::stoi("0" + first_line(path + "/buffer_size_kb"));
    CHECK(buffer_kb >= 64);
    CHECK(buffer_kb < 128);
    CHECK(first_line(path + "/events/signal/signal_generate/enable") == "1");
    CHECK((::fcntl(trace->fd(), F_GETFD) & FD_CLOEXEC) != 0);  // never the job's
    // The cleaner keeps only its end of the socket (a pipe of the job's
    // output held open would keep its relay waiting), in a group of its own.
    const pid_t cleaner = trace->cleaner_pid();
    REQUIRE(cleaner > 0);
    const auto fds = std::filesystem::path("/proc") / std::to_string(cleaner) / "fd";
    const auto deadline = Clock::now() + std::chrono::seconds(2);
    auto count_fds = [&] { return std::distance(std::filesystem::directory_iterator(fds), {}); };
    while (count_fds() != 1 && Clock::now() < deadline) ::usleep(10'000);
    CHECK(count_fds() == 1);
    CHECK(std::filesystem::read_symlink(*std::filesystem::directory_iterator(fds)).string().starts_with("socket:"));
    CHECK(::getpgid(cleaner) == cleaner);
    SignalTrace moved = std::move(trace.value());
    CHECK(trace->fd() == -1);  // NOLINT(bugprone-use-after-move): moved-from state is specified
    CHECK(moved.fd() >= 0);
  }
  CHECK_FALSE(std::filesystem::exists(path));
}

TEST_CASE("signal trace: the cleaner removes the instance when its owner is SIGKILLed") {
  if (auto why = why_unavailable(SignalTrace::open())) FTDIAG_SKIP(*why);
  int report[2];
  REQUIRE(::pipe(report) == 0);
  const pid_t owner = ::fork();
  REQUIRE(owner >= 0);
  if (owner == 0) {
    ::close(report[0]);
    default_signal_actions();
    auto trace = SignalTrace::open();
    const std::string path = trace ? trace->instance_path() : std::string{};
    [[maybe_unused]] ssize_t n = ::write(report[1], path.data(), path.size());
    ::close(report[1]);
    wait_forever();
  }
  ::close(report[1]);
  char buffer[512];
  const ssize_t size = ::read(report[0], buffer, sizeof buffer);
  ::close(report[0]);
  const std::string path(buffer, size > 0 ? static_cast<std::size_t>(size) : 0);
  REQUIRE_FALSE(path.empty());
  CHECK(std::filesystem::is_directory(path));

  REQUIRE(::kill(owner, SIGKILL) == 0);
  wait_status(owner);
  const auto deadline = Clock::now() + std::chrono::seconds(3);
  while (std::filesystem::exists(path) && Clock::now() < deadline) ::usleep(10'000);
  CHECK_FALSE(std::filesystem::exists(path));
}

TEST_CASE("signal trace: instances of dead owners are removed at open, those of live ones kept") {
  // A trace under another name holds tracefs (and its mount, when open()
  // mounted it) while the instances below are made by hand.
  SignalTraceOptions holder_options;
  holder_options.instance_name = "ftdiag-holder-" + std::to_string(::getpid());
  auto holder = SignalTrace::open(holder_options);
  if (auto why = why_unavailable(holder)) FTDIAG_SKIP(*why);
  REQUIRE_MESSAGE(holder, why_not(holder));
  const auto instances = std::filesystem::path(holder->instance_path()).parent_path();
  const pid_t dead = fork_named("sig-dead", [] {});
  wait_status(dead);
  const auto stale = instances / ("ftdiag-" + std::to_string(dead));
  const auto live = instances / ("ftdiag-" + std::to_string(::getppid()));
  REQUIRE(std::filesystem::create_directory(stale));
  const bool made_live = std::filesystem::create_directory(live);
  {
    auto trace = SignalTrace::open();
    REQUIRE_MESSAGE(trace, why_not(trace));
    CHECK_FALSE(std::filesystem::exists(stale));
    CHECK(std::filesystem::exists(live));
    CHECK(std::filesystem::exists(holder->instance_path()));
  }
  if (made_live) std::filesystem::remove(live);
}

TEST_CASE("signal trace: how many records per second the reader takes (measured, not asserted)") {
  SignalTraceOptions hangups;
  hangups.signals = {SIGHUP};
  auto trace = SignalTrace::open(hangups);
  if (auto why = why_unavailable(trace)) FTDIAG_SKIP(*why);
  REQUIRE_MESSAGE(trace, why_not(trace));
  // A target that ignores SIGHUP, and a sender that sends it for a second:
  // every kill() is a record (res=1, ignored), as a busy host's would be.
  const pid_t target = fork_named("sig-target", [] {
    ::signal(SIGHUP, SIG_IGN);
    wait_forever();
  });
  const pid_t sender = fork_named("sig-flood", [target] {
    const auto end = Clock::now() + std::chrono::seconds(1);
    while (Clock::now() < end) {
      for (int i = 0; i < 100; ++i) ::kill(target, SIGHUP);
    }
  });
  std::uint64_t records = 0;
  const auto start = Clock::now();
  bool sender_done = false;
  while (!sender_done) {
    pollfd readable{trace->fd(), POLLIN, 0};
    ::poll(&readable, 1, 100);
    for (const auto& record : trace->read_available()) records += record.target_pid == target ? 1 : 0;
    sender_done = ::waitpid(sender, nullptr, WNOHANG) == sender;
  }
  for (const auto& record : trace->read_available()) records += record.target_pid == target ? 1 : 0;
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  ::kill(target, SIGKILL);
  wait_status(target);
  std::printf("signal trace: read %llu records in %.2f s (%.0f records/s), %llu lost in the ring buffer\n",
              static_cast<unsigned long long>(records), seconds, static_cast<double>(records) / seconds,
              static_cast<unsigned long long>(trace->lost_records()));
  CHECK(records > 0);
  CHECK(trace->unparsed_lines() == 0);
}

TEST_CASE("signal trace: a sender that has exited is named from the names the tracer saved") {
  // trace_pipe may print such a sender "<...>", or as an earlier process
  // with its pid; its last switch, on its way out, saved its own name.
  auto trace = SignalTrace::open();
  if (auto why = why_unavailable(trace)) FTDIAG_SKIP(*why);
  REQUIRE_MESSAGE(trace, why_not(trace));
  const pid_t target = fork_named("sig-target", wait_forever);
  const pid_t sender = fork_named("gone-sender", [&] { ::kill(target, SIGTERM); });
  CHECK(WIFEXITED(wait_status(sender)));
  auto records = read_until(trace.value(), [&](const auto& seen) { return find(seen, SIGTERM, target).has_value(); });
  CHECK(WTERMSIG(wait_status(target)) == SIGTERM);
  const auto record = find(records, SIGTERM, target);
  REQUIRE(record);
  CHECK(record->sender_pid == sender);
  CHECK(trace->saved_comm(sender) == "gone-sender");
  CHECK(trace->saved_comm(0).empty());
}

TEST_CASE("signal trace: its pids are /proc's in the initial pid namespace, not in a namespace of its own") {
  struct stat ns {};
  REQUIRE(::stat("/proc/self/ns/pid", &ns) == 0);
  if (ns.st_ino != 0xEFFFFFFCU) FTDIAG_SKIP("this test runs in a pid namespace of its own");
  auto trace = SignalTrace::open();
  if (auto why = why_unavailable(trace)) FTDIAG_SKIP(*why);
  REQUIRE_MESSAGE(trace, why_not(trace));
  CHECK(trace->pids_are_ours());

  // A process in a new pid namespace opens a trace of its own: its pids
  // are not the records'. Exit 0: it says so; 1: it does not; 77: it could
  // not make the namespace or the trace.
  const pid_t outer = ::fork();
  REQUIRE(outer >= 0);
  if (outer == 0) {
    default_signal_actions();
    if (::unshare(CLONE_NEWPID) != 0) ::_exit(77);
    const pid_t inner = ::fork();  // the first process of the new namespace
    if (inner < 0) ::_exit(77);
    if (inner == 0) {
      int code = 77;
      {
        auto nested = SignalTrace::open({.instance_name = "ftdiag-test-pidns", .cleaner = false});
        if (nested) code = nested->pids_are_ours() ? 1 : 0;
      }
      ::_exit(code);
    }
    const int status = wait_status(inner);
    ::_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 2);
  }
  const int status = wait_status(outer);
  REQUIRE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 77) FTDIAG_SKIP("no pid namespace, or no trace inside one");
  CHECK(WEXITSTATUS(status) == 0);
}
