// Setting up a supervision: the ways of watching the tree, and the job.
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "base/clock.h"
#include "supervise/job_identity.h"
#include "supervise/signal_policy.h"
#include "supervise/spawn.h"
#include "supervise/supervision.h"

namespace ftdiag::supervise {

using evidence::ConsoleStream;
using evidence::ExitStatus;

void Supervision::prepare_mechanisms() {
  auto& mechanisms = started_.mechanisms;
  if (::prctl(PR_SET_CHILD_SUBREAPER, 1) == 0) {
    mechanisms.emplace("subreaper", true);
  } else {
    mechanisms.emplace("subreaper", missing_from_errno(errno, "prctl(PR_SET_CHILD_SUBREAPER)"));
  }
  if (options_.disable_netlink) {
    mechanisms.emplace("netlink", Missing{MissingReason::unsupported, "disabled by --no-netlink"});
  } else if (auto connector = ProcConnector::open({.tree_root = ::getpid()})) {
    netlink_.emplace(std::move(connector).value());
    mechanisms.emplace("netlink", true);
    // Which filters keep the host's other processes off the socket
    // (proc_connector_filter.h): each true, or missing with the reason.
    mechanisms.emplace("netlink-kernel-filter", netlink_->kernel_filter());
    mechanisms.emplace("netlink-socket-filter", netlink_->socket_filter());
    mechanisms.emplace("netlink-tree-filter", netlink_->tree_filter());
  } else {
    mechanisms.emplace("netlink", connector.missing());
  }
  mechanisms.emplace("proc-scan", true);
  auto original = read_own_oom_score_adj();
  if (!original) {
    mechanisms.emplace("oom-protection", original.missing());
    return;
  }
  auto lowered = lower_own_oom_score_adj();
  if (lowered) original_oom_score_adj_ = original.value();
  mechanisms.emplace("oom-protection", lowered);
}

std::optional<SupervisorFailure> Supervision::start_job() {
  SpawnRequest request;
  request.argv = options_.argv;
  request.oom_score_adj = original_oom_score_adj_;
  std::optional<UniqueFd> out_read, err_read;
  UniqueFd out_write, err_write;
  if (::isatty(STDOUT_FILENO)) {
    if (auto pty = open_pseudo_terminal(STDOUT_FILENO)) pty_.emplace(std::move(pty).value());
  }
  if (pty_) {
    request.pty_slave = pty_->slave.get();
    relay_stdin_ = ::isatty(STDIN_FILENO);
    request.slave_is_stdin = relay_stdin_;
  } else {
    int out_pipe[2], err_pipe[2];
    if (::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0) {
      return SupervisorFailure{125, fmt::format("ftdiag: cannot create pipes: {}", std::strerror(errno)), dir_.path()};
    }
    out_read.emplace(out_pipe[0]);
    out_write.reset(out_pipe[1]);
    err_read.emplace(err_pipe[0]);
    err_write.reset(err_pipe[1]);
    request.stdout_fd = out_write.get();
    request.stderr_fd = err_write.get();
  }
  auto spawned = spawn_job(request);
  if (auto* failure = std::get_if<SpawnFailure>(&spawned)) {
    int code = failure->error_number == ENOENT ? 127 : 126;
    return SupervisorFailure{code, "ftdiag: " + failure->message, dir_.path()};
  }
  job_pid_ = std::get<pid_t>(spawned);
  if (pty_) {
    pty_->slave.reset();  // the job holds it now; EIO on the master then means "job side closed"
    out_relay_.emplace(std::move(pty_->master), STDOUT_FILENO, ConsoleStream::terminal);
    if (relay_stdin_) raw_mode_ = std::make_unique<RawModeGuard>(STDIN_FILENO);
  } else {
    out_relay_.emplace(std::move(*out_read), STDOUT_FILENO, ConsoleStream::out);
    err_relay_.emplace(std::move(*err_read), STDERR_FILENO, ConsoleStream::err);
  }
  return std::nullopt;
}

}  // namespace ftdiag::supervise
