// "Label: value" lines of the reports Python tools print for bug reports:
// torch's collect_env ("CUDA used to build PyTorch: 12.1"), `accelerate env`
// and `transformers env` ("- PyTorch version (GPU?): 2.2.0 (True)",
// "- System RAM: 186.70 GB"), and the same labels typed by hand ("- PyTorch:
// 2.8.0+cu128", "Python version 3.8.16").
#include <array>

#include "base/text.h"
#include "parse/reports/report_reader.h"
#include "parse/reports/report_text.h"

namespace ftdiag::parse::report {

namespace {

constexpr std::string_view kEnvReportFormat = "env-report";

// Where a label's value goes; how it is read is the kind's.
enum class Kind { version, torch_version, text, platform, boolean, size, gpu_name, gpus };
struct Label {
  std::string_view label;  // simplified_label()
  std::string_view key;
  Kind kind;
};

constexpr std::array kLabels = std::to_array<Label>({
    {"pytorch version", "package.torch", Kind::torch_version},
    {"pytorch version (gpu?)", "package.torch", Kind::torch_version},
    {"pytorch version (accelerator?)", "package.torch", Kind::torch_version},
    {"cuda used to build pytorch", "torch.cuda_version", Kind::version},
    {"rocm used to build pytorch", "torch.hip_version", Kind::version},
    {"is cuda available", "torch.cuda_available", Kind::boolean},
    {"python version", "python.version", Kind::version},
    {"python", "python.version", Kind::version},
    {"os", "host.os", Kind::text},
    {"platform", "host.platform", Kind::platform},
    {"python platform", "host.platform", Kind::platform},
    {"cuda runtime version", "cuda.toolkit_version", Kind::version},
    {"nvidia driver version", "gpu.driver_version", Kind::version},
    {"gpu type", "gpu.0.name", Kind::gpu_name},
    {"gpus", "gpu", Kind::gpus},
    {"system ram", "host.mem_total_bytes", Kind::size},
});

// "Linux-5.15.0-1058-aws-x86_64-with-glibc2.31" -> "5.15.0-1058-aws".
std::string_view kernel_of_platform(std::string_view platform) {
  constexpr std::string_view kLinux = "Linux-";
  if (!platform.starts_with(kLinux)) return {};
  platform.remove_prefix(kLinux.size());
  for (std::string_view machine : {"-x86_64", "-aarch64", "-ppc64le", "-s390x", "-arm64"}) {
    const auto at = platform.find(machine);
    if (at != std::string_view::npos && at > 0) return platform.substr(0, at);
  }
  return {};
}

// The label's end: an ASCII colon, or the full-width one of Chinese text.
std::pair<std::string_view, std::string_view> split_label(std::string_view text) {
  constexpr std::string_view kWideColon = "\xEF\xBC\x9A";
  const auto ascii = text.find(':');
  const auto wide = text.find(kWideColon);
  if (ascii == std::string_view::npos && wide == std::string_view::npos) return {};
  if (wide < ascii) return {text.substr(0, wide), text::trim(text.substr(wide + kWideColon.size()))};
  return {text.substr(0, ascii), text::trim(text.substr(ascii + 1))};
}

void add_torch_version(std::string_view key, std::string_view value, const Line& line, Sink& sink) {
  const auto version = leading_version(value);
  sink.add(kEnvReportFormat, key, version, line.number);
  // "2.2.0 (True)": whether CUDA was available; "(CUDA)" in transformers 4.4x.
  const auto open = value.find('(', version.size());
  if (open == std::string_view::npos) return;
  const auto inside = value.substr(open + 1, value.find(')', open) - open - 1);
  if (auto available = python_bool(inside); !available.empty()) sink.add(kEnvReportFormat, "torch.cuda_available", available, line.number);
  else if (inside == "CUDA") sink.add(kEnvReportFormat, "torch.cuda_available", "true", line.number);
}

// "2x NVIDIA RTX A6000, 47.536 GB memory each" or "NVIDIA A100".
void add_gpus(std::string_view value, const Line& line, Sink& sink) {
  std::size_t count = 1, i = 0;
  while (i < value.size() && value[i] >= '0' && value[i] <= '9' && i < 3) ++i;
  if (i > 0 && i < value.size() && (value[i] == 'x' || value[i] == 'X' || value[i] == '*')) {
    count = static_cast<std::size_t>(text::to_u64(value.substr(0, i)).value_or(0));
    value = text::trim(value.substr(i + 1));
    if (count == 0 || count > 64) return;
    sink.add(kEnvReportFormat, "gpu.count", std::to_string(count), line.number);
  }
  const auto comma = value.find(',');
  const auto name = text::trim(value.substr(0, comma));
  std::optional<std::uint64_t> memory;
  if (comma != std::string_view::npos) memory = leading_size(text::trim(value.substr(comma + 1)));
  for (std::size_t g = 0; g < count; ++g) {
    sink.add(kEnvReportFormat, "gpu." + std::to_string(g) + ".name", name, line.number);
    if (memory) sink.add(kEnvReportFormat, "gpu." + std::to_string(g) + ".memory_bytes", std::to_string(*memory), line.number);
  }
}

void add_labelled(const Label& label, std::string_view value, const Line& line, Sink& sink) {
  switch (label.kind) {
    case Kind::version: sink.add(kEnvReportFormat, label.key, leading_version(value), line.number); break;
    case Kind::torch_version: add_torch_version(label.key, value, line, sink); break;
    case Kind::text:
      if (!contains_icase(value, "could not collect")) sink.add(kEnvReportFormat, label.key, value, line.number);
      break;
    case Kind::platform:
      sink.add(kEnvReportFormat, label.key, value, line.number);
      sink.add(kEnvReportFormat, "host.kernel", kernel_of_platform(value), line.number);
      break;
    case Kind::boolean: sink.add(kEnvReportFormat, label.key, python_bool(value), line.number); break;
    case Kind::size:
      if (auto bytes = leading_size(value)) sink.add(kEnvReportFormat, label.key, std::to_string(*bytes), line.number);
      break;
    case Kind::gpu_name:
      if (!value.empty() && !contains_icase(value, "could not collect")) sink.add(kEnvReportFormat, label.key, value, line.number);
      break;
    case Kind::gpus: add_gpus(value, line, sink); break;
  }
}

// "transformers version" or "numpy" -> the package's key; empty otherwise.
std::string package_key(std::string_view label) {
  constexpr std::string_view kVersion = " version";
  if (label.ends_with(kVersion)) label.remove_suffix(kVersion.size());
  else if (const auto at = label.find(" version ("); at != std::string_view::npos) label = label.substr(0, at);
  const std::string name = kept_package(label);
  return name.empty() ? std::string() : "package." + name;
}

bool add_label_line(std::string_view text, const Line& line, Sink& sink) {
  const auto [raw_label, value] = split_label(text);
  if (raw_label.empty() || raw_label.size() > 64 || value.empty()) return false;
  const std::string label = simplified_label(raw_label);
  for (const auto& known : kLabels) {
    if (label != known.label) continue;
    add_labelled(known, value, line, sink);
    return true;
  }
  const std::string key = package_key(label);
  if (key.empty()) return false;
  sink.add(kEnvReportFormat, key, leading_version(value), line.number);
  return true;
}

// "Python version 3.8.16", "deepspeed version 0.9.2" in a sentence.
void add_version_phrase(std::string_view text, const Line& line, Sink& sink) {
  const std::string lowered = lowercase(text);
  const auto at = lowered.find(" version ");
  if (at == std::string::npos || at > 64) return;
  const std::string name = simplified_label(text.substr(0, at));
  const auto value = text::trim(text.substr(at + 9));
  if (name == "python" || name == "pytorch") {
    sink.add(kEnvReportFormat, name == "python" ? "python.version" : "package.torch", leading_version(value), line.number);
  } else if (const std::string package = kept_package(name); !package.empty()) {
    sink.add(kEnvReportFormat, "package." + package, leading_version(value), line.number);
  }
}

class EnvReportReader final : public Reader {
 public:
  void line(const Line& line, Sink& sink) override {
    const auto text = without_bullet(line.text);
    if (text.empty() || add_label_line(text, line, sink)) return;
    add_version_phrase(text, line, sink);
  }
};

}  // namespace

std::unique_ptr<Reader> env_report_reader() { return std::make_unique<EnvReportReader>(); }

}  // namespace ftdiag::parse::report
