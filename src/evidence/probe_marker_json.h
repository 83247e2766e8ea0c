// A phase marker as the Python probe sends it, one datagram each
// (docs/probes.md): {"v":1,"pid":P,"rank":R,"time":T,"marker":"begin",
// "phase":"checkpoint-save","what":"torch.save"}. The sender is a process of
// the job, so anything may arrive: a datagram that is not a marker is
// refused with the reason, never thrown.
#pragma once

#include <string>
#include <string_view>
#include <variant>

#include "evidence/records.h"

namespace ftdiag::evidence {

// The marker, or why the datagram is not one.
std::variant<ProbeMarker, std::string> parse_probe_marker(std::string_view datagram);

}  // namespace ftdiag::evidence
