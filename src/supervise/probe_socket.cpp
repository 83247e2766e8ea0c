#include "supervise/probe_socket.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ftdiag::supervise {

Fact<ProbeSocket> ProbeSocket::open(const std::filesystem::path& run_dir) {
  const auto path = std::filesystem::absolute(run_dir / kFileName);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.string().size() >= sizeof address.sun_path) {
    return Missing{MissingReason::unsupported, "the run folder's path is too long for a unix socket (" +
                                                   std::to_string(path.string().size()) + " bytes, at most " +
                                                   std::to_string(sizeof address.sun_path - 1) + "): " + path.string()};
  }
  std::memcpy(address.sun_path, path.c_str(), path.string().size());
  UniqueFd fd(::socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return missing_from_errno(errno, "socket(AF_UNIX, SOCK_DGRAM)");
  // The run folder is 0700 and fresh: only the job's user reaches the socket.
  if (::bind(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
    return missing_from_errno(errno, "bind " + path.string());
  }
  return ProbeSocket(std::move(fd), path);
}

std::vector<std::string> ProbeSocket::receive(std::size_t max) {
  std::vector<std::string> datagrams;
  char buffer[kMaxDatagram];
  while (datagrams.size() < max) {
    const ssize_t n = ::recv(fd_.get(), buffer, sizeof buffer, MSG_DONTWAIT | MSG_TRUNC);
    if (n < 0) break;  // EAGAIN: nothing more now
    // MSG_TRUNC gives the datagram's real length: a longer one is cut, and
    // its JSON then does not parse (refused, not misread).
    datagrams.emplace_back(buffer, static_cast<std::size_t>(std::min<ssize_t>(n, sizeof buffer)));
  }
  return datagrams;
}

}  // namespace ftdiag::supervise
