#include "parse/procfs/meminfo.h"

#include <fmt/format.h>

#include "parse/procfs/procfs_text.h"

namespace ftdiag::parse {
namespace {

std::optional<std::uint64_t>* field_for(MemInfo& info, std::string_view key) {
  if (key == "MemTotal") return &info.mem_total;
  if (key == "MemFree") return &info.mem_free;
  if (key == "MemAvailable") return &info.mem_available;
  if (key == "Buffers") return &info.buffers;
  if (key == "Cached") return &info.cached;
  if (key == "Shmem") return &info.shmem;
  if (key == "SwapTotal") return &info.swap_total;
  if (key == "SwapFree") return &info.swap_free;
  if (key == "CommitLimit") return &info.commit_limit;
  if (key == "Committed_AS") return &info.committed_as;
  return nullptr;
}

}  // namespace

Fact<MemInfo> parse_meminfo(std::string_view text) {
  MemInfo info;
  int valid_lines = 0;
  for (auto line : text::lines(text)) {
    auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    auto value = line.substr(colon + 1);
    auto bytes = text::kib_value_to_bytes(value);
    // HugePages_* are bare counts: valid lines, but none of ours.
    if (!bytes && !text::to_u64(text::trim(value))) continue;
    ++valid_lines;
    auto* field = field_for(info, text::trim(line.substr(0, colon)));
    if (field && bytes) *field = bytes;
  }
  if (valid_lines == 0) {
    return Missing{MissingReason::unparseable,
                   fmt::format("no \"Key: value\" line in {} bytes", text.size())};
  }
  return info;
}

}  // namespace ftdiag::parse
