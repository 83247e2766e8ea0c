#include "supervise/signal_trace.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <exception>
#include <optional>

#include <fmt/format.h>

#include "base/read_file.h"
#include "base/unique_fd.h"
#include "parse/kernel/trace_pipe_lines.h"
#include "supervise/trace_instance_cleaner.h"

namespace ftdiag::supervise {

namespace {

constexpr std::string_view kInstancePrefix = "ftdiag-";
constexpr std::string_view kEventDir = "/events/signal/signal_generate";
constexpr std::size_t kReadChunkBytes = 64 * 1024;
constexpr std::size_t kMaxBytesPerRead = 1024 * 1024;
// The inode of the initial pid namespace (include/linux/proc_ns.h:
// PROC_PID_INIT_INO), stable since namespaces got inodes (Linux 3.8).
constexpr ino_t kInitialPidNamespaceInode = 0xEFFFFFFCU;

bool in_initial_pid_namespace() {
  struct stat ns {};
  return ::stat("/proc/self/ns/pid", &ns) == 0 && ns.st_ino == kInitialPidNamespaceInode;
}

// saved_cmdlines at its largest (saved_cmdlines_size 32768, about 24 bytes a line).
constexpr std::size_t kMaxSavedCmdlinesBytes = 4 * 1024 * 1024;

// Options that change how trace_pipe prints a record, set per instance (a new
// instance copies the top level's, which another tracer may have changed).
// record-cmd and record-tgid are left alone: they act on the whole host.
constexpr const char* kLayoutOptions[] = {"nolatency-format", "context-info", "noraw", "nohex", "nobin"};

Missing trace_cannot(int error, std::string_view what) {
  if (error == EACCES || error == EPERM) {
    return {MissingReason::permission_denied,
            fmt::format("needs root (CAP_SYS_ADMIN) to create a tracefs instance ({}: {})", what, std::strerror(error))};
  }
  return {MissingReason::failed, fmt::format("{}: {}", what, std::strerror(error))};
}

std::string filter_for(const std::vector<int>& signals) {
  std::string filter;
  for (int signal : signals) filter += fmt::format("{}sig == {}", filter.empty() ? "" : " || ", signal);
  return filter;
}

// mkdir of an instance; one that exists under our name was left by an
// earlier process with our pid (or is in use in another pid namespace, and
// refuses rmdir with EBUSY).
int make_instance_dir(const std::string& path) {
  if (::mkdir(path.c_str(), 0700) == 0) return 0;
  if (errno != EEXIST) return errno;
  if (::rmdir(path.c_str()) != 0) return EEXIST;
  return ::mkdir(path.c_str(), 0700) == 0 ? 0 : errno;
}

}  // namespace

struct SignalTrace::Instance {
  std::string path;
  std::string root;  // the tracefs mount the instance lives in
  TraceInstanceUndo undo;
  std::optional<TraceInstanceCleaner> cleaner;
  UniqueFd pipe;
  parse::TracePipeLines lines;
  std::string chunk = std::string(kReadChunkBytes, '\0');
  bool monotonic = false;
  bool global_pids_are_ours = false;
  std::uint64_t lost = 0;
  std::uint64_t unparsed = 0;

  Instance(std::string instance_path, std::string tracefs_root, const TraceInstanceUndo& instance_undo)
      : path(std::move(instance_path)), root(std::move(tracefs_root)), undo(instance_undo) {}
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;
  ~Instance() {
    pipe.reset();  // rmdir refuses an instance whose files are open
    undo_trace_instance(undo, 0);
    if (cleaner) cleaner->dismiss();
  }

  int write(std::string_view file, std::string_view text) const { return write_tracefs_file(path + "/" + std::string(file), text); }

  std::optional<Missing> configure(const SignalTraceOptions& options);
  void take_line(std::string_view line, std::vector<parse::SignalGenerated>& records);
};

std::optional<Missing> SignalTrace::Instance::configure(const SignalTraceOptions& options) {
  // Best effort, each: a kernel without one still traces.
  write("buffer_size_kb", std::to_string(options.buffer_kb_per_cpu));
  for (const char* option : kLayoutOptions) write("trace_options", option);
  // Wake a poller at the first record whatever the kernel's default
  // watermark (buffer_percent, 4.19+; 0: any data).
  write("buffer_percent", "0");
  monotonic = write("trace_clock", "mono") == 0;
  global_pids_are_ours = in_initial_pid_namespace();

  const std::string event = std::string(kEventDir).substr(1);
  if (!options.signals.empty()) {
    if (int error = write(event + "/filter", filter_for(options.signals))) return trace_cannot(error, "set the event's filter");
  }
  if (int error = write(event + "/enable", "1")) return trace_cannot(error, "enable signal:signal_generate");
  pipe.reset(::open((path + "/trace_pipe").c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (!pipe.valid()) return trace_cannot(errno, "open the instance's trace_pipe");
  return std::nullopt;
}

void SignalTrace::Instance::take_line(std::string_view line, std::vector<parse::SignalGenerated>& records) {
  if (line.empty()) return;
  if (auto record = parse::parse_signal_generate(line)) {
    records.push_back(std::move(*record));
  } else if (auto dropped = parse::parse_lost_events(line)) {
    lost += *dropped;
  } else {
    ++unparsed;
  }
}

namespace {

std::optional<Missing> check_tracepoint(const TracefsRoot& root) {
  if (::access((root.path + std::string(kEventDir)).c_str(), F_OK) == 0) return std::nullopt;
  if (errno == ENOENT) {
    return Missing{MissingReason::unsupported,
                   "the kernel has no signal:signal_generate tracepoint (built without CONFIG_TRACEPOINTS or event tracing)"};
  }
  return trace_cannot(errno, "look up signal:signal_generate");
}

struct InstancePlace {
  std::string path;
  TraceInstanceUndo undo;
};

// The instance directory, made, with what undoes it.
Fact<InstancePlace> make_instance(const SignalTraceOptions& options, const TracefsRoot& root) {
  if (auto missing = check_tracepoint(root)) return *missing;
  const std::string instances = root.path + "/instances";
  remove_stale_instances(instances, kInstancePrefix);
  const std::string name =
      options.instance_name.empty() ? fmt::format("{}{}", kInstancePrefix, ::getpid()) : options.instance_name;
  const std::string path = instances + "/" + name;
  auto undo = make_trace_instance_undo(path + std::string(kEventDir) + "/enable", path,
                                       root.mounted_here ? root.path : std::string{});
  if (!undo) return Missing{MissingReason::failed, "the tracefs path is too long: " + path};
  if (int error = make_instance_dir(path)) return trace_cannot(error, "mkdir " + path);
  return InstancePlace{path, *undo};
}

}  // namespace

Fact<SignalTrace> SignalTrace::open(const SignalTraceOptions& options) {
  try {
    auto root = find_or_mount_tracefs(options.tracefs);
    if (!root) return root.missing();
    auto place = make_instance(options, *root);
    if (!place) {
      unmount_tracefs(*root);
      return place.missing();
    }
    auto instance = std::make_unique<Instance>(place->path, root->path, place->undo);  // from here on, ~Instance undoes it
    if (options.cleaner) instance->cleaner = TraceInstanceCleaner::start(instance->undo);
    if (auto failure = instance->configure(options)) return *failure;
    return SignalTrace(std::move(instance));
  } catch (const std::exception& error) {
    return Missing{MissingReason::failed, fmt::format("could not set up the signal trace: {}", error.what())};
  }
}

SignalTrace::SignalTrace(std::unique_ptr<Instance> instance) : instance_(std::move(instance)) {}
SignalTrace::SignalTrace(SignalTrace&&) noexcept = default;
SignalTrace& SignalTrace::operator=(SignalTrace&&) noexcept = default;
SignalTrace::~SignalTrace() = default;

int SignalTrace::fd() const { return instance_ ? instance_->pipe.get() : -1; }

std::vector<parse::SignalGenerated> SignalTrace::read_available() {
  std::vector<parse::SignalGenerated> records;
  if (!instance_) return records;
  try {
    auto& chunk = instance_->chunk;
    for (std::size_t total = 0; total < kMaxBytesPerRead;) {
      const ssize_t n = ::read(instance_->pipe.get(), chunk.data(), chunk.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;  // EAGAIN: nothing more now
      total += static_cast<std::size_t>(n);
      instance_->lines.feed(std::string_view(chunk.data(), static_cast<std::size_t>(n)),
                            [&](std::string_view line) { instance_->take_line(line, records); });
    }
  } catch (const std::bad_alloc&) {
    // Out of memory: what was read is returned; the rest waits in the kernel.
  }
  return records;
}

bool SignalTrace::timestamps_monotonic() const { return instance_ && instance_->monotonic; }
bool SignalTrace::pids_are_ours() const { return instance_ && instance_->global_pids_are_ours; }
std::uint64_t SignalTrace::lost_records() const { return instance_ ? instance_->lost : 0; }
std::uint64_t SignalTrace::unparsed_lines() const { return instance_ ? instance_->unparsed : 0; }
pid_t SignalTrace::cleaner_pid() const { return instance_ && instance_->cleaner ? instance_->cleaner->pid() : -1; }

std::string SignalTrace::saved_comm(int pid) const {
  if (!instance_) return {};
  // The cache is the top level's: instances share it.
  auto saved = read_small_file(instance_->root + "/saved_cmdlines", kMaxSavedCmdlinesBytes);
  if (!saved) return {};
  return parse::find_saved_comm(*saved, pid).value_or(std::string{});
}

const std::string& SignalTrace::instance_path() const {
  static const std::string none;
  return instance_ ? instance_->path : none;
}

}  // namespace ftdiag::supervise
