// The patterns the plain-log scanner (log_file_scan.h) searches for in a
// block of many lines at once (parse/text/multi_pattern.h), in the form that
// finds every line the tables' own readers would match one line at a time.
//
// The readers see less than the block holds: a line without its end (the
// "\r" of "\r\n" included) and, for the line-event table, without trailing
// spaces, tabs, CRs and NULs or leading NULs (parse/logs/line_events.h). A
// pattern's anchors are widened to admit those bytes — "Killed$" must find
// "Killed \r\n" — so the search never misses a line the reader would match.
// Otherwise the patterns are the tables' own: the reader decides.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ftdiag::collectors {

// A rules/log-events.json pattern: "^" admits leading NULs, "$" trailing
// spaces, tabs, CRs and NULs.
std::string block_form_of_event_pattern(std::string_view pattern);
// A rules/phases.json pattern: "$" admits the "\r" of a CRLF line end.
std::string block_form_of_phase_pattern(std::string_view pattern);

// Lines that hold a kernel message, wherever they appear (a console with a
// dmesg pasted in, a Slurm output quoting the OOM killer); the kernel log's
// parser reads them afterwards as it reads a kernel log. RE2 and Hyperscan
// read them alike.
const std::vector<std::string>& kernel_line_patterns();

}  // namespace ftdiag::collectors
