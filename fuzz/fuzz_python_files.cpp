// libFuzzer target: the readers of a Python installation's files — torch's
// version.py, DeepSpeed's build info (both through the literal parser),
// METADATA headers and dist-info folder names, shebang and exec lines, env
// -S strings, and the interpreter's report — all fed the same bytes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "parse/configs/env_command.h"
#include "parse/python_env/deepspeed_build.h"
#include "parse/python_env/dist_info.h"
#include "parse/python_env/interpreter_report.h"
#include "parse/python_env/runtime_libraries.h"
#include "parse/python_env/shebang.h"
#include "parse/python_env/torch_build.h"

using namespace ftdiag::parse;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto torch = parse_torch_version_py(text)) {
    // A version was found: it is a non-empty string literal's value.
    if (torch->version.empty()) __builtin_trap();
  }
  (void)parse_deepspeed_build_info(text);
  if (auto metadata = parse_distribution_metadata(text)) {
    if (metadata->name.empty() || metadata->version.empty()) __builtin_trap();
  }
  (void)parse_distribution_entry(text);
  const std::string normalized = normalize_distribution_name(text);
  if (normalized.size() > size || normalized.starts_with('-') || normalized.ends_with('-')) __builtin_trap();
  if (auto shebang = parse_shebang(text)) {
    if (shebang->program.empty() || shebang->program.size() > size) __builtin_trap();
  }
  (void)parse_exec_line(text);
  (void)split_env_string(text);
  (void)names_cuda_or_torch_runtime(text);
  (void)parse_interpreter_report(text);
  return 0;
}
