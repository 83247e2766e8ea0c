// libFuzzer target: /proc/PID/stat, statm and cmdline parsers.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "parse/procfs/proc_cmdline.h"
#include "parse/procfs/proc_stat.h"
#include "parse/procfs/proc_statm.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto stat = ftdiag::parse::parse_proc_stat(text);
  // The comm lies between the first '(' and the last ')' of the input.
  if (stat && stat->comm.size() + 2 > size) __builtin_trap();
  // Page sizes of x86_64, arm64 64K, and an absurd one to provoke overflow.
  for (std::uint64_t page_size : {4096ULL, 65536ULL, ~0ULL}) {
    (void)ftdiag::parse::parse_proc_statm(text, page_size);
  }
  auto args = ftdiag::parse::parse_proc_cmdline(text);
  std::size_t total = 0;
  for (const auto& arg : args) total += arg.size();
  if (total > size) __builtin_trap();
  return 0;
}
