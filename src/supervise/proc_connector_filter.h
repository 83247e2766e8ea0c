// Keeping the process connector's traffic down to what ftdiag uses.
//
// The connector multicasts every fork, exec, exit (and uid, gid, sid, ptrace,
// comm, coredump change) of every task on the host to every listener
// (drivers/connector/cn_proc.c). ftdiag uses three of those types, and only
// for whole processes of its own tree: the supervisor ignores thread
// creations, the exits of non-leader threads, and every process outside the
// job. Filters drop the rest inside the kernel, in the sender's context,
// before anything is queued on ftdiag's socket:
//
// - the kernel's per-listener filter (Linux >= 6.6, cn_proc.c: cn_filter):
//   a LISTEN request carrying a `struct proc_input` whose event_type is a
//   mask of the wanted types. Older kernels only take the 4-byte operation
//   and ignore the 8-byte request without an ack;
// - a classic BPF socket filter (SO_ATTACH_FILTER, socket(7),
//   Documentation/networking/filter.rst) that keeps fork, exec, exit and acks
//   and drops thread creations and non-leader thread exits. Every kernel
//   runs it for netlink multicast (net/netlink/af_netlink.c:
//   do_one_broadcast -> sk_filter);
// - where ftdiag may load eBPF (CAP_BPF or CAP_SYS_ADMIN; bpf(2)), an eBPF
//   socket filter (SO_ATTACH_BPF) in place of the classic one, which also
//   drops every event of a process outside the job's tree: it keeps the
//   tree's live thread-group ids in a hash map, adds a child when its parent
//   is in it, and at an exit moves the process to a bounded map of recent
//   ends (as ProcessTracker remembers deaths). A fork is reported in
//   copy_process before the child is first woken (kernel/fork.c:
//   proc_fork_connector, then wake_up_new_task in kernel_clone), and
//   sk_filter runs before the receive-buffer check, so the child is in the
//   map before it can fork, exec or exit, even when the socket overflows.
//   Processes outside the tree then cost ftdiag nothing at all: reading a
//   datagram costs about 1.5 us of CPU on a small VM, and every process on
//   the host makes two or three.
#pragma once

#include <linux/bpf.h>
#include <linux/filter.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace ftdiag::supervise {

// enum proc_cn_event (include/uapi/linux/cn_proc.h), spelled out: the
// headers of Linux < 6.6 (Debian 12 ships 6.1) name them inside struct
// proc_event and lack PROC_EVENT_NONZERO_EXIT and PROC_EVENT_ALL.
namespace proc_event_type {
inline constexpr std::uint32_t none = 0x00000000;  // the ack of a LISTEN/IGNORE request
inline constexpr std::uint32_t fork = 0x00000001;
inline constexpr std::uint32_t exec = 0x00000002;
inline constexpr std::uint32_t uid = 0x00000004;
inline constexpr std::uint32_t gid = 0x00000040;
inline constexpr std::uint32_t sid = 0x00000080;
inline constexpr std::uint32_t ptrace = 0x00000100;
inline constexpr std::uint32_t comm = 0x00000200;
inline constexpr std::uint32_t nonzero_exit = 0x20000000;
inline constexpr std::uint32_t coredump = 0x40000000;
inline constexpr std::uint32_t exit = 0x80000000;
inline constexpr std::uint32_t all = fork | exec | uid | gid | sid | ptrace | comm | nonzero_exit | coredump | exit;
}  // namespace proc_event_type

// What the supervisor uses (sources/process_events.cpp): forks
// (a new process of the tree), execs (its command line changed) and exits
// (its wait status). Comm, uid/gid/sid, ptrace and coredump are not used.
inline constexpr std::uint32_t kWantedProcEvents =
    proc_event_type::fork | proc_event_type::exec | proc_event_type::exit;

// struct proc_input (include/uapi/linux/cn_proc.h, Linux >= 6.6): the
// payload of a LISTEN/IGNORE request that sets the per-listener filter.
// cn_proc_mcast_ctl tells it from the bare enum proc_cn_mcast_op by its
// length (8 bytes against 4).
struct ProcInput {
  std::uint32_t mcast_op;    // enum proc_cn_mcast_op: PROC_CN_MCAST_LISTEN or _IGNORE
  std::uint32_t event_type;  // a mask of proc_event_type values
};
static_assert(sizeof(ProcInput) == 8, "cn_proc_mcast_ctl recognises struct proc_input by its size");

// The classic BPF program: accepts acks, execs, forks of a new process
// (child pid == child tgid) and exits of a thread-group leader (pid ==
// tgid); drops everything else. Offsets assume the layout the kernel sends:
// nlmsghdr, cn_msg, proc_event (connector.c: cn_netlink_send_mult).
std::span<const sock_filter> proc_event_socket_filter();

// The eBPF program of the tree filter, over two maps (key: a thread-group
// id as BPF_LD_ABS loads it, see tree_filter_key; value: 4 bytes): `live`,
// the tree's processes (a hash), and `ended`, those whose exit was seen
// recently (an LRU hash). Accepts acks; forks of a new process whose parent
// is live or ended (adding the child to live); execs of a live or ended
// process (an ended one is live again); exits of a live thread-group leader
// (moving it to ended). Drops everything else.
std::vector<bpf_insn> proc_event_tree_filter(int live_fd, int ended_fd);
// The map key of a process: its pid as the program's word loads see it
// (big-endian reads of the host-order fields).
std::uint32_t tree_filter_key(int tgid);

// Which filters a connector has in effect.
struct ProcEventFilters {
  bool kernel = false;  // the per-listener event-type filter (Linux >= 6.6)
  bool socket = false;  // a socket filter: the classic one, or the tree filter
  bool tree = false;    // the socket filter is the eBPF tree filter
};

// One line for the run record and logs, e.g. "kernel event-type filter
// (fork, exec, exit) and socket filter (no thread events)".
std::string describe(ProcEventFilters filters);

}  // namespace ftdiag::supervise
