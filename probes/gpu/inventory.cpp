#include "inventory.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>

namespace gpu_probe {

std::string format(const char* format, ...) {
  char text[512];
  va_list arguments;
  va_start(arguments, format);
  const int n = ::vsnprintf(text, sizeof text, format, arguments);
  va_end(arguments);
  if (n < 0) return {};
  return std::string(text, static_cast<std::size_t>(n) < sizeof text ? static_cast<std::size_t>(n) : sizeof text - 1);
}

std::string normalized_bus_id(const char* bus_id) {
  std::string text;
  for (const char* c = bus_id; *c; ++c) text += static_cast<char>(::tolower(static_cast<unsigned char>(*c)));
  const auto colon = text.find(':');
  if (colon == std::string::npos || colon <= 4) return text;
  const std::size_t extra = colon - 4;
  if (text.find_first_not_of('0') < extra) return text;  // a domain wider than 16 bits: keep it
  return text.substr(extra);
}

}  // namespace gpu_probe
