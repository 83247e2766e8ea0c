// The prefix each rendering of the kernel log puts before a message: what
// it says (stamp, level, caller) and where the message starts. One physical
// line at a time; the splitter (kernel_line.cpp) keeps what spans lines.
#pragma once

#include <string_view>

#include "parse/kernel/kernel_log.h"

namespace ftdiag::parse::detail {

enum class Rendering {
  plain,      // no recognisable prefix: a bare message
  kmsg,       // /dev/kmsg record: message still holds \xNN escapes
  stamped,    // dmesg in any stamp format, or a syslog/journal kernel line
  userspace,  // a syslog/journal line of another program: dropped
  marker,     // journalctl's "-- Boot ... --" and the like: dropped
};

struct PrefixedLine {
  Rendering rendering = Rendering::plain;
  KernelStamp stamp;
  std::string_view message;
  std::string_view host;  // syslog/journal host, when the line named one
};

struct PrefixContext {
  int year = 1970;              // for syslog stamps, which print none
  std::string_view known_host;  // a host seen before as "HOST kernel:"
};

// Never fails: a line it does not recognise is Rendering::plain with the
// whole line as message.
PrefixedLine read_prefix(std::string_view line, const PrefixContext& context);

// "prio,seq,usec,flag[,key=value...];" of a /dev/kmsg record, taken off
// `record`; false (and `record` untouched) when it is not one.
bool take_kmsg_header(std::string_view& record, KernelStamp& stamp);

// The CONFIG_PRINTK_CALLER tag after a stamp: "[T1234]", "[ C3]", with or
// without a space before it.
bool take_caller_tag(std::string_view& rest, KernelStamp& stamp);

// "[  241.674752]" (or the -T, reltime and delta forms) and one space.
bool take_dmesg_bracket(std::string_view& rest, KernelStamp& stamp);

}  // namespace ftdiag::parse::detail
