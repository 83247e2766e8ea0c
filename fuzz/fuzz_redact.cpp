// libFuzzer target: the redaction step (base/redact.h) over any text, as one
// piece, as lines of a sequence, as an argument vector and as a named value.
// Properties: no crash; redacting twice gives what redacting once gave; and
// no token of a known shape, nor a private key block, is left in the output.
#include <cstddef>
#include <cctype>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/redact.h"
#include "base/token_shapes.h"

namespace {

bool starts_word(std::string_view text, std::size_t at) {
  return at == 0 || (!std::isalnum(static_cast<unsigned char>(text[at - 1])) && text[at - 1] != '_');
}

void check_nothing_shaped_left(std::string_view out) {
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (!starts_word(out, i)) continue;
    if (ftdiag::token_shape_at(out, i) || ftdiag::private_key_block_at(out, i)) __builtin_trap();
  }
}

std::vector<std::string> split(std::string_view text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(separator, start);
    if (end == std::string_view::npos) end = text.size();
    parts.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  return parts;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ftdiag;
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  const std::string once = redact_text(text);
  if (redact_text(once) != once) __builtin_trap();
  check_nothing_shaped_left(once);

  // Lines of one sequence (a log's tail): a key block may span them.
  LineRedactor first;
  LineRedactor second;
  for (const auto& line : split(text, '\n')) {
    const std::string redacted = first.text(line);
    if (second.text(redacted) != redacted) __builtin_trap();
    check_nothing_shaped_left(redacted);
  }

  // An argument vector, NUL-separated as /proc/PID/cmdline.
  const auto argv = redact_argv(split(text, '\0'));
  if (redact_argv(argv) != argv) __builtin_trap();
  for (const auto& arg : argv) check_nothing_shaped_left(arg);

  // A named value: NAME=value, as an environment entry.
  if (const auto eq = text.find('='); eq != std::string_view::npos) {
    const std::string value = redact_env_value(text.substr(0, eq), text.substr(eq + 1));
    if (redact_env_value(text.substr(0, eq), value) != value) __builtin_trap();
    check_nothing_shaped_left(value);
  }
  return 0;
}
