#include "parse/text/multi_pattern.h"

#include <hs.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <utility>

#include <fmt/format.h>

namespace ftdiag::parse {

std::variant<MultiPattern, std::string> MultiPattern::compile(const std::vector<std::string>& patterns) {
  MultiPattern compiled;
  compiled.count_ = patterns.size();
  if (patterns.empty()) return compiled;  // scans find nothing
  std::vector<const char*> expressions;
  std::vector<unsigned> flags;
  std::vector<unsigned> ids;
  for (std::size_t i = 0; i < patterns.size(); ++i) {
    expressions.push_back(patterns[i].c_str());
    // MULTILINE: a block holds many lines and ^/$ are per line. No DOTALL:
    // "." never crosses a line end. ALLOWEMPTY is not set: a pattern that can
    // match nothing would report every offset.
    flags.push_back(HS_FLAG_MULTILINE);
    ids.push_back(static_cast<unsigned>(i));
  }
  hs_compile_error_t* error = nullptr;
  const hs_error_t status = hs_compile_multi(expressions.data(), flags.data(), ids.data(),
                                             static_cast<unsigned>(expressions.size()), HS_MODE_BLOCK, nullptr,
                                             &compiled.database_, &error);
  if (status != HS_SUCCESS) {
    std::string message = error && error->message ? error->message : "unknown error";
    std::string which;
    if (error && error->expression >= 0 && static_cast<std::size_t>(error->expression) < patterns.size()) {
      which = fmt::format("pattern {} ({}): ", error->expression, patterns[static_cast<std::size_t>(error->expression)]);
    }
    hs_free_compile_error(error);
    return which + message;
  }
  return compiled;
}

std::optional<std::string> MultiPattern::serialize() const {
  if (!database_) return std::nullopt;
  char* bytes = nullptr;
  std::size_t length = 0;
  if (hs_serialize_database(database_, &bytes, &length) != HS_SUCCESS || !bytes) return std::nullopt;
  std::string out(bytes, length);
  std::free(bytes);
  return out;
}

std::optional<MultiPattern> MultiPattern::deserialize(std::string_view bytes, std::size_t pattern_count) {
  MultiPattern loaded;
  loaded.count_ = pattern_count;
  if (bytes.empty() || hs_deserialize_database(bytes.data(), bytes.size(), &loaded.database_) != HS_SUCCESS) {
    return std::nullopt;
  }
  // A database of another mode or platform deserializes but cannot scan.
  hs_scratch_t* scratch = nullptr;
  if (hs_alloc_scratch(loaded.database_, &scratch) != HS_SUCCESS) return std::nullopt;
  hs_free_scratch(scratch);
  return loaded;
}

std::string MultiPattern::fingerprint(const std::vector<std::string>& patterns) {
  // FNV-1a over the patterns, each ended by a NUL (no pattern holds one),
  // and the library's version and this file's flags.
  std::uint64_t hash = 1469598103934665603ull;
  auto mix = [&](std::string_view text) {
    for (unsigned char c : text) hash = (hash ^ c) * 1099511628211ull;
    hash = (hash ^ 0u) * 1099511628211ull;
  };
  mix(hs_version());
  mix("block multiline v1");
  for (const auto& p : patterns) mix(p);
  return fmt::format("{:016x}-{}", hash, patterns.size());
}

MultiPattern::MultiPattern(MultiPattern&& other) noexcept
    : database_(std::exchange(other.database_, nullptr)), count_(other.count_) {}

MultiPattern& MultiPattern::operator=(MultiPattern&& other) noexcept {
  if (this != &other) {
    hs_free_database(database_);
    database_ = std::exchange(other.database_, nullptr);
    count_ = other.count_;
  }
  return *this;
}

MultiPattern::~MultiPattern() { hs_free_database(database_); }

MultiPattern::Scratch::Scratch(Scratch&& other) noexcept : scratch_(std::exchange(other.scratch_, nullptr)) {}

MultiPattern::Scratch& MultiPattern::Scratch::operator=(Scratch&& other) noexcept {
  if (this != &other) {
    hs_free_scratch(scratch_);
    scratch_ = std::exchange(other.scratch_, nullptr);
  }
  return *this;
}

MultiPattern::Scratch::~Scratch() { hs_free_scratch(scratch_); }

MultiPattern::Scratch MultiPattern::make_scratch() const {
  hs_scratch_t* scratch = nullptr;
  if (database_ && hs_alloc_scratch(database_, &scratch) != HS_SUCCESS) scratch = nullptr;
  return Scratch(scratch);
}

namespace {

struct ScanContext {
  std::string_view text;
  std::vector<MultiPattern::Match>& matches;
  std::vector<std::size_t>& last_end;  // per pattern: the end it reported last (0: none)
};

// A pattern ending in ".*", "\S+" or "\d+" reports every byte of the run
// as an end. Ends that follow one another within a line say nothing new to
// a caller that groups by line: only the first of such a run is kept (a run
// that goes on past a "\n" is kept again in the next line).
int on_match(unsigned int id, unsigned long long, unsigned long long to, unsigned int, void* context) {
  auto& scan = *static_cast<ScanContext*>(context);
  const auto end = static_cast<std::size_t>(to);
  std::size_t& last = scan.last_end[id];
  const bool same_run = last != 0 && last + 1 == end && scan.text[end - 2] != '\n';
  last = end;
  if (!same_run) scan.matches.push_back({id, end});
  return 0;  // go on
}

}  // namespace

bool MultiPattern::scan(std::string_view text, Scratch& scratch, std::vector<Match>& matches) const {
  if (!database_) return count_ == 0;
  if (!scratch.scratch_ || text.size() > std::numeric_limits<unsigned int>::max()) return false;
  const std::size_t first = matches.size();
  std::vector<std::size_t> last_end(count_, 0);
  ScanContext context{text, matches, last_end};
  const hs_error_t status = hs_scan(database_, text.data(), static_cast<unsigned int>(text.size()), 0, scratch.scratch_,
                                    on_match, &context);
  // Hyperscan delivers matches mostly, not strictly, in end order.
  auto by_end = [](const Match& a, const Match& b) { return a.end != b.end ? a.end < b.end : a.pattern < b.pattern; };
  if (!std::is_sorted(matches.begin() + static_cast<std::ptrdiff_t>(first), matches.end(), by_end)) {
    std::sort(matches.begin() + static_cast<std::ptrdiff_t>(first), matches.end(), by_end);
  }
  return status == HS_SUCCESS;
}

}  // namespace ftdiag::parse
