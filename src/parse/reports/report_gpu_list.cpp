// GPUs listed one a line, "GPU 0: NVIDIA A100-SXM4-80GB", as torch's
// collect_env prints them (after "GPU models and configuration:", on the
// same line when there is one) and nvidia-smi -L does (with "(UUID: …)").
// A listing starts at GPU 0 and counts its consecutive lines.
#include "base/text.h"
#include "parse/reports/report_reader.h"
#include "parse/reports/report_text.h"

namespace ftdiag::parse::report {

namespace {

constexpr std::string_view kGpuListFormat = "gpu-list";
constexpr std::string_view kCollectEnvLabel = "GPU models and configuration:";

struct ListedGpu {
  int index = 0;
  std::string_view name;
};

std::optional<ListedGpu> listed_gpu(std::string_view text) {
  text = text::trim(text);
  if (text.starts_with(kCollectEnvLabel)) text = text::trim(text.substr(kCollectEnvLabel.size()));
  if (!text.starts_with("GPU ")) return std::nullopt;
  const auto colon = text.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  const auto index = text::to_int(text.substr(4, colon - 4));
  if (!index || *index < 0 || *index > 255) return std::nullopt;
  auto name = text::trim(text.substr(colon + 1));
  if (const auto uuid = name.find(" (UUID:"); uuid != std::string_view::npos) name = text::trim(name.substr(0, uuid));
  if (name.empty()) return std::nullopt;
  return ListedGpu{*index, name};
}

class GpuListReader final : public Reader {
 public:
  void line(const Line& line, Sink& sink) override {
    const auto gpu = listed_gpu(line.text);
    const bool continues = gpu && gpu->index == next_index_ && next_index_ > 0;
    if (!continues) end_listing(sink);
    if (!gpu || (!continues && gpu->index != 0)) return;
    if (next_index_ == 0) first_line_ = line.number;
    sink.add(kGpuListFormat, "gpu." + std::to_string(gpu->index) + ".name", gpu->name, line.number);
    ++next_index_;
  }

  void finish(Sink& sink) override { end_listing(sink); }

 private:
  void end_listing(Sink& sink) {
    if (next_index_ > 0) sink.add(kGpuListFormat, "gpu.count", std::to_string(next_index_), first_line_);
    next_index_ = 0;
  }

  int next_index_ = 0;  // the index the listing's next line must have; 0: no listing open
  std::uint64_t first_line_ = 0;
};

}  // namespace

std::unique_ptr<Reader> gpu_list_reader() { return std::make_unique<GpuListReader>(); }

}  // namespace ftdiag::parse::report
