#include "supervise/sources/process_events.h"

#include <unistd.h>

#include "base/clock.h"
#include "supervise/proc_connector.h"
#include "supervise/process_tracker.h"

namespace ftdiag::supervise {

namespace {

class ProcessEvents final : public LiveSource {
 public:
  ProcessEvents(SupervisedRun& run, ProcConnector connector) : run_(run), connector_(std::move(connector)) {}

  std::vector<int> descriptors() const override { return {connector_.fd()}; }
  void on_ready(int) override { read_events(); }
  // Exits that came after the job's own.
  void drain() override { read_events(); }

 private:
  void read_events() {
    const double now = wall_clock_now();
    auto& tracker = run_.tracker();
    // The connector reports every process on the host; the kernel already
    // dropped the types and thread events not used here (proc_connector_filter.h).
    // Each event is handled as it is decoded, in order (a fork must be tracked
    // before its child's own fork is judged), and one outside the tree is
    // rejected by a hash lookup before any other work; saying so lets the
    // connector pace its reads while only such events arrive.
    const bool complete = connector_.drain([&](const ProcEvent& e) {
      switch (e.kind) {
        case ProcEvent::Kind::fork:
          if (e.pid != e.tgid || !tracker.may_concern(e.parent_tgid)) return false;
          run_.record_seen(tracker.on_fork(e.parent_tgid, e.tgid, now));
          return true;
        case ProcEvent::Kind::exec:
          if (!tracker.is_live(e.tgid)) return false;
          run_.record_seen(tracker.on_exec(e.tgid, now));
          return true;
        case ProcEvent::Kind::exit:
          if (e.pid != e.tgid || !tracker.may_concern(e.tgid)) return false;
          run_.record_death(tracker.on_exit(e.tgid, evidence::ExitStatus::from_wait_status(e.exit_status), "netlink", now));
          return true;
        case ProcEvent::Kind::other: break;
      }
      return false;
    });
    if (!complete) {
      run_.note("netlink lost events (socket overflow); scanning /proc");
      run_.scan_tree();
    }
  }

  SupervisedRun& run_;
  ProcConnector connector_;
};

}  // namespace

OpenedSource open_process_events(SourceSetup& setup) {
  if (setup.run.options().disable_netlink) {
    setup.mechanisms.emplace("netlink", Missing{MissingReason::unsupported, "disabled by --no-netlink"});
    return nullptr;
  }
  auto connector = ProcConnector::open({.tree_root = ::getpid()});
  if (!connector) {
    setup.mechanisms.emplace("netlink", connector.missing());
    return nullptr;
  }
  setup.mechanisms.emplace("netlink", true);
  // Which filters keep the host's other processes off the socket
  // (proc_connector_filter.h): each true, or missing with the reason.
  setup.mechanisms.emplace("netlink-kernel-filter", connector->kernel_filter());
  setup.mechanisms.emplace("netlink-socket-filter", connector->socket_filter());
  setup.mechanisms.emplace("netlink-tree-filter", connector->tree_filter());
  setup.run.tracker().set_kept_current_by_events(true);
  return std::make_unique<ProcessEvents>(setup.run, std::move(connector).value());
}

}  // namespace ftdiag::supervise
