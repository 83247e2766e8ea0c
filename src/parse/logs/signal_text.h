// Signal numbers from the ways logs print a signal: "9", "SIGKILL", "KILL"
// (systemd's status=9/KILL), "Signals.SIGKILL" (Python's enum repr), and the
// strsignal(3) descriptions shells and PyTorch print ("Killed",
// "Segmentation fault", "Bus error", "Aborted", ...), in any letter case.
// Linux numbering (the same on x86_64 and arm64 for 1-31).
#pragma once

#include <optional>
#include <string_view>

namespace ftdiag::parse {

// nullopt for text that names no signal, and for numbers outside 1..64.
std::optional<int> signal_number_from_text(std::string_view text);

}  // namespace ftdiag::parse
