// Package versions, from lists and pins: `pip list` ("torch  2.1.0+cu121"),
// `pip freeze` and requirement pins ("torch==2.1.0", also inside a `pip
// install` or `conda install` line), `conda list` ("pytorch  2.1.0
// py3.10_cuda12.1_cudnn8.9.2_0  pytorch"), and collect_env's "[pip3]" and
// "[conda]" lines. Only the packages report_text.h keeps are read: a name
// and a version in two columns are too common in logs to take any name.
#include "base/text.h"
#include "parse/reports/report_reader.h"
#include "parse/reports/report_text.h"

namespace ftdiag::parse::report {

namespace {

constexpr std::string_view kPackagesFormat = "package-list";

std::string key_of(std::string_view name) {
  if (lowercase(name) == "python") return "python.version";
  const std::string package = kept_package(name);
  return package.empty() ? std::string() : "package." + package;
}

// A whole column that is a version with at least one dot ("2.1.0+cu121").
bool is_version_column(std::string_view field) {
  return !field.empty() && leading_version(field) == field && field.find('.') != std::string_view::npos;
}

// conda's build string of pytorch says its CUDA: "py3.10_cuda12.1_cudnn8.9.2_0".
std::string_view conda_cuda(std::string_view build) {
  const auto at = build.find("cuda");
  if (at == std::string_view::npos) return {};
  auto rest = build.substr(at + 4);
  std::size_t end = 0;
  while (end < rest.size() && ((rest[end] >= '0' && rest[end] <= '9') || rest[end] == '.')) ++end;
  const auto version = rest.substr(0, end);
  return version.find('.') == std::string_view::npos ? std::string_view() : version;
}

void add_pins(const std::vector<std::string_view>& fields, const Line& line, Sink& sink) {
  for (auto token : fields) {
    if (!token.empty() && (token.front() == '"' || token.front() == '\'')) token.remove_prefix(1);
    const auto equals = token.find('=');
    if (equals == std::string_view::npos || equals == 0) continue;
    auto version = token.substr(equals + 1);
    if (version.starts_with("=")) version.remove_prefix(1);  // pip's ==, conda's =
    const std::string key = key_of(token.substr(0, equals));
    if (!key.empty()) sink.add(kPackagesFormat, key, leading_version(version), line.number);
  }
}

void add_row(std::vector<std::string_view> fields, const Line& line, Sink& sink) {
  if (!fields.empty() && (fields[0] == "[conda]" || fields[0] == "[pip3]" || fields[0] == "[pip]")) fields.erase(fields.begin());
  if (fields.size() < 2 || fields.size() > 5 || !is_version_column(fields[1])) return;
  const std::string key = key_of(fields[0]);
  if (key.empty()) return;
  sink.add(kPackagesFormat, key, fields[1], line.number);
  if (key == "package.torch" && fields.size() >= 3) sink.add(kPackagesFormat, "torch.cuda_version", conda_cuda(fields[2]), line.number);
}

class PackageListReader final : public Reader {
 public:
  void line(const Line& line, Sink& sink) override {
    const auto fields = text::fields(line.text);
    if (fields.empty() || fields.size() > 64) return;
    add_pins(fields, line, sink);
    add_row(fields, line, sink);
  }
};

}  // namespace

std::unique_ptr<Reader> package_list_reader() { return std::make_unique<PackageListReader>(); }

}  // namespace ftdiag::parse::report
