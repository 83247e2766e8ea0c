#include "supervise/last_gasp.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "base/read_file.h"
#include "base/unique_fd.h"
#include "collect/host/proc_statm.h"

namespace ftdiag::supervise {


namespace {

constexpr double kRiseToAskAgain = 0.02;
constexpr double kSecondsToAskAgain = 30;
constexpr double kStacksSettleSeconds = 0.05;  // a dump that stopped growing this long is whole
constexpr double kStacksGiveUpSeconds = 3;
constexpr std::size_t kMaxStacksBytes = 256 * 1024;
constexpr std::size_t kMaxSmapsBytes = 8 * 1024;

// The probes' files are read through the run folder's open descriptor, never
// through a link (the job can swap its run folder or plant links in it).
std::uintmax_t size_of(int dir_fd, const std::string& name) {
  struct stat st {};
  if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) return 0;
  return static_cast<std::uintmax_t>(st.st_size);
}

std::string stacks_file(int pid) { return fmt::format("python-stacks.{}.txt", pid); }

std::string read_from(int dir_fd, const std::string& name, std::uintmax_t offset, std::size_t max) {
  UniqueFd fd(::openat(dir_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!fd.valid()) return {};
  std::string text(max, '\0');
  const ssize_t n = ::pread(fd.get(), text.data(), max, static_cast<off_t>(offset));
  text.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  return text;
}

// Whether bit `signal` is set in SigCgt (a hex mask, bit N-1 for signal N).
bool catches(const std::string& status, int signal) {
  const auto at = status.find("\nSigCgt:");
  if (at == std::string::npos) return false;
  auto start = status.find_first_not_of(" \t", at + 8);
  auto end = status.find('\n', start);
  if (start == std::string::npos) return false;
  const std::string_view mask(status.data() + start, (end == std::string::npos ? status.size() : end) - start);
  // 16 hex digits: the low 64 signals, enough for SIGRTMIN+N.
  std::uint64_t bits = 0;
  if (std::from_chars(mask.data(), mask.data() + mask.size(), bits, 16).ec != std::errc{}) return false;
  return signal >= 1 && signal <= 64 && ((bits >> (signal - 1)) & 1U) != 0;
}

}  // namespace

std::optional<MemoryPressure> memory_pressure(const evidence::MemorySample& sample) {
  std::optional<MemoryPressure> highest;
  auto consider = [&](double ratio, std::string reason) {
    if (!highest || ratio > highest->ratio) highest = MemoryPressure{ratio, std::move(reason)};
  };
  if (sample.cgroup && sample.cgroup->usage && sample.cgroup->limit && sample.cgroup->limit.value() &&
      *sample.cgroup->limit.value() > 0) {
    const double ratio = static_cast<double>(sample.cgroup->usage.value()) / static_cast<double>(*sample.cgroup->limit.value());
    consider(ratio, fmt::format("the memory cgroup at {:.0f}% of its limit", ratio * 100));
  }
  if (sample.node.mem_total && sample.node.mem_available && sample.node.mem_total.value() > 0) {
    const double total = static_cast<double>(sample.node.mem_total.value());
    const double ratio = 1.0 - static_cast<double>(sample.node.mem_available.value()) / total;
    consider(ratio, fmt::format("the node's RAM {:.0f}% used", ratio * 100));
  }
  return highest;
}

double LastGasp::interval(double configured) const {
  return last_pressure_ >= kNearThreshold || !pending_.empty() ? std::min(configured, kFastInterval) : configured;
}

std::optional<int> stack_signal_of(int run_dir_fd, const collect::SystemRoots& roots, int pid) {
  auto probe = read_small_file_at(run_dir_fd, fmt::format("python-probe.{}.txt", pid), 64 * 1024);
  if (!probe) return std::nullopt;
  // The last block's: an exec'd Python appends a new "probe 1" block.
  const auto& text = probe.value();
  const auto block = text.rfind("probe 1\n");
  const auto at = text.find("stack-signal ", block == std::string::npos ? 0 : block);
  if (at == std::string::npos) return std::nullopt;
  int signal = 0;
  const char* start = text.data() + at + 13;
  if (std::from_chars(start, text.data() + text.size(), signal).ec != std::errc{}) return std::nullopt;
  auto status = read_small_file(roots.path(fmt::format("/proc/{}/status", pid)), 64 * 1024);
  if (!status || !catches("\n" + status.value(), signal)) return std::nullopt;
  return signal;
}

bool LastGasp::ask_for_stacks(int pid, double now) {
  const auto signal = stack_signal_of(run_dir_fd_, roots_, pid);
  if (!signal) return false;
  const auto offset = size_of(run_dir_fd_, stacks_file(pid));
  if (::kill(pid, *signal) != 0) return false;
  pending_.push_back(Pending{pid, offset, offset, now});
  return true;
}

std::optional<evidence::LastGasp> LastGasp::consider(const evidence::MemorySample& sample, const std::vector<int>& live_pids,
                                                     double now) {
  const auto pressure = memory_pressure(sample);
  last_pressure_ = pressure ? pressure->ratio : 0;
  if (!pressure || pressure->ratio < kThreshold || gasps_ >= kMaxGasps) return std::nullopt;
  const bool again = !last_gasp_at_ || pressure->ratio >= last_gasp_pressure_ + kRiseToAskAgain ||
                     now - *last_gasp_at_ >= kSecondsToAskAgain;
  if (!again) return std::nullopt;
  last_gasp_at_ = now;
  last_gasp_pressure_ = pressure->ratio;
  ++gasps_;

  evidence::LastGasp gasp;
  gasp.time = now;
  gasp.reason = pressure->reason;
  gasp.pressure = pressure->ratio;
  std::vector<evidence::ProcessMemory> sizes;
  for (int pid : live_pids) {
    auto statm = collect::read_proc_statm(roots_, pid);
    if (!statm) continue;
    evidence::ProcessMemory memory;
    memory.pid = pid;
    memory.rss = statm->resident;
    sizes.push_back(std::move(memory));
  }
  std::sort(sizes.begin(), sizes.end(),
            [](const evidence::ProcessMemory& a, const evidence::ProcessMemory& b) { return a.rss.value() > b.rss.value(); });
  if (sizes.size() > kLargest) sizes.resize(kLargest);
  if (!sizes.empty()) {
    if (auto rollup = read_small_file(roots_.path(fmt::format("/proc/{}/smaps_rollup", sizes.front().pid)), kMaxSmapsBytes)) {
      gasp.smaps_rollup = std::move(rollup).value();
    }
  }
  for (const auto& process : sizes) {
    const bool already = std::any_of(pending_.begin(), pending_.end(), [&](const Pending& p) { return p.pid == process.pid; });
    if (!already && ask_for_stacks(process.pid, now)) gasp.asked.push_back(process.pid);
  }
  gasp.largest = std::move(sizes);
  return gasp;
}

std::vector<evidence::PythonStacksTaken> LastGasp::collect_stacks(double now, bool final) {
  std::vector<evidence::PythonStacksTaken> taken;
  std::erase_if(pending_, [&](Pending& pending) {
    const auto file = stacks_file(pending.pid);
    const auto size = size_of(run_dir_fd_, file);
    const bool grew = size > pending.offset;
    const bool settled = grew && size == pending.seen_size && now - pending.asked_at >= kStacksSettleSeconds;
    pending.seen_size = size;
    if (grew && (settled || final)) {
      auto text = read_from(run_dir_fd_, file, pending.offset, kMaxStacksBytes);
      if (!text.empty()) taken.push_back(evidence::PythonStacksTaken{now, pending.pid, std::move(text)});
      return true;
    }
    return final || now - pending.asked_at >= kStacksGiveUpSeconds;
  });
  return taken;
}

}  // namespace ftdiag::supervise
