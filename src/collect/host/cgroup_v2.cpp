#include "collect/host/cgroup_v2.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "collect/host/cgroup_read.h"
#include "parse/procfs/cgroup_files.h"

namespace ftdiag::collect {
namespace {

// Both files are optional features; an ENOENT there means "this kernel or
// configuration lacks it", which deserves a remedy-bearing detail.
Fact<std::uint64_t> explain_absent(Fact<std::uint64_t> value, const char* why) {
  if (value || value.missing().reason != MissingReason::not_present) return value;
  return Missing{MissingReason::not_present, value.missing().detail + " (" + why + ")"};
}

constexpr std::size_t kMaxPeakBytes = 64;

}  // namespace

void CgroupV2Memory::reset_peak(const Fact<bool>&) {
  const auto file = directory() / "memory.peak";
  UniqueFd fd(::open(file.c_str(), O_RDWR | O_CLOEXEC));
  if (!fd.valid()) {
    // EACCES: the file is read-only (mode 0444) before Linux 6.12.
    const int error = errno;
    peak_reset_ = error == EACCES || error == EPERM || error == EROFS
                      ? Missing{MissingReason::unsupported, "memory.peak cannot be reset here (needs Linux 6.12+); "
                                                            "the peak is the highest sampled usage"}
                      : missing_from_errno(error, "open " + file.string() + " to reset it");
    return;
  }
  if (::write(fd.get(), "0\n", 2) != 2) {
    peak_reset_ = Missing{MissingReason::unsupported,
                          "memory.peak refused a reset (needs Linux 6.12+); the peak is the highest sampled usage"};
    return;
  }
  peak_fd_ = std::move(fd);
  peak_reset_ = true;
}

// Through the reset file when there is one: only it sees the reset peak.
Fact<std::uint64_t> CgroupV2Memory::read_peak() const {
  if (!peak_fd_.valid()) {
    return explain_absent(read_cgroup_u64(directory(), "memory.peak"), "memory.peak needs Linux 5.19+");
  }
  char text[kMaxPeakBytes];
  const ssize_t n = ::pread(peak_fd_.get(), text, sizeof text, 0);
  if (n < 0) return missing_from_errno(errno, "read " + (directory() / "memory.peak").string());
  auto parsed = parse::parse_u64(std::string_view(text, static_cast<std::size_t>(n)));
  if (!parsed) return Missing{parsed.missing().reason, (directory() / "memory.peak").string() + ": " + parsed.missing().detail};
  return parsed;
}

CgroupMemoryReading CgroupV2Memory::read() const {
  CgroupMemoryReading r;
  r.version = 2;
  r.path = cgroup_path();
  r.usage = read_cgroup_u64(directory(), "memory.current");
  r.limit = read_cgroup_limit(directory(), "memory.max");
  r.peak = read_peak();
  r.peak_reset = peak_reset_;
  r.swap = explain_absent(read_cgroup_u64(directory(), "memory.swap.current"),
                                "no swap controller: CONFIG_MEMCG_SWAP off or swapaccount=0");

  // memory.events is hierarchical (includes descendants), which is what a job
  // that forks workers into child cgroups needs.
  auto events = read_cgroup_keyed(directory(), "memory.events");
  auto absent = [](const char* key, const char* why) {
    return Missing{MissingReason::unsupported,
                   std::string("memory.events has no ") + key + " line (" + why + ")"};
  };
  r.oom_events = pick(events, {"oom"}, absent("oom", "unexpected on any 4.5+ kernel"));
  r.oom_kill = pick(events, {"oom_kill"}, absent("oom_kill", "needs Linux 4.13+"));
  r.max_events = pick(events, {"max"}, absent("max", "unexpected on any 4.5+ kernel"));
  r.oom_group_kill = pick(events, {"oom_group_kill"}, absent("oom_group_kill", "needs Linux 5.17+"));
  if (auto group = read_cgroup_u64(directory(), "memory.oom.group")) {
    r.oom_group = group.value() != 0;
  } else {
    r.oom_group = group.missing();
  }

  auto stat = read_cgroup_keyed(directory(), "memory.stat");
  auto no_key = [](const char* key) {
    return Missing{MissingReason::not_present, std::string("memory.stat has no ") + key};
  };
  r.anon = pick(stat, {"anon"}, no_key("anon"));
  r.file = pick(stat, {"file"}, no_key("file"));
  r.shmem = pick(stat, {"shmem"}, no_key("shmem"));
  r.under_oom = Missing{MissingReason::unsupported, "cgroup v2 has no under_oom state"};
  return r;
}

}  // namespace ftdiag::collect
