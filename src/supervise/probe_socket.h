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
#include "journal/job_directory.h"

namespace ftdiag::supervise {

class ProbeSocket {
 public:
  static constexpr const char* kFileName = "probe.sock";
  static constexpr std::size_t kMaxDatagram = 4096;

  // Binds probe.sock in the run folder, by its open descriptor (a folder
  // swapped for a link since it was made redirects nothing), mode 0600
  // whatever the umask: only the job's user may send. The socket's name is
  // removed when the ProbeSocket is destroyed: it holds nothing afterwards.
  static Fact<ProbeSocket> open(const journal::RunDirectory& run);

  ProbeSocket(ProbeSocket&&) noexcept = default;
  ProbeSocket& operator=(ProbeSocket&&) noexcept = default;
  ~ProbeSocket();

  int fd() const { return fd_.get(); }
  // The path the probes send to (the run folder's path and the name).
  const std::filesystem::path& path() const { return path_; }

  // Every datagram waiting, at most `max` (the rest wait for the next call).
  std::vector<std::string> receive(std::size_t max = 256);

 private:
  ProbeSocket(UniqueFd fd, UniqueFd dir_fd, std::filesystem::path path)
      : fd_(std::move(fd)), dir_fd_(std::move(dir_fd)), path_(std::move(path)) {}
  UniqueFd fd_;
  UniqueFd dir_fd_;  // the run folder, to remove the name from
  std::filesystem::path path_;
};

}  // namespace ftdiag::supervise
