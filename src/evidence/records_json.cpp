#include "evidence/records_json.h"

#include <fmt/format.h>

#include "evidence/json_fields.h"
#include "evidence/record_fields.h"

namespace ftdiag::evidence {

using nlohmann::json;

json write_json(const ExitStatus& status) {
  json j = {{"exit_code", write_json(status.exit_code)},
            {"signal", write_json(status.signal)},
            {"core_dumped", status.core_dumped},
            {"launcher_code", status.launcher_code()},
            {"description", status.describe()}};
  if (status.signal) j["signal_name"] = signal_name(*status.signal);
  return j;
}

// launcher_code, description and signal_name are derived: written for
// readers of the JSON, recomputed rather than read.
void read_json(const json& j, ExitStatus& status) {
  if (!j.is_object()) throw std::invalid_argument("expected an exit status object");
  status = ExitStatus{};
  if (auto it = j.find("exit_code"); it != j.end()) read_json(*it, status.exit_code);
  if (auto it = j.find("signal"); it != j.end()) read_json(*it, status.signal);
  status.core_dumped = j.value("core_dumped", false);
}

void read_json(const json& j, char& out) {
  const auto text = j.get<std::string>();
  if (text.size() != 1) throw std::invalid_argument("expected a one-letter code, got \"" + text + "\"");
  out = text[0];
}

json record_to_json(const JournalRecord& record) {
  return std::visit(
      [](const auto& r) {
        json j = write_json(r);
        j["type"] = record_type<std::decay_t<decltype(r)>>();
        return j;
      },
      record);
}

namespace {

template <class Record>
bool try_parse(const json& j, std::string_view type, std::optional<JournalRecord>& out) {
  if (type != record_type<Record>()) return false;
  Record record;
  read_json(j, record);
  out = std::move(record);
  return true;
}

template <class... Records>
std::optional<JournalRecord> parse_any(const json& j, std::string_view type, std::variant<Records...>*) {
  std::optional<JournalRecord> out;
  (try_parse<Records>(j, type, out) || ...);
  return out;
}

}  // namespace

Fact<JournalRecord> record_from_json(const json& j) {
  try {
    if (!j.is_object()) return Missing{MissingReason::unparseable, "not a JSON object"};
    auto type_it = j.find("type");
    if (type_it == j.end() || !type_it->is_string()) return Missing{MissingReason::unparseable, "no \"type\""};
    const auto type = type_it->get<std::string>();
    auto record = parse_any(j, type, static_cast<JournalRecord*>(nullptr));
    if (!record) return Missing{MissingReason::unparseable, fmt::format("unknown record type \"{}\"", type)};
    return std::move(*record);
  } catch (const std::exception& e) {
    return Missing{MissingReason::unparseable, e.what()};
  }
}

}  // namespace ftdiag::evidence
