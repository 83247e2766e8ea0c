// Every console line of a live job goes through LineEventTable::match(), and
// the table itself is data: neither a hostile line nor a hostile table may
// crash. Each input is matched, whole, against the project's
// rules/log-events.json; then the input up to its first NUL byte is parsed as
// a table and, when that loads, the rest is matched against it.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "parse/logs/line_events.h"

namespace {

using ftdiag::parse::LineEvent;
using ftdiag::parse::LineEventTable;

const LineEventTable& project_table() {
  static const auto loaded = LineEventTable::load(FTDIAG_SOURCE_DIR "/rules/log-events.json");
  if (!std::holds_alternative<LineEventTable>(loaded)) __builtin_trap();  // the shipped table must load
  return std::get<LineEventTable>(loaded);
}

// What a match promises: a kind of the table, a signal in range, pids and
// ranks that are not negative.
void check(const LineEventTable& table, const std::optional<LineEvent>& event) {
  if (!event) return;
  const auto kinds = table.kinds();
  if (std::find(kinds.begin(), kinds.end(), event->kind) == kinds.end()) __builtin_trap();
  if (event->signal && (*event->signal < 1 || *event->signal > 64)) __builtin_trap();
  if (event->pid && *event->pid < 0) __builtin_trap();
  if (event->rank && *event->rank < 0) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const auto& shipped = project_table();
  check(shipped, shipped.match(input));

  const auto split = input.find('\0');
  if (split == std::string_view::npos) return 0;
  auto table = LineEventTable::parse(input.substr(0, split), "fuzz.json");
  if (const auto* loaded = std::get_if<LineEventTable>(&table)) check(*loaded, loaded->match(input.substr(split + 1)));
  return 0;
}
