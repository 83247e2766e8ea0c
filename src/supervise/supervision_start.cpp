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
#include "base/read_file.h"
#include "supervise/errno_remedy.h"
#include "supervise/fork_safety.h"
#include "supervise/job_identity.h"
#include "supervise/relay_process.h"
#include "supervise/signal_policy.h"
#include "supervise/spawn.h"
#include "supervise/supervision.h"

namespace ftdiag::supervise {

using evidence::ConsoleStream;
using evidence::ExitStatus;

namespace {

// Whether the kernel logs the faults of processes that do not handle the
// signal ("segfault at ..."): debug.exception-trace, on by default.
Fact<bool> kernel_logs_faults(const collect::SystemRoots& roots) {
  auto text = read_small_file(roots.path("/proc/sys/debug/exception-trace"), 64);
  if (!text) return text.missing();
  if (!text->empty() && text->front() == '0') {
    return Missing{MissingReason::unsupported, "debug.exception-trace is 0: the kernel logs no segfault or trap lines"};
  }
  return true;
}

}  // namespace

// Finds the probes and opens their socket; each is a mechanism of the run,
// true or missing with the reason, like every other way of watching.
void Supervision::prepare_probes() {
  auto& mechanisms = started_.mechanisms;
  if (!options_.probes) {
    const Missing off{MissingReason::unsupported, "turned off by --no-probes"};
    for (const char* name : {"crash-probe", "python-probe", "probe-socket"}) mechanisms.emplace(name, off);
    return;
  }
  probe_files_ = find_probe_files();
  auto as_mechanism = [](const Fact<std::filesystem::path>& file) -> Fact<bool> {
    if (file) return true;
    return file.missing();
  };
  mechanisms.emplace("crash-probe", as_mechanism(probe_files_.crash_library));
  mechanisms.emplace("python-probe", as_mechanism(probe_files_.python_folder));
  if (auto socket = ProbeSocket::open(dir_)) {
    probe_socket_.emplace(std::move(socket).value());
    mechanisms.emplace("probe-socket", true);
  } else {
    mechanisms.emplace("probe-socket", socket.missing());
  }
}

void Supervision::prepare_mechanisms() {
  auto& mechanisms = started_.mechanisms;
  // First, while ftdiag has no thread: it forks the instance's cleaner.
  if (auto trace = SignalTrace::open()) {
    signal_trace_.emplace(std::move(trace).value());
    if (signal_trace_->cleaner_pid() > 0) tracker_.exclude(signal_trace_->cleaner_pid());
    mechanisms.emplace("signal-trace", true);
  } else {
    mechanisms.emplace("signal-trace", trace.missing());
  }
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
  prepare_probes();
  if (auto reader = collect::KernelLogReader::open()) {
    kernel_log_.emplace(std::move(reader).value());
    mechanisms.emplace("kernel-log", true);
    mechanisms.emplace("kernel-fault-lines", kernel_logs_faults(options_.roots));
  } else {
    mechanisms.emplace("kernel-log", reader.missing());
  }
  auto original = read_own_oom_score_adj();
  if (!original) {
    mechanisms.emplace("oom-protection", original.missing());
    return;
  }
  auto lowered = lower_own_oom_score_adj();
  if (lowered) original_oom_score_adj_ = original.value();
  mechanisms.emplace("oom-protection", lowered);
}

namespace {

SupervisorFailure cannot(const char* what, const char* call, int error, const std::filesystem::path& run_dir) {
  return SupervisorFailure{kExitCannotSupervise, fmt::format("ftdiag: cannot {}: {}: {}", what, call, errno_with_remedy(error)),
                           run_dir};
}

// A pipe whose ends are not inherited; the errno of pipe2 on failure.
int make_pipe(UniqueFd& read_end, UniqueFd& write_end) {
  int ends[2];
  if (::pipe2(ends, O_CLOEXEC) != 0) return errno;
  read_end.reset(ends[0]);
  write_end.reset(ends[1]);
  return 0;
}

}  // namespace

bool Supervision::add_to_epoll(int fd, EventSource source) {
  epoll_event event{};
  event.events = EPOLLIN;
  event.data.u64 = source;
  return ::epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, fd, &event) == 0;
}

std::optional<SupervisorFailure> Supervision::open_event_sources(const sigset_t& signals) {
  const char* const what = "watch the job";
  signal_fd_ = UniqueFd(::signalfd(-1, &signals, SFD_NONBLOCK | SFD_CLOEXEC));
  if (!signal_fd_.valid()) return cannot(what, "signalfd", errno, dir_.path());
  timer_fd_ = UniqueFd(::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC));
  if (!timer_fd_.valid()) return cannot(what, "timerfd_create", errno, dir_.path());
  const double interval = options_.sample_interval_s;
  if (!std::isfinite(interval) || interval < 1e-3) {
    return SupervisorFailure{kExitCannotSupervise, fmt::format("ftdiag: invalid sample interval {} s", interval), dir_.path()};
  }
  itimerspec period{};
  period.it_interval.tv_sec = static_cast<time_t>(interval);
  period.it_interval.tv_nsec = static_cast<long>((interval - std::floor(interval)) * 1e9);
  period.it_value = period.it_interval;
  if (::timerfd_settime(timer_fd_.get(), 0, &period, nullptr) != 0) return cannot(what, "timerfd_settime", errno, dir_.path());
  sample_interval_ = interval;
  epoll_ = UniqueFd(::epoll_create1(EPOLL_CLOEXEC));
  if (!epoll_.valid()) return cannot(what, "epoll_create1", errno, dir_.path());
  // A SIGCHLD that comes before the loop runs stays pending and is read
  // from the signalfd then, so no exit is missed.
  if (!add_to_epoll(signal_fd_.get(), kSignals) || !add_to_epoll(timer_fd_.get(), kTimer) ||
      (netlink_ && !add_to_epoll(netlink_->fd(), kNetlink)) ||
      (kernel_log_ && !add_to_epoll(kernel_log_->fd(), kKernelLog)) ||
      (signal_trace_ && !add_to_epoll(signal_trace_->fd(), kSignalTrace)) ||
      (probe_socket_ && !add_to_epoll(probe_socket_->fd(), kProbeSocket))) {
    return cannot(what, "epoll_ctl", errno, dir_.path());
  }
  return std::nullopt;
}

std::optional<SupervisorFailure> Supervision::start_relay(int source, int destination, ConsoleStream stream,
                                                          EventSource event, std::optional<OutputRelay>& relay) {
  UniqueFd tee_read, tee_write;
  if (int error = make_pipe(tee_read, tee_write)) return cannot("relay the job's output", "pipe2", error, dir_.path());
  if (!add_to_epoll(tee_read.get(), event)) return cannot("relay the job's output", "epoll_ctl", errno, dir_.path());
  if (auto unsafe = unsafe_to_fork()) {
    return SupervisorFailure{kExitCannotSupervise, "ftdiag: cannot relay the job's output: " + *unsafe, dir_.path()};
  }
  const pid_t pid = start_relay_process({source, destination, tee_write.get()});
  if (pid < 0) return cannot("relay the job's output", "fork", errno, dir_.path());
  tracker_.exclude(pid);  // ftdiag's own, not the job's
  relay.emplace(std::move(tee_read), pid, stream);
  return std::nullopt;
}

void Supervision::stop_relays() {
  for (auto* relay : {&out_relay_, &err_relay_}) {
    if (!*relay || !(*relay)->relay_running()) continue;
    // Only after a failed start: there is no output of a job to relay.
    ::kill((*relay)->relay_pid(), SIGKILL);
    ::waitpid((*relay)->relay_pid(), nullptr, 0);
    (*relay)->relay_ended();
  }
}

std::optional<SupervisorFailure> Supervision::start_job() {
  SpawnRequest request;
  request.argv = options_.argv;
  request.environment = current_environment();
  if (options_.probes) {
    ProbeSetup setup{dir_.path(), std::nullopt, probe_files_};
    if (probe_socket_) setup.probe_socket = probe_socket_->path();
    request.environment = add_probes_to_environment(std::move(request.environment), setup);
  }
  request.oom_score_adj = original_oom_score_adj_;
  request.signals = &inherited_;
  UniqueFd out_read, out_write, err_read, err_write;
  if (::isatty(STDOUT_FILENO)) {
    if (auto pty = open_pseudo_terminal(STDOUT_FILENO)) pty_.emplace(std::move(pty).value());
  }
  std::optional<SupervisorFailure> failure;
  if (pty_) {
    request.pty_slave = pty_->slave.get();
    relay_stdin_ = ::isatty(STDIN_FILENO);
    request.slave_is_stdin = relay_stdin_;
    // Typed keys are written to it without ever blocking the loop (on_stdin).
    ::fcntl(pty_->master.get(), F_SETFL, ::fcntl(pty_->master.get(), F_GETFL) | O_NONBLOCK);
    if (relay_stdin_ && !add_to_epoll(STDIN_FILENO, kStdin)) return cannot("relay keys", "epoll_ctl", errno, dir_.path());
    failure = start_relay(pty_->master.get(), STDOUT_FILENO, ConsoleStream::terminal, kRelayOut, out_relay_);
  } else {
    int error = make_pipe(out_read, out_write);
    if (!error) error = make_pipe(err_read, err_write);
    if (error) return cannot("relay the job's output", "pipe2", error, dir_.path());
    // Best effort (see OutputRelay::kPipeBytes): a job printing in bursts keeps going.
    ::fcntl(out_write.get(), F_SETPIPE_SZ, OutputRelay::kPipeBytes);
    ::fcntl(err_write.get(), F_SETPIPE_SZ, OutputRelay::kPipeBytes);
    request.stdout_fd = out_write.get();
    request.stderr_fd = err_write.get();
    failure = start_relay(out_read.get(), STDOUT_FILENO, ConsoleStream::out, kRelayOut, out_relay_);
    if (!failure) failure = start_relay(err_read.get(), STDERR_FILENO, ConsoleStream::err, kRelayErr, err_relay_);
  }
  if (failure) return failure;
  auto spawned = spawn_job(request);
  if (auto* spawn_failure = std::get_if<SpawnFailure>(&spawned)) {
    int code = kExitCannotSupervise;
    if (spawn_failure->stage == SpawnFailure::Stage::exec) {
      code = spawn_failure->error_number == ENOENT ? kExitNotFound : kExitCannotExecute;
    }
    return SupervisorFailure{code, "ftdiag: " + spawn_failure->message, dir_.path()};
  }
  job_pid_ = std::get<pid_t>(spawned);
  // The relays and the job hold the ends now: end of file on a pipe, or EIO
  // on the pty master, then means that the job's side closed.
  if (pty_) {
    pty_->slave.reset();
    if (relay_stdin_) raw_mode_ = std::make_unique<RawModeGuard>(STDIN_FILENO);
  }
  return std::nullopt;
}

}  // namespace ftdiag::supervise
