// libFuzzer target for the process-connector datagram decoder: arbitrary
// bytes stand in for what recv() on a NETLINK_CONNECTOR socket can return.
// Seeds: fuzz/corpus/proc_connector/ (fork, exit, ack, exec, comm, two
// messages in one datagram, an old-kernel short exit event, foreign idx, NOOP).
// Both decoder forms run on each input and must agree.
#include <cstddef>
#include <cstdint>
#include <span>

#include "supervise/proc_connector.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto bytes = std::span(reinterpret_cast<const std::byte*>(data), size);
  const auto events = ftdiag::supervise::decode_proc_connector_datagram(bytes);
  // Each event needs at least a netlink header, a cn_msg and a proc_event header.
  if (events.size() > size / 52) __builtin_trap();
  // The in-place form (what the supervisor's drain uses) hands on the same
  // events in the same order.
  std::size_t handed = 0;
  bool same = true;
  ftdiag::supervise::decode_proc_connector_datagram(bytes, [&](const ftdiag::supervise::ProcEvent& e) {
    same = same && handed < events.size() && events[handed] == e;
    ++handed;
    return true;
  });
  if (!same || handed != events.size()) __builtin_trap();
  return 0;
}
