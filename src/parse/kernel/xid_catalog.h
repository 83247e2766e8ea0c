// What an NVIDIA Xid code means, from NVIDIA's Xid catalogue (Ampere and
// newer) and its "immediate action" column. A reading aid for evidence
// ("Xid 79: the GPU has fallen off the bus"), not a verdict: rules decide.
#pragma once

#include <optional>
#include <string_view>

namespace ftdiag::parse {

// Who is usually at fault when the Xid appears.
enum class XidOrigin {
  hardware,     // the GPU, its memory, its link or its firmware failed
  application,  // a kernel of the job faulted (bad address, illegal instruction)
  secondary,    // a consequence of another error or of a process exiting
};

struct XidMeaning {
  std::string_view name;     // "GPU has fallen off the bus"
  XidOrigin origin;
  std::string_view action;   // "reset the GPU", "reboot the node", ...
};

std::optional<XidMeaning> xid_meaning(int code);
std::string_view to_string(XidOrigin origin);

}  // namespace ftdiag::parse
