#include "parse/logs/line_event_prefilter.h"

#include <algorithm>
#include <climits>
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
  for (const auto& literal : literals_) {
    if (literal.size() >= kWindow) shortest = shortest == 0 ? literal.size() : std::min(shortest, literal.size());
  }
  stride_ = shortest >= kWindow ? shortest - kWindow + 1 : 1;
  for (std::size_t i = 0; i < literals_.size() && i < kMaxLiterals; ++i) {
    if (literals_[i].size() < kWindow) continue;  // refused by the table; never found here
    for (std::size_t residue = 0; residue < stride_; ++residue) add_window(i, rarest_window(literals_[i], residue));
  }
  std::sort(windows_.begin(), windows_.end(), [](const Window& a, const Window& b) { return a.hash < b.hash; });
}

// An occurrence of a literal at text offset o is probed at the window starts
// p = o + k that are multiples of the stride: the offsets k of one residue
// class modulo the stride (which class depends on o). One window of each
// class is enough, so each class registers its rarest window: fewer bitmap
// bits, and fewer ordinary lines that share a window with a literal.
std::size_t LineEventPrefilter::rarest_window(std::string_view literal, std::size_t residue) const {
  std::size_t best = residue;
  int best_score = INT32_MAX;
  for (std::size_t offset = residue; offset + kWindow <= literal.size() && offset <= UINT16_MAX; offset += stride_) {
    int score = 0;
    for (const char c : literal.substr(offset, kWindow)) score += commonness(c);
    if (score < best_score) {
      best = offset;
      best_score = score;
    }
  }
  return best;
}

// How often a byte appears in ordinary console text, roughly: lower-case
// letters and spaces are everywhere, digits often, capitals and punctuation
// rarely.
int LineEventPrefilter::commonness(char c) {
  if (c == ' ' || (c >= 'a' && c <= 'z')) return 4;
  if (c >= '0' && c <= '9') return 3;
  if (c == ',' || c == '.' || c == '/' || c == '_' || c == '-') return 2;
  if (c >= 'A' && c <= 'Z') return 1;
  return 0;
}

void LineEventPrefilter::add_window(std::size_t literal, std::size_t offset) {
  const auto bytes = load_window(literals_[literal].data() + offset);
  const auto bucket = hash(bytes);
  bitmap_[bucket / 64] |= std::uint64_t{1} << (bucket % 64);
  windows_.push_back({bucket, bytes, static_cast<std::uint16_t>(literal), static_cast<std::uint16_t>(offset)});
}

LineEventPrefilter::Found LineEventPrefilter::find(std::string_view text) const {
  Found found;
  if (windows_.empty() || text.size() < kWindow) return found;
  const char* data = text.data();
  const std::size_t last = text.size() - kWindow;
  for (std::size_t at = 0; at <= last; at += stride_) {
    const auto bytes = load_window(data + at);
    const auto bucket = hash(bytes);
    if ((bitmap_[bucket / 64] >> (bucket % 64)) & 1u) [[unlikely]] verify(text, at, bytes, found);
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
