#include "parse/configs/hostfile.h"

#include <fmt/format.h>

#include "base/text.h"

namespace ftdiag::parse {

std::optional<DottedSettings> read_hostfile(std::string_view text) {
  DottedSettings settings;
  std::uint64_t hosts = 0, slots_total = 0;
  for (auto line : text::lines(text)) {
    if (const auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    const auto fields = text::fields(line);
    if (fields.empty()) continue;
    if (fields.size() != 2 || !fields[1].starts_with("slots=")) return std::nullopt;
    const auto slots = text::to_u64(fields[1].substr(6));
    if (!slots || *slots > 1'000'000) return std::nullopt;
    if (hosts < kMaxHostfileHosts) {
      settings[fmt::format("hosts.{}.name", hosts)] = std::string(fields[0]);
      settings[fmt::format("hosts.{}.slots", hosts)] = std::to_string(*slots);
    }
    ++hosts;
    slots_total += *slots;
  }
  if (hosts == 0) return std::nullopt;
  settings["host_count"] = std::to_string(hosts);
  settings["slots_total"] = std::to_string(slots_total);
  return settings;
}

}  // namespace ftdiag::parse
