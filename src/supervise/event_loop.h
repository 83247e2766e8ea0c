// The supervision's one epoll loop: each watched descriptor belongs to a
// live source (live_source.h), which is called when it is ready.
#pragma once

#include <unordered_map>

#include "base/fact.h"
#include "base/unique_fd.h"
#include "supervise/live_source.h"

namespace ftdiag::supervise {

class EventLoop {
 public:
  // Fails with the errno of epoll_create1.
  static Fact<EventLoop> create();

  // Calls source.on_ready(fd) whenever `fd` is readable. False with errno
  // set when epoll refuses it.
  bool watch(int fd, LiveSource& source);
  // Stops watching `fd` (before it is closed, or once it said all it will).
  void unwatch(int fd);

  // Waits at most `timeout_ms` (-1: until something is ready) and calls the
  // sources of the ready descriptors. False with errno set when the wait
  // itself failed (EINTR is not a failure).
  bool dispatch(int timeout_ms);

 private:
  explicit EventLoop(UniqueFd epoll) : epoll_(std::move(epoll)) {}

  UniqueFd epoll_;
  std::unordered_map<int, LiveSource*> sources_;
};

}  // namespace ftdiag::supervise
