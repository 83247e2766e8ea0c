// The text a regular expression requires: the runs of literal characters at
// its top level (outside groups and classes, not made optional by a
// quantifier, with no top-level alternation), which every string the
// expression matches contains. Used to check that a prefilter literal is
// implied by its pattern, so the prefilter never hides a line the pattern
// would match.
//
// Conservative by design: anything not understood ends the current run (an
// escape like \d, \x41 or \pL, a group, a class, '.', anchors), and a
// case-insensitive flag at the top level ("(?i)") ends all runs. A run may
// therefore be shorter than what the pattern really requires, never longer.
// RE2 syntax: https://github.com/google/re2/wiki/Syntax
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ftdiag::parse {

std::vector<std::string> required_literal_runs(std::string_view pattern);

}  // namespace ftdiag::parse
