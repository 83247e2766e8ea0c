// libFuzzer target: environment reports (collect_env, accelerate env,
// ds_report, nvidia-smi, pip/conda lists, free, sentences) as users paste them.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "parse/reports/environment_report.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto values = ftdiag::parse::parse_environment_report(text);
  if (values.size() > ftdiag::parse::kMaxReportedValues) __builtin_trap();
  std::uint64_t lines = 1;
  for (char c : text) lines += c == '\n';
  for (const auto& value : values) {
    // Every value is bounded, has a key, and cites a line the text has.
    if (value.key.empty() || value.value.size() > ftdiag::parse::kMaxReportValueBytes) __builtin_trap();
    if (value.line == 0 || value.line > lines) __builtin_trap();
  }
  return 0;
}
