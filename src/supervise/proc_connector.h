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
//
// Most of what the kernel reports is not the job's: every process on the
// host forks, maybe execs, and exits. The connector keeps that cheap three
// ways (docs/performance.md, "Processes that are not the job's"):
// - filters in the kernel drop the event types and thread events ftdiag does
//   not use before they reach the socket, and where eBPF is allowed, every
//   event of a process outside the tree too (proc_connector_filter.h);
// - drain() decodes in place and hands each event to the caller, who rejects
//   those of processes outside the tree before any other work;
// - while only rejected events keep coming, the socket is drained at most
//   every drain_interval, so a fork storm elsewhere on the host costs one
//   wakeup per interval instead of one per event; a read that finds an
//   event the caller kept ends the pacing at once.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/fact.h"
#include "base/unique_fd.h"
#include "supervise/proc_connector_filter.h"

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

// Receives each event in the order the kernel sent them, and says whether
// it concerned the caller: true when it was kept, false when rejected (a
// process outside the job's tree). drain() paces its reads while only
// rejected events arrive; the decoder ignores the answer.
using ProcEventHandler = std::function<bool(const ProcEvent&)>;

// Decodes one datagram as received from the connector socket. Pure and
// bounds-checked: malformed, truncated or foreign messages (wrong cn_msg id,
// NLMSG_NOOP/ERROR/OVERRUN, short payloads) are skipped, never read past.
// Subscription acks (PROC_EVENT_NONE) are not events and are dropped.
// Every exec/exit is reported per thread (pid != tgid for non-leaders).
// The handler form decodes in place: nothing is allocated.
void decode_proc_connector_datagram(std::span<const std::byte> datagram, const ProcEventHandler& handle);
std::vector<ProcEvent> decode_proc_connector_datagram(std::span<const std::byte> datagram);

// How open() subscribes. The defaults are what `ftdiag run` uses; tests and
// benchmarks turn pieces off to exercise the fallbacks.
struct ProcConnectorOptions {
  // Ask for the kernel's per-listener event-type filter first (Linux >= 6.6);
  // false subscribes the way older kernels require.
  bool kernel_filter = true;
  // Attach a socket filter: the eBPF tree filter when tree_root is set and
  // bpf(2) allows it, else the classic BPF one (event types, no thread events).
  bool socket_filter = true;
  // The root of the tree to keep (ftdiag's own pid): its descendants' events
  // only, filtered in the kernel. 0: no tree filter.
  int tree_root = 0;
  // While only events the caller rejects keep coming, drain the socket at
  // most this often (the receive buffer holds thousands of events). An
  // event after a quiet spell is read at once, and so is everything after a
  // read that found an event the caller kept. Zero: read on every wakeup.
  // Shortened when the receive buffer could not be raised (see open()).
  // 20 ms: a wakeup costs ftdiag about 25 us, a read 2 to 3 us per event
  // (2 cores, Linux 6.18), so 5 ms leaves a host's fork loop costing about
  // 11 us per process, 20 ms about 6 us, 50 ms about 5.5 us.
  std::chrono::milliseconds drain_interval{20};
};

class ProcConnector {
 public:
  // socket + filters + bind + subscribe, then waits (at most 500 ms; normally
  // the ack is already queued when send returns) for the kernel's ack of the
  // subscription. Missing: permission_denied without CAP_NET_ADMIN where the
  // kernel requires it, unsupported when the kernel lacks the connector or
  // does not acknowledge (no CONFIG_PROC_EVENTS, non-initial user/pid ns).
  static Fact<ProcConnector> open(const ProcConnectorOptions& options = {});

  ProcConnector(ProcConnector&& other) noexcept;
  ProcConnector& operator=(ProcConnector&& other) noexcept;
  ProcConnector(const ProcConnector&) = delete;
  ProcConnector& operator=(const ProcConnector&) = delete;
  ~ProcConnector();  // unsubscribes and closes

  // For epoll or poll (POLLIN): readable when drain() has something to do.
  // It is an epoll set of its own over the socket and a pacing timer, not
  // the socket itself; -1 on a moved-from object.
  int fd() const { return ready_.get(); }

  // Reads every datagram available now without blocking and hands each
  // decoded event to `handle`, in order, as it is decoded. Returns false when
  // events were lost (ENOBUFS: the socket overflowed, or a datagram was
  // truncated) so the caller knows to fall back to scanning /proc for that
  // window. Also false on a moved-from object. `handle` must not call drain().
  bool drain(const ProcEventHandler& handle);
  // The same, appending to out; every event counts as kept.
  bool drain(std::vector<ProcEvent>& out);

  // Which filters are in effect, for the run record: each true, or missing
  // with the reason (the kernel is older than 6.6, SO_ATTACH_FILTER failed,
  // bpf(2) refused without CAP_BPF). socket_filter is true for either kind.
  const Fact<bool>& kernel_filter() const { return kernel_filter_; }
  const Fact<bool>& socket_filter() const { return socket_filter_; }
  const Fact<bool>& tree_filter() const { return tree_filter_; }
  ProcEventFilters filters() const {
    auto on = [](const Fact<bool>& f) { return f.has_value() && f.value(); };
    return {on(kernel_filter_), on(socket_filter_), on(tree_filter_)};
  }
  std::string filter_description() const { return describe(filters()); }
  // The pacing interval in effect (options.drain_interval, maybe shortened).
  std::chrono::milliseconds drain_interval() const { return drain_interval_; }

 private:
  struct ReceiveSlots;  // recvmmsg buffers, allocated once
  ProcConnector(UniqueFd socket, std::chrono::milliseconds drain_interval);
  void close_now();
  void attach_socket_filter(const ProcConnectorOptions& options);
  Fact<bool> attach_tree_filter(int root);
  std::optional<Missing> subscribe(const ProcConnectorOptions& options);
  std::optional<Missing> subscribe_with_kernel_filter(bool* answered);
  std::optional<Missing> subscribe_plain();
  std::optional<int> await_ack(std::chrono::milliseconds budget);
  std::optional<Missing> make_ready_set();
  // What one read found.
  struct ReadCount {
    std::size_t datagrams = 0;
    std::size_t kept = 0;  // events the handler kept
  };
  // Reads until the socket is empty, handing events on; false when events
  // were lost. With ack_err, also records the kernel's answer to our own
  // request.
  bool read_available(const ProcEventHandler& handle, std::optional<int>* ack_err, ReadCount* count);
  void pace(ReadCount count);
  void mute();
  void unmute();

  UniqueFd socket_;
  UniqueFd ready_;        // epoll set: the socket (unless muted) and pace_timer_
  UniqueFd pace_timer_;   // timerfd, armed while muted
  std::uint32_t cookie_ = 0;  // our netlink port id; the kernel's ack carries cookie_ + 1
  bool subscribed_ = false;   // only a confirmed LISTEN is balanced by IGNORE
  Fact<bool> kernel_filter_ = Missing{MissingReason::unsupported, "not requested"};
  Fact<bool> socket_filter_ = Missing{MissingReason::unsupported, "not requested"};
  Fact<bool> tree_filter_ = Missing{MissingReason::unsupported, "not requested"};
  std::unique_ptr<ReceiveSlots> slots_;
  std::chrono::milliseconds drain_interval_{0};
  bool muted_ = false;  // the socket is out of ready_ until pace_timer_ fires
  std::chrono::steady_clock::time_point last_rejected_read_{};  // the last read that found only rejected events
  std::vector<ProcEvent> pending_;  // events that arrived while open() awaited the ack
  bool pending_lost_ = false;
};

}  // namespace ftdiag::supervise
