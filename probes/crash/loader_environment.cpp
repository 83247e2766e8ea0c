#include "crash/loader_environment.h"

#include <cstdlib>
#include <cstring>

namespace ftdiag::crash {

namespace {

// Long enough for a conda environment's library path; longer values are cut
// (the record says so with a trailing "...").
constexpr std::size_t kMaxValue = 4096;

struct Copied {
  const char* name;
  char value[kMaxValue + 4];
  bool present;
};

Copied g_variables[] = {{"LD_LIBRARY_PATH", {}, false}, {"LD_PRELOAD", {}, false}};

}  // namespace

void init_loader_environment() {
  for (auto& variable : g_variables) {
    const char* value = std::getenv(variable.name);
    if (!value) continue;
    variable.present = true;
    std::size_t length = std::strlen(value);
    const bool cut = length > kMaxValue;
    if (cut) length = kMaxValue;
    std::memcpy(variable.value, value, length);
    if (cut) std::memcpy(variable.value + length, "...", 3), length += 3;
    variable.value[length] = '\0';
    // One field per line, whatever the value holds.
    for (std::size_t i = 0; i < length; ++i) {
      if (variable.value[i] == '\n') variable.value[i] = '?';
    }
  }
}

void write_loader_environment(RecordWriter& out) {
  for (const auto& variable : g_variables) {
    if (variable.present) out.text("env ").text(variable.name).text(" ").text(variable.value).newline();
  }
}

}  // namespace ftdiag::crash
