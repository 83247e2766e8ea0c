#include "supervise/probe_socket.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ftdiag::supervise {

Fact<ProbeSocket> ProbeSocket::open(const journal::RunDirectory& run) {
  const auto path = std::filesystem::absolute(run.path() / kFileName);
  if (path.string().size() >= sizeof(sockaddr_un::sun_path)) {
    return Missing{MissingReason::unsupported, "the run folder's path is too long for a unix socket (" +
                                                   std::to_string(path.string().size()) + " bytes, at most " +
                                                   std::to_string(sizeof(sockaddr_un::sun_path) - 1) +
                                                   "): " + path.string()};
  }
  UniqueFd dir_fd(::fcntl(run.fd(), F_DUPFD_CLOEXEC, 0));
  if (!dir_fd.valid()) return missing_from_errno(errno, "dup the run folder's descriptor");
  // bind(2) takes a path, not a folder descriptor: the folder's own entry in
  // /proc/self/fd names exactly the folder held open, whatever its path is now.
  const std::string bound = "/proc/self/fd/" + std::to_string(dir_fd.get()) + "/" + kFileName;
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::memcpy(address.sun_path, bound.c_str(), bound.size());
  UniqueFd fd(::socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return missing_from_errno(errno, "socket(AF_UNIX, SOCK_DGRAM)");
  // A socket's mode comes from the umask at bind(2) and cannot be set on the
  // descriptor: narrow the umask for the call (stricter is all another thread
  // could see meanwhile).
  const mode_t saved_umask = ::umask(0177);
  const int bound_ok = ::bind(fd.get(), reinterpret_cast<const sockaddr*>(&address), sizeof address);
  const int error = errno;
  ::umask(saved_umask);
  if (bound_ok != 0) return missing_from_errno(error, "bind " + path.string());
  return ProbeSocket(std::move(fd), std::move(dir_fd), path);
}

ProbeSocket::~ProbeSocket() {
  if (dir_fd_.valid()) ::unlinkat(dir_fd_.get(), kFileName, 0);
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
