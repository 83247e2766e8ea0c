#include "parse/python_env/torch_build.h"

#include "parse/python_env/python_literal.h"

namespace ftdiag::parse {
namespace {

// The key when the assignment is a string; nothing for None or anything else.
void copy_string(const std::map<std::string, PythonLiteral>& assignments, const std::string& name,
                 std::map<std::string, std::string>& build) {
  auto found = assignments.find(name);
  if (found != assignments.end() && found->second.is_string()) build[name] = found->second.text;
}

// Unset counts as None: version.py gained hip, rocm and xpu over the years.
bool none_or_unset(const std::map<std::string, PythonLiteral>& assignments, const std::string& name) {
  auto found = assignments.find(name);
  return found == assignments.end() || found->second.is_none();
}

// Only an explicit `cuda = None` says CPU-only: a file without a cuda line
// says nothing.
bool is_cpu_only(const std::map<std::string, PythonLiteral>& assignments) {
  auto cuda = assignments.find("cuda");
  if (cuda == assignments.end() || !cuda->second.is_none()) return false;
  return none_or_unset(assignments, "hip") && none_or_unset(assignments, "rocm") &&
         none_or_unset(assignments, "xpu");
}

}  // namespace

std::string local_version_tag(std::string_view version) {
  const auto plus = version.find('+');
  return plus == std::string_view::npos ? std::string() : std::string(version.substr(plus + 1));
}

Fact<TorchBuild> parse_torch_version_py(std::string_view text) {
  const auto assignments = parse_python_assignments(text);
  auto version = assignments.find("__version__");
  if (version == assignments.end() || !version->second.is_string() || version->second.text.empty()) {
    return Missing{MissingReason::unparseable, "no __version__ = '…' in torch's version.py"};
  }
  TorchBuild torch;
  torch.version = version->second.text;
  for (const char* name : {"cuda", "hip", "xpu", "git_version"}) copy_string(assignments, name, torch.build);
  const std::string tag = local_version_tag(torch.version);
  if (!tag.empty()) torch.build["local_tag"] = tag;
  if (is_cpu_only(assignments)) torch.build["cpu_only"] = "true";
  auto debug = assignments.find("debug");
  if (debug != assignments.end() && debug->second.kind == PythonLiteral::Kind::boolean && debug->second.boolean) {
    torch.build["debug"] = "true";
  }
  return torch;
}

}  // namespace ftdiag::parse
