#include "parse/python_env/deepspeed_build.h"

#include <algorithm>
#include <vector>

#include "base/text.h"
#include "parse/python_env/python_literal.h"

namespace ftdiag::parse {
namespace {

using Assignments = std::map<std::string, PythonLiteral>;

const PythonLiteral* find(const Assignments& assignments, const std::string& name) {
  auto found = assignments.find(name);
  return found == assignments.end() ? nullptr : &found->second;
}

// DeepSpeed writes True/False, and 1 for ops built by newer setup.py.
bool is_truthy(const PythonLiteral& value) {
  if (value.kind == PythonLiteral::Kind::boolean) return value.boolean;
  if (value.kind == PythonLiteral::Kind::number) return value.text != "0" && value.text != "0.0";
  return false;
}

std::string prebuilt_ops(const PythonLiteral& installed) {
  std::vector<std::string> names;
  for (const auto& item : installed.items) {
    if (is_truthy(item.value)) names.push_back(item.key);
  }
  std::sort(names.begin(), names.end());
  std::string joined;
  for (const auto& name : names) joined += (joined.empty() ? "" : ",") + name;
  return joined;
}

void copy_torch_info(const PythonLiteral& torch_info, std::map<std::string, std::string>& build) {
  static constexpr std::pair<const char*, const char*> kKeys[] = {
      {"version", "torch_version"}, {"cuda_version", "cuda_version"},
      {"hip_version", "hip_version"}, {"nccl_version", "nccl_version"}};
  for (const auto& [from, to] : kKeys) {
    const PythonLiteral* value = torch_info.find(from);
    if (value == nullptr) continue;
    const std::string text(text::trim(value->scalar_text()));
    if (!text.empty() && text != "0.0") build[to] = text;
  }
}

void copy_string(const Assignments& assignments, const std::string& name, const std::string& key,
                 std::map<std::string, std::string>& build) {
  const PythonLiteral* value = find(assignments, name);
  if (value != nullptr && value->is_string() && !value->text.empty()) build[key] = value->text;
}

}  // namespace

Fact<DeepSpeedBuild> parse_deepspeed_build_info(std::string_view text) {
  const Assignments assignments = parse_python_assignments(text);
  DeepSpeedBuild deepspeed;
  const PythonLiteral* version = find(assignments, "version");
  if (version != nullptr && version->is_string()) deepspeed.version = std::string(text::trim(version->text));
  const PythonLiteral* installed = find(assignments, "installed_ops");
  if (installed != nullptr && installed->kind == PythonLiteral::Kind::dict) {
    deepspeed.build["installed_ops"] = prebuilt_ops(*installed);
  }
  const PythonLiteral* torch_info = find(assignments, "torch_info");
  if (torch_info != nullptr) copy_torch_info(*torch_info, deepspeed.build);
  copy_string(assignments, "git_hash", "git_hash", deepspeed.build);
  copy_string(assignments, "accelerator_name", "accelerator", deepspeed.build);
  if (deepspeed.version.empty() && installed == nullptr && torch_info == nullptr) {
    return Missing{MissingReason::unparseable, "no version, installed_ops or torch_info in DeepSpeed's build info"};
  }
  return deepspeed;
}

}  // namespace ftdiag::parse
