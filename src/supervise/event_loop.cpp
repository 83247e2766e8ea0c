#include "supervise/event_loop.h"

#include <sys/epoll.h>

#include <cerrno>

namespace ftdiag::supervise {

Fact<EventLoop> EventLoop::create() {
  UniqueFd epoll(::epoll_create1(EPOLL_CLOEXEC));
  if (!epoll.valid()) return missing_from_errno(errno, "epoll_create1");
  return EventLoop(std::move(epoll));
}

bool EventLoop::watch(int fd, LiveSource& source) {
  epoll_event event{};
  event.events = EPOLLIN;
  event.data.fd = fd;
  if (::epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, fd, &event) != 0) return false;
  sources_[fd] = &source;
  return true;
}

void EventLoop::unwatch(int fd) {
  if (sources_.erase(fd) != 0) ::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, fd, nullptr);
}

bool EventLoop::dispatch(int timeout_ms) {
  epoll_event events[16];
  const int count = ::epoll_wait(epoll_.get(), events, 16, timeout_ms);
  if (count < 0) return errno == EINTR;
  for (int i = 0; i < count; ++i) {
    // A source called earlier in this batch may have let go of this one.
    auto found = sources_.find(events[i].data.fd);
    if (found != sources_.end()) found->second->on_ready(found->first);
  }
  return true;
}

}  // namespace ftdiag::supervise
