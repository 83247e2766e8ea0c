#include "collectors/environment_beside_job.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <utility>

#include "evidence/environment_snapshot.h"

namespace ftdiag::collectors {

namespace {

bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

std::string read_all(int fd) {
  std::string text;
  char buffer[64 * 1024];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return text;
    text.append(buffer, static_cast<std::size_t>(n));
  }
}

// In the forked reader: the snapshot, unredacted (ftdiag redacts it as it
// writes environment.json), down the pipe; never returns.
[[noreturn]] void read_and_send(const EnvironmentRequest& request, int go, int to_parent) {
  ::prctl(PR_SET_NAME, "ftdiag-env");
  // Gone with ftdiag: nobody would read what it sends.
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  // Signals to the job's process group (the terminal's Ctrl-C, a scheduler
  // stopping the step) are the job's: the reader finishes its reading, and
  // ftdiag's own end ends it (above). Its helpers run in groups of their own.
  for (const int sig : {SIGINT, SIGQUIT, SIGTERM, SIGHUP}) ::signal(sig, SIG_IGN);
  // go(): ftdiag closes its end. Nothing is ever written to it, so a reader
  // gone early can never cost ftdiag a SIGPIPE; with no job, ftdiag kills it.
  char byte = 0;
  while (::read(go, &byte, 1) < 0 && errno == EINTR) {
  }
  int status = 1;
  try {
    const auto text = evidence::environment_snapshot_json(collect_environment(request), Redaction::off);
    if (text && write_all(to_parent, *text)) status = 0;
  } catch (...) {
    // ftdiag reads it itself (take()).
  }
  ::_exit(status);
}

}  // namespace

EnvironmentBesideJob EnvironmentBesideJob::start(EnvironmentRequest request) {
  EnvironmentBesideJob reader(std::move(request));
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return reader;
  UniqueFd read_end(fds[0]);
  UniqueFd write_end(fds[1]);
  if (::pipe2(fds, O_CLOEXEC) != 0) return reader;
  UniqueFd go_read(fds[0]);
  UniqueFd go_write(fds[1]);
  const pid_t pid = ::fork();
  if (pid == 0) {
    read_end.reset();
    go_write.reset();
    read_and_send(reader.request_, go_read.get(), write_end.get());
  }
  if (pid < 0) return reader;
  reader.pid_ = pid;
  reader.from_reader_ = std::move(read_end);
  reader.go_ = std::move(go_write);
  return reader;
}

void EnvironmentBesideJob::go() { go_.reset(); }

EnvironmentBesideJob::EnvironmentBesideJob(EnvironmentBesideJob&& other) noexcept
    : request_(std::move(other.request_)),
      pid_(std::exchange(other.pid_, -1)),
      from_reader_(std::move(other.from_reader_)),
      go_(std::move(other.go_)) {}

EnvironmentBesideJob::~EnvironmentBesideJob() { end_reader(/*kill_it=*/true); }

void EnvironmentBesideJob::end_reader(bool kill_it) {
  // Killed before its go is closed: a reader still waiting never starts reading.
  if (kill_it && pid_ > 0) ::kill(pid_, SIGKILL);
  go_.reset();
  from_reader_.reset();
  if (pid_ <= 0) return;
  // ECHILD: the supervisor's loop reaped it while the job ran.
  while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
}

evidence::EnvironmentSnapshot EnvironmentBesideJob::take() {
  go();  // in case the job's start was never said
  std::string text;
  if (from_reader_.valid()) text = read_all(from_reader_.get());
  end_reader(/*kill_it=*/false);
  if (!text.empty()) {
    if (auto snapshot = evidence::parse_environment_snapshot(text)) return std::move(snapshot.value());
  }
  return collect_environment(request_);
}

}  // namespace ftdiag::collectors
