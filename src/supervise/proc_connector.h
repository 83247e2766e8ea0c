// Linux process-events connector (NETLINK_CONNECTOR, CN_IDX_PROC).
//
// The kernel multicasts one datagram per fork/exec/exit of every task on the
// machine (drivers/connector/cn_proc.c). Supervising a fine-tuning job tree
// needs the exits of grandchildren we did not spawn and cannot wait() for
// (dataloader workers, compile workers); their raw wait status is in the exit
// event, so this is how ftdiag learns how every process of the tree ended.
//
// Needs CAP_NET_ADMIN on kernels before about 6.6 (newer ones let any user
// join CN_IDX_PROC), and the initial user and pid namespaces everywhere (the
// kernel silently ignores subscribers elsewhere). Events can be lost when the
// socket overflows; drain() says so, and the caller then falls back to
// scanning /proc for that window.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "base/fact.h"

namespace ftdiag::supervise {

struct ProcEvent {
  enum class Kind { fork, exec, exit, other };
  Kind kind = Kind::other;
  std::uint64_t timestamp_ns = 0;       // kernel's monotonic timestamp from the event
  int pid = 0, tgid = 0;                // subject (for fork: the child)
  int parent_pid = 0, parent_tgid = 0;  // fork only
  int exit_status = 0;  // exit only: the raw wait status (task->exit_code), decode with WIFSIGNALED etc.
  int exit_signal = 0;  // exit only: signal sent to the parent (usually SIGCHLD; -1 for a non-leader thread)

  bool operator==(const ProcEvent&) const = default;
};

// Decodes one datagram as received from the connector socket. Pure and
// bounds-checked: malformed, truncated or foreign messages (wrong cn_msg id,
// NLMSG_NOOP/ERROR/OVERRUN, short payloads) are skipped, never read past.
// Subscription acks (PROC_EVENT_NONE) are not events and are dropped.
// Every exec/exit is reported per thread (pid != tgid for non-leaders).
std::vector<ProcEvent> decode_proc_connector_datagram(std::span<const std::byte> datagram);

class ProcConnector {
 public:
  // socket + bind + subscribe, then waits (at most 500 ms; normally the ack
  // is already queued when send returns) for the kernel's ack of the
  // subscription. Missing: permission_denied without CAP_NET_ADMIN where the
  // kernel requires it, unsupported when the kernel lacks the connector or
  // does not acknowledge (no CONFIG_PROC_EVENTS, non-initial user/pid ns).
  static Fact<ProcConnector> open();

  ProcConnector(ProcConnector&& other) noexcept;
  ProcConnector& operator=(ProcConnector&& other) noexcept;
  ProcConnector(const ProcConnector&) = delete;
  ProcConnector& operator=(const ProcConnector&) = delete;
  ~ProcConnector();  // unsubscribes and closes

  int fd() const { return fd_; }  // non-blocking, for epoll (EPOLLIN)

  // Reads every datagram available now without blocking; appends decoded
  // events. Returns false when events were lost (ENOBUFS: the socket
  // overflowed, or a datagram was truncated) so the caller knows to fall back
  // to scanning /proc for that window. Also false on a moved-from object.
  bool drain(std::vector<ProcEvent>& out);

 private:
  ProcConnector(int fd, std::uint32_t cookie) : fd_(fd), cookie_(cookie) {}
  void close_now();
  // Reads until EAGAIN, appending events to out; false when events were lost.
  // With ack_err, also records the kernel's answer to our own request.
  bool read_available(std::vector<ProcEvent>& out, std::optional<int>* ack_err);

  int fd_ = -1;
  std::uint32_t cookie_ = 0;  // our netlink port id; the kernel's ack carries cookie_ + 1
  bool subscribed_ = false;   // only a confirmed LISTEN is balanced by IGNORE
  std::vector<ProcEvent> pending_;  // events that arrived while open() awaited the ack
  bool pending_lost_ = false;
};

}  // namespace ftdiag::supervise
