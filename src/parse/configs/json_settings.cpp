#include "parse/configs/json_settings.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "parse/configs/dotted_settings.h"

namespace ftdiag::parse {
namespace {

using json = nlohmann::json;

// Printable ASCII only, bounded: the detail ends up in JSON documents, and
// nlohmann's "last read" may hold invalid UTF-8 or a whole 16 MiB token.
std::string shown(std::string_view text) { return printable_excerpt(text); }

// "[json.exception.parse_error.101] parse error at line 1, column 5: syntax
// error ..." -> "syntax error ...": the position is recomputed by the caller.
std::string parser_message(std::string_view what) {
  if (auto end = what.find("] "); what.starts_with("[json.exception.") && end != std::string_view::npos) {
    what.remove_prefix(end + 2);
  }
  if (auto colon = what.find(": "); what.starts_with("parse error") && colon != std::string_view::npos) {
    what.remove_prefix(colon + 2);
  }
  return shown(what);
}

Missing settings_unparseable(std::string detail) { return Missing{MissingReason::unparseable, std::move(detail)}; }

// nlohmann's SAX interface (json::sax_parse): builds the dotted keys while
// parsing, so the bounds stop a hostile input before it is all read and no
// document tree is ever built. Every event returns false to stop the parse.
class Flattener {
 public:
  explicit Flattener(std::string_view text) : text_(text) {}

  bool null() { return leaf("null"); }
  bool boolean(bool value) { return leaf(value ? "true" : "false"); }
  bool number_integer(json::number_integer_t value) { return leaf(std::to_string(value)); }
  bool number_unsigned(json::number_unsigned_t value) { return leaf(std::to_string(value)); }
  bool number_float(json::number_float_t, const json::string_t& written) { return leaf(written); }
  bool string(json::string_t& value) { return leaf(std::move(value)); }
  bool binary(json::binary_t&) { return fail(settings_unparseable("binary value")); }  // only from CBOR and the like
  bool start_object(std::size_t) { return open(false); }
  bool start_array(std::size_t) { return open(true); }
  bool end_object() { return close("{}"); }
  bool end_array() { return close("[]"); }
  bool key(json::string_t& name);
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& error) {
    // position counts the bytes read, the offending one included.
    return fail(settings_unparseable(fmt::format("{}: {}", line_column_of(text_, position > 0 ? position - 1 : 0),
                                        parser_message(error.what()))));
  }

  Fact<JsonSettings> result() && {
    if (error_) return std::move(*error_);
    return std::move(settings_);
  }

 private:
  struct Level {
    bool array = false;
    std::size_t base = 0;  // path_'s length at the container itself
    std::size_t next_index = 0;
    bool empty = true;
  };

  bool fail(Missing missing) {
    if (!error_) error_ = std::move(missing);
    return false;
  }
  bool begin_value();
  bool leaf(std::string value);
  bool put(std::string value);
  bool open(bool array);
  bool close(const char* empty_mark);
  void append_component(std::string_view component);
  void erase_subtree();
  Missing not_an_object() const;

  std::string_view text_;
  std::string path_;
  std::vector<Level> levels_;
  JsonSettings settings_;
  std::optional<Missing> error_;
};

void Flattener::append_component(std::string_view component) {
  path_.resize(levels_.back().base);
  if (levels_.size() > 1) path_ += '.';  // the top level's keys have no prefix
  path_ += component;
}

// A repeated key replaces what the earlier one left: the key itself and
// everything under it.
void Flattener::erase_subtree() {
  settings_.erase(path_);
  const std::string prefix = path_ + '.';
  auto first = settings_.lower_bound(prefix);
  auto last = first;
  while (last != settings_.end() && last->first.starts_with(prefix)) ++last;
  settings_.erase(first, last);
}

bool Flattener::key(json::string_t& name) {
  append_component(name);
  erase_subtree();
  return true;
}

// Places path_ at the value about to start: an array element gets its index.
bool Flattener::begin_value() {
  if (levels_.empty()) return fail(not_an_object());
  auto& level = levels_.back();
  level.empty = false;
  if (level.array) append_component(std::to_string(level.next_index++));
  return true;
}

bool Flattener::put(std::string value) {
  settings_.insert_or_assign(path_, std::move(value));
  if (settings_.size() <= kMaxJsonSettingsKeys) return true;
  return fail(settings_unparseable(fmt::format("more than {} settings (the last read: {}): not a configuration file",
                                      kMaxJsonSettingsKeys, shown(path_))));
}

bool Flattener::leaf(std::string value) { return begin_value() && put(std::move(value)); }

bool Flattener::open(bool array) {
  if (levels_.empty() && array) return fail(not_an_object());
  if (!levels_.empty() && !begin_value()) return false;
  if (levels_.size() >= kMaxJsonSettingsDepth) {
    return fail(settings_unparseable(fmt::format("nested deeper than {} levels (at {})", kMaxJsonSettingsDepth, shown(path_))));
  }
  levels_.push_back(Level{array, path_.size()});
  return true;
}

bool Flattener::close(const char* empty_mark) {
  const Level level = levels_.back();
  levels_.pop_back();
  path_.resize(level.base);
  // An empty section is a setting too ("zero_optimization": {} means its defaults).
  if (level.empty && !levels_.empty()) return put(empty_mark);
  return true;
}

Missing Flattener::not_an_object() const {
  const auto first = text_.find_first_not_of(" \t\r\n");
  return settings_unparseable(fmt::format("{}: the top level is not an object (a configuration is one)",
                                 line_column_of(text_, first == std::string_view::npos ? 0 : first)));
}

}  // namespace

Fact<JsonSettings> flatten_json_settings(std::string_view text) {
  if (text.size() > kMaxJsonSettingsBytes) {
    return settings_unparseable(fmt::format("more than {} MiB: not a configuration file", kMaxJsonSettingsBytes >> 20));
  }
  Flattener flattener(text);
  // Strict: anything but whitespace after the value is an error.
  json::sax_parse(text.begin(), text.end(), &flattener);
  return std::move(flattener).result();
}

}  // namespace ftdiag::parse
