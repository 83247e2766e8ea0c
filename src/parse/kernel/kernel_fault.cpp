// Fatal faults the kernel reports for a user process (log-formats.md §3):
// x86 "segfault at" and traps, arm64 unhandled exceptions, and
// print-fatal-signals' "potentially unexpected fatal signal". The thread
// name before "[pid]" may hold spaces, brackets and parentheses, so each form
// anchors on the text right after "[pid]" and reads the name leftwards.
#include "parse/kernel/kernel_log.h"
#include "parse/kernel/kernel_text.h"

namespace ftdiag::parse {
namespace {

using namespace text;
constexpr auto npos = std::string_view::npos;

// `close` is the index of the ']' of "comm[pid]"; the comm starts at `start`.
bool read_comm_pid(std::string_view message, std::size_t start, std::size_t close, KernelFault& fault) {
  // A pid has at most 10 digits: look no further back (keeps hostile lines linear).
  const std::size_t from = close > start + 12 ? close - 12 : start;
  const auto found = message.substr(from, close - from).rfind('[');
  if (found == npos) return false;
  const std::size_t open = from + found;
  auto pid = to_int(message.substr(open + 1, close - open - 1));
  if (!pid) return false;
  fault.comm = std::string(message.substr(start, open - start));
  fault.pid = pid;
  return true;
}

// Each occurrence of `anchor` (which starts with "]") until one follows a
// "comm[pid"; the index of its ']'.
std::size_t find_after_pid(std::string_view message, std::size_t start, std::string_view anchor, KernelFault& fault) {
  int tries = 0;
  for (auto at = message.find(anchor, start); at != npos && tries < 8; at = message.find(anchor, at + 1), ++tries) {
    if (read_comm_pid(message, start, at, fault)) return at;
  }
  return npos;
}

// A pointer as %p printed it: hex, or "(null)" on old 32-bit kernels.
std::optional<std::uint64_t> take_pointer(std::string_view& s) {
  while (consume(s, " ")) {
  }
  if (consume(s, "(null)")) return 0;
  return take_hex(s);
}

// " in libc.so.6[167ad8,7f19f1a15000+156000]" (or without the file offset).
void read_mapping(std::string_view rest, KernelFault& fault) {
  if (!consume(rest, " in ")) return;
  rest = trim_right(rest);
  const auto open = rest.rfind('[');
  if (!rest.ends_with(']') || open == npos) return;
  fault.object = std::string(rest.substr(0, open));
  std::string_view inside = rest.substr(open + 1, rest.size() - open - 2);
  if (const auto comma = inside.find(','); comma != npos) {
    fault.object_offset = to_hex(inside.substr(0, comma));
    inside.remove_prefix(comma + 1);
  }
  const auto plus = inside.find('+');
  if (plus == npos) return;
  fault.map_start = to_hex(inside.substr(0, plus));
  fault.map_size = to_hex(inside.substr(plus + 1));
}

// "crash[7487]: segfault at 0 ip 00005585e0eaf27d sp 00007ffd8a031e00 error 4
// in crash[127d,5585e0eaf000+1000] likely on CPU 1 (core 1, socket 0)"
std::optional<KernelFault> read_segfault(std::string_view message) {
  KernelFault fault;
  const auto close = find_after_pid(message, 0, "]: segfault at ", fault);
  if (close == npos) return std::nullopt;
  std::string_view rest = message.substr(close + 15);
  fault.kind = "segfault";
  fault.signal = 11;
  fault.address = take_hex(rest);
  if (!consume(rest, " ip")) return fault;
  fault.ip = take_pointer(rest);
  if (!consume(rest, " sp")) return fault;
  fault.sp = take_pointer(rest);
  if (!consume(rest, " error ")) return fault;
  fault.error_code = take_hex(rest);
  if (const auto cpu = rest.find(" likely on CPU "); cpu != npos) {
    std::string_view number = rest.substr(cpu + 15);
    fault.cpu = take_int(number);
    rest = rest.substr(0, cpu);
  }
  read_mapping(rest, fault);
  return fault;
}

std::optional<int> trap_signal(std::string_view trap) {
  struct Trap {
    std::string_view name;
    int signal;
  };
  // arch/x86/kernel/traps.c DO_ERROR / do_int3
  static constexpr Trap traps[] = {
      {"invalid opcode", 4}, {"divide error", 8},      {"int3", 5},        {"overflow", 11},
      {"bounds", 11},        {"coprocessor segment overrun", 8}, {"invalid TSS", 11},
      {"segment not present", 7}, {"stack segment", 7}, {"alignment check", 7},
  };
  for (const auto& known : traps) {
    if (known.name == trap) return known.signal;
  }
  return std::nullopt;
}

// "traps: crash[7516] general protection fault ip:55b75cffd38d sp:7fffe1bcd4a0
// error:0 in crash[138d,55b75cffd000+1000]", "traps: crash[7518] trap invalid
// opcode ip:...", and the forms without "traps: " of older kernels.
std::optional<KernelFault> read_trap(std::string_view message) {
  const std::size_t start = message.starts_with("traps: ") ? 7 : 0;
  KernelFault fault;
  std::size_t close = find_after_pid(message, start, "] general protection", fault);
  if (close == npos) close = find_after_pid(message, start, "] trap ", fault);
  if (close == npos) return std::nullopt;
  std::string_view rest = message.substr(close + 2);
  const auto ip = rest.find(" ip:");
  if (ip == npos) return std::nullopt;
  std::string_view what = rest.substr(0, ip);
  if (what.starts_with("general protection")) {
    fault.kind = "general-protection";
    fault.signal = 11;
  } else {
    fault.kind = "trap";
    fault.trap = std::string(what.substr(5));
    fault.signal = trap_signal(fault.trap);
  }
  rest.remove_prefix(ip + 4);
  fault.ip = take_hex(rest);
  if (consume(rest, " sp:")) fault.sp = take_hex(rest);
  if (consume(rest, " error:")) fault.error_code = take_hex(rest);
  read_mapping(rest, fault);
  return fault;
}

// arm64: "comm[pid]: unhandled exception: DABT (lower EL), ESR 0x92000046,
// level 2 translation fault in lib.so[7fbd4f0000+6000]" and the older
// "comm[pid]: unhandled level 2 translation fault (11) at 0x0, esr 0x92000046, in ...".
std::optional<KernelFault> read_unhandled(std::string_view message) {
  KernelFault fault;
  const auto close = find_after_pid(message, 0, "]: unhandled ", fault);
  if (close == npos) return std::nullopt;
  std::string_view rest = message.substr(close + 13);
  fault.kind = "unhandled-exception";
  const bool modern = consume(rest, "exception: ");
  if (const auto in = rest.rfind(" in "); in != npos && trim_right(rest).ends_with(']')) {
    read_mapping(rest.substr(in), fault);
    rest = rest.substr(0, in);
  }
  if (rest.ends_with(',')) rest.remove_suffix(1);
  if (modern) {
    if (const auto esr = rest.find("ESR "); esr != npos) {
      std::string_view value = rest.substr(esr + 4);
      fault.error_code = take_hex(value);
    }
    fault.detail = std::string(rest);
    return fault;
  }
  const auto paren = rest.find(" (");
  fault.detail = std::string(rest.substr(0, paren));
  if (paren != npos) {
    std::string_view tail = rest.substr(paren + 2);
    fault.signal = take_int(tail);
    if (consume(tail, ") at ")) fault.address = take_hex(tail);
    if (const auto esr = tail.find("esr "); esr != npos) {
      std::string_view value = tail.substr(esr + 4);
      fault.error_code = take_hex(value);
    }
  }
  return fault;
}

// "crash: crash: potentially unexpected fatal signal 11." (exe: comm:),
// "a.out/25311: potentially ..." (comm/pid, before 5.x), or the bare form
// whose pid is in the "CPU: .. PID:" line after it.
std::optional<KernelFault> read_fatal_signal(std::string_view message) {
  static constexpr std::string_view anchor = "potentially unexpected fatal signal ";
  const auto at = message.find(anchor);
  if (at == npos) return std::nullopt;
  std::string_view prefix = message.substr(0, at);
  if (!prefix.empty() && !prefix.ends_with(": ")) return std::nullopt;
  KernelFault fault;
  fault.kind = "fatal-signal";
  std::string_view number = message.substr(at + anchor.size());
  fault.signal = take_int(number);
  if (!fault.signal) return std::nullopt;
  if (prefix.empty()) return fault;
  prefix.remove_suffix(2);
  if (const auto slash = prefix.rfind('/'); slash != npos && to_int(prefix.substr(slash + 1))) {
    fault.comm = std::string(prefix.substr(0, slash));
    fault.pid = to_int(prefix.substr(slash + 1));
  } else if (const auto colon = prefix.find(": "); colon != npos) {
    fault.object = std::string(prefix.substr(0, colon));  // the executable's name
    fault.comm = std::string(prefix.substr(colon + 2));
  } else {
    fault.comm = std::string(prefix);
  }
  return fault;
}

}  // namespace

std::optional<KernelFault> parse_fault_line(std::string_view message) {
  if (message.find("]: segfault at ") != npos) {
    if (auto fault = read_segfault(message)) return fault;
  }
  if (message.find(" ip:") != npos) {
    if (auto fault = read_trap(message)) return fault;
  }
  if (message.find("]: unhandled ") != npos) {
    if (auto fault = read_unhandled(message)) return fault;
  }
  return read_fatal_signal(message);
}

}  // namespace ftdiag::parse
