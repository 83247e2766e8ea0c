// libFuzzer target: any text read as a configuration (fragments, commands,
// hostfiles, Python dicts), and each lenient reader on its own.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "parse/configs/brace_fragment.h"
#include "parse/configs/config_text.h"
#include "parse/configs/json_settings.h"
#include "parse/configs/launch_command.h"
#include "parse/configs/yaml_lines.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ftdiag::parse;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  // The lenient readers stop one key past the bound, never later.
  if (read_brace_fragment(text).settings.size() > kMaxJsonSettingsKeys + 1) __builtin_trap();
  if (read_yaml_lines(text).settings.size() > kMaxJsonSettingsKeys + 1) __builtin_trap();
  if (auto command = read_launch_command(text); command && command->count("launcher") != 1) __builtin_trap();
  if (auto reading = read_config_text(text); reading && reading->kind.empty()) __builtin_trap();
  return 0;
}
