// The journal and console readers meet files cut short by a SIGKILL, and
// whatever else a user points `ftdiag analyze` at: no input may crash them.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <nlohmann/json.hpp>

#include "evidence/console_lines.h"
#include "evidence/document_json.h"
#include "evidence/records_json.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)ftdiag::evidence::parse_console_line(text);
  auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return 0;
  (void)ftdiag::evidence::record_from_json(j);
  (void)ftdiag::evidence::document_from_json(j);
  return 0;
}
