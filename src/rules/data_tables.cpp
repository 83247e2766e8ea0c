#include "rules/data_tables.h"

#include <set>

#include <fmt/format.h>

#include "facts/registry.h"
#include "facts/version_order.h"
#include "rules/data_file.h"
#include "rules/rule_loader.h"

namespace ftdiag::rules {

namespace {

using nlohmann::json;

class TableParser {
 public:
  TableParser(std::string_view text, std::string file, std::vector<LoadError>& errors)
      : file_(std::move(file)), errors_(errors), positions_(index_json_positions(text)) {}

  std::optional<DataTable> parse(const json& root) {
    for (const auto& [key, value] : root.items()) {
      if (key != "kind" && key != "name" && key != "lookups" && key != "rows" && key != "$comment") {
        error("/" + escape_pointer_token(key), fmt::format("unknown key \"{}\" (kind, name, lookups, rows)", key));
      }
    }
    DataTable table;
    table.source = file_;
    if (!root.contains("name") || !root["name"].is_string() || root["name"].get<std::string>().empty()) {
      error("", "a table needs a \"name\"");
    } else {
      table.name = root["name"].get<std::string>();
    }
    if (!root.contains("lookups") || !root["lookups"].is_array() || root["lookups"].empty()) {
      error("", "a table needs \"lookups\": [{\"key\": FACT, \"match\": \"exact\"|\"version-floor\", \"derive\": {FACT: COLUMN}}]");
      return std::nullopt;
    }
    for (std::size_t i = 0; i < root["lookups"].size(); ++i) lookup(root["lookups"][i], fmt::format("/lookups/{}", i), table);
    if (!root.contains("rows") || !root["rows"].is_array() || root["rows"].empty()) {
      error("", "a table needs \"rows\": [{\"key\": VALUE, COLUMN: VALUE, ...}]");
      return std::nullopt;
    }
    for (std::size_t i = 0; i < root["rows"].size(); ++i) row(root["rows"][i], fmt::format("/rows/{}", i), table);
    if (errors_before_ != errors_.size()) return std::nullopt;
    return table;
  }

 private:
  void error(const std::string& pointer, std::string message) {
    errors_.push_back({file_, nearest_position(positions_, pointer), pointer, std::move(message)});
  }

  void lookup(const json& j, const std::string& at, DataTable& table) {
    if (!j.is_object() || !j.contains("key") || !j["key"].is_string() || !j.contains("derive") || !j["derive"].is_object()) {
      error(at, "a lookup is {\"key\": FACT, \"match\": \"exact\"|\"version-floor\", \"derive\": {FACT: COLUMN}}");
      return;
    }
    for (const auto& [key, value] : j.items()) {
      if (key != "key" && key != "match" && key != "derive") error(at + "/" + escape_pointer_token(key), fmt::format("unknown key \"{}\"", key));
    }
    TableLookup l;
    l.key_fact = j["key"].get<std::string>();
    const auto* key_spec = facts::find_fact(l.key_fact);
    if (!key_spec) error(at + "/key", fmt::format("unknown fact \"{}\"", l.key_fact));
    const std::string match = j.value("match", std::string("exact"));
    if (match == "version-floor") {
      l.match = TableLookup::Match::version_floor;
      if (key_spec && key_spec->unit != facts::Unit::version) error(at + "/match", fmt::format("\"version-floor\" needs a version fact; \"{}\" is not one", l.key_fact));
    } else if (match != "exact") {
      error(at + "/match", "\"match\" is \"exact\" or \"version-floor\"");
    }
    for (const auto& [fact, column] : j["derive"].items()) {
      const auto* spec = facts::find_fact(fact);
      if (!spec) error(at + "/derive/" + escape_pointer_token(fact), fmt::format("unknown fact \"{}\"", fact));
      if (!column.is_string() || column.get<std::string>().empty()) {
        error(at + "/derive/" + escape_pointer_token(fact), "a derived fact names a column (a string)");
        continue;
      }
      l.derive[fact] = column.get<std::string>();
    }
    table.lookups.push_back(std::move(l));
  }

  void row(const json& j, const std::string& at, DataTable& table) {
    if (!j.is_object() || !j.contains("key")) {
      error(at, "a row is an object with a \"key\"");
      return;
    }
    // A version lookup's keys are versions written as strings: 12.10 as a
    // JSON number would read as 12.1.
    for (const auto& l : table.lookups) {
      const auto* spec = facts::find_fact(l.key_fact);
      if (spec && spec->unit == facts::Unit::version && !j["key"].is_string()) {
        error(at + "/key", fmt::format("the key of a version lookup ({}) is a version in a string, like \"12.8\"", l.key_fact));
        return;
      }
    }
    const std::string key_text = j["key"].is_string() ? j["key"].get<std::string>() : j["key"].dump();
    if (!keys_.insert(key_text).second) {
      error(at + "/key", fmt::format("the key {} is in the table twice", key_text));
      return;
    }
    std::map<std::string, facts::FactValue> values;
    for (const auto& [column, value] : j.items()) {
      if (column == "$comment") continue;
      if (value.is_string()) values[column] = value.get<std::string>();
      else if (value.is_boolean()) values[column] = value.get<bool>();
      else if (value.is_number_integer()) values[column] = value.get<std::int64_t>();
      else if (value.is_number()) values[column] = value.get<double>();
      else error(at + "/" + escape_pointer_token(column), "a cell is a string, number or boolean");
    }
    // Each derived fact's column must fit its type where the row has it.
    for (const auto& l : table.lookups) {
      for (const auto& [fact, column] : l.derive) {
        const auto* spec = facts::find_fact(fact);
        auto cell = values.find(column);
        if (!spec || cell == values.end()) continue;
        const auto type = facts::type_of(cell->second);
        const bool fits = type == spec->type || (facts::is_numeric(type) && facts::is_numeric(spec->type));
        if (!fits) {
          error(at + "/" + escape_pointer_token(column), fmt::format("column \"{}\" fills \"{}\", of type {}", column, fact, facts::to_string(spec->type)));
        } else if (spec->unit == facts::Unit::version && !facts::looks_like_version(std::get<std::string>(cell->second))) {
          error(at + "/" + escape_pointer_token(column), fmt::format("\"{}\" is a version fact; this cell is not a version", fact));
        }
      }
    }
    table.rows.push_back(std::move(values));
  }

  std::string file_;
  std::vector<LoadError>& errors_;
  std::size_t errors_before_ = errors_.size();
  std::set<std::string> keys_;
  std::map<std::string, TextPosition> positions_;
};

std::string text_of(const facts::FactValue& v) { return facts::format_value(v, facts::Unit::none); }

// The row for `value`, or null.
const std::map<std::string, facts::FactValue>* find_row(const DataTable& table, const TableLookup& lookup,
                                                        const facts::FactValue& value) {
  const std::string wanted = text_of(value);
  const std::map<std::string, facts::FactValue>* best = nullptr;
  for (const auto& row : table.rows) {
    const std::string key = text_of(row.at("key"));
    if (lookup.match == TableLookup::Match::exact) {
      const auto* spec = facts::find_fact(lookup.key_fact);
      const bool equal = spec && spec->unit == facts::Unit::version ? facts::compare_versions(key, wanted) == 0 : key == wanted;
      if (equal) return &row;
      continue;
    }
    // version-floor: same major, not above the value, the greatest such.
    const auto major = [](const std::string& v) { return v.substr(0, v.find('.')); };
    if (major(key) != major(wanted) || facts::compare_versions(key, wanted) > 0) continue;
    if (!best || facts::compare_versions(key, text_of(best->at("key"))) > 0) best = &row;
  }
  return best;
}

}  // namespace

void parse_table_file(std::string_view text, const std::string& file_name, std::vector<DataTable>& into,
                      std::vector<LoadError>& errors) {
  const auto root = parse_data_file_object(text, file_name, "a table file is an object {\"kind\": \"table\", ...}", errors);
  if (!root) return;
  if (auto table = TableParser(text, file_name, errors).parse(*root)) into.push_back(std::move(*table));
}

void apply_tables(const std::vector<DataTable>& tables, facts::FactSet& facts) {
  for (const auto& table : tables) {
    for (const auto& lookup : table.lookups) {
      const auto& key = facts.get(lookup.key_fact);
      for (const auto& [fact, column] : lookup.derive) {
        if (facts.get(fact).value) continue;  // extraction knew better
        if (!key.value) {
          facts.set_missing(fact, {MissingReason::not_present, fmt::format("{} is missing", lookup.key_fact)});
          continue;
        }
        const auto* row = find_row(table, lookup, key.value.value());
        const facts::FactValue* cell = nullptr;
        if (row) {
          if (auto it = row->find(column); it != row->end()) cell = &it->second;
        }
        if (!cell) {
          facts.set_missing(fact, {MissingReason::not_present,
                                   row ? fmt::format("the table {} has no {} for {} {}", table.name, column, lookup.key_fact, text_of(key.value.value()))
                                       : fmt::format("no row for {} {} in the table {}", lookup.key_fact, text_of(key.value.value()), table.name)});
          continue;
        }
        facts.set(fact, *cell, key.pointer);
      }
    }
  }
}

}  // namespace ftdiag::rules
