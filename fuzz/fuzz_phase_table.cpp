// The phase table is data (rules/phases.json) and every console line of a job
// is classified with it: neither a hostile table nor a hostile line may crash.
// The failure words (rules/failure-words.json) are read the same way, from the
// same input: a table of either kind, then a line.
// The input is the table's text, a NUL byte, then the line; without a NUL the
// text is both the table and the line.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "evidence/failure_words.h"
#include "evidence/phase_table.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const auto split = input.find('\0');
  const std::string_view table_text = input.substr(0, split);
  const std::string_view line = split == std::string_view::npos ? input : input.substr(split + 1);
  if (auto words = ftdiag::evidence::FailureWords::parse(table_text, "fuzz.json")) {
    const auto word = words->classify(line);
    const auto& known = words->words();
    if (word && std::none_of(known.begin(), known.end(), [&](const auto& w) { return w.name == *word; })) __builtin_trap();
  }
  auto table = ftdiag::evidence::PhaseTable::parse(table_text, "fuzz.json");
  if (!table) return 0;
  const auto phase = table->classify(line);
  // Whatever matched must be one of the table's phases.
  const auto& names = table->phases();
  if (phase && std::find(names.begin(), names.end(), *phase) == names.end()) __builtin_trap();
  return 0;
}
