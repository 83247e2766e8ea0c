// libFuzzer target: signal:signal_generate lines from trace_pipe, its loss
// reports, saved_cmdlines lookups, and the joining of lines cut across reads.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "parse/kernel/trace_pipe_lines.h"
#include "parse/kernel/trace_signal.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto record = ftdiag::parse::parse_signal_generate(text)) {
    // Both names are pieces of the input.
    if (record->sender_comm.size() + record->target_comm.size() > size) __builtin_trap();
    (void)ftdiag::parse::signal_result_name(record->result);
  }
  (void)ftdiag::parse::parse_lost_events(text);
  // A name found in saved_cmdlines is a piece of the input.
  if (auto comm = ftdiag::parse::find_saved_comm(text, size == 0 ? 0 : data[0] % 64)) {
    if (comm->empty() || comm->size() > size) __builtin_trap();
  }

  // The input as trace_pipe reads, cut where its first byte says, through a
  // small bound: every line comes out whole or is counted as overlong.
  ftdiag::parse::TracePipeLines lines(256);
  const std::size_t cut = size == 0 ? 0 : data[0] % size;
  std::size_t seen = 0;
  auto take = [&](std::string_view line) {
    seen += line.size() + 1;
    (void)ftdiag::parse::parse_signal_generate(line);
  };
  lines.feed(text.substr(0, cut), take);
  lines.feed(text.substr(cut), take);
  if (lines.pending_bytes() > 256 || seen > size) __builtin_trap();
  return 0;
}
