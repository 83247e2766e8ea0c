#include "parse/kernel/kernel_json_line.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "parse/kernel/kernel_text.h"

namespace ftdiag::parse::detail {
namespace {

using nlohmann::json;

// Both renderings are flat (a journal MESSAGE may be one array of bytes):
// anything nested deeper is not one of them, and is refused before the
// parser sees it.
bool nesting_at_most(std::string_view s, int limit) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > limit) return false;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return true;
}

bool only_punctuation(std::string_view s) {
  for (char c : s) {
    if (c != '{' && c != '}' && c != '[' && c != ']' && c != ',' && !text::is_blank(c)) return false;
  }
  return true;
}

std::optional<int> number_field(const json& value) {
  if (value.is_number_integer()) return value.get<int>();
  if (value.is_string()) return text::to_int(value.get_ref<const std::string&>());
  return std::nullopt;
}

// journald prints a MESSAGE that is not valid UTF-8 as an array of bytes.
std::optional<std::string> message_field(const json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (!value.is_array()) return std::nullopt;
  std::string bytes;
  bytes.reserve(value.size());
  for (const auto& byte : value) {
    if (!byte.is_number_unsigned() || byte.get<std::uint64_t>() > 255) return std::nullopt;
    bytes.push_back(static_cast<char>(byte.get<std::uint64_t>()));
  }
  return bytes;
}

std::optional<std::uint64_t> decimal_string(const json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_string()) return std::nullopt;
  return text::to_u64(it->get_ref<const std::string&>());
}

std::string string_field(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

JsonLine read_journal_object(const json& object, JsonRecord& out) {
  if (string_field(object, "_TRANSPORT") != "kernel" && string_field(object, "SYSLOG_IDENTIFIER") != "kernel") {
    return JsonLine::userspace;
  }
  auto field = object.find("MESSAGE");
  auto message = field != object.end() ? message_field(*field) : std::nullopt;
  if (!message) return JsonLine::structural;
  out.message = std::move(*message);
  out.stamp = {};
  if (auto us = decimal_string(object, "_SOURCE_MONOTONIC_TIMESTAMP")) {
    out.stamp.monotonic_us = static_cast<std::int64_t>(*us);
  }
  if (auto us = decimal_string(object, "__REALTIME_TIMESTAMP")) out.stamp.wall_time = static_cast<double>(*us) / 1e6;
  if (auto level = decimal_string(object, "PRIORITY")) out.stamp.level = static_cast<int>(*level & 7);
  if (auto facility = decimal_string(object, "SYSLOG_FACILITY")) out.stamp.facility = static_cast<int>(*facility & 127);
  return JsonLine::record;
}

void read_dmesg_level(const json& value, KernelStamp& stamp) {
  static constexpr std::string_view names[] = {"emerg", "alert", "crit", "err", "warn", "notice", "info", "debug"};
  if (auto number = number_field(value)) {
    stamp.level = *number & 7;
    if (*number > 7) stamp.facility = *number >> 3;
    return;
  }
  if (!value.is_string()) return;
  for (int i = 0; i < 8; ++i) {
    if (value.get_ref<const std::string&>() == names[i]) stamp.level = i;
  }
}

// One dmesg -J field, "key": value. `value` is the JSON text of the value.
JsonLine read_dmesg_field(std::string_view key, const json& value, PendingDmesgRecord& pending, JsonRecord& out) {
  if (key == "pri") {
    read_dmesg_level(value, pending.stamp);
  } else if (key == "fac") {
    if (value.is_string()) pending.stamp.facility = value.get_ref<const std::string&>() == "kern" ? 0 : 1;
  } else if (key == "time") {
    if (value.is_number() && std::isfinite(value.get<double>()) && value.get<double>() >= 0 &&
        value.get<double>() < 1e12) {
      pending.stamp.monotonic_us = std::llround(value.get<double>() * 1e6);
    }
  } else if (key == "caller") {
    if (value.is_string()) pending.stamp.caller = value.get<std::string>();
  } else if (key == "msg") {
    if (!value.is_string()) return JsonLine::structural;
    out.message = value.get<std::string>();
    out.stamp = std::move(pending.stamp);
    pending = {};
    return JsonLine::record;
  } else {
    return JsonLine::structural;
  }
  return JsonLine::field;
}

JsonLine read_dmesg_object(const json& object, PendingDmesgRecord& pending, JsonRecord& out) {
  pending = {};
  for (const char* key : {"pri", "fac", "time", "caller"}) {
    if (auto it = object.find(key); it != object.end()) read_dmesg_field(key, *it, pending, out);
  }
  auto msg = object.find("msg");
  return msg == object.end() ? JsonLine::structural : read_dmesg_field("msg", *msg, pending, out);
}

// A whole object on one line: "{...}", "{...},", "},{...}".
JsonLine read_object_line(std::string_view line, PendingDmesgRecord& pending, JsonRecord& out) {
  text::consume(line, "},");
  while (line.ends_with(',') || line.ends_with(' ')) line.remove_suffix(1);
  if (!line.starts_with('{') || !line.ends_with('}') || !nesting_at_most(line, 2)) return JsonLine::not_json;
  json object = json::parse(line.begin(), line.end(), nullptr, false);
  if (object.is_discarded() || !object.is_object()) return JsonLine::not_json;
  if (object.contains("MESSAGE")) return read_journal_object(object, out);
  if (object.contains("msg")) return read_dmesg_object(object, pending, out);
  return JsonLine::structural;
}

// A pretty-printed field: "\"time\":   241.674752,".
JsonLine read_field_line(std::string_view line, PendingDmesgRecord& pending, JsonRecord& out) {
  const auto key_end = line.find("\":");
  if (key_end == std::string_view::npos || key_end < 2) return JsonLine::not_json;
  std::string_view key = line.substr(1, key_end - 1);
  std::string_view value_text = text::trim(line.substr(key_end + 2));
  if (value_text.ends_with(',')) value_text.remove_suffix(1);
  if (value_text == "[" || value_text == "{") return JsonLine::structural;  // "dmesg": [
  if (!nesting_at_most(value_text, 1)) return JsonLine::not_json;
  json value = json::parse(value_text.begin(), value_text.end(), nullptr, false);
  if (value.is_discarded()) return JsonLine::not_json;
  return read_dmesg_field(key, value, pending, out);
}

}  // namespace

JsonLine read_json_line(std::string_view line, PendingDmesgRecord& pending, JsonRecord& out) {
  if (line.empty()) return JsonLine::not_json;
  const char first = line.front();
  if (first != '{' && first != '}' && first != '[' && first != ']' && first != '"') return JsonLine::not_json;
  try {
    if (only_punctuation(line)) return JsonLine::structural;
    if (first == '"') return read_field_line(line, pending, out);
    return read_object_line(line, pending, out);
  } catch (...) {
    // A value of an unexpected type: the line is not one of ours.
    return JsonLine::not_json;
  }
}

}  // namespace ftdiag::parse::detail
