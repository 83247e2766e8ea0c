// The JSON renderings of the kernel log: journalctl -o json (one object per
// line) and dmesg -J (pretty-printed: one field per line; or one object per
// line). One physical line at a time.
#pragma once

#include <string>
#include <string_view>

#include "parse/kernel/kernel_log.h"

namespace ftdiag::parse::detail {

enum class JsonLine {
  not_json,    // read it as text
  structural,  // "{", "},{", "]", "\"dmesg\": [", a field not kept: nothing to emit
  field,       // a dmesg -J field before "msg": kept in the pending record
  record,      // a whole record: `out` holds it
  userspace,   // a journal record of another program: dropped
};

struct JsonRecord {
  std::string message;  // may hold several lines
  KernelStamp stamp;
};

// The fields of a pretty-printed dmesg -J record seen so far.
struct PendingDmesgRecord {
  KernelStamp stamp;
};

// `line` is trimmed. Never throws.
JsonLine read_json_line(std::string_view line, PendingDmesgRecord& pending, JsonRecord& out);

}  // namespace ftdiag::parse::detail
