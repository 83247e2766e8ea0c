// Internal to the environment-report parser: small total helpers over one
// report line (versions, sizes, labels, package names). Each returns
// nullopt or an empty view for anything it does not recognise.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ftdiag::parse::report {

// The version at the start of `text`: a digit, then digits, letters and
// . + - _ ("2.1.0+cu121", "4.20.0.dev0", "535.54.03"); a trailing '.' or ','
// is dropped ("3.9." in a sentence). Empty when `text` starts otherwise
// ("N/A", "None", "not installed").
std::string_view leading_version(std::string_view text);

// "186.70 GB", "81920MiB", "251G", "15Gi", "1.5 TiB", "512 kB" -> bytes. A
// G means 2^30 whether written G, GB or GiB: memory is sized in binary units
// and the tools that print "GB" (accelerate env, ds_report) divide by 1024^3.
// `rest` receives what follows the unit. Nullopt without a unit.
std::optional<std::uint64_t> leading_size(std::string_view text, std::string_view* rest = nullptr);

// A unit name alone ("Gi", "G", "MiB") -> its multiplier; nullopt otherwise.
std::optional<std::uint64_t> unit_multiplier(std::string_view unit);

// "- `Accelerate` version" -> "accelerate version": list bullets, backticks
// and surrounding spaces gone, lowercase, runs of spaces folded.
std::string simplified_label(std::string_view label);

// Strips a Markdown list bullet ("- ", "* ") and the spaces around it.
std::string_view without_bullet(std::string_view text);

// The normalised distribution name ("torch-scatter", "flash-attn") when a
// report's version of it is worth keeping: the packages that decide how a
// training job runs and those often pinned beside them; "pytorch" (conda's
// name) is torch. Empty for any other name.
std::string kept_package(std::string_view name);

// "true"/"false" for Python's True/False (any case); empty otherwise.
std::string_view python_bool(std::string_view text);

std::string lowercase(std::string_view text);
bool contains_icase(std::string_view text, std::string_view word);

}  // namespace ftdiag::parse::report
