#include "parse/logs/cuda_oom_message.h"

#include <charconv>
#include <cmath>
#include <string>

#include <re2/re2.h>

namespace ftdiag::parse {

namespace {

using re2::RE2;
using re2::StringPiece;

// c10's format_size, with TiB and a bare "B" for allocators that print them.
const std::string& size_group() {
  static const std::string group = R"((\d{1,15}(?:\.\d{1,6})? (?:bytes|B|KiB|MiB|GiB|TiB)))";
  return group;
}

constexpr std::string_view kAnchor = "CUDA out of memory.";

// Each part of the message is consumed in turn from where the last ended, so
// a part is read only in its place (the 1.x parenthesis right after the
// request, the process lines before "Of the allocated memory").
const RE2& request_pattern() {
  static const RE2 re("^CUDA out of memory\\. ?Tried to allocate " + size_group());
  return re;
}

const RE2& legacy_pattern() {
  static const RE2 re("^ ?\\(GPU (\\d{1,6}); " + size_group() + " total capacity; " + size_group() + " already allocated; " + size_group() +
                      " free; (?:" + size_group() + " allowed; )?" + size_group() + " (reserved in total by PyTorch|cached)\\)");
  return re;
}

const RE2& current_head_pattern() {
  static const RE2 re("^\\. ?GPU (\\d{1,6}) has a total (capacity|capacty) of " + size_group() + " of which " + size_group() + " is free\\.");
  return re;
}

const RE2& process_pattern() {
  static const RE2 re("^ ?(?:Process (\\d{1,9})|Including non-PyTorch memory, this process) has " + size_group() + " memory in use\\.");
  return re;
}

const RE2& allowed_pattern() {
  static const RE2 re("^ ?" + size_group() + " allowed;");
  return re;
}

const RE2& split_pattern() {
  static const RE2 re("^ ?Of the allocated memory " + size_group() + " is allocated by PyTorch, (?:with " + size_group() +
                      " allocated in private pools \\(e\\.g\\., CUDA Graphs\\), )?and " + size_group() +
                      " is reserved by PyTorch but unallocated\\.");
  return re;
}

std::string_view view(const StringPiece& piece) { return {piece.data(), piece.size()}; }

std::optional<int> small_int(const StringPiece& digits) {
  int value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (error != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return value;
}

// The message from its anchor on, every run of white space one space: a
// message pasted over several lines, or PyTorch's own double spaces
// ("fragmentation.  See"), reads the same.
std::string normalized_from_anchor(std::string_view text) {
  const auto at = text.find(kAnchor);
  if (at == std::string_view::npos) return {};
  text = text.substr(at, kMaxMessageBytes);
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const bool space = c == ' ' || c == '\t' || c == '\n' || c == '\r';
    if (space && !out.empty() && out.back() == ' ') continue;
    out.push_back(space ? ' ' : c);
  }
  return out;
}

std::uint64_t difference_or_zero(std::uint64_t a, std::uint64_t b) { return a > b ? a - b : 0; }

// "(GPU 0; 15.78 GiB total capacity; ...)": 1.0 to 2.0.
bool read_legacy(StringPiece& rest, CudaOomMessage& m) {
  StringPiece gpu, total, allocated, free, allowed, reserved, word;
  if (!RE2::Consume(&rest, legacy_pattern(), &gpu, &total, &allocated, &free, &allowed, &reserved, &word)) return false;
  const auto index = small_int(gpu);
  const auto t = parse_allocator_size(view(total));
  const auto a = parse_allocator_size(view(allocated));
  const auto f = parse_allocator_size(view(free));
  const auto r = parse_allocator_size(view(reserved));
  if (!index || !t || !a || !f || !r) return false;
  m.wording = view(word) == "cached" ? CudaOomWording::v1_0 : CudaOomWording::v1_5;
  m.gpu = index;
  m.total_bytes = t;
  m.allocated_bytes = a;
  m.free_bytes = f;
  m.reserved_bytes = r;
  // Both printed rounded: a reserve equal to the allocation may read a hair below it.
  m.reserved_unallocated_bytes = difference_or_zero(*r, *a);
  if (!allowed.empty()) m.allowed_bytes = parse_allocator_size(view(allowed));
  return true;
}

void read_processes(StringPiece& rest, CudaOomMessage& m) {
  StringPiece pid, size;
  while (RE2::Consume(&rest, process_pattern(), &pid, &size)) {
    const auto bytes = parse_allocator_size(view(size));
    if (!bytes) return;
    GpuProcessUse use{.pid = std::nullopt, .bytes = *bytes};
    if (!pid.empty()) {
      use.pid = small_int(pid);
      if (!use.pid) return;
    }
    m.processes.push_back(use);
  }
}

// "Of the allocated memory X is allocated by PyTorch, and Y is reserved by
// PyTorch but unallocated.": the two add up to what the allocator reserved.
void read_split(StringPiece& rest, CudaOomMessage& m) {
  StringPiece allocated, private_pools, unallocated;
  if (!RE2::Consume(&rest, split_pattern(), &allocated, &private_pools, &unallocated)) return;
  const auto a = parse_allocator_size(view(allocated));
  const auto u = parse_allocator_size(view(unallocated));
  if (!a || !u) return;
  m.allocated_bytes = a;
  m.reserved_unallocated_bytes = u;
  m.reserved_bytes = *a + *u;
  if (!private_pools.empty()) m.private_pool_bytes = parse_allocator_size(view(private_pools));
}

// ". GPU 0 has a total capacity of X of which Y is free. ...": 2.1 and later.
bool read_current(StringPiece& rest, CudaOomMessage& m) {
  StringPiece gpu, word, total, free;
  if (!RE2::Consume(&rest, current_head_pattern(), &gpu, &word, &total, &free)) return false;
  const auto index = small_int(gpu);
  const auto t = parse_allocator_size(view(total));
  const auto f = parse_allocator_size(view(free));
  if (!index || !t || !f) return false;
  m.wording = view(word) == "capacty" ? CudaOomWording::v2_1 : CudaOomWording::v2_2;
  m.gpu = index;
  m.total_bytes = t;
  m.free_bytes = f;
  read_processes(rest, m);
  StringPiece allowed;
  if (RE2::Consume(&rest, allowed_pattern(), &allowed)) m.allowed_bytes = parse_allocator_size(view(allowed));
  read_split(rest, m);
  return true;
}

}  // namespace

std::optional<std::uint64_t> parse_allocator_size(std::string_view text) {
  const auto space = text.find(' ');
  if (space == std::string_view::npos || space == 0) return std::nullopt;
  const std::string_view number = text.substr(0, space);
  const std::string_view unit = text.substr(space + 1);
  double scale = 0;
  if (unit == "bytes" || unit == "B") scale = 1;
  else if (unit == "KiB") scale = 0x1p10;
  else if (unit == "MiB") scale = 0x1p20;
  else if (unit == "GiB") scale = 0x1p30;
  else if (unit == "TiB") scale = 0x1p40;
  else return std::nullopt;
  if (number.find_first_not_of("0123456789.") != std::string_view::npos || number.front() == '.') return std::nullopt;
  double value = 0;
  const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (error != std::errc() || end != number.data() + number.size()) return std::nullopt;
  const double bytes = std::round(value * scale);
  if (!(bytes >= 0 && bytes <= 0x1p62)) return std::nullopt;
  return static_cast<std::uint64_t>(bytes);
}

std::optional<CudaOomMessage> parse_cuda_oom_message(std::string_view text) {
  const std::string message = normalized_from_anchor(text);
  if (message.empty()) return std::nullopt;
  StringPiece rest(message);
  StringPiece requested;
  if (!RE2::Consume(&rest, request_pattern(), &requested)) return std::nullopt;
  CudaOomMessage m;
  const auto bytes = parse_allocator_size(view(requested));
  if (!bytes) return std::nullopt;
  m.requested_bytes = *bytes;
  if (!read_legacy(rest, m)) read_current(rest, m);
  return m;
}

std::string_view first_release_of(CudaOomWording wording) {
  switch (wording) {
    case CudaOomWording::v1_0: return "1.0";
    case CudaOomWording::v1_5: return "1.5";
    case CudaOomWording::v2_1: return "2.1";
    case CudaOomWording::v2_2: return "2.2";
    case CudaOomWording::request_only: break;
  }
  return {};
}

}  // namespace ftdiag::parse
