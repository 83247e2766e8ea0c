// DeepSpeed's `ds_report`: "name ...... value" lines padded with dots
// (deepspeed/env_report.py) and the op table ("cpu_adam ..... [NO] .......
// [OKAY]": installed, then compatible).
#include <algorithm>
#include <array>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/text.h"
#include "parse/reports/report_reader.h"
#include "parse/reports/report_text.h"

namespace ftdiag::parse::report {

namespace {

constexpr std::string_view kDsReportFormat = "ds-report";
constexpr std::size_t kMaxOps = 64;

// "torch version .................... 2.0.1+cu118" -> {"torch version",
// "2.0.1+cu118"}; empty when the line has no run of dots after a name.
std::pair<std::string_view, std::string_view> dotted(std::string_view text) {
  const auto dots = text.find(" ..");
  if (dots == std::string_view::npos || dots == 0) return {};
  auto rest = text.substr(dots + 1);
  while (!rest.empty() && rest.front() == '.') rest.remove_prefix(1);
  if (rest.empty() || rest.front() != ' ') return {};
  return {text::trim(text.substr(0, dots)), text::trim(rest)};
}

// "torch 2.0, cuda 11.8" (what DeepSpeed's ops were compiled with).
void add_compiled_with(std::string_view value, std::uint64_t line, Sink& sink) {
  for (auto part : text::split(value, ',')) {
    const auto fields = text::fields(part);
    if (fields.size() != 2) continue;
    if (fields[0] == "torch") sink.add(kDsReportFormat, "deepspeed.built_torch_release", leading_version(fields[1]), line);
    if (fields[0] == "cuda") sink.add(kDsReportFormat, "deepspeed.built_cuda_version", leading_version(fields[1]), line);
  }
}

void add_general(std::string_view name, std::string_view value, std::uint64_t line, Sink& sink) {
  if (name == "torch version") sink.add(kDsReportFormat, "package.torch", leading_version(value), line);
  else if (name == "torch cuda version") sink.add(kDsReportFormat, "torch.cuda_version", leading_version(value), line);
  else if (name == "torch hip version") sink.add(kDsReportFormat, "torch.hip_version", leading_version(value), line);
  else if (name == "nvcc version") sink.add(kDsReportFormat, "cuda.toolkit_version", leading_version(value), line);
  else if (name == "deepspeed info") sink.add(kDsReportFormat, "package.deepspeed", leading_version(value), line);  // "0.9.2, hash, branch"
  else if (name == "deepspeed wheel compiled w.") add_compiled_with(value, line, sink);
  else if (name == "shared memory (/dev/shm) size") {
    if (auto bytes = leading_size(value)) sink.add(kDsReportFormat, "host.shm_total_bytes", std::to_string(*bytes), line);
  }
}

class DsReportReader final : public Reader {
 public:
  void line(const Line& line, Sink& sink) override {
    const auto [name, value] = dotted(text::trim(line.text));
    if (name.empty()) return;
    if (name == "op name") {
      table_line_ = line.number;  // the header: "op name ..... installed .. compatible"
      return;
    }
    if (table_line_ && value.starts_with("[")) return op_row(name, value);
    add_general(name, value, line.number, sink);
  }

  void finish(Sink& sink) override {
    if (!table_line_) return;
    std::sort(installed_.begin(), installed_.end());
    sink.add_list(kDsReportFormat, "deepspeed.installed_ops", fmt::format("{}", fmt::join(installed_, ",")), table_line_);
  }

 private:
  void op_row(std::string_view name, std::string_view value) {
    if (!value.starts_with("[YES]") || installed_.size() >= kMaxOps || name.size() > 64) return;
    if (std::find(installed_.begin(), installed_.end(), name) == installed_.end()) installed_.emplace_back(name);
  }

  std::uint64_t table_line_ = 0;
  std::vector<std::string> installed_;
};

}  // namespace

std::unique_ptr<Reader> ds_report_reader() { return std::make_unique<DsReportReader>(); }

}  // namespace ftdiag::parse::report
