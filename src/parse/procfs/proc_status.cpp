#include "parse/procfs/proc_status.h"

#include <fmt/format.h>

#include "parse/procfs/procfs_text.h"

namespace ftdiag::parse {
namespace {

// The kernel prints comm through seq_escape_str(..., ESCAPE_SPACE |
// ESCAPE_SPECIAL, "\n\\"), so only a newline and a backslash are escaped in
// practice; the other C escapes are undone too in case an older kernel used them.
std::string unescape_comm(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\' || i + 1 == text.size()) {
      out.push_back(text[i]);
      continue;
    }
    char next = text[++i];
    switch (next) {
      case 'n': out.push_back('\n'); break;
      case 't': out.push_back('\t'); break;
      case 'r': out.push_back('\r'); break;
      case 'f': out.push_back('\f'); break;
      case 'v': out.push_back('\v'); break;
      case 'a': out.push_back('\a'); break;
      case 'e': out.push_back('\x1b'); break;
      default: out.push_back(next); break;  // "\\" and "\"" keep the second char
    }
  }
  return out;
}

std::vector<int> parse_int_list(std::string_view value) {
  std::vector<int> out;
  for (auto field : text::fields(value)) {
    auto number = text::to_int(field);
    if (!number) return {};  // a half-read namespace chain would mislead
    out.push_back(*number);
  }
  return out;
}

// Applies one "Key:\tvalue" line; returns whether the key was known and valid.
bool apply_line(ProcStatus& status, std::string_view key, std::string_view raw) {
  std::string_view value = text::trim(raw);
  auto bytes = [&](std::optional<std::uint64_t>& field) {
    field = text::kib_value_to_bytes(value);
    return field.has_value();
  };
  auto integer = [&](std::optional<int>& field) {
    field = text::to_int(value);
    return field.has_value();
  };
  if (key == "Name") {
    // Only the tab after the colon is syntax; a comm may begin or end with spaces.
    if (!raw.empty() && raw.front() == '\t') raw.remove_prefix(1);
    status.name = unescape_comm(raw);
    return true;
  }
  if (key == "State") {
    if (value.empty()) return false;
    status.state = value.front();
    return true;
  }
  if (key == "Tgid") return integer(status.tgid);
  if (key == "PPid") return integer(status.ppid);
  if (key == "Threads") return integer(status.threads);
  if (key == "NSpid") {
    status.nspid = parse_int_list(value);
    return !status.nspid.empty();
  }
  if (key == "VmRSS") return bytes(status.vm_rss);
  if (key == "RssAnon") return bytes(status.rss_anon);
  if (key == "RssFile") return bytes(status.rss_file);
  if (key == "RssShmem") return bytes(status.rss_shmem);
  if (key == "VmHWM") return bytes(status.vm_hwm);
  if (key == "VmSwap") return bytes(status.vm_swap);
  if (key == "VmSize") return bytes(status.vm_size);
  return false;
}

}  // namespace

Fact<ProcStatus> parse_proc_status(std::string_view text) {
  ProcStatus status;
  int known = 0;
  for (auto line : text::lines(text)) {
    auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    if (apply_line(status, line.substr(0, colon), line.substr(colon + 1))) ++known;
  }
  if (known == 0) {
    return Missing{MissingReason::unparseable,
                   fmt::format("no known /proc/PID/status key in {} bytes", text.size())};
  }
  return status;
}

}  // namespace ftdiag::parse
