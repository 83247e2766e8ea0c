// Facts about an allocation in host memory that failed inside a process (a
// "host-memory-error" line: MemoryError, torch's DefaultCPUAllocator,
// std::bad_alloc): what the process was doing, from the Python frames above
// the error. A log often has no phase line near such an error (a dataset
// built before the first log line, a save that prints nothing first), while
// its traceback names the call that ran out.
#include <fmt/format.h>

#include "facts/event_sites.h"
#include "facts/extract.h"
#include "facts/frame_phase.h"

namespace ftdiag::facts {

namespace {

// The parts of a step are one phase for host memory: training.
std::string host_phase(const std::string& frame_phase) {
  if (frame_phase == "forward" || frame_phase == "backward" || frame_phase == "optimizer-step") return "training";
  return frame_phase;
}

}  // namespace

void extract_host_memory_facts(const evidence::EvidenceDocument& document, const std::optional<Incident>&, FactSet& facts) {
  const auto sites = sites_of(document, "host-memory-error");
  for (const auto& site : sites) {
    const auto frames = traceback_above(site);
    const auto phase = phase_from_frames(frames);
    if (!phase) continue;
    const auto pointer = fmt::format("{}/{}/text", site.tail_pointer, frames[phase->frame].index);
    facts.set("host_memory_error.phase", host_phase(phase->phase), pointer);
    facts.set("host_memory_error.phase_because", fmt::format("the traceback's frame {}", phase->because), pointer);
    return;
  }
  const Missing none{MissingReason::not_present,
                     sites.empty() ? "no failed host allocation in the logs"
                                   : "no traceback frame above the failed allocation names a phase (or the log's last lines do not reach it)"};
  facts.set_missing("host_memory_error.phase", none);
  facts.set_missing("host_memory_error.phase_because", none);
}

}  // namespace ftdiag::facts
