// Loading rules/log-events.json: every mistake in the table is refused with
// the file, line and column of the offending value, so a broken pattern is
// found when the table is written, not when a job dies.
#include <algorithm>
#include <array>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>
#include <re2/re2.h>

#include "base/read_file.h"
#include "parse/logs/line_event_entry.h"
#include "parse/logs/line_event_prefilter.h"
#include "parse/logs/line_events.h"
#include "parse/logs/signal_text.h"
#include "parse/text/json_text_positions.h"
#include "parse/text/regex_literals.h"

namespace ftdiag::parse {

namespace {

using json = nlohmann::json;

constexpr std::array<std::string_view, 6> kEntryFields{"kind", "source", "pattern", "literal", "signal", "details"};
constexpr std::array<std::string_view, 4> kKindFields{"kind", "means", "fields", "what"};
// What a kind may mean for a diagnosis (docs/log-events.md).
constexpr std::array<std::string_view, 5> kMeanings{"failure", "teardown", "detail", "pressure", "status"};

// A refusal: the pointer of the value at fault and what is wrong with it.
struct TableError {
  std::string pointer;
  std::string message;
};

bool is_lower_word_char(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// "launcher-teardown": lower case, words joined by single dashes.
bool is_dashed_name(std::string_view name) {
  if (name.empty() || name.front() < 'a' || name.front() > 'z' || name.back() == '-') return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (name[i] == '-' ? name[i - 1] == '-' : !is_lower_word_char(name[i])) return false;
  }
  return true;
}

// "count", "memory_used": what a detail (and a named group) may be called.
bool is_detail_name(std::string_view name) {
  if (name.empty() || name.front() < 'a' || name.front() > 'z') return false;
  return std::all_of(name.begin(), name.end(), [](char c) { return is_lower_word_char(c) || c == '_'; });
}

std::optional<LineEventField> typed_field(std::string_view name) {
  if (name == "pid") return LineEventField::pid;
  if (name == "signal") return LineEventField::signal;
  if (name == "exit_code") return LineEventField::exit_code;
  if (name == "rank") return LineEventField::rank;
  return std::nullopt;
}

std::optional<TableError> require_string(const json& entry, const std::string& at, const char* field) {
  if (!entry.contains(field)) return TableError{at, fmt::format("missing \"{}\" (each entry needs kind, source, pattern, literal)", field)};
  if (!entry[field].is_string()) return TableError{at + "/" + field, fmt::format("\"{}\" must be a string", field)};
  return std::nullopt;
}

}  // namespace

// Builds a table from parsed JSON; a friend of LineEventTable.
class LineEventTableBuilder {
 public:
  std::optional<TableError> add_all(const json& root) {
    if (!root.is_object()) return TableError{"", "expected an object {\"events\": [...]}"};
    for (const auto& [key, value] : root.items()) {
      if (key == "kind") {
        if (!value.is_string() || value.get<std::string>() != "log-events") return TableError{"/kind", "this table's kind is \"log-events\""};
        continue;
      }
      if (key != "events" && key != "kinds") {
        return TableError{"/" + json_pointer_token(key), fmt::format("unknown field \"{}\" (expected \"kind\", \"kinds\", \"events\")", key)};
      }
    }
    if (!root.contains("kinds") || !root["kinds"].is_array()) return TableError{"", "expected {\"kinds\": [...], \"events\": [...]}"};
    const auto& kinds = root["kinds"];
    for (std::size_t i = 0; i < kinds.size(); ++i) {
      if (auto error = declare(kinds[i], fmt::format("/kinds/{}", i))) return error;
    }
    if (!root.contains("events") || !root["events"].is_array()) return TableError{"", "expected {\"kinds\": [...], \"events\": [...]}"};
    const auto& events = root["events"];
    for (std::size_t i = 0; i < events.size(); ++i) {
      if (auto error = add(events[i], fmt::format("/events/{}", i))) return error;
    }
    return std::nullopt;
  }

  LineEventTable finish() && {
    table_.prefilter_ = std::make_unique<LineEventPrefilter>(std::move(literals_));
    return std::move(table_);
  }

 private:
  struct KindDeclaration {
    std::string means;
    std::set<std::string, std::less<>> fields;
  };

  std::optional<TableError> declare(const json& kind, const std::string& at) {
    if (!kind.is_object()) return TableError{at, "each kind must be an object {\"kind\", \"means\", \"fields\", \"what\"}"};
    for (const auto& [key, value] : kind.items()) {
      if (std::find(kKindFields.begin(), kKindFields.end(), key) == kKindFields.end()) {
        return TableError{at + "/" + json_pointer_token(key), fmt::format("unknown field \"{}\" (expected {})", key, fmt::join(kKindFields, ", "))};
      }
    }
    for (const char* field : {"kind", "means", "what"}) {
      if (!kind.contains(field) || !kind[field].is_string()) return TableError{at, fmt::format("a kind needs \"{}\", a string", field)};
    }
    const auto name = kind["kind"].get<std::string>();
    if (!is_dashed_name(name)) return TableError{at + "/kind", fmt::format("kind \"{}\" must be lower case words joined by dashes", name)};
    if (declared_.count(name)) return TableError{at + "/kind", fmt::format("kind \"{}\" is declared twice", name)};
    KindDeclaration declaration{kind["means"].get<std::string>(), {}};
    if (std::find(kMeanings.begin(), kMeanings.end(), declaration.means) == kMeanings.end()) {
      return TableError{at + "/means", fmt::format("\"means\" is one of {}", fmt::join(kMeanings, ", "))};
    }
    if (!kind.contains("fields") || !kind["fields"].is_array()) return TableError{at, "a kind needs \"fields\": the names its entries may fill"};
    for (std::size_t i = 0; i < kind["fields"].size(); ++i) {
      const auto& field = kind["fields"][i];
      if (!field.is_string() || !is_detail_name(field.get<std::string>())) {
        return TableError{fmt::format("{}/fields/{}", at, i), "a field is a name in lower case ([a-z][a-z0-9_]*)"};
      }
      declaration.fields.insert(field.get<std::string>());
    }
    table_.kind_means_.emplace_back(name, declaration.means);
    declared_.emplace(name, std::move(declaration));
    return std::nullopt;
  }

  // Every field an entry fills is one its kind declares: a misspelt group
  // name is refused here, not lost in a detail no fact reads.
  std::optional<TableError> check_fields(const LineEventTable::Entry& compiled, const KindDeclaration& kind, const std::string& at) const {
    const auto undeclared = [&](const std::string& name) {
      return TableError{at, fmt::format("kind \"{}\" declares no field \"{}\" (its fields: {}); declare it in \"kinds\"", compiled.kind,
                                        name, fmt::join(kind.fields, ", "))};
    };
    for (const auto& group : compiled.groups) {
      if (!kind.fields.count(group.name)) return undeclared(group.name);
    }
    for (const auto& [name, value] : compiled.details) {
      if (!kind.fields.count(name)) return undeclared(name);
    }
    if (compiled.signal && !kind.fields.count("signal")) return undeclared("signal");
    return std::nullopt;
  }

  std::optional<TableError> add(const json& entry, const std::string& at) {
    if (!entry.is_object()) return TableError{at, "each event entry must be an object"};
    for (const auto& [key, value] : entry.items()) {
      if (std::find(kEntryFields.begin(), kEntryFields.end(), key) == kEntryFields.end()) {
        return TableError{at + "/" + json_pointer_token(key),
                          fmt::format("unknown field \"{}\" (expected {})", key, fmt::join(kEntryFields, ", "))};
      }
    }
    for (const char* field : {"kind", "source", "pattern", "literal"}) {
      if (auto error = require_string(entry, at, field)) return error;
    }
    LineEventTable::Entry compiled;
    compiled.kind = entry["kind"].get<std::string>();
    compiled.source = entry["source"].get<std::string>();
    if (!is_dashed_name(compiled.kind)) {
      return TableError{at + "/kind", fmt::format("kind \"{}\" must be lower case words joined by dashes", compiled.kind)};
    }
    if (!is_dashed_name(compiled.source)) {
      return TableError{at + "/source", fmt::format("source \"{}\" must be lower case words joined by dashes", compiled.source)};
    }
    const auto declared = declared_.find(compiled.kind);
    if (declared == declared_.end()) {
      return TableError{at + "/kind", fmt::format("kind \"{}\" is not declared in \"kinds\"", compiled.kind)};
    }
    compiled.means = declared->second.means;
    if (auto error = add_fixed_values(entry, at, compiled)) return error;
    if (auto error = compile(entry["pattern"].get<std::string>(), at + "/pattern", compiled)) return error;
    if (auto error = check_fields(compiled, declared->second, at)) return error;
    if (auto error = add_literal(entry["literal"].get<std::string>(), at, compiled)) return error;
    table_.patterns_.push_back({compiled.kind, compiled.source, compiled.regex->pattern(), literals_[compiled.literal]});
    table_.entries_.push_back(std::move(compiled));
    return std::nullopt;
  }

  static std::optional<TableError> add_fixed_values(const json& entry, const std::string& at, LineEventTable::Entry& compiled) {
    if (entry.contains("signal")) {
      const auto& signal = entry["signal"];
      if (signal.is_number_integer()) {
        const auto number = signal.get<long long>();
        if (number >= 1 && number <= 64) compiled.signal = static_cast<int>(number);
      } else if (signal.is_string()) {
        compiled.signal = signal_number_from_text(signal.get<std::string>());
      }
      if (!compiled.signal) return TableError{at + "/signal", "\"signal\" must be a signal number (1-64) or name (\"SIGKILL\")"};
    }
    if (!entry.contains("details")) return std::nullopt;
    if (!entry["details"].is_object()) return TableError{at + "/details", "\"details\" must be an object of strings"};
    for (const auto& [key, value] : entry["details"].items()) {
      if (!is_detail_name(key) || typed_field(key)) {
        return TableError{at + "/details/" + json_pointer_token(key), fmt::format("detail name \"{}\" must be lower case ([a-z][a-z0-9_]*) and not pid, signal, exit_code or rank", key)};
      }
      if (!value.is_string()) return TableError{at + "/details/" + json_pointer_token(key), "detail values must be strings"};
      compiled.details[key] = value.get<std::string>();
    }
    return std::nullopt;
  }

  static std::optional<TableError> compile(const std::string& pattern, const std::string& at, LineEventTable::Entry& compiled) {
    re2::RE2::Options options;
    options.set_log_errors(false);
    compiled.regex = std::make_unique<re2::RE2>(pattern, options);
    if (!compiled.regex->ok()) return TableError{at, fmt::format("bad regular expression: {}", compiled.regex->error())};
    if (compiled.regex->NumberOfCapturingGroups() > kMaxLineEventGroups) {
      return TableError{at, fmt::format("more than {} capturing groups; use (?:...) for groups that capture nothing", kMaxLineEventGroups)};
    }
    for (const auto& [name, index] : compiled.regex->NamedCapturingGroups()) {
      const auto field = typed_field(name);
      if (!field && !is_detail_name(name)) {
        return TableError{at, fmt::format("named group \"{}\": a group is pid, signal, exit_code, rank, or a detail named in lower case ([a-z][a-z0-9_]*)", name)};
      }
      if (compiled.details.count(name) > 0) return TableError{at, fmt::format("named group \"{}\" is also a fixed detail", name)};
      if (field == LineEventField::signal && compiled.signal) return TableError{at, "a (?P<signal>...) group and a fixed \"signal\" in one entry"};
      compiled.groups.push_back({index, field.value_or(LineEventField::detail), name});
      compiled.submatches = std::max(compiled.submatches, index + 1);
    }
    return std::nullopt;
  }

  std::optional<TableError> add_literal(const std::string& literal, const std::string& at, LineEventTable::Entry& compiled) {
    if (literal.size() < LineEventPrefilter::kWindow) {
      return TableError{at + "/literal", fmt::format("literal \"{}\" is shorter than {} bytes: too common to filter lines", literal, LineEventPrefilter::kWindow)};
    }
    const auto runs = required_literal_runs(compiled.regex->pattern());
    const bool implied = std::any_of(runs.begin(), runs.end(), [&](const std::string& run) { return run.find(literal) != std::string::npos; });
    if (!implied) {
      return TableError{at + "/literal", fmt::format("literal \"{}\" is not text the pattern always requires (it must appear in the pattern outside groups, classes, alternatives and optional parts)", literal)};
    }
    const auto known = std::find(literals_.begin(), literals_.end(), literal);
    compiled.literal = static_cast<std::size_t>(known - literals_.begin());
    if (known == literals_.end()) {
      if (literals_.size() == LineEventPrefilter::kMaxLiterals) {
        return TableError{at + "/literal", fmt::format("more than {} distinct literals", LineEventPrefilter::kMaxLiterals)};
      }
      literals_.push_back(literal);
    }
    return std::nullopt;
  }

  LineEventTable table_;
  std::vector<std::string> literals_;
  std::map<std::string, KindDeclaration, std::less<>> declared_;
};

std::variant<LineEventTable, std::string> LineEventTable::parse(std::string_view json_text, const std::string& source_name) {
  json root;
  try {
    root = json::parse(json_text, nullptr, /*allow_exceptions=*/true, /*ignore_comments=*/true);
  } catch (const json::parse_error& e) {
    // e.byte is 1-based: the byte after the last one read.
    const auto at = position_of_offset(json_text, e.byte > 0 ? e.byte - 1 : 0);
    return fmt::format("{}:{}:{}: not valid JSON: {}", source_name, at.line, at.column, e.what());
  } catch (const json::exception& e) {
    return fmt::format("{}: not valid JSON: {}", source_name, e.what());
  }
  LineEventTableBuilder builder;
  if (auto error = builder.add_all(root)) {
    const auto positions = index_json_text_positions(json_text);
    const auto found = positions.find(error->pointer);
    const auto where = error->pointer.empty() ? std::string() : fmt::format(" (at {})", error->pointer);
    if (found == positions.end()) return fmt::format("{}: {}{}", source_name, error->message, where);
    return fmt::format("{}:{}:{}: {}{}", source_name, found->second.line, found->second.column, error->message, where);
  }
  return std::move(builder).finish();
}

std::variant<LineEventTable, std::string> LineEventTable::load(const std::filesystem::path& file) {
  auto text = read_small_file(file, 4 << 20);
  if (!text) return fmt::format("{}: {}", file.string(), text.missing().detail);
  return parse(text.value(), file.string());
}

}  // namespace ftdiag::parse
