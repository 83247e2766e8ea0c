// nvidia-smi: the header of its table ("| NVIDIA-SMI 535.54.03   Driver
// Version: 535.54.03   CUDA Version: 12.2 |"), its GPU rows ("|   0  NVIDIA
// A100-SXM4-80GB   On | 00000000:07:00.0 Off | 0 |", then the row with
// "4MiB / 81920MiB"), and the same labels in `nvidia-smi -q` ("Driver
// Version        : 535.54.03").
#include <set>

#include "base/text.h"
#include "parse/reports/report_reader.h"
#include "parse/reports/report_text.h"

namespace ftdiag::parse::report {

namespace {

constexpr std::string_view kNvidiaSmiFormat = "nvidia-smi";
// nvidia-smi -q puts "CUDA Version" a line or two below "Driver Version".
constexpr std::uint64_t kCudaVersionLinesAfterDriver = 3;

// The version after "LABEL:" or "LABEL   :" in the line; empty otherwise.
std::string_view version_after(std::string_view text, std::string_view label) {
  const auto at = text.find(label);
  if (at == std::string_view::npos) return {};
  auto rest = text.substr(at + label.size());
  while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
  if (rest.empty() || rest.front() != ':') return {};
  return leading_version(text::trim(rest.substr(1)));
}

// "00000000:07:00.0 Off" starts with a PCI bus id.
bool starts_with_bus_id(std::string_view cell) {
  const auto id = cell.substr(0, cell.find(' '));
  if (id.size() < 7 || id.size() > 16 || id.find(':') == std::string_view::npos || id.find('.') == std::string_view::npos) return false;
  for (char c : id) {
    const bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    if (!hex && c != ':' && c != '.') return false;
  }
  return true;
}

struct GpuRow {
  int index = 0;
  std::string_view name;
};

// "   0  NVIDIA A100-SXM4-80GB          On  " with a bus id in the next cell.
std::optional<GpuRow> gpu_row(const std::vector<std::string_view>& cells) {
  if (cells.size() < 3 || !starts_with_bus_id(text::trim(cells[1]))) return std::nullopt;
  auto first = text::trim(cells[0]);
  const auto space = first.find(' ');
  const auto index = text::to_int(first.substr(0, space));
  if (!index || *index < 0 || *index > 255 || space == std::string_view::npos) return std::nullopt;
  auto name = text::trim(first.substr(space));
  for (std::string_view persistence : {" On", " Off"}) {
    if (name.ends_with(persistence)) name = text::trim(name.substr(0, name.size() - persistence.size()));
  }
  if (name.empty()) return std::nullopt;
  return GpuRow{*index, name};
}

// "      4MiB / 81920MiB " -> the total after the slash.
std::optional<std::uint64_t> memory_total(std::string_view cell) {
  const auto slash = cell.find('/');
  if (slash == std::string_view::npos || cell.find("MiB") == std::string_view::npos) return std::nullopt;
  return leading_size(text::trim(cell.substr(slash + 1)));
}

class NvidiaSmiReader final : public Reader {
 public:
  void line(const Line& line, Sink& sink) override {
    const auto text = line.text;
    if (auto driver = version_after(text, "Driver Version"); !driver.empty()) {
      sink.add(kNvidiaSmiFormat, "gpu.driver_version", driver, line.number);
      driver_line_ = line.number;
    }
    if (driver_line_ && line.number - driver_line_ <= kCudaVersionLinesAfterDriver) {
      sink.add(kNvidiaSmiFormat, "gpu.driver_cuda_version", version_after(text, "CUDA Version"), line.number);
    }
    table_row(line, sink);
  }

  void finish(Sink& sink) override {
    if (!indices_.empty()) sink.add(kNvidiaSmiFormat, "gpu.count", std::to_string(indices_.size()), first_row_line_);
  }

 private:
  void table_row(const Line& line, Sink& sink) {
    const auto text = text::trim(line.text);
    const bool row = text.starts_with("|");
    const auto cells = row ? text::split(text.substr(1), '|') : std::vector<std::string_view>{};
    if (pending_ && cells.size() >= 2) {
      if (auto total = memory_total(cells[1])) sink.add(kNvidiaSmiFormat, "gpu." + std::to_string(*pending_) + ".memory_bytes", std::to_string(*total), line.number);
    }
    pending_.reset();
    const auto gpu = gpu_row(cells);
    if (!gpu) return;
    sink.add(kNvidiaSmiFormat, "gpu." + std::to_string(gpu->index) + ".name", gpu->name, line.number);
    if (indices_.empty()) first_row_line_ = line.number;
    indices_.insert(gpu->index);
    pending_ = gpu->index;
  }

  std::uint64_t driver_line_ = 0;
  std::optional<int> pending_;  // the GPU whose memory row comes next
  std::set<int> indices_;
  std::uint64_t first_row_line_ = 0;
};

}  // namespace

std::unique_ptr<Reader> nvidia_smi_reader() { return std::make_unique<NvidiaSmiReader>(); }

}  // namespace ftdiag::parse::report
