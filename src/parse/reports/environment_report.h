// Environment reports people keep beside a job, read as text: the output of
// `python -m torch.utils.collect_env`, `accelerate env`, `transformers env`,
// `ds_report`, `nvidia-smi` (its table, -L and -q), `pip list`, `pip freeze`,
// `conda list`, `free`, and plain sentences ("single node 56GB Memory,
// 1GPU"). A pure parser: from text to the values the reports state, each
// with the 1-based line it came from, so a finding can quote it. It never
// runs a program, and what it reads is whatever a user pasted: reports are
// recognised by their lines, never by a file's name.
//
// Total: it never throws and never reads out of bounds; garbage gives no
// values. Bounded: lines longer than kMaxReportLineBytes are skipped whole
// (no report writes such a line), values are cut at kMaxReportValueBytes,
// and at most kMaxReportedValues values are kept per text.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ftdiag::parse {

inline constexpr std::size_t kMaxReportLineBytes = 4096;
inline constexpr std::size_t kMaxReportValueBytes = 256;
inline constexpr std::size_t kMaxReportedValues = 512;

// One value a report stated. Keys are stable and dotted (docs/evidence.md,
// the host's `reported`): "package.torch" -> "2.1.0+cu121",
// "torch.cuda_version" -> "12.1", "gpu.driver_version" -> "535.54.03",
// "gpu.0.name", "gpu.0.memory_bytes" and "host.mem_total_bytes" (sizes as
// decimal bytes), "deepspeed.installed_ops" -> "cpu_adam,fused_adam".
struct ReportedSetting {
  std::string key;
  std::string value;
  std::uint64_t line = 0;  // 1-based
  std::string format;      // the report that said it: "collect-env", "ds-report", "nvidia-smi", ... "prose"

  bool operator==(const ReportedSetting&) const = default;
};

// Every value the text states, in the order the readers found them; a key
// may come more than once (two reports in one file, a report and a pip
// list): a repeated key with the same value is kept once, at its first line.
std::vector<ReportedSetting> parse_environment_report(std::string_view text);

}  // namespace ftdiag::parse
