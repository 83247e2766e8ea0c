// Many regular expressions searched in one pass over a block of text, with
// Hyperscan (https://intel.github.io/hyperscan/dev-reference/): the cost of a
// pass hardly depends on how many patterns there are, so `ftdiag analyze`
// reads multi-gigabyte logs at close to the disk's speed however many
// launcher, phase and kernel wordings it knows.
//
// A match says only which pattern matched and where it ended; the callers
// then look at the few lines that matched with their exact readers (RE2 with
// named groups, the kernel parser). Patterns use the syntax RE2 and
// Hyperscan share (no backreferences, no lookaround); ^ and $ match at line
// ends ("\n") inside the block.
//
// Pure: no files, no clocks. A MultiPattern is immutable once compiled and
// may be shared by threads, each with its own Scratch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

struct hs_database;
struct hs_scratch;

namespace ftdiag::parse {

class MultiPattern {
 public:
  // Compiles the patterns (their index is the id matches report). An error
  // names the pattern that failed: "pattern 3 (Killed (?<x...): message".
  static std::variant<MultiPattern, std::string> compile(const std::vector<std::string>& patterns);

  // The compiled form as bytes, and back: compiling a few hundred patterns
  // takes a few tenths of a second, reading them back a millisecond. Bytes
  // from another Hyperscan version or platform, or damaged, give nullopt
  // (Hyperscan checks the header and a checksum of the code).
  std::optional<std::string> serialize() const;
  static std::optional<MultiPattern> deserialize(std::string_view bytes, std::size_t pattern_count);
  // Names what compile() makes of these patterns in this Hyperscan build:
  // equal fingerprints, interchangeable databases.
  static std::string fingerprint(const std::vector<std::string>& patterns);

  MultiPattern(MultiPattern&&) noexcept;
  MultiPattern& operator=(MultiPattern&&) noexcept;
  ~MultiPattern();

  // Per-thread working memory for scan().
  class Scratch {
   public:
    Scratch(Scratch&&) noexcept;
    Scratch& operator=(Scratch&&) noexcept;
    ~Scratch();

   private:
    friend class MultiPattern;
    explicit Scratch(hs_scratch* scratch) : scratch_(scratch) {}
    hs_scratch* scratch_ = nullptr;
  };
  Scratch make_scratch() const;

  struct Match {
    std::uint32_t pattern = 0;
    std::size_t end = 0;  // offset just past the match's last byte

    bool operator==(const Match&) const = default;
  };

  // Appends the matches in `text` to `matches`, ordered by end offset (and
  // pattern for equal ends). A pattern that matches several times in a line
  // reports each end, except that of ends one byte apart within a line
  // (".*", "\S+" extending a match) only the first is kept; callers group
  // by line. False when the scan could not
  // run (a block over 4 GiB, an allocation failure): `matches` then holds
  // what was found before.
  bool scan(std::string_view text, Scratch& scratch, std::vector<Match>& matches) const;

  std::size_t size() const { return count_; }

 private:
  MultiPattern() = default;
  hs_database* database_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace ftdiag::parse
