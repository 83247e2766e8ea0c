#include "parse/line_event_prefilter.h"

#include <algorithm>
#include <cstring>

namespace ftdiag::parse {

namespace {

std::uint32_t load_window(const char* at) {
  std::uint32_t bytes;
  std::memcpy(&bytes, at, sizeof bytes);
  return bytes;
}

}  // namespace

LineEventPrefilter::LineEventPrefilter(std::vector<std::string> literals) : literals_(std::move(literals)) {
  std::size_t shortest = 0;
  for (std::size_t i = 0; i < literals_.size() && i < kMaxLiterals; ++i) {
    const auto& literal = literals_[i];
    if (literal.size() < kWindow) continue;  // refused by the table; never found here
    shortest = shortest == 0 ? literal.size() : std::min(shortest, literal.size());
    for (std::size_t offset = 0; offset + kWindow <= literal.size() && offset <= UINT16_MAX; ++offset) {
      const auto bytes = load_window(literal.data() + offset);
      const auto bucket = hash(bytes);
      bitmap_[bucket / 64] |= std::uint64_t{1} << (bucket % 64);
      windows_.push_back({bucket, bytes, static_cast<std::uint16_t>(i), static_cast<std::uint16_t>(offset)});
    }
  }
  stride_ = shortest >= kWindow ? shortest - kWindow + 1 : 1;
  std::sort(windows_.begin(), windows_.end(), [](const Window& a, const Window& b) { return a.hash < b.hash; });
}

LineEventPrefilter::Found LineEventPrefilter::find(std::string_view text) const {
  Found found;
  if (windows_.empty() || text.size() < kWindow) return found;
  const char* data = text.data();
  const std::size_t last = text.size() - kWindow;
  for (std::size_t at = 0; at <= last; at += stride_) {
    const auto bytes = load_window(data + at);
    const auto bucket = hash(bytes);
    if ((bitmap_[bucket / 64] >> (bucket % 64)) & 1u) verify(text, at, bytes, found);
  }
  return found;
}

void LineEventPrefilter::verify(std::string_view text, std::size_t at, std::uint32_t bytes, Found& found) const {
  const auto bucket = hash(bytes);
  auto it = std::lower_bound(windows_.begin(), windows_.end(), bucket,
                             [](const Window& w, std::uint32_t h) { return w.hash < h; });
  for (; it != windows_.end() && it->hash == bucket; ++it) {
    if (it->bytes != bytes || found[it->literal] || it->offset > at) continue;
    const auto& literal = literals_[it->literal];
    if (text.substr(at - it->offset, literal.size()) == literal) found.set(it->literal);
  }
}

}  // namespace ftdiag::parse
