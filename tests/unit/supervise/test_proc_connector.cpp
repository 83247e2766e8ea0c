#include "supervise/proc_connector.h"

#include <doctest/doctest.h>
#include <linux/cn_proc.h>
#include <linux/connector.h>
#include <linux/netlink.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sys/prctl.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <grp.h>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "supervise/proc_connector_filter.h"
#include "skip.h"

using ftdiag::MissingReason;
using ftdiag::supervise::decode_proc_connector_datagram;
using ftdiag::supervise::ProcConnector;
using ftdiag::supervise::ProcConnectorOptions;
using ftdiag::supervise::ProcEvent;

namespace {

// ---- synthetic datagrams, laid out like drivers/connector/connector.c sends them

struct Layout {
  std::uint16_t nlmsg_type = NLMSG_DONE;
  std::uint32_t idx = CN_IDX_PROC;
  std::uint32_t val = CN_VAL_PROC;
  std::uint32_t ack = 0;
  std::optional<std::uint16_t> cn_len;     // default: sizeof(proc_event)
  std::optional<std::uint32_t> nlmsg_len;  // default: consistent with cn_len
};

std::vector<std::byte> datagram(const proc_event& ev, const Layout& layout = {}) {
  const std::uint16_t cn_len = layout.cn_len.value_or(sizeof(proc_event));
  const std::size_t body = std::min<std::size_t>(cn_len, sizeof(proc_event));
  nlmsghdr header{};
  header.nlmsg_len = layout.nlmsg_len.value_or(NLMSG_LENGTH(sizeof(cn_msg) + body));
  header.nlmsg_type = layout.nlmsg_type;
  cn_msg cn{};
  cn.id.idx = layout.idx;
  cn.id.val = layout.val;
  cn.ack = layout.ack;
  cn.len = cn_len;
  std::vector<std::byte> out(NLMSG_SPACE(sizeof(cn_msg) + body));
  std::memcpy(out.data(), &header, sizeof header);
  std::memcpy(out.data() + NLMSG_HDRLEN, &cn, sizeof cn);
  std::memcpy(out.data() + NLMSG_HDRLEN + sizeof cn, &ev, body);
  return out;
}

proc_event fork_event(int parent, int child) {
  proc_event ev{};
  ev.what = proc_event::PROC_EVENT_FORK;
  ev.timestamp_ns = 1000;
  ev.event_data.fork.parent_pid = parent;
  ev.event_data.fork.parent_tgid = parent;
  ev.event_data.fork.child_pid = child;
  ev.event_data.fork.child_tgid = child;
  return ev;
}

proc_event exit_event(int pid, int status) {
  proc_event ev{};
  ev.what = proc_event::PROC_EVENT_EXIT;
  ev.timestamp_ns = 2000;
  ev.event_data.exit.process_pid = pid;
  ev.event_data.exit.process_tgid = pid;
  ev.event_data.exit.exit_code = static_cast<__u32>(status);
  ev.event_data.exit.exit_signal = SIGCHLD;
  ev.event_data.exit.parent_pid = 1;
  ev.event_data.exit.parent_tgid = 1;
  return ev;
}

std::vector<ProcEvent> decode(const std::vector<std::byte>& bytes) {
  return decode_proc_connector_datagram(bytes);
}

// ---- live helpers

// Polls and drains until `done(events)` holds or the deadline passes.
bool collect_until(ProcConnector& connector, std::vector<ProcEvent>& events,
                   const std::function<bool(const std::vector<ProcEvent>&)>& done,
                   std::chrono::milliseconds budget = std::chrono::seconds(5)) {
  const auto deadline = std::chrono::steady_clock::now() + budget;
  for (;;) {
    if (!connector.drain(events)) MESSAGE("proc connector reported lost events (ENOBUFS)");
    if (done(events)) return true;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd pfd{connector.fd(), POLLIN, 0};
    (void)poll(&pfd, 1, static_cast<int>(left.count()) + 1);
  }
}

std::optional<ProcConnector> open_or_skip(const ProcConnectorOptions& options = {}) {
  auto opened = ProcConnector::open(options);
  if (!opened) {
    ftdiag::test::mark_skipped("process connector unavailable: " +
                               std::string(ftdiag::to_string(opened.missing().reason)) + ": " +
                               opened.missing().detail);
    return std::nullopt;
  }
  return std::move(opened).value();
}

void reap(pid_t pid, int* status = nullptr) {
  int local = 0;
  while (waitpid(pid, &local, 0) < 0 && errno == EINTR) {
  }
  if (status != nullptr) *status = local;
}

}  // namespace

TEST_CASE("proc connector decoder: valid fork and exit") {
  auto events = decode(datagram(fork_event(100, 200)));
  REQUIRE(events.size() == 1);
  CHECK(events[0].kind == ProcEvent::Kind::fork);
  CHECK(events[0].timestamp_ns == 1000);
  CHECK(events[0].parent_pid == 100);
  CHECK(events[0].parent_tgid == 100);
  CHECK(events[0].pid == 200);
  CHECK(events[0].tgid == 200);

  events = decode(datagram(exit_event(200, 7 << 8)));
  REQUIRE(events.size() == 1);
  CHECK(events[0].kind == ProcEvent::Kind::exit);
  CHECK(events[0].pid == 200);
  CHECK(events[0].timestamp_ns == 2000);
  CHECK(WIFEXITED(events[0].exit_status));
  CHECK(WEXITSTATUS(events[0].exit_status) == 7);
  CHECK(events[0].exit_signal == SIGCHLD);

  // Killed by SIGSEGV with a core dump: the raw status keeps the core bit.
  events = decode(datagram(exit_event(201, SIGSEGV | 0x80)));
  REQUIRE(events.size() == 1);
  CHECK(WIFSIGNALED(events[0].exit_status));
  CHECK(WTERMSIG(events[0].exit_status) == SIGSEGV);
  CHECK(WCOREDUMP(events[0].exit_status));
}

TEST_CASE("proc connector decoder: exec, other kinds, acks") {
  proc_event ev{};
  ev.what = proc_event::PROC_EVENT_EXEC;
  ev.event_data.exec.process_pid = 301;
  ev.event_data.exec.process_tgid = 300;
  auto events = decode(datagram(ev));
  REQUIRE(events.size() == 1);
  CHECK(events[0].kind == ProcEvent::Kind::exec);
  CHECK(events[0].pid == 301);
  CHECK(events[0].tgid == 300);

  ev = {};
  ev.what = proc_event::PROC_EVENT_COMM;
  ev.event_data.comm.process_pid = 42;
  ev.event_data.comm.process_tgid = 42;
  std::memcpy(ev.event_data.comm.comm, "pt_data_worker", 15);
  events = decode(datagram(ev));
  REQUIRE(events.size() == 1);
  CHECK(events[0].kind == ProcEvent::Kind::other);
  CHECK(events[0].pid == 42);

  // A kind this code does not know yet: reported, but without a subject.
  ev = {};
  ev.what = static_cast<decltype(ev.what)>(0x00000400);
  ev.event_data.id.process_pid = 5;
  events = decode(datagram(ev));
  REQUIRE(events.size() == 1);
  CHECK(events[0].kind == ProcEvent::Kind::other);
  CHECK(events[0].pid == 0);

  // The subscription ack (PROC_EVENT_NONE) is not a process event.
  ev = {};
  ev.what = proc_event::PROC_EVENT_NONE;
  ev.event_data.ack.err = EPERM;
  CHECK(decode(datagram(ev, {.ack = 1})).empty());
}

TEST_CASE("proc connector decoder: older kernel exit event without parent fields") {
  Layout layout;
  layout.cn_len = offsetof(proc_event, event_data.exit.parent_pid);
  auto events = decode(datagram(exit_event(9, SIGKILL), layout));
  REQUIRE(events.size() == 1);
  CHECK(events[0].kind == ProcEvent::Kind::exit);
  CHECK(WTERMSIG(events[0].exit_status) == SIGKILL);

  // One field short of exit_signal: dropped, not half-read.
  layout.cn_len = offsetof(proc_event, event_data.exit.exit_signal);
  CHECK(decode(datagram(exit_event(9, SIGKILL), layout)).empty());
}

TEST_CASE("proc connector decoder: several messages in one datagram") {
  auto bytes = datagram(fork_event(1, 2));
  const auto second = datagram(exit_event(2, 0));
  bytes.insert(bytes.end(), second.begin(), second.end());
  const auto events = decode(bytes);
  REQUIRE(events.size() == 2);
  CHECK(events[0].kind == ProcEvent::Kind::fork);
  CHECK(events[1].kind == ProcEvent::Kind::exit);
}

TEST_CASE("proc connector decoder: truncated datagrams yield nothing") {
  const auto full = datagram(fork_event(1, 2));
  for (std::size_t size = 0; size < full.size(); ++size) {
    // A fresh heap copy of exactly `size` bytes, so ASan catches over-reads.
    const std::vector<std::byte> cut(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(size));
    const auto events = decode(cut);
    // The last 4 bytes are NLMSG_ALIGN padding, so only shorter cuts lose data.
    if (size < NLMSG_LENGTH(sizeof(cn_msg) + sizeof(proc_event))) {
      CHECK_MESSAGE(events.empty(), "size " << size);
    }
  }
  // cn_msg.len shorter than the fork fields.
  Layout layout;
  layout.cn_len = offsetof(proc_event, event_data.fork.child_tgid);
  CHECK(decode(datagram(fork_event(1, 2), layout)).empty());
  // cn_msg.len shorter than the proc_event header.
  layout.cn_len = 8;
  CHECK(decode(datagram(fork_event(1, 2), layout)).empty());
}

TEST_CASE("proc connector decoder: foreign and malformed headers are skipped") {
  const auto ev = fork_event(1, 2);
  CHECK(decode(datagram(ev, {.idx = CN_IDX_CIFS})).empty());
  CHECK(decode(datagram(ev, {.val = 2})).empty());
  CHECK(decode(datagram(ev, {.nlmsg_type = NLMSG_NOOP})).empty());
  CHECK(decode(datagram(ev, {.nlmsg_type = NLMSG_ERROR})).empty());
  CHECK(decode(datagram(ev, {.nlmsg_type = NLMSG_OVERRUN})).empty());

  Layout layout;
  layout.nlmsg_len = 8;  // shorter than nlmsghdr
  CHECK(decode(datagram(ev, layout)).empty());
  layout.nlmsg_len = 0xffffffff;  // longer than the datagram
  CHECK(decode(datagram(ev, layout)).empty());
  layout.nlmsg_len = NLMSG_HDRLEN + 10;  // too short for a cn_msg
  CHECK(decode(datagram(ev, layout)).empty());

  // cn_msg.len claims more than the netlink payload holds.
  layout = {};
  layout.nlmsg_len = NLMSG_LENGTH(sizeof(cn_msg) + 20);
  CHECK(decode(datagram(ev, layout)).empty());

  CHECK(decode({}).empty());
}

TEST_CASE("proc connector decoder: garbage and mutated datagrams do not crash") {
  std::uint64_t state = 0x9e3779b97f4a7c15ULL;
  auto next = [&state] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  const auto seed = [] {
    auto bytes = datagram(fork_event(1, 2));
    const auto more = datagram(exit_event(2, 9));
    bytes.insert(bytes.end(), more.begin(), more.end());
    return bytes;
  }();
  std::size_t decoded = 0;
  for (int round = 0; round < 20000; ++round) {
    std::vector<std::byte> bytes;
    if (round % 2 == 0) {
      bytes.resize(next() % 200);
      for (auto& b : bytes) b = static_cast<std::byte>(next());
    } else {
      bytes = seed;
      bytes.resize(next() % (seed.size() + 1));
      for (int flips = 0; flips < 3 && !bytes.empty(); ++flips) {
        bytes[next() % bytes.size()] = static_cast<std::byte>(next());
      }
    }
    // Also decode from an odd address: no alignment is assumed.
    std::vector<std::byte> shifted(bytes.size() + 1);
    std::copy(bytes.begin(), bytes.end(), shifted.begin() + 1);
    decoded += decode(bytes).size();
    decoded += decode_proc_connector_datagram(std::span(shifted).subspan(1)).size();
  }
  MESSAGE("events decoded from mutated input: " << decoded);
}

TEST_CASE("proc connector live: fork and exit statuses of a child and grandchild") {
  auto connector = open_or_skip();
  if (!connector) return;
  CHECK(connector->fd() >= 0);

  const pid_t me = getpid();
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    const pid_t grandchild = fork();
    if (grandchild == 0) _exit(7);
    if (grandchild > 0) reap(grandchild);
    kill(getpid(), SIGKILL);
    _exit(99);  // not reached
  }

  std::optional<ProcEvent> child_fork, grandchild_fork, child_exit, grandchild_exit;
  auto done = [&](const std::vector<ProcEvent>& events) {
    for (const ProcEvent& e : events) {
      if (e.kind == ProcEvent::Kind::fork && e.tgid == child && e.parent_tgid == me) child_fork = e;
      if (e.kind == ProcEvent::Kind::fork && e.parent_tgid == child && e.pid == e.tgid) {
        grandchild_fork = e;
      }
    }
    for (const ProcEvent& e : events) {
      if (e.kind != ProcEvent::Kind::exit || e.pid != e.tgid) continue;
      if (e.pid == child) child_exit = e;
      if (grandchild_fork && e.pid == grandchild_fork->pid) grandchild_exit = e;
    }
    return child_fork && grandchild_fork && child_exit && grandchild_exit;
  };
  std::vector<ProcEvent> events;
  const bool complete = collect_until(*connector, events, done);
  int status = 0;
  reap(child, &status);
  CHECK(WIFSIGNALED(status));

  CHECK_MESSAGE(complete, "saw " << events.size() << " events before the deadline");
  REQUIRE(child_fork);
  REQUIRE(grandchild_fork);
  REQUIRE(child_exit);
  REQUIRE(grandchild_exit);
  CHECK(grandchild_fork->parent_pid == child);
  CHECK(WIFEXITED(grandchild_exit->exit_status));
  CHECK(WEXITSTATUS(grandchild_exit->exit_status) == 7);
  CHECK(grandchild_exit->exit_signal == SIGCHLD);
  CHECK(WIFSIGNALED(child_exit->exit_status));
  CHECK(WTERMSIG(child_exit->exit_status) == SIGKILL);
  CHECK(child_exit->exit_status == status);  // the event carries the wait status
  CHECK(child_fork->timestamp_ns > 0);
  CHECK(child_fork->timestamp_ns <= grandchild_fork->timestamp_ns);
  // No order between the two exits: the kernel sends a process's exit event
  // after waking its parent, so the child can reap the grandchild, be killed
  // and have its own exit sent first (seen in CI, 20 us apart).
  CHECK(grandchild_exit->timestamp_ns > 0);
}

TEST_CASE("proc connector live: two instances, move, and moved-from state") {
  auto first = open_or_skip();
  if (!first) return;
  auto second = ProcConnector::open();
  REQUIRE_MESSAGE(second.has_value(), "second instance must open alongside the first");

  ProcConnector moved = std::move(second).value();
  CHECK(moved.fd() >= 0);

  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) _exit(3);

  auto saw_exit = [child](const std::vector<ProcEvent>& events) {
    for (const ProcEvent& e : events) {
      if (e.kind == ProcEvent::Kind::exit && e.pid == child) {
        return WIFEXITED(e.exit_status) && WEXITSTATUS(e.exit_status) == 3;
      }
    }
    return false;
  };
  std::vector<ProcEvent> a, b;
  CHECK(collect_until(*first, a, saw_exit));
  CHECK(collect_until(moved, b, saw_exit));
  reap(child);

  ProcConnector target = std::move(moved);
  std::vector<ProcEvent> none;
  CHECK(moved.fd() == -1);  // NOLINT(bugprone-use-after-move): moved-from state is specified
  CHECK_FALSE(moved.drain(none));
  CHECK(none.empty());
  CHECK(target.fd() >= 0);
}

TEST_CASE("proc connector live: without CAP_NET_ADMIN open() is refused or allowed, never broken") {
  if (geteuid() != 0) {
    // Already unprivileged: open() itself is the check.
    auto opened = ProcConnector::open();
    if (!opened) MESSAGE("unprivileged open: " << opened.missing().detail);
    CHECK((opened.has_value() || opened.missing().reason == MissingReason::permission_denied ||
           opened.missing().reason == MissingReason::unsupported));
    return;
  }
  int pipe_fds[2];
  REQUIRE(pipe(pipe_fds) == 0);
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // Root -> nobody clears the permitted and effective capability sets.
    char verdict = 'x';
    if (setgroups(0, nullptr) == 0 && setgid(65534) == 0 && setuid(65534) == 0) {
      auto opened = ProcConnector::open();
      verdict = opened ? 'o'
                : opened.missing().reason == MissingReason::permission_denied ? 'p'
                : opened.missing().reason == MissingReason::unsupported       ? 'u'
                                                                               : 'f';
    }
    (void)!write(pipe_fds[1], &verdict, 1);
    _exit(0);
  }
  close(pipe_fds[1]);
  char verdict = 0;
  ssize_t got = 0;
  while ((got = read(pipe_fds[0], &verdict, 1)) < 0 && errno == EINTR) {
  }
  close(pipe_fds[0]);
  reap(child);
  REQUIRE(got == 1);
  // Kernels >= 6.6 let unprivileged users join CN_IDX_PROC (cn_bind);
  // older ones refuse the bind with EPERM.
  MESSAGE("unprivileged open verdict: " << std::string(1, verdict) << " (o=opened, p=permission denied)");
  CHECK((verdict == 'o' || verdict == 'p'));
}

// ---- filters, in-place decoding, pacing

namespace {

// Every option off but the one under test; reads on every wakeup.
ProcConnectorOptions unfiltered() { return {.kernel_filter = false, .socket_filter = false, .drain_interval = {}}; }

// What a process of ours does that the connector reports: one thread
// created and ended (a fork and an exit with pid != tgid), a comm change of
// that thread (PR_SET_NAME, cn_proc.c: proc_comm_connector), then a child
// process that exits with 5 (a fork and an exit with pid == tgid), reaped.
struct Activity {
  int thread_tid = 0;
  pid_t child = 0;
};

Activity make_activity() {
  Activity activity;
  std::atomic<int> tid{0};
  std::thread worker([&tid] {
    tid = static_cast<int>(gettid());
    (void)prctl(PR_SET_NAME, "ftdiag-filter-t", 0, 0, 0);
  });
  worker.join();
  activity.thread_tid = tid;
  activity.child = fork();
  if (activity.child == 0) _exit(5);
  reap(activity.child);
  return activity;
}

bool saw_exit_of(const std::vector<ProcEvent>& events, int pid) {
  return std::any_of(events.begin(), events.end(),
                     [pid](const ProcEvent& e) { return e.kind == ProcEvent::Kind::exit && e.pid == pid; });
}

// Thread events, comm events and acks never reach a filtered socket.
void check_no_thread_events(const std::vector<ProcEvent>& events, const char* which) {
  for (const ProcEvent& e : events) {
    if (e.kind == ProcEvent::Kind::fork || e.kind == ProcEvent::Kind::exit) {
      CHECK_MESSAGE(e.pid == e.tgid, which << ": thread event delivered, pid " << e.pid << " tgid " << e.tgid);
    }
  }
}

std::size_t count_other(const std::vector<ProcEvent>& events) {
  return static_cast<std::size_t>(
      std::count_if(events.begin(), events.end(), [](const ProcEvent& e) { return e.kind == ProcEvent::Kind::other; }));
}

}  // namespace

TEST_CASE("proc connector decoder: the in-place form hands on what the vector form returns, in order") {
  auto bytes = datagram(fork_event(1, 2));
  proc_event ack{};
  ack.what = proc_event::PROC_EVENT_NONE;
  const auto ack_bytes = datagram(ack, {.ack = 8});
  bytes.insert(bytes.end(), ack_bytes.begin(), ack_bytes.end());
  const auto exit_bytes = datagram(exit_event(2, 9));
  bytes.insert(bytes.end(), exit_bytes.begin(), exit_bytes.end());

  std::vector<ProcEvent> handed;
  decode_proc_connector_datagram(bytes, [&handed](const ProcEvent& e) {
    handed.push_back(e);
    return true;
  });
  CHECK(handed == decode(bytes));
  REQUIRE(handed.size() == 2);  // the ack in between is not an event
  CHECK(handed[0].kind == ProcEvent::Kind::fork);
  CHECK(handed[1].kind == ProcEvent::Kind::exit);
  CHECK(handed[1].exit_status == 9);
}

TEST_CASE("proc connector filter: the classic BPF program's jumps stay inside it and it ends in returns") {
  const auto program = ftdiag::supervise::proc_event_socket_filter();
  REQUIRE(program.size() >= 2);
  for (std::size_t i = 0; i < program.size(); ++i) {
    const sock_filter& insn = program[i];
    if (BPF_CLASS(insn.code) == BPF_JMP) {
      CHECK(i + 1 + insn.jt < program.size());
      CHECK(i + 1 + insn.jf < program.size());
    }
  }
  CHECK(BPF_CLASS(program.back().code) == BPF_RET);
}

TEST_CASE("proc connector filter: describe names what is in effect") {
  using ftdiag::supervise::describe;
  CHECK(describe({.kernel = true, .socket = true}) ==
        "kernel event-type filter (fork, exec, exit) and socket filter (no thread events)");
  CHECK(describe({.kernel = false, .socket = true}) == "socket filter (fork, exec, exit; no thread events)");
  CHECK(describe({}).starts_with("none"));
  CHECK(describe({.kernel = true, .socket = true, .tree = true}) ==
        "kernel event-type filter (fork, exec, exit) and tree filter (eBPF: the job's processes only, no thread events)");
}

TEST_CASE("proc connector live: without filters, thread and comm events arrive (the baseline of the filter tests)") {
  auto connector = open_or_skip(unfiltered());
  if (!connector) return;
  CHECK_FALSE(connector->kernel_filter().has_value());
  CHECK_FALSE(connector->socket_filter().has_value());
  CHECK(connector->filter_description().starts_with("none"));

  const Activity activity = make_activity();
  std::vector<ProcEvent> events;
  auto all_seen = [&](const std::vector<ProcEvent>& got) {
    const bool thread_exit = std::any_of(got.begin(), got.end(), [&](const ProcEvent& e) {
      return e.kind == ProcEvent::Kind::exit && e.pid == activity.thread_tid;
    });
    return thread_exit && saw_exit_of(got, activity.child);
  };
  CHECK(collect_until(*connector, events, all_seen));
  CHECK(count_other(events) >= 1);  // at least our comm change
}

TEST_CASE("proc connector live: the socket filter drops thread events and unused types, keeps processes") {
  // The kernel filter off, as on a kernel before 6.6: the classic BPF
  // program alone sorts, attached for real.
  auto connector = open_or_skip({.kernel_filter = false, .socket_filter = true, .drain_interval = {}});
  if (!connector) return;
  REQUIRE(connector->socket_filter().has_value());
  CHECK(connector->filters().socket);
  CHECK_FALSE(connector->filters().kernel);
  CHECK(connector->kernel_filter().missing().detail == "not requested");

  const Activity activity = make_activity();
  std::vector<ProcEvent> events;
  CHECK(collect_until(*connector, events, [&](const auto& got) { return saw_exit_of(got, activity.child); }));
  check_no_thread_events(events, "socket filter");
  CHECK(count_other(events) == 0);
  const auto child_exit = std::find_if(events.begin(), events.end(), [&](const ProcEvent& e) {
    return e.kind == ProcEvent::Kind::exit && e.pid == activity.child;
  });
  REQUIRE(child_exit != events.end());
  CHECK(WEXITSTATUS(child_exit->exit_status) == 5);
  CHECK(std::none_of(events.begin(), events.end(), [&](const ProcEvent& e) { return e.pid == activity.thread_tid; }));
}

TEST_CASE("proc connector live: the kernel's per-listener filter, or the fallback on kernels without it") {
  auto connector = open_or_skip({.kernel_filter = true, .socket_filter = false, .drain_interval = {}});
  if (!connector) return;
  if (!connector->kernel_filter()) {
    // Linux before 6.6: the 8-byte request went unanswered, the 4-byte one
    // subscribed. Events still flow.
    MESSAGE("kernel filter not in effect: " << connector->kernel_filter().missing().detail);
    CHECK(connector->kernel_filter().missing().reason == MissingReason::unsupported);
  } else {
    CHECK(connector->filter_description() == "kernel event-type filter (fork, exec, exit)");
  }
  const Activity activity = make_activity();
  std::vector<ProcEvent> events;
  CHECK(collect_until(*connector, events, [&](const auto& got) { return saw_exit_of(got, activity.child); }));
  if (connector->kernel_filter()) {
    // Types are the kernel's to drop; threads are not (the mask has no
    // notion of them), so the thread's exit still arrives.
    CHECK(count_other(events) == 0);
    CHECK(std::any_of(events.begin(), events.end(), [&](const ProcEvent& e) { return e.pid == activity.thread_tid; }));
  }
}

TEST_CASE("proc connector live: both filters, and the plain subscription when the filter request is not made") {
  auto filtered = open_or_skip();  // what ftdiag run uses
  if (!filtered) return;
  CHECK(filtered->filters().socket);
  MESSAGE("default connector: " << filtered->filter_description());
  auto plain = ProcConnector::open({.kernel_filter = false, .socket_filter = false, .drain_interval = {}});
  REQUIRE(plain.has_value());

  const Activity activity = make_activity();
  std::vector<ProcEvent> a, b;
  auto seen = [&](const std::vector<ProcEvent>& got) { return saw_exit_of(got, activity.child); };
  CHECK(collect_until(*filtered, a, seen));
  CHECK(collect_until(plain.value(), b, seen));
  check_no_thread_events(a, "default filters");
  CHECK(count_other(a) == 0);
}

TEST_CASE("proc connector live: the default pacing interval, shortened only for a small receive buffer") {
  auto connector = open_or_skip();
  if (!connector) return;
  CHECK(connector->drain_interval() <= std::chrono::milliseconds(20));
  CHECK(connector->drain_interval() >= std::chrono::milliseconds(1));
  if (geteuid() == 0) CHECK(connector->drain_interval() == std::chrono::milliseconds(20));  // SO_RCVBUFFORCE: 8 MiB
  auto unpaced = open_or_skip({.drain_interval = {}});
  REQUIRE(unpaced);
  CHECK(unpaced->drain_interval().count() == 0);
}

TEST_CASE("proc connector live: closing a filtered listener leaves the others listening") {
  // A filtered LISTEN is two requests; the listener count must still be
  // raised once and lowered once (cn_proc.c: cn_proc_mcast_ctl).
  auto survivor = open_or_skip(unfiltered());
  if (!survivor) return;
  {
    auto filtered = ProcConnector::open();
    REQUIRE(filtered.has_value());
  }  // unsubscribes (IGNORE) and closes
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) _exit(4);
  reap(child);
  std::vector<ProcEvent> events;
  CHECK(collect_until(*survivor, events, [&](const auto& got) { return saw_exit_of(got, child); }));
}

TEST_CASE("proc connector live: while only rejected events arrive, reads are paced, and a kept event ends it") {
  auto connector = open_or_skip({.kernel_filter = true, .socket_filter = true, .drain_interval = std::chrono::milliseconds(150)});
  if (!connector) return;
  // A small receive buffer (no CAP_NET_ADMIN, default rmem_max) shortens
  // the interval below what this test can time.
  const auto kInterval = connector->drain_interval();
  if (kInterval < std::chrono::milliseconds(100)) {
    FTDIAG_SKIP("pacing interval shortened to " + std::to_string(kInterval.count()) +
                " ms by a small receive buffer");
  }
  auto fork_and_reap = [] {
    const pid_t child = fork();
    if (child == 0) _exit(3);
    reap(child);
    return child;
  };
  // Drains with a handler that rejects every event (as the supervisor does
  // for processes outside its tree) or keeps those of one pid, until the
  // exit of `pid` was handed on.
  auto drain_until_exit = [&](pid_t pid, std::optional<pid_t> keep = std::nullopt) {
    bool seen = false;
    const ftdiag::supervise::ProcEventHandler handler = [&](const ProcEvent& e) {
      if (e.kind == ProcEvent::Kind::exit && e.pid == pid) seen = true;
      return keep && e.tgid == *keep;
    };
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!seen && std::chrono::steady_clock::now() < deadline) {
      (void)connector->drain(handler);
      pollfd pfd{connector->fd(), POLLIN, 0};
      if (!seen) (void)poll(&pfd, 1, 100);
    }
    return seen;
  };

  // Two reads that find only rejected events within one interval: the
  // second one mutes the socket.
  CHECK(drain_until_exit(fork_and_reap()));
  CHECK(drain_until_exit(fork_and_reap()));
  const auto muted_at = std::chrono::steady_clock::now();
  const pid_t late = fork_and_reap();
  pollfd pfd{connector->fd(), POLLIN, 0};
  const int ready_now = poll(&pfd, 1, 0);
  if (std::chrono::steady_clock::now() - muted_at < kInterval / 2) {
    CHECK_MESSAGE(ready_now == 0, "the connector should be muted for one interval");
  }
  // The pacing timer makes it readable again; the queued exit is all there.
  CHECK(poll(&pfd, 1, 5000) == 1);
  CHECK(std::chrono::steady_clock::now() - muted_at >= kInterval / 2);
  CHECK(drain_until_exit(late));

  // Still muted (that read found only rejected events). A read that finds
  // an event the caller keeps unmutes: the next event is ready at once.
  const pid_t ours = fork_and_reap();
  CHECK(drain_until_exit(ours, ours));
  const pid_t next = fork_and_reap();
  CHECK(poll(&pfd, 1, 0) == 1);
  CHECK(drain_until_exit(next));
}

namespace {

// A process standing for the root of a job's tree, outside this test
// process's own lineage of interest. On 'f' from `commands` it forks a
// child, which forks a grandchild that exits 7, then exits 6 itself; on 'e'
// a child whose second thread execs `sh -c "exit 8"`. It reaps the child and
// writes the child's and grandchild's pids (0 for 'e') to `answers`.
struct TreeRoot {
  pid_t pid = -1;
  int commands = -1, answers = -1;

  static TreeRoot start() {
    int to_root[2], from_root[2];
    REQUIRE(pipe(to_root) == 0);
    REQUIRE(pipe(from_root) == 0);
    TreeRoot root;
    root.pid = fork();
    REQUIRE(root.pid >= 0);
    if (root.pid == 0) {
      close(to_root[1]);
      close(from_root[0]);
      char command = 0;
      while (read(to_root[0], &command, 1) == 1) {
        if (command == 'e') {
          const pid_t child = fork();
          if (child == 0) {
            std::thread exec_from_thread([] { execl("/bin/sh", "sh", "-c", "exit 8", nullptr); });
            exec_from_thread.join();  // not reached: the exec ends this thread group's other threads
            _exit(1);
          }
          reap(child);
          const pid_t pids[2] = {child, 0};
          (void)!write(from_root[1], pids, sizeof pids);
          continue;
        }
        int pipe_to_child[2];
        if (pipe(pipe_to_child) != 0) _exit(1);
        const pid_t child = fork();
        if (child == 0) {
          const pid_t grandchild = fork();
          if (grandchild == 0) _exit(7);
          reap(grandchild);
          (void)!write(pipe_to_child[1], &grandchild, sizeof grandchild);
          _exit(6);
        }
        pid_t grandchild = 0;
        (void)!read(pipe_to_child[0], &grandchild, sizeof grandchild);
        reap(child);
        close(pipe_to_child[0]);
        close(pipe_to_child[1]);
        const pid_t pids[2] = {child, grandchild};
        (void)!write(from_root[1], pids, sizeof pids);
      }
      _exit(0);
    }
    close(to_root[0]);
    close(from_root[1]);
    root.commands = to_root[1];
    root.answers = from_root[0];
    return root;
  }
  std::pair<pid_t, pid_t> grow(char command = 'f') const {
    REQUIRE(write(commands, &command, 1) == 1);
    pid_t pids[2] = {0, 0};
    REQUIRE(read(answers, pids, sizeof pids) == static_cast<ssize_t>(sizeof pids));
    return {pids[0], pids[1]};
  }
  ~TreeRoot() {
    if (pid <= 0) return;
    close(commands);
    close(answers);
    reap(pid);
  }
};

}  // namespace

TEST_CASE("proc connector live: the eBPF tree filter delivers the tree's processes only") {
  const TreeRoot root = TreeRoot::start();
  auto connector = open_or_skip({.tree_root = root.pid, .drain_interval = {}});
  if (!connector) return;
  if (!connector->tree_filter()) {
    // No CAP_BPF, or a kernel without bpf(2): the classic filter stands in.
    CHECK(connector->filters().socket);
    FTDIAG_SKIP("tree filter unavailable: " + connector->tree_filter().missing().detail);
  }
  CHECK(connector->filters().tree);
  MESSAGE("connector: " << connector->filter_description());

  // Outside the tree: this test process's own child (and thread).
  const Activity outside = make_activity();
  const auto [child, grandchild] = root.grow();
  const auto [child2, grandchild2] = root.grow();  // pids that left the map are not a problem

  // The kernel sends a process's exit event after waking its parent
  // (kernel/exit.c: do_exit calls exit_notify, then proc_exit_connector), so
  // the root may have reaped a child whose exit has not been sent yet: wait
  // for every exit, not the last one in process order.
  std::vector<ProcEvent> events;
  CHECK(collect_until(*connector, events, [&](const auto& got) {
    return saw_exit_of(got, child) && saw_exit_of(got, grandchild) && saw_exit_of(got, child2) &&
           saw_exit_of(got, grandchild2);
  }));
  auto find = [&](ProcEvent::Kind kind, int pid) {
    return std::find_if(events.begin(), events.end(),
                        [&](const ProcEvent& e) { return e.kind == kind && e.pid == pid; });
  };
  REQUIRE(find(ProcEvent::Kind::fork, child) != events.end());
  CHECK(find(ProcEvent::Kind::fork, child)->parent_tgid == root.pid);
  REQUIRE(find(ProcEvent::Kind::fork, grandchild) != events.end());  // joined through its parent
  CHECK(find(ProcEvent::Kind::fork, grandchild)->parent_tgid == child);
  REQUIRE(find(ProcEvent::Kind::exit, child) != events.end());
  CHECK(WEXITSTATUS(find(ProcEvent::Kind::exit, child)->exit_status) == 6);
  REQUIRE(find(ProcEvent::Kind::exit, grandchild) != events.end());
  CHECK(WEXITSTATUS(find(ProcEvent::Kind::exit, grandchild)->exit_status) == 7);
  CHECK(find(ProcEvent::Kind::exit, child2) != events.end());

  for (const ProcEvent& e : events) {
    // Nothing of the test process's own activity, nor of any other process
    // on the host: every event is about the tree.
    CHECK_MESSAGE(e.pid != outside.child, "an event of a process outside the tree");
    CHECK(e.pid != outside.thread_tid);
    const bool ours = e.tgid == child || e.tgid == grandchild || e.tgid == child2 || e.tgid == grandchild2;
    CHECK_MESSAGE(ours, "event of pid " << e.pid << " (kind " << static_cast<int>(e.kind) << ") outside the tree");
  }
}

TEST_CASE("proc connector live: the tree filter keeps a process whose non-leader thread execs") {
  // de_thread() makes the old leader exit first (an exit event with pid ==
  // tgid) and the process lives on: its exec and its real exit must still
  // come through.
  const TreeRoot root = TreeRoot::start();
  auto connector = open_or_skip({.tree_root = root.pid, .drain_interval = {}});
  if (!connector) return;
  if (!connector->tree_filter()) {
    FTDIAG_SKIP("tree filter unavailable: " + connector->tree_filter().missing().detail);
  }
  const pid_t child = root.grow('e').first;
  std::vector<ProcEvent> events;
  auto exit_8 = [&](const std::vector<ProcEvent>& got) {
    return std::any_of(got.begin(), got.end(), [&](const ProcEvent& e) {
      return e.kind == ProcEvent::Kind::exit && e.pid == child && WIFEXITED(e.exit_status) &&
             WEXITSTATUS(e.exit_status) == 8;
    });
  };
  const bool complete = collect_until(*connector, events, exit_8);
  std::string seen;
  for (const ProcEvent& e : events) {
    seen += " kind " + std::to_string(static_cast<int>(e.kind)) + " pid " + std::to_string(e.pid) + " status " +
            std::to_string(e.exit_status) + ";";
  }
  INFO("events:" << seen);  // fork, exit (the old leader, status 0), exec, exit (8 << 8)
  CHECK(complete);
  CHECK(std::any_of(events.begin(), events.end(),
                    [&](const ProcEvent& e) { return e.kind == ProcEvent::Kind::exec && e.tgid == child; }));
}
