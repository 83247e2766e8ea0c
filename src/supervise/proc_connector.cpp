#include "supervise/proc_connector.h"

#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <iterator>
#include <optional>
#include <utility>

namespace ftdiag::supervise {
namespace {

// Large enough for a fork burst of thousands of tasks (each event is an skb of
// roughly 1 KiB truesize); the default (~200 KiB) overflows with a few hundred.
constexpr int kReceiveBufferBytes = 8 << 20;

// How long open() waits for the subscription ack. The kernel handles our
// request synchronously inside sendmsg (connector.c: cn_rx_skb ->
// cn_call_callback -> cn_proc_mcast_ctl -> cn_proc_ack), so the ack is
// normally queued before send returns; the wait only bounds odd kernels.
constexpr int kAckTimeoutMs = 500;

// A datagram carries one nlmsghdr + cn_msg + payload of at most
// CONNECTOR_MAX_MSG_SIZE (linux/connector.h); the proc connector sends one
// proc_event per datagram, so this never truncates a real message.
constexpr std::size_t kDatagramBytes = NLMSG_SPACE(sizeof(cn_msg) + CONNECTOR_MAX_MSG_SIZE);

// Unaligned, aliasing-safe read: datagram bytes carry no alignment guarantee
// for a decoder fed from a fuzzer or a test, and proc_event sits at offset
// NLMSG_HDRLEN + sizeof(cn_msg) = 36, which is not 8-aligned for timestamp_ns.
template <class T>
T load(const std::byte* p) {
  T value;
  std::memcpy(&value, p, sizeof value);
  return value;
}

struct Ack {
  std::uint32_t ack;  // cn_msg.ack: the request's ack + 1 (cn_proc.c: cn_proc_ack)
  std::uint32_t err;  // proc_event.event_data.ack.err: 0 or a positive errno
};

// Field offsets inside struct proc_event (linux/cn_proc.h). The kernel sends
// sizeof(struct proc_event) bytes, but older kernels had a shorter exit event
// (no parent_pid/parent_tgid), so each kind checks only the fields it reads.
#define FTDIAG_EV_OFF(member) offsetof(struct proc_event, member)
constexpr std::size_t kPid = sizeof(__kernel_pid_t);

void decode_into(std::span<const std::byte> datagram, std::vector<ProcEvent>& out,
                 std::vector<Ack>* acks) {
  const std::byte* cursor = datagram.data();
  std::size_t remaining = datagram.size();
  while (remaining >= sizeof(nlmsghdr)) {
    // The NLMSG_OK test (linux/netlink.h), on a copy of the header because the
    // buffer may be unaligned, and with unsigned lengths: the header fits, and
    // nlmsg_len covers at least the header and at most what is left.
    const auto header = load<nlmsghdr>(cursor);
    if (header.nlmsg_len < sizeof(nlmsghdr) || header.nlmsg_len > remaining) break;
    const std::byte* payload = cursor + NLMSG_HDRLEN;
    const std::size_t payload_len = header.nlmsg_len - NLMSG_HDRLEN;
    // NLMSG_NEXT without pointer arithmetic past the end (the last message's
    // alignment padding may be missing), and NLMSG_ALIGN done in size_t so a
    // huge nlmsg_len cannot wrap to a zero step.
    const std::size_t aligned =
        (std::size_t{header.nlmsg_len} + NLMSG_ALIGNTO - 1) & ~std::size_t{NLMSG_ALIGNTO - 1};
    const std::size_t step = std::min(aligned, remaining);
    cursor += step;
    remaining -= step;

    // Control messages carry no cn_msg (linux/netlink.h).
    if (header.nlmsg_type == NLMSG_NOOP || header.nlmsg_type == NLMSG_ERROR ||
        header.nlmsg_type == NLMSG_OVERRUN) {
      continue;
    }
    if (payload_len < sizeof(cn_msg)) continue;
    const auto cn = load<cn_msg>(payload);
    // Only the proc connector's messages (linux/connector.h); cn.len must fit.
    if (cn.id.idx != CN_IDX_PROC || cn.id.val != CN_VAL_PROC) continue;
    if (cn.len > payload_len - sizeof(cn_msg)) continue;
    const std::byte* ev = payload + sizeof(cn_msg);
    const std::size_t ev_len = cn.len;
    auto has = [&](std::size_t offset, std::size_t size) { return offset + size <= ev_len; };
    auto pid_at = [&](std::size_t offset) { return load<std::int32_t>(ev + offset); };

    if (!has(FTDIAG_EV_OFF(event_data), 0)) continue;  // what, cpu, timestamp_ns
    // Read `what` as an integer, not as the C enum, so unknown values are fine.
    const auto what = load<std::uint32_t>(ev + FTDIAG_EV_OFF(what));
    ProcEvent event;
    event.timestamp_ns = load<std::uint64_t>(ev + FTDIAG_EV_OFF(timestamp_ns));
    switch (what) {
      case proc_event::PROC_EVENT_NONE:
        // The ack of a LISTEN/IGNORE request, broadcast to every listener.
        if (acks != nullptr && has(FTDIAG_EV_OFF(event_data.ack.err), sizeof(std::uint32_t))) {
          acks->push_back({cn.ack, load<std::uint32_t>(ev + FTDIAG_EV_OFF(event_data.ack.err))});
        }
        continue;
      case proc_event::PROC_EVENT_FORK:
        if (!has(FTDIAG_EV_OFF(event_data.fork.child_tgid), kPid)) continue;
        event.kind = ProcEvent::Kind::fork;
        event.parent_pid = pid_at(FTDIAG_EV_OFF(event_data.fork.parent_pid));
        event.parent_tgid = pid_at(FTDIAG_EV_OFF(event_data.fork.parent_tgid));
        event.pid = pid_at(FTDIAG_EV_OFF(event_data.fork.child_pid));
        event.tgid = pid_at(FTDIAG_EV_OFF(event_data.fork.child_tgid));
        break;
      case proc_event::PROC_EVENT_EXEC:
        if (!has(FTDIAG_EV_OFF(event_data.exec.process_tgid), kPid)) continue;
        event.kind = ProcEvent::Kind::exec;
        event.pid = pid_at(FTDIAG_EV_OFF(event_data.exec.process_pid));
        event.tgid = pid_at(FTDIAG_EV_OFF(event_data.exec.process_tgid));
        break;
      case proc_event::PROC_EVENT_EXIT:
        if (!has(FTDIAG_EV_OFF(event_data.exit.exit_signal), sizeof(std::uint32_t))) continue;
        event.kind = ProcEvent::Kind::exit;
        event.pid = pid_at(FTDIAG_EV_OFF(event_data.exit.process_pid));
        event.tgid = pid_at(FTDIAG_EV_OFF(event_data.exit.process_tgid));
        // task->exit_code is the wait status (e.g. 7 << 8, or SIGKILL | 0x80
        // with a core dump), task->exit_signal the signal for the parent.
        event.exit_status = load<std::int32_t>(ev + FTDIAG_EV_OFF(event_data.exit.exit_code));
        event.exit_signal = load<std::int32_t>(ev + FTDIAG_EV_OFF(event_data.exit.exit_signal));
        break;
      default:
        // uid/gid/sid/ptrace/comm/coredump all start with process_pid and
        // process_tgid; an unknown future kind is reported without a subject.
        event.kind = ProcEvent::Kind::other;
        switch (what) {
          case proc_event::PROC_EVENT_UID:
          case proc_event::PROC_EVENT_GID:
          case proc_event::PROC_EVENT_SID:
          case proc_event::PROC_EVENT_PTRACE:
          case proc_event::PROC_EVENT_COMM:
          case proc_event::PROC_EVENT_COREDUMP:
            if (has(FTDIAG_EV_OFF(event_data.id.process_tgid), kPid)) {
              event.pid = pid_at(FTDIAG_EV_OFF(event_data.id.process_pid));
              event.tgid = pid_at(FTDIAG_EV_OFF(event_data.id.process_tgid));
            }
            break;
          default: break;
        }
        break;
    }
    out.push_back(event);
  }
}
#undef FTDIAG_EV_OFF

// Sends PROC_CN_MCAST_LISTEN or _IGNORE: nlmsghdr + cn_msg + enum
// proc_cn_mcast_op (linux/cn_proc.h). The 4-byte op form is understood by
// every kernel (the 8-byte struct proc_input filter form only by >= 6.6).
// cookie goes into cn_msg.ack; the kernel answers with cookie + 1 there.
int send_mcast_op(int fd, std::uint32_t cookie, proc_cn_mcast_op op) {
  alignas(nlmsghdr) std::byte message[NLMSG_SPACE(sizeof(cn_msg) + sizeof(op))] = {};
  nlmsghdr header{};
  header.nlmsg_len = NLMSG_LENGTH(sizeof(cn_msg) + sizeof(op));
  header.nlmsg_type = NLMSG_DONE;
  header.nlmsg_pid = cookie;
  cn_msg cn{};
  cn.id.idx = CN_IDX_PROC;
  cn.id.val = CN_VAL_PROC;
  cn.ack = cookie;
  cn.len = sizeof(op);
  std::memcpy(message, &header, sizeof header);
  std::memcpy(message + NLMSG_HDRLEN, &cn, sizeof cn);
  std::memcpy(message + NLMSG_HDRLEN + sizeof cn, &op, sizeof op);

  sockaddr_nl kernel{};  // nl_pid 0, nl_groups 0: unicast to the kernel
  kernel.nl_family = AF_NETLINK;
  for (;;) {
    const ssize_t sent = sendto(fd, message, header.nlmsg_len, 0,
                                reinterpret_cast<const sockaddr*>(&kernel), sizeof kernel);
    if (sent >= 0) return 0;
    if (errno != EINTR) return errno;
  }
}

}  // namespace

std::vector<ProcEvent> decode_proc_connector_datagram(std::span<const std::byte> datagram) {
  std::vector<ProcEvent> events;
  decode_into(datagram, events, nullptr);
  return events;
}

Fact<ProcConnector> ProcConnector::open() {
  const int fd = socket(PF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_CONNECTOR);
  if (fd < 0) {
    const int error = errno;
    // No CONFIG_CONNECTOR: the netlink protocol is not registered.
    if (error == EPROTONOSUPPORT || error == EAFNOSUPPORT) {
      return Missing{MissingReason::unsupported,
                     "netlink process connector: kernel has no NETLINK_CONNECTOR"};
    }
    return missing_from_errno(error, "socket(NETLINK_CONNECTOR)");
  }
  ProcConnector connector(fd, 0);  // owns fd from here: every return closes it

  // SO_RCVBUFFORCE ignores net.core.rmem_max but needs CAP_NET_ADMIN; without
  // it SO_RCVBUF still raises the buffer up to rmem_max. Best effort either way.
  if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &kReceiveBufferBytes, sizeof kReceiveBufferBytes) != 0) {
    (void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &kReceiveBufferBytes, sizeof kReceiveBufferBytes);
  }

  // nl_pid 0: the kernel assigns a unique port id, so several ftdiag
  // instances can listen at once. nl_groups: join the CN_IDX_PROC multicast
  // group (a bitmask; group n is bit n-1, and CN_IDX_PROC is 1).
  sockaddr_nl local{};
  local.nl_family = AF_NETLINK;
  local.nl_groups = CN_IDX_PROC;
  if (bind(fd, reinterpret_cast<const sockaddr*>(&local), sizeof local) != 0) {
    // EPERM (permission_denied) without CAP_NET_ADMIN on kernels that require it.
    return missing_from_errno(errno, "bind netlink process connector to group CN_IDX_PROC");
  }
  socklen_t local_len = sizeof local;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&local), &local_len) != 0) {
    return missing_from_errno(errno, "getsockname on netlink process connector");
  }
  // The port id is unique per netlink protocol, so acks for other instances'
  // requests (acks are broadcast to the whole group) never match ours.
  connector.cookie_ = local.nl_pid;

  if (const int error = send_mcast_op(fd, connector.cookie_, PROC_CN_MCAST_LISTEN); error != 0) {
    return missing_from_errno(error, "subscribe to process connector (PROC_CN_MCAST_LISTEN)");
  }

  // Wait for our ack. Events that arrive meanwhile are kept for drain().
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kAckTimeoutMs);
  std::optional<int> ack_err;
  for (;;) {
    if (!connector.read_available(connector.pending_, &ack_err)) connector.pending_lost_ = true;
    if (ack_err) break;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) break;
    pollfd pfd{fd, POLLIN, 0};
    if (poll(&pfd, 1, static_cast<int>(left.count()) + 1) < 0 && errno != EINTR) {
      return missing_from_errno(errno, "poll netlink process connector");
    }
  }
  if (!ack_err) {
    // cn_proc_mcast_ctl returns without an ack for requesters outside the
    // initial user/pid namespace (events are reported in those namespaces
    // only), and when CONFIG_PROC_EVENTS is off nobody handles CN_IDX_PROC.
    return Missing{MissingReason::unsupported,
                   "process connector did not acknowledge the subscription (kernel without "
                   "CONFIG_PROC_EVENTS, or ftdiag runs outside the initial user/pid namespace)"};
  }
  if (*ack_err != 0) {
    // E.g. EPERM where the kernel checks CAP_NET_ADMIN at subscription time.
    return missing_from_errno(*ack_err, "subscribe to process connector (kernel ack)");
  }
  connector.subscribed_ = true;
  return connector;
}

bool ProcConnector::read_available(std::vector<ProcEvent>& out, std::optional<int>* ack_err) {
  if (fd_ < 0) return false;
  bool complete = true;
  std::vector<Ack> acks;
  alignas(nlmsghdr) std::byte buffer[kDatagramBytes];
  for (;;) {
    sockaddr_nl sender{};
    iovec iov{buffer, sizeof buffer};
    msghdr msg{};
    msg.msg_name = &sender;
    msg.msg_namelen = sizeof sender;
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    const ssize_t n = recvmsg(fd_, &msg, MSG_DONTWAIT);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) break;
      // ENOBUFS: the kernel dropped datagrams because the receive queue was
      // full. It is reported once; the queued datagrams are still readable.
      complete = false;
      if (errno == ENOBUFS) continue;
      break;
    }
    // Only the kernel (port 0) speaks for the connector; drop anything a
    // privileged process might multicast into the group.
    if (sender.nl_pid != 0) continue;
    if ((msg.msg_flags & MSG_TRUNC) != 0) complete = false;
    acks.clear();
    decode_into(std::span<const std::byte>(buffer, static_cast<std::size_t>(n)), out,
                ack_err != nullptr ? &acks : nullptr);
    for (const Ack& ack : acks) {
      // Acks go to every listener of the group; only cookie_ + 1 is ours.
      if (ack_err != nullptr && !ack_err->has_value() && ack.ack == cookie_ + 1) {
        *ack_err = static_cast<int>(ack.err);
      }
    }
  }
  return complete;
}

bool ProcConnector::drain(std::vector<ProcEvent>& out) {
  if (fd_ < 0) return false;
  bool complete = !std::exchange(pending_lost_, false);
  out.insert(out.end(), std::make_move_iterator(pending_.begin()),
             std::make_move_iterator(pending_.end()));
  pending_.clear();
  if (!read_available(out, nullptr)) complete = false;
  return complete;
}

ProcConnector::ProcConnector(ProcConnector&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      cookie_(other.cookie_),
      subscribed_(std::exchange(other.subscribed_, false)),
      pending_(std::move(other.pending_)),
      pending_lost_(std::exchange(other.pending_lost_, false)) {}

ProcConnector& ProcConnector::operator=(ProcConnector&& other) noexcept {
  if (this != &other) {
    close_now();
    fd_ = std::exchange(other.fd_, -1);
    cookie_ = other.cookie_;
    subscribed_ = std::exchange(other.subscribed_, false);
    pending_ = std::move(other.pending_);
    pending_lost_ = std::exchange(other.pending_lost_, false);
  }
  return *this;
}

ProcConnector::~ProcConnector() { close_now(); }

void ProcConnector::close_now() {
  if (fd_ < 0) return;
  // cn_proc.c counts listeners globally (proc_event_num_listeners) and does
  // not decrement on close, so an unbalanced LISTEN keeps every fork paying
  // for event delivery; an unbalanced IGNORE would (before 6.6) drop the count
  // for other listeners and silence them, hence subscribed_.
  if (subscribed_) (void)send_mcast_op(fd_, cookie_, PROC_CN_MCAST_IGNORE);
  ::close(fd_);
  fd_ = -1;
  subscribed_ = false;
  pending_.clear();
  pending_lost_ = false;
}

}  // namespace ftdiag::supervise
