// Differential: the reader of journal lines (journal_parse.cpp, with
// journal_canonical.h for lines as `ftdiag run` writes them) and the nlohmann
// path it replaces must agree on every input: the same record, or both refuse
// it. Whatever the reader accepts must also read back the same after being
// written again, and parse the same in place whatever bytes follow it in the
// buffer, and into the memory of a record read before (read_journal reuses
// its records).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "evidence/journal_parse.h"
#include "evidence/records_json.h"

namespace {

using namespace ftdiag;
using namespace ftdiag::evidence;

Fact<JournalRecord> nlohmann_path(std::string_view text, bool& was_json, std::size_t& depth) {
  auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  was_json = !j.is_discarded();
  if (!was_json) return Missing{MissingReason::unparseable, "not JSON"};
  struct Depth {
    static std::size_t of(const nlohmann::json& v) {
      std::size_t deepest = 0;
      if (v.is_structured()) {
        for (const auto& item : v) deepest = std::max(deepest, of(item));
        return deepest + 1;
      }
      return 0;
    }
  };
  depth = Depth::of(j);
  return record_from_json(j);
}

// nlohmann's get<int>() converts 1.5 or 2^40 where the simdjson reader
// refuses them; json_fields.h may check ranges too, and then they agree.
bool nlohmann_is_strict() {
  static const bool strict = [] {
    bool json = false;
    std::size_t depth = 0;
    return !nlohmann_path(R"({"type":"death","time":1,"pid":1.5})", json, depth).has_value();
  }();
  return strict;
}

bool is_range_refusal(const Fact<JournalRecord>& r) {
  if (r.has_value()) return false;
  const auto& d = r.missing().detail;
  return d.find("is not an integer") != std::string::npos || d.find("is out of range") != std::string::npos;
}

[[noreturn]] void disagree(std::string_view what, std::string_view text, const Fact<JournalRecord>& simd,
                           const Fact<JournalRecord>& other) {
  std::fprintf(stderr, "journal_parse: %.*s\n  input: %.*s\n  simdjson: %s\n  other:    %s\n",
               static_cast<int>(what.size()), what.data(), static_cast<int>(text.size()), text.data(),
               simd ? record_to_json(simd.value()).dump().c_str() : simd.missing().detail.c_str(),
               other ? record_to_json(other.value()).dump().c_str() : other.missing().detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto simd = parse_journal_line(text);

  // In place, with bytes after the line that could mislead a reader running
  // past its end (closing brackets, digits, quotes).
  {
    const std::size_t capacity = size + JournalLineParser::padding();
    auto buffer = std::make_unique<char[]>(capacity);
    if (size > 0) std::memcpy(buffer.get(), data, size);
    for (std::size_t i = size; i < capacity; ++i) buffer[i] = "}]\"1 \\e,:"[i % 9];
    JournalLineParser parser;
    const auto in_place = parser.parse_in_place(buffer.get(), size, capacity);
    if (in_place.has_value() != simd.has_value() || (simd && !(simd.value() == in_place.value()))) {
      disagree("in place differs", text, simd, in_place);
    }
    // A spare record of each kind a line may be read into: a sample with
    // processes, a process with a command line.
    MemorySample sample;
    sample.time = 1;
    sample.processes.resize(3);
    sample.processes[1].rss = Bytes{7};
    for (JournalRecord spare : {JournalRecord(sample), JournalRecord(ProcessSeen{1, 2, 3, {4}, {"a", "b"}, "c", 5u, "d"})}) {
      const auto reused = parser.parse_in_place(buffer.get(), size, capacity, &spare);
      if (reused.has_value() != simd.has_value() || (simd && !(simd.value() == reused.value()))) {
        disagree("read into a spare record differs", text, simd, reused);
      }
    }
  }

  if (simd) {
    const std::string again = record_to_json(simd.value()).dump();
    const auto reread = parse_journal_line(again);
    if (!reread || !(reread.value() == simd.value())) disagree("written again, reads differently", again, simd, reread);
  }

  // Lines whose only fault is a number that does not fit its member: the
  // lenient nlohmann path converts them (out of range, even undefined
  // behaviour), so they are not compared until it checks ranges too.
  if (!simd && is_range_refusal(simd) && !nlohmann_is_strict()) return 0;

  bool was_json = false;
  std::size_t depth = 0;
  const auto reference = nlohmann_path(text, was_json, depth);
  if (simd.has_value() != reference.has_value()) {
    if (was_json && depth > 1000) return 0;  // simdjson stops at 1024 levels, nlohmann does not
    disagree(simd ? "only simdjson accepts" : "only nlohmann accepts", text, simd, reference);
  }
  if (simd && !(simd.value() == reference.value())) disagree("different records", text, simd, reference);
  return 0;
}
