// The block form of the tables' patterns (collectors/log_scan_patterns.h):
// only anchors change, and only where they are anchors.
#include <doctest/doctest.h>

#include "collectors/log_scan_patterns.h"

using ftdiag::collectors::block_form_of_event_pattern;
using ftdiag::collectors::block_form_of_phase_pattern;

TEST_CASE("log scan patterns: anchors admit what the readers strip") {
  CHECK(block_form_of_event_pattern("Killed$") == "Killed(?:[ \\t\\r\\x00]*$)");
  CHECK(block_form_of_event_pattern("^(?P<pod>\\S+)\\s+OOMKilled") == "(?:^\\x00*)(?P<pod>\\S+)\\s+OOMKilled");
  CHECK(block_form_of_event_pattern("(?:^|[\\r\\]]|^\\S*[:\\]]) *Killed$") ==
        "(?:(?:^\\x00*)|[\\r\\]]|(?:^\\x00*)\\S*[:\\]]) *Killed(?:[ \\t\\r\\x00]*$)");
  CHECK(block_form_of_phase_pattern("^\\s*Train:\\s+\\d+%\\|$") == "^\\s*Train:\\s+\\d+%\\|(?:\\r?$)");
}

TEST_CASE("log scan patterns: escaped, quoted and class characters are not anchors") {
  for (const char* pattern : {"costs \\$5", "[$^]x", "[^$]x", "[]$]x", "[[:alpha:]$]x", "\\Q^a$\\E", "a\\\\\\$", "no anchors"}) {
    CAPTURE(pattern);
    CHECK(block_form_of_event_pattern(pattern) == pattern);
    CHECK(block_form_of_phase_pattern(pattern) == pattern);
  }
  CHECK(block_form_of_event_pattern("a\\\\$") == "a\\\\(?:[ \\t\\r\\x00]*$)");  // an escaped backslash, then an anchor
  CHECK(block_form_of_event_pattern("[a]$") == "[a](?:[ \\t\\r\\x00]*$)");
}
