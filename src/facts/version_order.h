// Ordering of version strings, for facts whose unit is `version` ("12.8",
// "535.104.05", "2.7.0+cu128"): rules compare a driver with the minimum a
// toolkit needs, a build's CUDA with the driver's.
#pragma once

#include <string_view>

namespace ftdiag::facts {

// Compares dot-separated numeric components ("12.10" > "12.9"); a missing
// component counts as 0 ("12" == "12.0"); each component's leading digits are
// its value ("0a0" is 0); a local tag after '+' is ignored. Negative, zero or
// positive, like strcmp.
int compare_versions(std::string_view a, std::string_view b);

// Whether the text reads as a version: a digit, then digits and dots, then
// optionally anything after '+', '-' or a letter ("1.13.0a0").
bool looks_like_version(std::string_view text);

}  // namespace ftdiag::facts
