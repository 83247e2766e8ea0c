#include "integration/kernel_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <regex>

namespace ftdiag::itest {

namespace {

// "6,1234,241674736,-;message" (the dictionary, " KEY=value" lines, follows).
std::optional<KernelRecord> parse_record(std::string_view raw) {
  auto semicolon = raw.find(';');
  if (semicolon == std::string_view::npos) return std::nullopt;
  auto first_comma = raw.find(',');
  if (first_comma == std::string_view::npos || first_comma > semicolon) return std::nullopt;
  KernelRecord record;
  record.sequence = std::strtoull(std::string(raw.substr(first_comma + 1)).c_str(), nullptr, 10);
  auto text = raw.substr(semicolon + 1);
  record.message = std::string(text.substr(0, text.find('\n')));
  record.raw = std::string(raw.substr(0, raw.find('\n')));
  return record;
}

// "pid=5165," or ",pid=5165" at the end of an oom-kill: record.
std::optional<std::string> field(const std::string& message, const std::string& key) {
  auto at = message.find("," + key + "=");
  if (at == std::string::npos) return std::nullopt;
  at += key.size() + 2;
  return message.substr(at, message.find(',', at) - at);
}

}  // namespace

std::variant<std::vector<KernelRecord>, std::string> read_kernel_log() {
  int fd = ::open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return std::string("open /dev/kmsg: ") + std::strerror(errno);
  std::vector<KernelRecord> records;
  char buffer[8192];  // one record per read; the kernel's records are shorter
  while (true) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n > 0) {
      if (auto record = parse_record(std::string_view(buffer, static_cast<std::size_t>(n)))) {
        records.push_back(std::move(*record));
      }
      continue;
    }
    if (n < 0 && errno == EPIPE) continue;  // records were overwritten while we read: go on
    if (n < 0 && errno == EINTR) continue;
    int error = errno;
    ::close(fd);
    if (n < 0 && error == EAGAIN) return records;
    return std::string("read /dev/kmsg: ") + std::strerror(error);
  }
}

std::vector<OomKill> find_oom_kills(const std::vector<KernelRecord>& records, const std::string& cgroup_name) {
  static const std::regex killed(R"(^Memory cgroup out of memory: Killed process (\d+) )");
  std::vector<OomKill> kills;
  for (const auto& record : records) {
    std::smatch m;
    if (record.message.starts_with("oom-kill:")) {
      auto memcg = field(record.message, "oom_memcg");
      auto pid = field(record.message, "pid");
      if (!memcg || !pid || !memcg->ends_with("/" + cgroup_name)) continue;
      kills.push_back(OomKill{std::atoi(pid->c_str()), *memcg, false});
    } else if (std::regex_search(record.message, m, killed) && !kills.empty() &&
               kills.back().pid == std::stoi(m[1])) {
      kills.back().killed_line = true;
    }
  }
  return kills;
}

}  // namespace ftdiag::itest
