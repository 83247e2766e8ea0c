#include "parse/kernel/xid_catalog.h"

#include <array>
#include <utility>

namespace ftdiag::parse {

namespace {

struct Entry {
  int code;
  XidMeaning meaning;
};

constexpr std::array kCatalogue{
    Entry{13, {"graphics engine exception (a kernel accessed memory out of bounds or ran an illegal instruction)", XidOrigin::application,
               "fix the faulting kernel; if it repeats on the same GPU with different code, run a DCGM diagnostic"}},
    Entry{31, {"GPU memory page fault (an illegal address: use after free, a bad index)", XidOrigin::application,
               "fix the faulting kernel (CUDA_LAUNCH_BLOCKING=1 finds it); the GPU itself is fine"}},
    Entry{43, {"the GPU stopped processing a channel after an application error", XidOrigin::secondary,
               "look at the error before it; nothing to do on the GPU"}},
    Entry{45, {"preemptive cleanup of a process's GPU work (it exited or was killed)", XidOrigin::secondary,
               "look for why the process ended; the GPU is fine"}},
    Entry{48, {"double-bit ECC error in GPU memory (uncorrectable)", XidOrigin::hardware,
               "reset the GPU; if it recurs, drain the node and have the GPU replaced"}},
    Entry{61, {"internal micro-controller breakpoint", XidOrigin::hardware, "reset the GPU; update the driver if it recurs"}},
    Entry{62, {"internal micro-controller halt", XidOrigin::hardware, "reset the GPU; contact the vendor if it recurs"}},
    Entry{63, {"ECC page retirement or row remapping recorded", XidOrigin::hardware,
               "not fatal alone: reset the GPU at a convenient time to activate the remapping"}},
    Entry{64, {"ECC page retirement or row remapping failed", XidOrigin::hardware, "drain the node and have the GPU replaced"}},
    Entry{74, {"NVLink error", XidOrigin::hardware, "reset the GPU and check the NVLink/NVSwitch fabric"}},
    Entry{79, {"the GPU has fallen off the bus (PCIe link lost: power, thermal or hardware)", XidOrigin::hardware,
               "reboot the node; if it recurs, have the GPU, riser or power checked"}},
    Entry{92, {"high single-bit ECC error rate", XidOrigin::hardware, "an early warning: plan to reset or replace the GPU"}},
    Entry{94, {"contained uncorrectable ECC error (only the affected processes were stopped)", XidOrigin::hardware,
               "restart the job; reset the GPU when convenient"}},
    Entry{95, {"uncontained uncorrectable ECC error (every process on the GPU is affected)", XidOrigin::hardware,
               "reset the GPU before running anything on it"}},
    Entry{119, {"GSP firmware RPC timeout", XidOrigin::hardware, "reset the GPU; if it recurs, update the driver or disable GSP firmware"}},
    Entry{120, {"GSP firmware error", XidOrigin::hardware, "reset the GPU"}},
    Entry{154, {"the driver changed the GPU's required recovery action (after another error)", XidOrigin::hardware,
                "follow the action it names: GPU reset or node reboot"}},
};

}  // namespace

std::optional<XidMeaning> xid_meaning(int code) {
  for (const auto& entry : kCatalogue) {
    if (entry.code == code) return entry.meaning;
  }
  return std::nullopt;
}

std::string_view to_string(XidOrigin origin) {
  switch (origin) {
    case XidOrigin::hardware: return "hardware";
    case XidOrigin::application: return "application";
    case XidOrigin::secondary: return "secondary";
  }
  return "hardware";
}

}  // namespace ftdiag::parse
