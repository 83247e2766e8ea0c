#include "supervise/proc_connector_filter.h"

#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>

#include <array>
#include <bit>
#include <cstddef>

namespace ftdiag::supervise {
namespace {

// Where the proc_event starts in a datagram: the connector sends one
// nlmsghdr, one cn_msg, then the event (connector.c: cn_netlink_send_mult).
constexpr std::uint32_t kEvent = NLMSG_HDRLEN + sizeof(cn_msg);
constexpr std::uint32_t at(std::size_t offset_in_event) {
  return kEvent + static_cast<std::uint32_t>(offset_in_event);
}
constexpr std::uint32_t kWhat = at(offsetof(proc_event, what));
constexpr std::uint32_t kForkChildPid = at(offsetof(proc_event, event_data.fork.child_pid));
constexpr std::uint32_t kForkChildTgid = at(offsetof(proc_event, event_data.fork.child_tgid));
constexpr std::uint32_t kExitPid = at(offsetof(proc_event, event_data.exit.process_pid));
constexpr std::uint32_t kExitTgid = at(offsetof(proc_event, event_data.exit.process_tgid));

// BPF_LD|BPF_W|BPF_ABS reads a big-endian word (filter.rst; the kernel's
// bpf_skb_load_helper_32 applies be32_to_cpu), while cn_proc writes `what`
// in host order: compare with the value as such a load sees it. Comparing
// pid with tgid needs no care: both words are loaded the same way.
constexpr std::uint32_t as_loaded(std::uint32_t host) {
  if constexpr (std::endian::native == std::endian::big) return host;
  return ((host & 0xffu) << 24) | ((host & 0xff00u) << 8) | ((host >> 8) & 0xff00u) | (host >> 24);
}

// Instruction indices of the jump targets, so the offsets below are
// computed, not counted by hand.
constexpr std::uint8_t kForkAt = 6, kExitAt = 10, kAcceptAt = 14, kDropAt = 15;
constexpr std::uint8_t to(std::uint8_t target, std::uint8_t from) {
  return static_cast<std::uint8_t>(target - (from + 1));  // jumps count from the next instruction
}
constexpr std::uint32_t kKeepWholeDatagram = 0xffffffffu;  // a filter returns the bytes to keep

constexpr std::array<sock_filter, 16> kProgram = {{
    /*  0 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, kWhat),
    /*  1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, as_loaded(proc_event_type::fork), to(kForkAt, 1), 0),
    /*  2 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, as_loaded(proc_event_type::exit), to(kExitAt, 2), 0),
    /*  3 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, as_loaded(proc_event_type::exec), to(kAcceptAt, 3), 0),
    // The ack of our own LISTEN (cn_proc_ack); open() waits for it.
    /*  4 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, as_loaded(proc_event_type::none), to(kAcceptAt, 4), 0),
    // uid, gid, sid, ptrace, comm, coredump, and kinds added later.
    /*  5 */ BPF_STMT(BPF_RET | BPF_K, 0),
    // fork: a thread of an existing process when child pid != child tgid.
    /*  6 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, kForkChildPid),
    /*  7 */ BPF_STMT(BPF_MISC | BPF_TAX, 0),
    /*  8 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, kForkChildTgid),
    /*  9 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_X, 0, to(kAcceptAt, 9), to(kDropAt, 9)),
    // exit: cn_proc reports every thread's do_exit; only the leader's
    // (pid == tgid) ends the process as the supervisor sees it.
    /* 10 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, kExitPid),
    /* 11 */ BPF_STMT(BPF_MISC | BPF_TAX, 0),
    /* 12 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, kExitTgid),
    /* 13 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_X, 0, to(kAcceptAt, 13), to(kDropAt, 13)),
    /* 14 */ BPF_STMT(BPF_RET | BPF_K, kKeepWholeDatagram),
    /* 15 */ BPF_STMT(BPF_RET | BPF_K, 0),
}};
static_assert(kProgram[kForkAt].k == kForkChildPid && kProgram[kExitAt].k == kExitPid);
static_assert(kProgram[kAcceptAt].k == kKeepWholeDatagram && kProgram[kDropAt].code == (BPF_RET | BPF_K));

}  // namespace

std::span<const sock_filter> proc_event_socket_filter() { return kProgram; }

std::string describe(ProcEventFilters filters) {
  std::string text;
  if (filters.kernel) text = "kernel event-type filter (fork, exec, exit)";
  if (filters.socket) {
    if (!text.empty()) text += " and ";
    text += filters.kernel ? "socket filter (no thread events)"
                           : "socket filter (fork, exec, exit; no thread events)";
  }
  return text.empty() ? "none: every process event on the host is delivered" : text;
}

}  // namespace ftdiag::supervise
