#include "supervise/proc_connector.h"

#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <optional>
#include <utility>

namespace ftdiag::supervise {
namespace {

// Large enough for a fork burst of thousands of tasks (each event is an skb of
// 832 bytes truesize on 6.18); the default (~200 KiB) overflows with a few
// hundred.
constexpr int kReceiveBufferBytes = 8 << 20;
// For pacing: what one queued event takes from the receive buffer
// (sk_rmem_alloc counts skb truesize; measured: 200 events, 166,400 bytes),
// and the storm a paced socket must absorb for one interval at half full
// (a fork loop on one core makes a few thousand events a second).
constexpr int kEventTruesize = 832;
constexpr int kStormEventsPerSecond = 50'000;

// The requested interval, shortened when the receive buffer is small
// (SO_RCVBUFFORCE refused and net.core.rmem_max at its 208 KiB default:
// about 5 ms), so that pacing does not overflow the socket.
std::chrono::milliseconds paced_interval(std::chrono::milliseconds requested, int fd) {
  int rcvbuf = 0;  // socket(7): the value the kernel uses, already doubled
  socklen_t length = sizeof rcvbuf;
  if (getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, &length) != 0 || rcvbuf <= 0) return requested;
  const auto events_at_half = static_cast<long long>(rcvbuf) / 2 / kEventTruesize;
  const auto affordable = std::chrono::milliseconds(events_at_half * 1000 / kStormEventsPerSecond);
  return std::min(requested, std::max(affordable, std::chrono::milliseconds(1)));
}

// How open() waits for the subscription ack. The kernel handles our
// request synchronously inside sendmsg (connector.c: cn_rx_skb ->
// cn_call_callback -> cn_proc_mcast_ctl -> cn_proc_ack), so the ack is
// normally queued before send returns; the wait only bounds odd kernels.
constexpr std::chrono::milliseconds kAckTimeout{500};
// The same for the filter request: a kernel before 6.6 drops it without an
// ack (cn_proc_mcast_ctl returns when msg->len != sizeof(enum
// proc_cn_mcast_op)), and every such kernel answers the plain request
// synchronously, so a short wait is enough to tell.
constexpr std::chrono::milliseconds kFilterAckTimeout{50};

// A proc connector datagram is one nlmsghdr + cn_msg + proc_event (76 bytes
// on 6.18; connector.c: cn_netlink_send_mult). A slot of 512 bytes leaves
// room for a grown proc_event; a longer datagram comes back with MSG_TRUNC
// and is reported as lost, so the caller rescans /proc.
constexpr std::size_t kSlotBytes = 512;
// Datagrams per recvmmsg(2): one call empties a paced socket's backlog.
constexpr unsigned kSlots = 64;

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

// One proc_event, bounds-checked against ev_len: the event, or nothing for
// acks (reported through on_ack) and for events too short to hold their
// fields.
template <class OnAck>
std::optional<ProcEvent> decode_event(const std::byte* ev, std::size_t ev_len, std::uint32_t cn_ack,
                                      OnAck&& on_ack) {
  auto has = [&](std::size_t offset, std::size_t size) { return offset + size <= ev_len; };
  auto pid_at = [&](std::size_t offset) { return load<std::int32_t>(ev + offset); };

  if (!has(FTDIAG_EV_OFF(event_data), 0)) return std::nullopt;  // what, cpu, timestamp_ns
  // Read `what` as an integer, not as the C enum, so unknown values are fine.
  const auto what = load<std::uint32_t>(ev + FTDIAG_EV_OFF(what));
  ProcEvent event;
  event.timestamp_ns = load<std::uint64_t>(ev + FTDIAG_EV_OFF(timestamp_ns));
  switch (what) {
    case proc_event_type::none:
      // The ack of a LISTEN/IGNORE request, broadcast to every listener.
      if (has(FTDIAG_EV_OFF(event_data.ack.err), sizeof(std::uint32_t))) {
        on_ack(Ack{cn_ack, load<std::uint32_t>(ev + FTDIAG_EV_OFF(event_data.ack.err))});
      }
      return std::nullopt;
    case proc_event_type::fork:
      if (!has(FTDIAG_EV_OFF(event_data.fork.child_tgid), kPid)) return std::nullopt;
      event.kind = ProcEvent::Kind::fork;
      event.parent_pid = pid_at(FTDIAG_EV_OFF(event_data.fork.parent_pid));
      event.parent_tgid = pid_at(FTDIAG_EV_OFF(event_data.fork.parent_tgid));
      event.pid = pid_at(FTDIAG_EV_OFF(event_data.fork.child_pid));
      event.tgid = pid_at(FTDIAG_EV_OFF(event_data.fork.child_tgid));
      return event;
    case proc_event_type::exec:
      if (!has(FTDIAG_EV_OFF(event_data.exec.process_tgid), kPid)) return std::nullopt;
      event.kind = ProcEvent::Kind::exec;
      event.pid = pid_at(FTDIAG_EV_OFF(event_data.exec.process_pid));
      event.tgid = pid_at(FTDIAG_EV_OFF(event_data.exec.process_tgid));
      return event;
    case proc_event_type::exit:
      if (!has(FTDIAG_EV_OFF(event_data.exit.exit_signal), sizeof(std::uint32_t))) return std::nullopt;
      event.kind = ProcEvent::Kind::exit;
      event.pid = pid_at(FTDIAG_EV_OFF(event_data.exit.process_pid));
      event.tgid = pid_at(FTDIAG_EV_OFF(event_data.exit.process_tgid));
      // task->exit_code is the wait status (e.g. 7 << 8, or SIGKILL | 0x80
      // with a core dump), task->exit_signal the signal for the parent.
      event.exit_status = load<std::int32_t>(ev + FTDIAG_EV_OFF(event_data.exit.exit_code));
      event.exit_signal = load<std::int32_t>(ev + FTDIAG_EV_OFF(event_data.exit.exit_signal));
      return event;
    case proc_event_type::uid:
    case proc_event_type::gid:
    case proc_event_type::sid:
    case proc_event_type::ptrace:
    case proc_event_type::comm:
    case proc_event_type::coredump:
      // All start with process_pid and process_tgid.
      event.kind = ProcEvent::Kind::other;
      if (has(FTDIAG_EV_OFF(event_data.id.process_tgid), kPid)) {
        event.pid = pid_at(FTDIAG_EV_OFF(event_data.id.process_pid));
        event.tgid = pid_at(FTDIAG_EV_OFF(event_data.id.process_tgid));
      }
      return event;
    default:
      // An unknown future kind is reported without a subject.
      event.kind = ProcEvent::Kind::other;
      return event;
  }
}
#undef FTDIAG_EV_OFF

// Walks the netlink messages of one datagram, in place.
template <class OnEvent, class OnAck>
void decode_into(std::span<const std::byte> datagram, OnEvent&& on_event, OnAck&& on_ack) {
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
    if (auto event = decode_event(payload + sizeof(cn_msg), cn.len, cn.ack, on_ack)) on_event(*event);
  }
}

void ignore_ack(const Ack&) {}

// Sends a LISTEN or IGNORE request: nlmsghdr + cn_msg + payload, where the
// payload is the 4-byte enum proc_cn_mcast_op every kernel understands or
// the 8-byte struct proc_input filter form of Linux >= 6.6
// (linux/cn_proc.h). cookie goes into cn_msg.ack; the kernel answers with
// cookie + 1 there. Returns 0 or an errno.
int send_request(int fd, std::uint32_t cookie, std::span<const std::byte> body) {
  alignas(nlmsghdr) std::byte message[NLMSG_SPACE(sizeof(cn_msg) + sizeof(ProcInput))] = {};
  nlmsghdr header{};
  header.nlmsg_len = NLMSG_LENGTH(sizeof(cn_msg) + body.size());
  header.nlmsg_type = NLMSG_DONE;
  header.nlmsg_pid = cookie;
  cn_msg cn{};
  cn.id.idx = CN_IDX_PROC;
  cn.id.val = CN_VAL_PROC;
  cn.ack = cookie;
  cn.len = static_cast<std::uint16_t>(body.size());
  std::memcpy(message, &header, sizeof header);
  std::memcpy(message + NLMSG_HDRLEN, &cn, sizeof cn);
  std::memcpy(message + NLMSG_HDRLEN + sizeof cn, body.data(), body.size());

  sockaddr_nl kernel{};  // nl_pid 0, nl_groups 0: unicast to the kernel
  kernel.nl_family = AF_NETLINK;
  for (;;) {
    const ssize_t sent = sendto(fd, message, header.nlmsg_len, 0,
                                reinterpret_cast<const sockaddr*>(&kernel), sizeof kernel);
    if (sent >= 0) return 0;
    if (errno != EINTR) return errno;
  }
}

int send_mcast_op(int fd, std::uint32_t cookie, proc_cn_mcast_op op) {
  const auto value = static_cast<std::uint32_t>(op);
  return send_request(fd, cookie, std::as_bytes(std::span(&value, 1)));
}

int send_filter(int fd, std::uint32_t cookie, ProcInput input) {
  return send_request(fd, cookie, std::as_bytes(std::span(&input, 1)));
}

}  // namespace

struct ProcConnector::ReceiveSlots {
  std::array<std::array<std::byte, kSlotBytes>, kSlots> data;
  std::array<sockaddr_nl, kSlots> senders;
  std::array<iovec, kSlots> iov;
  std::array<mmsghdr, kSlots> headers;

  // recvmmsg overwrites msg_namelen and msg_flags: reset them every call.
  void prepare() {
    for (unsigned i = 0; i < kSlots; ++i) {
      iov[i] = iovec{data[i].data(), kSlotBytes};
      headers[i] = mmsghdr{};
      headers[i].msg_hdr.msg_name = &senders[i];
      headers[i].msg_hdr.msg_namelen = sizeof(sockaddr_nl);
      headers[i].msg_hdr.msg_iov = &iov[i];
      headers[i].msg_hdr.msg_iovlen = 1;
    }
  }
};

void decode_proc_connector_datagram(std::span<const std::byte> datagram, const ProcEventHandler& handle) {
  decode_into(datagram, handle, ignore_ack);
}

std::vector<ProcEvent> decode_proc_connector_datagram(std::span<const std::byte> datagram) {
  std::vector<ProcEvent> events;
  decode_into(
      datagram, [&events](const ProcEvent& e) { events.push_back(e); }, ignore_ack);
  return events;
}

ProcConnector::ProcConnector(UniqueFd socket, std::chrono::milliseconds drain_interval)
    : socket_(std::move(socket)), slots_(std::make_unique<ReceiveSlots>()), drain_interval_(drain_interval) {}

Fact<ProcConnector> ProcConnector::open(const ProcConnectorOptions& options) {
  UniqueFd fd(socket(PF_NETLINK, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, NETLINK_CONNECTOR));
  if (!fd.valid()) {
    const int error = errno;
    // No CONFIG_CONNECTOR: the netlink protocol is not registered.
    if (error == EPROTONOSUPPORT || error == EAFNOSUPPORT) {
      return Missing{MissingReason::unsupported,
                     "netlink process connector: kernel has no NETLINK_CONNECTOR"};
    }
    return missing_from_errno(error, "socket(NETLINK_CONNECTOR)");
  }
  const int raw = fd.get();

  // SO_RCVBUFFORCE ignores net.core.rmem_max but needs CAP_NET_ADMIN; without
  // it SO_RCVBUF still raises the buffer up to rmem_max. Best effort either way.
  if (setsockopt(raw, SOL_SOCKET, SO_RCVBUFFORCE, &kReceiveBufferBytes, sizeof kReceiveBufferBytes) != 0) {
    (void)setsockopt(raw, SOL_SOCKET, SO_RCVBUF, &kReceiveBufferBytes, sizeof kReceiveBufferBytes);
  }
  const auto interval = options.drain_interval.count() > 0 ? paced_interval(options.drain_interval, raw)
                                                           : options.drain_interval;
  ProcConnector connector(std::move(fd), interval);  // every return from here closes the socket

  // Before bind: no unfiltered event is ever queued.
  connector.attach_socket_filter(options);

  // nl_pid 0: the kernel assigns a unique port id, so several ftdiag
  // instances can listen at once. nl_groups: join the CN_IDX_PROC multicast
  // group (a bitmask; group n is bit n-1, and CN_IDX_PROC is 1).
  sockaddr_nl local{};
  local.nl_family = AF_NETLINK;
  local.nl_groups = CN_IDX_PROC;
  if (bind(raw, reinterpret_cast<const sockaddr*>(&local), sizeof local) != 0) {
    // EPERM (permission_denied) without CAP_NET_ADMIN on kernels that require it.
    return missing_from_errno(errno, "bind netlink process connector to group CN_IDX_PROC");
  }
  socklen_t local_len = sizeof local;
  if (getsockname(raw, reinterpret_cast<sockaddr*>(&local), &local_len) != 0) {
    return missing_from_errno(errno, "getsockname on netlink process connector");
  }
  // The port id is unique per netlink protocol, so acks for other instances'
  // requests (acks are broadcast to the whole group) never match ours.
  connector.cookie_ = local.nl_pid;

  if (auto failed = connector.subscribe(options)) return *failed;
  if (auto failed = connector.make_ready_set()) return *failed;
  return connector;
}

void ProcConnector::attach_socket_filter(const ProcConnectorOptions& options) {
  if (!options.socket_filter) return;
  if (options.tree_root > 0) {
    tree_filter_ = attach_tree_filter(options.tree_root);
    if (tree_filter_) {
      socket_filter_ = true;
      return;
    }
  }
  const auto program = proc_event_socket_filter();
  const sock_fprog fprog{static_cast<unsigned short>(program.size()), const_cast<sock_filter*>(program.data())};
  if (setsockopt(socket_.get(), SOL_SOCKET, SO_ATTACH_FILTER, &fprog, sizeof fprog) == 0) {
    socket_filter_ = true;
  } else {
    // E.g. a kernel without CONFIG_NET's filter support: every event then
    // reaches the socket, and the supervisor's own checks sort them.
    socket_filter_ = missing_from_errno(errno, "setsockopt(SO_ATTACH_FILTER) on the process connector");
  }
}

namespace {

long bpf(int command, bpf_attr* attr) { return syscall(SYS_bpf, command, attr, sizeof *attr); }

// The tree's live thread-group ids. Allocated as processes join (no
// preallocation), bounded: past 64 Ki processes of the tree alive at once,
// the newest would not join, and their own events would be dropped (scans
// of /proc still find them); the default pid_max is 32 Ki.
constexpr std::uint32_t kTreeMapEntries = 1 << 16;
// Recently ended ones, as many as ProcessTracker remembers (an LRU map is
// preallocated: about 80 bytes of kernel memory each).
constexpr std::uint32_t kEndedMapEntries = 4096;

UniqueFd create_map(bpf_map_type type, std::uint32_t entries, std::uint32_t flags) {
  bpf_attr map{};
  map.map_type = type;
  map.key_size = sizeof(std::uint32_t);
  map.value_size = sizeof(std::uint32_t);
  map.max_entries = entries;
  map.map_flags = flags;
  return UniqueFd(static_cast<int>(bpf(BPF_MAP_CREATE, &map)));
}

// The verifier's last words, for the run record when a load fails.
std::string verifier_tail(const std::vector<bpf_insn>& program) {
  std::string log(16384, '\0');
  bpf_attr attr{};
  attr.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
  attr.insns = reinterpret_cast<std::uint64_t>(program.data());
  attr.insn_cnt = static_cast<std::uint32_t>(program.size());
  attr.license = reinterpret_cast<std::uint64_t>("GPL");
  attr.log_buf = reinterpret_cast<std::uint64_t>(log.data());
  attr.log_size = static_cast<std::uint32_t>(log.size());
  attr.log_level = 1;
  const long fd = bpf(BPF_PROG_LOAD, &attr);
  if (fd >= 0) ::close(static_cast<int>(fd));
  log.resize(std::strlen(log.c_str()));
  while (!log.empty() && log.back() == '\n') log.pop_back();
  return log.size() > 300 ? log.substr(log.size() - 300) : log;
}

}  // namespace

// Maps, program, the root in the live map, then SO_ATTACH_BPF. The socket
// holds the program and the program the maps, so the fds close on return.
Fact<bool> ProcConnector::attach_tree_filter(int root) {
  // EPERM without CAP_BPF (or CAP_SYS_ADMIN) while
  // kernel.unprivileged_bpf_disabled is set, the default almost everywhere.
  const UniqueFd live = create_map(BPF_MAP_TYPE_HASH, kTreeMapEntries, BPF_F_NO_PREALLOC);
  if (!live.valid()) return missing_from_errno(errno, "bpf(BPF_MAP_CREATE) for the process tree filter");
  const UniqueFd ended = create_map(BPF_MAP_TYPE_LRU_HASH, kEndedMapEntries, 0);
  if (!ended.valid()) return missing_from_errno(errno, "bpf(BPF_MAP_CREATE) for the process tree filter's ends");

  const auto program = proc_event_tree_filter(live.get(), ended.get());
  bpf_attr load{};
  load.prog_type = BPF_PROG_TYPE_SOCKET_FILTER;
  load.insns = reinterpret_cast<std::uint64_t>(program.data());
  load.insn_cnt = static_cast<std::uint32_t>(program.size());
  load.license = reinterpret_cast<std::uint64_t>("GPL");
  const UniqueFd prog_fd(static_cast<int>(bpf(BPF_PROG_LOAD, &load)));
  if (!prog_fd.valid()) {
    const int error = errno;
    Missing missing = missing_from_errno(error, "bpf(BPF_PROG_LOAD) of the process tree filter");
    if (error == EINVAL || error == EACCES) missing.detail += ": " + verifier_tail(program);
    return missing;
  }

  const std::uint32_t key = tree_filter_key(root);
  const std::uint32_t value = 1;
  bpf_attr update{};
  update.map_fd = static_cast<std::uint32_t>(live.get());
  update.key = reinterpret_cast<std::uint64_t>(&key);
  update.value = reinterpret_cast<std::uint64_t>(&value);
  update.flags = BPF_ANY;
  if (bpf(BPF_MAP_UPDATE_ELEM, &update) != 0) {
    return missing_from_errno(errno, "bpf(BPF_MAP_UPDATE_ELEM) of the tree's root");
  }
  const int attach = prog_fd.get();
  if (setsockopt(socket_.get(), SOL_SOCKET, SO_ATTACH_BPF, &attach, sizeof attach) != 0) {
    return missing_from_errno(errno, "setsockopt(SO_ATTACH_BPF) on the process connector");
  }
  return true;
}

std::optional<Missing> ProcConnector::subscribe(const ProcConnectorOptions& options) {
  if (options.kernel_filter) {
    bool answered = false;
    auto failed = subscribe_with_kernel_filter(&answered);
    if (answered) return failed;
  }
  return subscribe_plain();
}

// Linux >= 6.6 (cn_proc.c: cn_proc_mcast_ctl, cn_filter). The filter
// request is made twice on purpose: cn_filter drops PROC_EVENT_NONE for a
// listener whose mask lacks PROC_EVENT_ALL (the ack's `what` is 0, no bit of
// any mask), so a request for fork|exec|exit is never acknowledged to its
// sender. The first request asks for everything and is acknowledged (an old
// kernel ignores it: no ack, *answered stays false); the second, which the
// kernel handles synchronously inside sendmsg like the first, narrows the
// mask. The listener count is raised once: cn_proc_mcast_ctl counts a LISTEN
// only when the socket was not listening already.
std::optional<Missing> ProcConnector::subscribe_with_kernel_filter(bool* answered) {
  if (const int error = send_filter(socket_.get(), cookie_, {PROC_CN_MCAST_LISTEN, proc_event_type::all});
      error != 0) {
    kernel_filter_ = missing_from_errno(error, "send the per-listener filter request");
    return std::nullopt;
  }
  const auto ack = await_ack(kFilterAckTimeout);
  if (!ack) {
    kernel_filter_ = Missing{MissingReason::unsupported,
                             "the kernel ignored the per-listener filter request (Linux before 6.6 takes "
                             "only the 4-byte PROC_CN_MCAST_LISTEN)"};
    return std::nullopt;
  }
  *answered = true;
  if (*ack != 0) return missing_from_errno(*ack, "subscribe to process connector (kernel ack)");
  subscribed_ = true;
  if (const int error = send_filter(socket_.get(), cookie_, {PROC_CN_MCAST_LISTEN, kWantedProcEvents});
      error != 0) {
    // Still subscribed, to every event type: the socket filter and the
    // supervisor's checks do the sorting.
    kernel_filter_ = missing_from_errno(error, "narrow the per-listener filter to fork, exec, exit");
    return std::nullopt;
  }
  kernel_filter_ = true;
  return std::nullopt;
}

// The 4-byte PROC_CN_MCAST_LISTEN every kernel takes.
std::optional<Missing> ProcConnector::subscribe_plain() {
  if (const int error = send_mcast_op(socket_.get(), cookie_, PROC_CN_MCAST_LISTEN); error != 0) {
    return missing_from_errno(error, "subscribe to process connector (PROC_CN_MCAST_LISTEN)");
  }
  const auto ack = await_ack(kAckTimeout);
  if (!ack) {
    // cn_proc_mcast_ctl returns without an ack for requesters outside the
    // initial user/pid namespace (events are reported in those namespaces
    // only), and when CONFIG_PROC_EVENTS is off nobody handles CN_IDX_PROC.
    return Missing{MissingReason::unsupported,
                   "process connector did not acknowledge the subscription (kernel without "
                   "CONFIG_PROC_EVENTS, or ftdiag runs outside the initial user/pid namespace)"};
  }
  if (*ack != 0) {
    // E.g. EPERM where the kernel checks CAP_NET_ADMIN at subscription time.
    return missing_from_errno(*ack, "subscribe to process connector (kernel ack)");
  }
  subscribed_ = true;
  return std::nullopt;
}

// Waits for the ack of our own request; events that arrive meanwhile are
// kept for drain(). The kernel's errno, or nothing by the deadline.
std::optional<int> ProcConnector::await_ack(std::chrono::milliseconds budget) {
  const auto deadline = std::chrono::steady_clock::now() + budget;
  const ProcEventHandler keep = [this](const ProcEvent& e) {
    pending_.push_back(e);
    return true;
  };
  std::optional<int> ack_err;
  for (;;) {
    ReadCount count;
    if (!read_available(keep, &ack_err, &count)) pending_lost_ = true;
    if (ack_err) return ack_err;
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return std::nullopt;
    pollfd pfd{socket_.get(), POLLIN, 0};
    if (poll(&pfd, 1, static_cast<int>(left.count()) + 1) < 0 && errno != EINTR) return std::nullopt;
  }
}

// fd() is an epoll set over the socket and the pacing timer, so pace() can
// take the socket out of the caller's sight for an interval without the
// caller knowing (epoll(7): an epoll fd is itself pollable).
std::optional<Missing> ProcConnector::make_ready_set() {
  ready_ = UniqueFd(epoll_create1(EPOLL_CLOEXEC));
  if (!ready_.valid()) return missing_from_errno(errno, "epoll_create1 for the process connector");
  pace_timer_ = UniqueFd(timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC));
  if (!pace_timer_.valid()) return missing_from_errno(errno, "timerfd_create for the process connector");
  for (const int fd : {socket_.get(), pace_timer_.get()}) {
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.fd = fd;
    if (epoll_ctl(ready_.get(), EPOLL_CTL_ADD, fd, &event) != 0) {
      return missing_from_errno(errno, "epoll_ctl for the process connector");
    }
  }
  return std::nullopt;
}

bool ProcConnector::read_available(const ProcEventHandler& handle, std::optional<int>* ack_err,
                                   ReadCount* count) {
  if (!socket_.valid()) return false;
  bool complete = true;
  auto on_ack = [&](const Ack& ack) {
    // Acks go to every listener of the group; only cookie_ + 1 is ours.
    if (ack_err != nullptr && !ack_err->has_value() && ack.ack == cookie_ + 1) *ack_err = static_cast<int>(ack.err);
  };
  auto on_event = [&](const ProcEvent& event) {
    if (handle(event)) ++count->kept;
  };
  ReceiveSlots& slots = *slots_;
  for (;;) {
    slots.prepare();
    const int n = recvmmsg(socket_.get(), slots.headers.data(), kSlots, MSG_DONTWAIT, nullptr);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) break;
      // ENOBUFS: the kernel dropped datagrams because the receive queue was
      // full. It is reported once; the queued datagrams are still readable.
      complete = false;
      if (errno == ENOBUFS) continue;
      break;
    }
    for (int i = 0; i < n; ++i) {
      const msghdr& msg = slots.headers[i].msg_hdr;
      // Only the kernel (port 0) speaks for the connector; drop anything a
      // privileged process might multicast into the group.
      if (slots.senders[i].nl_pid != 0) continue;
      if ((msg.msg_flags & MSG_TRUNC) != 0) complete = false;
      const std::size_t length = std::min<std::size_t>(slots.headers[i].msg_len, kSlotBytes);
      decode_into(std::span<const std::byte>(slots.data[i].data(), length), on_event, on_ack);
    }
    count->datagrams += static_cast<std::size_t>(n);
    // recvmmsg(2) stops early only when the queue ran dry (or on an error,
    // which the next call reports): no need for a call that finds EAGAIN.
    if (n < static_cast<int>(kSlots)) break;
  }
  return complete;
}

bool ProcConnector::drain(const ProcEventHandler& handle) {
  if (!socket_.valid()) return false;
  bool complete = !std::exchange(pending_lost_, false);
  ReadCount count;
  for (const ProcEvent& event : std::exchange(pending_, {})) {
    if (handle(event)) ++count.kept;
  }
  if (muted_) {
    std::uint64_t expirations = 0;
    (void)!read(pace_timer_.get(), &expirations, sizeof expirations);  // EAGAIN when early: fine
  }
  if (!read_available(handle, nullptr, &count)) complete = false;
  pace(count);
  return complete;
}

bool ProcConnector::drain(std::vector<ProcEvent>& out) {
  return drain([&out](const ProcEvent& e) {
    out.push_back(e);
    return true;
  });
}

// At most one read per drain_interval_ while only rejected events keep
// coming: a read that found nothing but rejected events, soon after another
// such read, mutes the socket and starts the timer; each expiry reads the
// backlog. A read that finds nothing (the storm is over) or an event the
// caller kept (the job is busy: its events should not wait) unmutes. So an
// event after a quiet spell is read at once, and one of the job's events
// during a storm elsewhere waits at most one interval (the sampler's tick
// is 500 ms).
void ProcConnector::pace(ReadCount count) {
  if (drain_interval_.count() <= 0) return;
  if (count.datagrams == 0 || count.kept > 0) {
    if (muted_) unmute();
    return;
  }
  const auto now = std::chrono::steady_clock::now();
  const bool storm = now - last_rejected_read_ < drain_interval_;
  last_rejected_read_ = now;
  if (storm && !muted_) mute();
}

void ProcConnector::mute() {
  epoll_event event{};
  event.events = 0;  // still reports EPOLLERR: an overflow (ENOBUFS) is read at once
  event.data.fd = socket_.get();
  if (epoll_ctl(ready_.get(), EPOLL_CTL_MOD, socket_.get(), &event) != 0) return;
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(drain_interval_);
  itimerspec every{};
  every.it_value.tv_sec = seconds.count();
  every.it_value.tv_nsec = std::chrono::nanoseconds(drain_interval_ - seconds).count();
  every.it_interval = every.it_value;
  if (timerfd_settime(pace_timer_.get(), 0, &every, nullptr) != 0) {
    event.events = EPOLLIN;
    (void)epoll_ctl(ready_.get(), EPOLL_CTL_MOD, socket_.get(), &event);
    return;
  }
  muted_ = true;
}

void ProcConnector::unmute() {
  const itimerspec stop{};
  (void)timerfd_settime(pace_timer_.get(), 0, &stop, nullptr);
  epoll_event event{};
  event.events = EPOLLIN;
  event.data.fd = socket_.get();
  (void)epoll_ctl(ready_.get(), EPOLL_CTL_MOD, socket_.get(), &event);
  muted_ = false;
}

ProcConnector::ProcConnector(ProcConnector&& other) noexcept
    : socket_(std::move(other.socket_)),
      ready_(std::move(other.ready_)),
      pace_timer_(std::move(other.pace_timer_)),
      cookie_(other.cookie_),
      subscribed_(std::exchange(other.subscribed_, false)),
      kernel_filter_(std::move(other.kernel_filter_)),
      socket_filter_(std::move(other.socket_filter_)),
      tree_filter_(std::move(other.tree_filter_)),
      slots_(std::move(other.slots_)),
      drain_interval_(other.drain_interval_),
      muted_(std::exchange(other.muted_, false)),
      last_rejected_read_(other.last_rejected_read_),
      pending_(std::exchange(other.pending_, {})),
      pending_lost_(std::exchange(other.pending_lost_, false)) {}

ProcConnector& ProcConnector::operator=(ProcConnector&& other) noexcept {
  if (this != &other) {
    close_now();
    socket_ = std::move(other.socket_);
    ready_ = std::move(other.ready_);
    pace_timer_ = std::move(other.pace_timer_);
    cookie_ = other.cookie_;
    subscribed_ = std::exchange(other.subscribed_, false);
    kernel_filter_ = std::move(other.kernel_filter_);
    socket_filter_ = std::move(other.socket_filter_);
    tree_filter_ = std::move(other.tree_filter_);
    slots_ = std::move(other.slots_);
    drain_interval_ = other.drain_interval_;
    muted_ = std::exchange(other.muted_, false);
    last_rejected_read_ = other.last_rejected_read_;
    pending_ = std::exchange(other.pending_, {});
    pending_lost_ = std::exchange(other.pending_lost_, false);
  }
  return *this;
}

ProcConnector::~ProcConnector() { close_now(); }

void ProcConnector::close_now() {
  if (!socket_.valid()) return;
  // cn_proc.c counts listeners globally (proc_event_num_listeners) and, before
  // 6.6, does not decrement on close, so an unbalanced LISTEN keeps every fork
  // paying for event delivery; an unbalanced IGNORE would (before 6.6) drop
  // the count for other listeners and silence them, hence subscribed_. The
  // 4-byte IGNORE is understood by every kernel, filtered listener or not.
  if (subscribed_) (void)send_mcast_op(socket_.get(), cookie_, PROC_CN_MCAST_IGNORE);
  socket_.reset();
  ready_.reset();
  pace_timer_.reset();
  subscribed_ = false;
  muted_ = false;
  pending_.clear();
  pending_lost_ = false;
}

}  // namespace ftdiag::supervise
