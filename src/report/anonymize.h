// A report made fit to share in public (--anonymize): host names become
// host-1, host-2; user names in home directories become "user"; absolute
// paths outside the system's own directories keep only their last part
// ("…/train.py"), so a frame's file stays readable and the layout of a
// private disk does not leak. Runs after the redaction step, which removes
// secrets; this removes what identifies people and machines.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ftdiag::report {

std::string anonymize(std::string_view text, const std::vector<std::string>& host_names);

}  // namespace ftdiag::report
