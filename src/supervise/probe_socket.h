// The socket the Python probe sends its phase markers to: a unix datagram
// socket bound in the run folder, read by the event loop. Datagrams keep
// each marker whole, and a probe's send never blocks the job (a full buffer
// drops the marker, the job goes on).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "base/fact.h"
#include "base/unique_fd.h"

namespace ftdiag::supervise {

class ProbeSocket {
 public:
  static constexpr const char* kFileName = "probe.sock";
  static constexpr std::size_t kMaxDatagram = 4096;

  // Binds `run_dir`/probe.sock (mode 0600: only the job's user may send).
  static Fact<ProbeSocket> open(const std::filesystem::path& run_dir);

  int fd() const { return fd_.get(); }
  const std::filesystem::path& path() const { return path_; }

  // Every datagram waiting, at most `max` (the rest wait for the next call).
  std::vector<std::string> receive(std::size_t max = 256);

 private:
  ProbeSocket(UniqueFd fd, std::filesystem::path path) : fd_(std::move(fd)), path_(std::move(path)) {}
  UniqueFd fd_;
  std::filesystem::path path_;
};

}  // namespace ftdiag::supervise
