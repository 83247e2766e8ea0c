#include "integration/harness.h"

#include <fcntl.h>
#include <linux/close_range.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>
#include <fstream>
#include <sstream>
#include <cstdio>
#include <stdexcept>
#include <thread>

#include <doctest/doctest.h>

extern char** environ;

namespace ftdiag::itest {

namespace {

using Clock = std::chrono::steady_clock;

Clock::time_point deadline_in(double seconds) {
  return Clock::now() + std::chrono::microseconds(static_cast<long long>(seconds * 1e6));
}

int ms_left(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, INT_MAX));
}

// A test that writes to a process which ended early (a FIFO, a job's stdin)
// must fail its checks, not kill the whole test binary with SIGPIPE.
[[maybe_unused]] const bool kSigpipeIgnored = [] {
  ::signal(SIGPIPE, SIG_IGN);
  return true;
}();

// The variables ftdiag takes a rank from: a test sets them explicitly or not at all.
constexpr const char* kRankVariables[] = {"RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK"};

std::vector<std::string> environment_for(const Launch& launch) {
  std::map<std::string, std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string_view entry(*e);
    auto equals = entry.find('=');
    if (equals == std::string_view::npos) continue;
    env[std::string(entry.substr(0, equals))] = std::string(entry.substr(equals + 1));
  }
  for (const char* name : kRankVariables) env.erase(name);
  for (const auto& [name, value] : launch.env) {
    if (value) env[name] = *value;
    else env.erase(name);
  }
  std::vector<std::string> flat;
  for (const auto& [name, value] : env) flat.push_back(name + "=" + value);
  return flat;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> result;
  for (auto& s : strings) result.push_back(s.data());
  result.push_back(nullptr);
  return result;
}

// Runs in the forked child: only async-signal-safe calls until exec.
[[noreturn]] void become(const Launch& launch, char** argv, char** envp, int out_fd, int err_fd) {
  sigset_t none;
  sigemptyset(&none);
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig != SIGKILL && sig != SIGSTOP) ::signal(sig, SIG_DFL);
  }
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  if (!launch.cgroup_procs.empty()) {
    int fd = ::open(launch.cgroup_procs.c_str(), O_WRONLY | O_CLOEXEC);
    // "0" means "the writing process" in cgroup.procs (v1 and v2).
    if (fd < 0 || ::write(fd, "0", 1) != 1) ::_exit(121);
    ::close(fd);
  }
  if (launch.terminal_fd >= 0) {
    ::setsid();
    if (::ioctl(launch.terminal_fd, TIOCSCTTY, 0) != 0) ::_exit(122);
    ::dup2(launch.terminal_fd, STDIN_FILENO);
    ::dup2(launch.terminal_fd, STDOUT_FILENO);
    ::dup2(launch.terminal_fd, STDERR_FILENO);
  } else {
    // Its own process group, so that whatever it leaves behind can be ended
    // with it (Process::reap).
    ::setpgid(0, 0);
    int in = launch.stdin_fd >= 0 ? launch.stdin_fd : ::open("/dev/null", O_RDONLY);
    ::dup2(in, STDIN_FILENO);
    ::dup2(out_fd, STDOUT_FILENO);
    ::dup2(err_fd, STDERR_FILENO);
  }
  if (launch.core_limit) {
    rlimit limit{};
    ::getrlimit(RLIMIT_CORE, &limit);
    limit.rlim_cur = std::min(*launch.core_limit, limit.rlim_max);
    ::setrlimit(RLIMIT_CORE, &limit);
  }
  if (launch.umask) ::umask(*launch.umask);
  if (!launch.cwd.empty() && ::chdir(launch.cwd.c_str()) != 0) ::_exit(123);
  if (launch.uid && (::setgroups(0, nullptr) != 0 || ::setgid(*launch.uid) != 0 || ::setuid(*launch.uid) != 0)) {
    ::_exit(124);
  }
  // Only 0-2 pass: a descriptor the test runner leaked (ctest's) would count
  // against a test's RLIMIT_NOFILE and differ from run to run.
  ::syscall(SYS_close_range, 3u, ~0u, CLOSE_RANGE_CLOEXEC);
  ::execve(argv[0], argv, envp);
  ::_exit(errno == ENOENT ? 127 : 126);
}

}  // namespace

fs::path ftdiag_binary() { return FTDIAG_BINARY; }
fs::path crasher(std::string_view name) { return fs::path(FTDIAG_CRASHERS_DIR) / std::string(name); }

TempDir::TempDir() {
  char pattern[] = "/tmp/ftdiag-it-XXXXXX";
  if (!::mkdtemp(pattern)) throw std::runtime_error(std::string("mkdtemp: ") + std::strerror(errno));
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  fs::remove_all(path_, ignored);
}

Process::Process(const Launch& launch) {
  if (launch.argv.empty()) throw std::runtime_error("Process: empty argv");
  auto args = launch.argv;
  auto env = environment_for(launch);
  auto argv = pointers(args);
  auto envp = pointers(env);
  int out[2] = {-1, -1}, err[2] = {-1, -1};
  if (launch.terminal_fd < 0 && (::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0)) {
    throw std::runtime_error(std::string("pipe2: ") + std::strerror(errno));
  }
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid_ == 0) become(launch, argv.data(), envp.data(), out[1], err[1]);
  if (launch.terminal_fd < 0) {
    ::close(out[1]);
    ::close(err[1]);
    captures_[0].fd = out[0];
    captures_[1].fd = err[0];
  }
  pidfd_ = static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0));
}

Process::~Process() {
  if (!status_) {
    ::kill(pid_, SIGKILL);
    reap(0);
  }
  for (auto& capture : captures_) {
    if (capture.fd >= 0) ::close(capture.fd);
  }
  if (pidfd_ >= 0) ::close(pidfd_);
}

void Process::capture_terminal(int master_fd) {
  captures_[2].fd = ::fcntl(master_fd, F_DUPFD_CLOEXEC, 0);
  ::fcntl(captures_[2].fd, F_SETFL, ::fcntl(captures_[2].fd, F_GETFL) | O_NONBLOCK);
}

bool Process::reap(int flags) {
  if (status_) return true;
  // Seen ended but not reaped yet, its pid still names its process group, so
  // the group can be SIGKILLed without hitting a stranger: processes it left
  // running (a job whose supervisor was killed) must not outlive the test.
  siginfo_t info{};
  int waited;
  do {
    waited = ::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOWAIT | flags);
  } while (waited < 0 && errno == EINTR);
  if (waited != 0 || info.si_pid != pid_) return false;
  ::kill(-pid_, SIGKILL);
  int status = 0;
  pid_t got;
  do {
    got = ::waitpid(pid_, &status, 0);
  } while (got < 0 && errno == EINTR);
  if (got == pid_) status_ = status;
  return status_.has_value();
}

bool Process::captures_open() const {
  for (const auto& capture : captures_) {
    if (capture.fd >= 0) return true;
  }
  return false;
}

void Process::pump(int timeout_ms) {
  pollfd fds[4];
  Capture* owners[4] = {};
  nfds_t count = 0;
  for (auto& capture : captures_) {
    if (capture.fd < 0) continue;
    fds[count] = {capture.fd, POLLIN, 0};
    owners[count++] = &capture;
  }
  const bool watch_exit = !status_ && pidfd_ >= 0;
  if (watch_exit) fds[count++] = {pidfd_, POLLIN, 0};
  // Without a pidfd the end of the process is noticed by polling waitpid.
  if (!status_ && pidfd_ < 0) timeout_ms = std::min(timeout_ms, 10);
  int ready = ::poll(fds, count, timeout_ms);
  if (ready < 0 && errno != EINTR) throw std::runtime_error(std::string("poll: ") + std::strerror(errno));
  for (nfds_t i = 0; i < count; ++i) {
    if (!owners[i] || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    char buffer[65536];
    ssize_t n = ::read(owners[i]->fd, buffer, sizeof buffer);
    if (n > 0) {
      owners[i]->data.append(buffer, static_cast<std::size_t>(n));
    } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
      ::close(owners[i]->fd);  // end of file, or EIO: a pty whose last slave closed
      owners[i]->fd = -1;
    }
  }
  reap(WNOHANG);
}

bool Process::wait_for_output(std::string_view needle, double seconds) {
  const auto deadline = deadline_in(seconds);
  while (true) {
    if (out().find(needle) != std::string::npos || terminal().find(needle) != std::string::npos) return true;
    if ((status_ && !captures_open()) || Clock::now() >= deadline) return false;
    pump(std::max(1, ms_left(deadline)));
  }
}

namespace {

std::optional<std::string> whole_line_with(const std::string& text, std::string_view needle) {
  auto at = text.find(needle);
  if (at == std::string::npos) return std::nullopt;
  auto end = text.find('\n', at);
  if (end == std::string::npos) return std::nullopt;
  auto begin = text.rfind('\n', at);
  begin = begin == std::string::npos ? 0 : begin + 1;
  std::string line = text.substr(begin, end - begin);
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return line;
}

}  // namespace

std::optional<std::string> Process::wait_for_line(std::string_view needle, double seconds) {
  const auto deadline = deadline_in(seconds);
  while (true) {
    if (auto line = whole_line_with(out(), needle)) return line;
    if (auto line = whole_line_with(terminal(), needle)) return line;
    if ((status_ && !captures_open()) || Clock::now() >= deadline) return std::nullopt;
    pump(std::max(1, ms_left(deadline)));
  }
}

std::optional<int> Process::finish(double seconds) {
  const auto deadline = deadline_in(seconds);
  while (!status_ && Clock::now() < deadline) pump(std::max(1, ms_left(deadline)));
  if (!status_) {
    ::kill(pid_, SIGKILL);
    reap(0);
    return std::nullopt;
  }
  // The rest of its output; something it left running may hold a pipe open,
  // so this part is bounded more tightly.
  const auto drain_deadline = std::min(deadline, deadline_in(5));
  while (captures_open() && Clock::now() < drain_deadline) pump(std::max(1, ms_left(drain_deadline)));
  return status_;
}

void Process::send(int signal) const {
  if (!status_) ::kill(pid_, signal);
}

bool Outcome::exited_with(int code) const {
  return status && WIFEXITED(*status) && WEXITSTATUS(*status) == code;
}

bool Outcome::killed_by(int signal) const {
  return status && WIFSIGNALED(*status) && WTERMSIG(*status) == signal;
}

std::string Outcome::describe() const {
  return describe_status(status) + "; stderr: " + err.substr(0, 4000);
}

std::string describe_status(std::optional<int> status) {
  if (!status) return "still running at the deadline";
  if (WIFEXITED(*status)) return "exit " + std::to_string(WEXITSTATUS(*status));
  if (WIFSIGNALED(*status)) {
    return "signal " + std::to_string(WTERMSIG(*status)) + (WCOREDUMP(*status) ? " (core dumped)" : "");
  }
  return "wait status " + std::to_string(*status);
}

bool torch_available() {
  static const bool available = run(Launch{{kDebianPython, "-c", "import torch"}}, 60).exited_with(0);
  return available;
}

Outcome run(const Launch& launch, double seconds) {
  Process process(launch);
  auto status = process.finish(seconds);
  return Outcome{status, process.out(), process.err()};
}

std::vector<std::string> ftdiag_run(const fs::path& job_dir, const std::vector<std::string>& job,
                                    const std::vector<std::string>& options) {
  std::vector<std::string> argv = {ftdiag_binary().string(), "run", "--job-dir", job_dir.string(),
                                   "--interval", "0.1", "--quiet"};
  argv.insert(argv.end(), options.begin(), options.end());
  argv.push_back("--");
  argv.insert(argv.end(), job.begin(), job.end());
  return argv;
}

std::vector<std::string> crasher_argv(std::string_view name, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {crasher(name).string()};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

Analysis analyze(const fs::path& path) {
  Analysis analysis;
  analysis.outcome = run(Launch{{ftdiag_binary().string(), "analyze", path.string(), "--format", "json"}});
  analysis.report = json::parse(analysis.outcome.out, nullptr, /*allow_exceptions=*/false);
  if (analysis.report.is_discarded()) analysis.report = nullptr;
  if (analysis.report.is_object() && analysis.report.contains("evidence")) {
    analysis.document = analysis.report["evidence"];
  } else {
    analysis.document = nullptr;
  }
  return analysis;
}

json& only_run(json& document) {
  REQUIRE_MESSAGE(document.is_object(), "analyze printed no evidence document");
  REQUIRE_MESSAGE(document.contains("hosts"), "an evidence document without hosts");
  REQUIRE_MESSAGE(document["hosts"].size() == 1, "expected one host, the document has ", document["hosts"].size());
  auto& runs = document["hosts"][0]["runs"];
  REQUIRE_MESSAGE(runs.size() == 1, "expected one run, the document has ", runs.size());
  return runs[0];
}

json all_runs(const json& document) {
  json runs = json::array();
  if (!document.is_object() || !document.contains("hosts")) return runs;
  for (const auto& host : document["hosts"]) {
    for (const auto& run : host["runs"]) runs.push_back(run);
  }
  return runs;
}

json* find_process(json& run, int pid) {
  for (auto& p : run.at("processes")) {
    if (p.at("pid").get<int>() == pid) return &p;
  }
  return nullptr;
}

int count_processes(const json& run, int pid) {
  int count = 0;
  for (const auto& p : run.at("processes")) count += p.at("pid").get<int>() == pid;
  return count;
}

bool has_witness(const json& death, std::string_view witness) {
  for (const auto& w : death.at("witnesses")) {
    if (w.get<std::string>() == witness) return true;
  }
  return false;
}

std::vector<fs::path> run_folders(const fs::path& job_dir) {
  std::vector<fs::path> folders;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(job_dir, ec)) {
    if (entry.is_directory(ec)) folders.push_back(entry.path());
  }
  std::sort(folders.begin(), folders.end());
  return folders;
}

std::string octal_mode(const fs::path& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) throw std::runtime_error("cannot stat " + path.string());
  char text[16];
  std::snprintf(text, sizeof text, "%o", static_cast<unsigned>(st.st_mode & 07777));
  return text;
}

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void write_text(const fs::path& file, std::string_view text) {
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
}

std::vector<json> read_journal(const fs::path& run_dir) {
  std::vector<json> records;
  std::istringstream in(read_text(run_dir / "journal.jsonl"));
  std::string line;
  while (std::getline(in, line)) {
    auto record = json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!record.is_discarded() && record.is_object()) records.push_back(std::move(record));
  }
  return records;
}

int pid_after(std::string_view text, std::string_view key) {
  auto at = text.find(key);
  if (at == std::string_view::npos) return -1;
  at += key.size();
  int pid = 0;
  bool any = false;
  while (at < text.size() && text[at] >= '0' && text[at] <= '9') {
    pid = pid * 10 + (text[at++] - '0');
    any = true;
  }
  return any ? pid : -1;
}

bool wait_until(const std::function<bool()>& condition, double seconds) {
  const auto deadline = deadline_in(seconds);
  while (!condition()) {
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

Fifo::Fifo(fs::path path) : path_(std::move(path)) {
  if (::mkfifo(path_.c_str(), 0600) != 0) throw std::runtime_error("mkfifo " + path_.string() + ": " + std::strerror(errno));
}

bool Fifo::write_line(std::string_view line, double seconds) const {
  int fd = -1;
  // O_NONBLOCK: opening fails with ENXIO until a reader has it open.
  bool opened = wait_until([&] {
    fd = ::open(path_.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    return fd >= 0;
  }, seconds);
  if (!opened) return false;
  std::string text(line);
  text.push_back('\n');
  bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  return ok;
}

std::optional<std::string> Fifo::read_line(double seconds) const {
  int fd = ::open(path_.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  const auto deadline = deadline_in(seconds);
  std::string line;
  while (Clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, std::max(1, ms_left(deadline))) <= 0) continue;
    char c;
    ssize_t n = ::read(fd, &c, 1);
    if (n == 1 && c == '\n') {
      ::close(fd);
      return line;
    }
    if (n == 1) line.push_back(c);
    if (n == 0) {
      // The writer closed without a newline; wait for another one.
      ::close(fd);
      fd = ::open(path_.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
      if (fd < 0) return std::nullopt;
    }
  }
  ::close(fd);
  return std::nullopt;
}

std::string host_name() {
  char name[HOST_NAME_MAX + 1] = {};
  ::gethostname(name, sizeof name - 1);
  return name;
}

double wall_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

bool pid_namespaces_available() {
  return run(Launch{{"/usr/bin/unshare", "--pid", "--fork", "--mount-proc", "/bin/true"}}, 10).exited_with(0);
}

std::string joined(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\n') {
      out += text[i];
      continue;
    }
    while (i + 1 < text.size() && text[i + 1] == ' ') ++i;
    if (i + 1 < text.size()) out += ' ';
  }
  return out;
}

}  // namespace ftdiag::itest
