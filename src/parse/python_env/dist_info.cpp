#include "parse/python_env/dist_info.h"

#include "base/text.h"

namespace ftdiag::parse {
namespace {

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

// "Name: torch" -> value of field `field`, or nullopt for another line.
std::optional<std::string_view> header_value(std::string_view line, std::string_view field) {
  const auto colon = line.find(':');
  if (colon == std::string_view::npos || !equals_ignoring_case(line.substr(0, colon), field)) return std::nullopt;
  return text::trim(line.substr(colon + 1));
}

bool strip_suffix(std::string_view& text, std::string_view suffix) {
  if (!text.ends_with(suffix)) return false;
  text.remove_suffix(suffix.size());
  return true;
}

}  // namespace

std::string normalize_distribution_name(std::string_view name) {
  std::string normalized;
  normalized.reserve(name.size());
  for (char c : name) {
    const bool separator = c == '-' || c == '_' || c == '.';
    if (!separator) {
      normalized += lower(c);
    } else if (!normalized.empty() && normalized.back() != '-') {
      normalized += '-';
    }
  }
  while (!normalized.empty() && normalized.back() == '-') normalized.pop_back();
  return normalized;
}

Fact<DistributionMetadata> parse_distribution_metadata(std::string_view text) {
  DistributionMetadata metadata;
  for (std::string_view line : text::lines(text)) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) break;  // the body (the long description) starts here
    if (line.front() == ' ' || line.front() == '\t') continue;  // a continued field
    if (auto name = header_value(line, "Name"); name && metadata.name.empty()) metadata.name = *name;
    if (auto version = header_value(line, "Version"); version && metadata.version.empty()) metadata.version = *version;
  }
  if (metadata.name.empty() || metadata.version.empty()) {
    return Missing{MissingReason::unparseable, "no Name: and Version: in the metadata's header"};
  }
  return metadata;
}

std::optional<DistributionEntry> parse_distribution_entry(std::string_view entry_name) {
  DistributionEntry entry;
  std::string_view stem = entry_name;
  if (strip_suffix(stem, ".dist-info")) {
    entry.kind = DistributionEntry::Kind::dist_info;
  } else if (strip_suffix(stem, ".egg-info")) {
    entry.kind = DistributionEntry::Kind::egg_info;
  } else {
    return std::nullopt;
  }
  const auto dash = stem.find('-');
  entry.name = normalize_distribution_name(stem.substr(0, dash));
  if (entry.name.empty()) return std::nullopt;
  if (dash != std::string_view::npos) {
    const std::string_view rest = stem.substr(dash + 1);
    entry.version = std::string(rest.substr(0, rest.find('-')));  // drops egg-info's -pyX.Y
  }
  return entry;
}

}  // namespace ftdiag::parse
