// Environment reports left beside a job, post-mortem: torch's collect_env,
// `accelerate env`, `transformers env`, `ds_report`, nvidia-smi, pip and
// conda lists, free, or a sentence about the node — in any text file under
// PATH, recognised by its lines, never by its name (a console log may hold a
// collect_env block). The values go to the host's `reported`, each with its
// file and line (parse/reports/environment_report.h parses; docs/evidence.md lists
// the keys). The facts fall back on them where the GPUs and the Python
// installation were not probed.
#pragma once

#include <cstddef>

#include "collectors/collector.h"

namespace ftdiag::collectors {

inline constexpr std::size_t kMaxReportFiles = 2000;                      // text files read under one path
inline constexpr std::size_t kMaxReportFileBytes = std::size_t{8} << 20;  // read of each file; the rest is left

class EnvironmentReportsCollector final : public Collector {
 public:
  std::string_view name() const override { return "environment-reports"; }
  std::string_view section() const override { return "hosts[].reported"; }
  Mode mode() const override { return Mode::post_mortem; }
  std::string_view looks_for() const override {
    return "an environment report in a text file of PATH (collect_env, accelerate env, transformers env, ds_report, nvidia-smi, "
           "pip/conda list, free)";
  }
  // Whether the first 256 KiB of some text file under PATH state an
  // environment value.
  bool recognises(const Inventory& inventory) const override;
  evidence::CollectorReport collect(const Inventory& inventory, const CollectContext& context,
                                    evidence::EvidenceDocument& document) const override;
};

}  // namespace ftdiag::collectors
