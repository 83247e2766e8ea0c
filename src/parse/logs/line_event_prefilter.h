// Which of a fixed set of literals occur in a line, at a cost close to a
// memchr over it when none does (the common case: almost no console line
// reports a death).
//
// How: a line is probed only every `stride` bytes, where stride = shortest
// literal - 3: an occurrence of a literal of length m covers m - 3
// consecutive starts of 4-byte windows, so some probed window lies inside it.
// Which of the literal's windows that is depends only on where the
// occurrence starts modulo the stride, so each literal registers one window
// per residue class (the rarest-looking one) in a bitmap of 2^16 bits (8 KiB,
// stays in L1). A probe that hits the bitmap (a registered window, or a hash
// collision) is verified by comparing the literals that own that window.
// It is q-gram sampling, the filter behind multiple-pattern searches such as
// Wu-Manber's block hashing, cut down to "is any literal here at all".
#pragma once

#include <array>
#include <bitset>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ftdiag::parse {

class LineEventPrefilter {
 public:
  static constexpr std::size_t kWindow = 4;          // bytes per hashed window: the shortest literal allowed
  static constexpr std::size_t kMaxLiterals = 512;   // distinct literals in one table
  using Found = std::bitset<kMaxLiterals>;

  // Literals of kWindow bytes or more, at most kMaxLiterals (the table checks both).
  explicit LineEventPrefilter(std::vector<std::string> literals);

  // Bit i is set when literals[i] occurs in text.
  Found find(std::string_view text) const;

  std::size_t stride() const { return stride_; }

 private:
  static constexpr unsigned kHashBits = 16;

  struct Window {
    std::uint32_t hash;    // bucket in the bitmap
    std::uint32_t bytes;   // the window itself, to skip hash collisions cheaply
    std::uint16_t literal;
    std::uint16_t offset;  // where the window starts in the literal
  };

  static std::uint32_t hash(std::uint32_t window) { return (window * 0x9E3779B1u) >> (32 - kHashBits); }
  static int commonness(char c);
  std::size_t rarest_window(std::string_view literal, std::size_t residue) const;
  void add_window(std::size_t literal, std::size_t offset);
  void verify(std::string_view text, std::size_t at, std::uint32_t bytes, Found& found) const;

  std::vector<std::string> literals_;
  std::size_t stride_ = 1;
  std::array<std::uint64_t, (1u << kHashBits) / 64> bitmap_{};
  std::vector<Window> windows_;  // sorted by hash
};

}  // namespace ftdiag::parse
