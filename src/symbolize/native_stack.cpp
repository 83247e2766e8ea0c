#include "symbolize/native_stack.h"

#include <algorithm>

namespace ftdiag::symbolize {

namespace {

// The mappings sorted by start, for a binary search per frame.
std::vector<const MappedRange*> sorted_maps(const std::vector<MappedRange>& maps) {
  std::vector<const MappedRange*> sorted;
  sorted.reserve(maps.size());
  for (const auto& range : maps) {
    if (range.start < range.end) sorted.push_back(&range);
  }
  std::stable_sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->start < b->start; });
  return sorted;
}

const MappedRange* mapping_of(const std::vector<const MappedRange*>& sorted, std::uint64_t address) {
  auto after = std::upper_bound(sorted.begin(), sorted.end(), address,
                                [](std::uint64_t a, const MappedRange* range) { return a < range->start; });
  if (after == sorted.begin()) return nullptr;
  const MappedRange* range = *(after - 1);
  return address < range->end ? range : nullptr;
}

// Only real files are opened: "[vdso]", "[stack]", "" (anonymous) are not.
bool names_a_file(const std::string& path) { return !path.empty() && path.front() == '/'; }

}  // namespace

std::uint64_t lookup_address(const RawFrame& frame) {
  return frame.return_address && frame.address > 0 ? frame.address - 1 : frame.address;
}

std::vector<RawFrame> raw_frames(const std::vector<std::uint64_t>& addresses, bool first_is_return_address) {
  std::vector<RawFrame> frames;
  frames.reserve(addresses.size());
  for (std::size_t i = 0; i < addresses.size(); ++i) {
    frames.push_back({addresses[i], i > 0 || first_is_return_address});
  }
  return frames;
}

std::chrono::steady_clock::time_point deadline_after(StackBudget budget) {
  const auto budget_ns = std::chrono::duration<double>(std::max(0.0, std::min(budget.seconds, 1e6)));
  return std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::nanoseconds>(budget_ns);
}

NamedStack symbolize_frames(const std::vector<RawFrame>& raw, const std::vector<MappedRange>& maps,
                            ModuleSymbols& symbols, std::chrono::steady_clock::time_point deadline) {
  NamedStack stack;
  stack.frames.reserve(raw.size());
  const auto sorted = sorted_maps(maps);
  for (const RawFrame& frame : raw) {
    NativeFrame& named = stack.frames.emplace_back();
    named.address = frame.address;
    named.return_address = frame.return_address;
    const std::uint64_t address = lookup_address(frame);
    const MappedRange* range = mapping_of(sorted, address);
    if (range == nullptr) continue;
    named.module = range->path;
    const std::uint64_t into = address - range->start;
    if (range->file_offset > UINT64_MAX - into) continue;  // garbage maps: no such offset
    named.module_offset = into + range->file_offset;
    if (!names_a_file(range->path)) continue;
    if (std::chrono::steady_clock::now() > deadline) {
      stack.out_of_time = true;
      continue;
    }
    named.build_id = symbols.build_id(range->path);
    if (!range->build_id.empty() && named.build_id != range->build_id) {
      named.build_id = range->build_id;  // the file on disk is not the one that ran
      continue;
    }
    named.places = symbols.places_at_file_offset(range->path, named.module_offset);
  }
  return stack;
}

std::vector<NativeFrame> symbolize_stack(const std::vector<std::uint64_t>& addresses,
                                         const std::vector<MappedRange>& maps, ModuleSymbols& symbols,
                                         StackBudget budget) {
  return symbolize_frames(raw_frames(addresses), maps, symbols, deadline_after(budget)).frames;
}

}  // namespace ftdiag::symbolize
