// Explanation templates: "peak {cgroup.peak_bytes} of {cgroup.limit_bytes}"
// filled with the facts' values in their units ("peak 512.0 MiB of 512.0 MiB").
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "facts/fact_set.h"

namespace ftdiag::rules {

// The fact names a template refers to, in order.
std::vector<std::string> template_facts(std::string_view text);

// A value as a sentence shows it: in its unit ("512.0 MiB"); a text on one
// line (runs of blanks and newlines become one space), cut at 160 bytes.
std::string display_value(const facts::FactValue& value, facts::Unit unit);

// Fills a template with display_value; a missing fact reads "unknown". A
// part written "[[ ... ]]" is shown only when every fact it names is known
// (", which held {oom.victim_anon_rss_bytes}" says nothing when unknown);
// "[[A||B]]" shows B instead.
std::string render_template(std::string_view text, const facts::FactSet& facts);

}  // namespace ftdiag::rules
