#include "parse/reports/environment_report.h"

#include <array>

#include "parse/reports/report_reader.h"

namespace ftdiag::parse {

namespace report {

void Sink::add(std::string_view format, std::string_view key, std::string_view value, std::uint64_t line) {
  if (!value.empty()) add_list(format, key, value, line);
}

void Sink::add_list(std::string_view format, std::string_view key, std::string_view value, std::uint64_t line) {
  if (values_.size() >= kMaxReportedValues) return;
  std::string kept(value.substr(0, kMaxReportValueBytes));
  if (!seen_.emplace(std::string(key), kept).second) return;
  values_.push_back(ReportedSetting{.key = std::string(key), .value = std::move(kept), .line = line, .format = std::string(format)});
}

}  // namespace report

namespace {

// Drops terminal colour codes (ESC [ ... letter) and a line's trailing
// carriage return, into `out` (reused from line to line).
void clean_line(std::string_view raw, std::string& out) {
  out.clear();
  if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '\x1b' && i + 1 < raw.size() && raw[i + 1] == '[') {
      i += 2;
      while (i < raw.size() && !((raw[i] >= 'A' && raw[i] <= 'Z') || (raw[i] >= 'a' && raw[i] <= 'z'))) ++i;
      continue;
    }
    out.push_back(raw[i]);
  }
}

}  // namespace

std::vector<ReportedSetting> parse_environment_report(std::string_view text) {
  std::array readers{report::env_report_reader(), report::ds_report_reader(), report::nvidia_smi_reader(),
                     report::gpu_list_reader(),   report::package_list_reader(), report::free_reader(),
                     report::prose_reader()};
  report::Sink sink;
  std::string cleaned;
  std::uint64_t number = 0;
  while (!text.empty()) {
    const auto newline = text.find('\n');
    const auto raw = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    ++number;
    if (raw.size() > kMaxReportLineBytes) continue;
    clean_line(raw, cleaned);
    for (auto& reader : readers) reader->line(report::Line{cleaned, number}, sink);
  }
  for (auto& reader : readers) reader->finish(sink);
  return sink.take();
}

}  // namespace ftdiag::parse
