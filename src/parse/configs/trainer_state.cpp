#include "parse/configs/trainer_state.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "parse/configs/json_settings.h"

namespace ftdiag::parse {
namespace {

using json = nlohmann::json;

Missing trainer_state_unparseable(std::string detail) { return Missing{MissingReason::unparseable, std::move(detail)}; }

}  // namespace

bool looks_like_trainer_state(std::string_view text) {
  const auto head = text.substr(0, 64 * 1024);
  return head.find("\"log_history\"") != std::string_view::npos || head.find("\"global_step\"") != std::string_view::npos;
}

Fact<DottedSettings> read_trainer_state(std::string_view text) {
  if (text.size() > kMaxTrainerStateBytes) {
    return trainer_state_unparseable(fmt::format("more than {} MiB: not a trainer state", kMaxTrainerStateBytes >> 20));
  }
  std::size_t entries = 0;
  json last;
  bool in_history = false;
  // Each entry of log_history is dropped once read, the last one kept aside:
  // memory stays that of one entry however long the history.
  auto keep = [&](int depth, json::parse_event_t event, json& parsed) {
    if (depth > static_cast<int>(kMaxJsonSettingsDepth)) return false;
    if (event == json::parse_event_t::key && depth == 1) in_history = parsed == "log_history";
    const bool entry_done = event == json::parse_event_t::object_end || event == json::parse_event_t::array_end ||
                            event == json::parse_event_t::value;
    if (in_history && depth == 2 && entry_done) {
      ++entries;
      last = std::move(parsed);
      return false;
    }
    return true;
  };
  json document;
  try {
    document = json::parse(text.begin(), text.end(), keep);
  } catch (const json::parse_error& error) {
    return trainer_state_unparseable(fmt::format("{}: {}", line_column_of(text, error.byte > 0 ? error.byte - 1 : 0),
                                   printable_excerpt(error.what())));
  }
  if (!document.is_object()) return trainer_state_unparseable("the top level is not an object (a trainer state is one)");
  if (document.contains("log_history")) {
    json history = json::object();
    history["length"] = entries;
    if (entries > 0) history["last"] = std::move(last);
    document["log_history"] = std::move(history);
  }
  // Invalid UTF-8 in a string becomes U+FFFD instead of an exception.
  return flatten_json_settings(document.dump(-1, ' ', false, json::error_handler_t::replace));
}

}  // namespace ftdiag::parse
