#include "supervise/proc_connector_filter.h"

#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>

#include <array>
#include <bit>
#include <cstddef>
#include <optional>
#include <utility>

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
constexpr std::uint32_t kForkParentTgid = at(offsetof(proc_event, event_data.fork.parent_tgid));
constexpr std::uint32_t kExecTgid = at(offsetof(proc_event, event_data.exec.process_tgid));

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

// ---- the eBPF tree filter (Documentation/bpf/standard/instruction-set.rst)

// A tiny assembler: jumps name their target, offsets are filled in at the end.
class Ebpf {
 public:
  enum Label { kAccept, kDrop, kFork, kAddChild, kExec, kExit, kLabels };
  enum Reg : std::uint8_t { r0 = 0, r1, r2, r3, r4, r5, r6, r7, r8, r9, r10 };

  void mark(Label label) { at_[label] = insns_.size(); }
  void op(std::uint8_t code, Reg dst, Reg src, std::int16_t off, std::int32_t imm) {
    bpf_insn insn{};
    insn.code = code;
    insn.dst_reg = dst;
    insn.src_reg = src;
    insn.off = off;
    insn.imm = imm;
    insns_.push_back(insn);
  }
  void mov(Reg dst, Reg src) { op(BPF_ALU64 | BPF_MOV | BPF_X, dst, src, 0, 0); }
  void add(Reg dst, std::int32_t imm) { op(BPF_ALU64 | BPF_ADD | BPF_K, dst, r0, 0, imm); }
  void mov32(Reg dst, std::int32_t imm) { op(BPF_ALU | BPF_MOV | BPF_K, dst, r0, 0, imm); }
  // r0 = the big-endian word at `offset` of the datagram (legacy LD_ABS,
  // allowed in socket filters; uses r6 as the skb and ends the program,
  // returning 0, when the datagram is too short).
  void load_word(std::uint32_t offset) { op(BPF_LD | BPF_W | BPF_ABS, r0, r0, 0, static_cast<std::int32_t>(offset)); }
  void store_key(Reg src) { op(BPF_STX | BPF_MEM | BPF_W, r10, src, kKeyAt, 0); }
  // helper(map, &key[, &value, BPF_ANY]) with the key in its stack slot;
  // r0 is the result, r1..r5 are clobbered, r6..r10 and the stack kept.
  void call(std::int32_t helper, int map_fd) {
    op(BPF_LD | BPF_DW | BPF_IMM, r1, static_cast<Reg>(BPF_PSEUDO_MAP_FD), 0, map_fd);
    op(0, r0, r0, 0, 0);  // second half of the 64-bit immediate
    mov(r2, r10);
    add(r2, kKeyAt);
    if (helper == BPF_FUNC_map_update_elem) {
      op(BPF_ST | BPF_MEM | BPF_W, r10, r0, kValueAt, 1);
      mov(r3, r10);
      add(r3, kValueAt);
      op(BPF_ALU64 | BPF_MOV | BPF_K, r4, r0, 0, BPF_ANY);
    }
    op(BPF_JMP | BPF_CALL, r0, r0, 0, helper);
  }
  // 32-bit compare of r0 with an immediate: no sign extension to mind.
  void jump_if_r0_is(std::uint32_t value, Label target) {
    jump(BPF_JMP32 | BPF_JEQ | BPF_K, r0, r0, static_cast<std::int32_t>(value), target);
  }
  void jump_if_r0_is_not(Reg other, Label target) { jump(BPF_JMP | BPF_JNE | BPF_X, r0, other, 0, target); }
  void jump_if_r0_null(Label target) { jump(BPF_JMP | BPF_JEQ | BPF_K, r0, r0, 0, target); }
  void jump_if_r0_found(Label target) { jump(BPF_JMP | BPF_JNE | BPF_K, r0, r0, 0, target); }
  void go(Label target) { jump(BPF_JMP | BPF_JA, r0, r0, 0, target); }
  void ret(std::int32_t value) {
    mov32(r0, value);
    op(BPF_JMP | BPF_EXIT, r0, r0, 0, 0);
  }

  std::vector<bpf_insn> finish() && {
    for (const auto& [index, label] : jumps_) {
      insns_[index].off = static_cast<std::int16_t>(static_cast<std::ptrdiff_t>(at_[label].value()) -
                                                    static_cast<std::ptrdiff_t>(index + 1));
    }
    return std::move(insns_);
  }

 private:
  static constexpr std::int16_t kKeyAt = -4, kValueAt = -8;  // stack slots below r10
  void jump(std::uint8_t code, Reg dst, Reg src, std::int32_t imm, Label target) {
    jumps_.emplace_back(insns_.size(), target);
    op(code, dst, src, 0, imm);
  }

  std::vector<bpf_insn> insns_;
  std::vector<std::pair<std::size_t, Label>> jumps_;
  std::array<std::optional<std::size_t>, kLabels> at_;
};

}  // namespace

std::span<const sock_filter> proc_event_socket_filter() { return kProgram; }

std::uint32_t tree_filter_key(int tgid) { return as_loaded(static_cast<std::uint32_t>(tgid)); }

std::vector<bpf_insn> proc_event_tree_filter(int live_fd, int ended_fd) {
  using E = Ebpf;
  E p;
  p.mov(E::r6, E::r1);  // LD_ABS wants the skb in r6; r6..r9 survive helper calls
  p.load_word(kWhat);
  p.jump_if_r0_is(as_loaded(proc_event_type::none), E::kAccept);  // our ack
  p.jump_if_r0_is(as_loaded(proc_event_type::fork), E::kFork);
  p.jump_if_r0_is(as_loaded(proc_event_type::exec), E::kExec);
  p.jump_if_r0_is(as_loaded(proc_event_type::exit), E::kExit);
  p.go(E::kDrop);

  // fork: a new process (child pid == child tgid) joins the tree when its
  // parent is in it, or ended recently (ProcessTracker::on_fork: "a parent
  // we saw die was still ours").
  p.mark(E::kFork);
  p.load_word(kForkChildPid);
  p.mov(E::r7, E::r0);
  p.load_word(kForkChildTgid);
  p.jump_if_r0_is_not(E::r7, E::kDrop);
  p.load_word(kForkParentTgid);
  p.store_key(E::r0);
  p.call(BPF_FUNC_map_lookup_elem, live_fd);
  p.jump_if_r0_found(E::kAddChild);
  p.call(BPF_FUNC_map_lookup_elem, ended_fd);
  p.jump_if_r0_null(E::kDrop);
  p.mark(E::kAddChild);
  p.store_key(E::r7);
  p.call(BPF_FUNC_map_update_elem, live_fd);  // a full map: the fork still goes up
  p.go(E::kAccept);

  // exec: of a process in the tree. One that ended recently comes back:
  // when a non-leader thread execs, de_thread() makes the old leader exit
  // first (an exit event with pid == tgid), and the process lives on.
  p.mark(E::kExec);
  p.load_word(kExecTgid);
  p.store_key(E::r0);
  p.call(BPF_FUNC_map_lookup_elem, live_fd);
  p.jump_if_r0_found(E::kAccept);
  p.call(BPF_FUNC_map_lookup_elem, ended_fd);
  p.jump_if_r0_null(E::kDrop);
  p.call(BPF_FUNC_map_update_elem, live_fd);
  p.go(E::kAccept);

  // exit: of a thread-group leader in the tree (the supervisor takes the
  // leader's exit for the process's end): it moves to the bounded map of
  // recent ends, so the live map holds live processes only.
  p.mark(E::kExit);
  p.load_word(kExitPid);
  p.mov(E::r7, E::r0);
  p.load_word(kExitTgid);
  p.jump_if_r0_is_not(E::r7, E::kDrop);
  p.store_key(E::r0);
  p.call(BPF_FUNC_map_lookup_elem, live_fd);
  p.jump_if_r0_null(E::kDrop);
  p.call(BPF_FUNC_map_delete_elem, live_fd);
  p.call(BPF_FUNC_map_update_elem, ended_fd);
  p.go(E::kAccept);

  p.mark(E::kAccept);
  p.ret(-1);  // 0xffffffff: keep the whole datagram
  p.mark(E::kDrop);
  p.ret(0);
  return std::move(p).finish();
}

std::string describe(ProcEventFilters filters) {
  std::string text;
  if (filters.kernel) text = "kernel event-type filter (fork, exec, exit)";
  if (filters.socket) {
    if (!text.empty()) text += " and ";
    if (filters.tree) {
      text += filters.kernel ? "tree filter (eBPF: the job's processes only, no thread events)"
                             : "tree filter (eBPF: fork, exec, exit of the job's processes only, no thread events)";
    } else {
      text += filters.kernel ? "socket filter (no thread events)"
                             : "socket filter (fork, exec, exit; no thread events)";
    }
  }
  return text.empty() ? "none: every process event on the host is delivered" : text;
}

}  // namespace ftdiag::supervise
