// The journal's lines as `ftdiag run` writes them, read without a JSON parser.
//
// `ftdiag run` writes each record as nlohmann's dump() of its field table:
// keys sorted, no whitespace, numbers as plain integers or shortest doubles,
// facts as their value or {"missing":{"detail":"...","reason":"..."}}. A long
// run's journal is almost all "sample" lines in that form, most of whose
// bytes are the "processes" array:
//   {"cgroup":{...},"dev_shm":{...},"node":{...},"processes":[{"pid":4184,
//    "rss_anon_bytes":2203531316,...},...],"time":1795941954.97,"type":"sample"}
// read_canonical reads exactly that form, byte by byte, and nothing else: a
// key out of the table, repeated or escaped, whitespace, a string with an
// escape or a byte outside printable ASCII, an integer with a fraction, an
// exponent, a leading zero or 16 digits or more, or that does not fit its
// member, a double that overflows, an exit status or a map other than of strings (no rule here), a
// required key absent, anything after the closing brace: it returns false and the caller reads the line the general
// way (journal_parse.cpp), which gives the same record for every line this
// reader takes. test_journal_parse.cpp and fuzz_journal_parse.cpp check it.
//
// Whatever it accepts is valid JSON: printable ASCII needs no UTF-8 check.
// Keys are compared first in the order the writer uses (the table's keys
// sorted), each against the one key expected there, unrolled at compile
// time; out of order they are matched against the whole table.
//
// Pure functions of the text: no simdjson, no allocation besides the record.
// The text must be followed by at least 16 readable bytes (simdjson's padding
// is 64), which whole-word reads of digits may touch.
#pragma once

#include <algorithm>
#include <array>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "base/fact.h"
#include "evidence/fields.h"
#include "evidence/record_fields.h"

namespace ftdiag::evidence::canonical {

// ---- numbers ----

// The value of eight ASCII digits in a little-endian word (simdjson's way).
[[gnu::always_inline]] constexpr std::uint32_t eight_digits(std::uint64_t v) {
  constexpr std::uint64_t mask = 0x000000FF000000FF;
  constexpr std::uint64_t mul1 = 0x000F424000000064;  // 100 + (1000000 << 32)
  constexpr std::uint64_t mul2 = 0x0000271000000001;  // 1 + (10000 << 32)
  v -= 0x3030303030303030;
  v = (v * 10) + (v >> 8);
  v = (((v & mask) * mul1) + (((v >> 16) & mask) * mul2)) >> 32;
  return static_cast<std::uint32_t>(v);
}

// How many of a little-endian word's bytes, from the first, are ASCII digits.
[[gnu::always_inline]] inline int leading_digits(std::uint64_t v) {
  // Zero bytes where v has a digit; a carry out of a non-digit byte only
  // disturbs later bytes.
  const std::uint64_t x =
      ((v & 0xF0F0F0F0F0F0F0F0) | (((v + 0x0606060606060606) & 0xF0F0F0F0F0F0F0F0) >> 4)) ^ 0x3333333333333333;
  return x == 0 ? 8 : __builtin_ctzll(x) / 8;
}
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the digit parser reads little-endian words");

// The common case of a JSON integer: a '-' or not, then 1 to 15 digits
// without a leading zero, fitting T. Returns the byte after the digits, or
// nullptr for anything else (the general path decides about those). Reads
// the two words after the sign and converts both at once: 17 bytes from `p`
// must be readable.
template <class T>
[[gnu::always_inline]] inline const char* plain_integer(const char* p, T& out) {
  const bool negative = *p == '-';
  const char* digits = p + (negative ? 1 : 0);
  std::uint64_t first;
  std::uint64_t second;
  std::memcpy(&first, digits, 8);
  std::memcpy(&second, digits + 8, 8);
  const int head = leading_digits(first);
  const int n = head == 8 ? 8 + leading_digits(second) : head;
  // 16 digits may be followed by more: those, like none or a leading zero,
  // are the general path's.
  if (n == 0 || n == 16 || (digits[0] == '0' && n > 1)) return nullptr;
  // Digits right-aligned in a word behind '0's: "123" -> "00000123".
  auto aligned = [](std::uint64_t word, int count) {
    return count == 8 ? word : (word << (8 * (8 - count))) | (0x3030303030303030ull >> (8 * count));
  };
  static constexpr std::uint64_t kPow10[9] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};
  const std::uint64_t m = n <= 8 ? eight_digits(aligned(first, n))
                                 : std::uint64_t{eight_digits(first)} * kPow10[n - 8] +
                                       eight_digits(aligned(second, n - 8));
  if (negative) {
    const auto x = -static_cast<std::int64_t>(m);
    if (!std::in_range<T>(x)) return nullptr;
    out = static_cast<T>(x);
  } else {
    if (!std::in_range<T>(m)) return nullptr;
    out = static_cast<T>(m);
  }
  return digits + n;
}

[[gnu::always_inline]] constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }

// A JSON number (RFC 8259) as a double, correctly rounded like simdjson's
// get_double and nlohmann: std::from_chars rounds correctly too. Overflow
// and underflow are the general path's.
inline const char* read_double(const char* p, const char* end, double& out) {
  const char* q = p;
  if (q < end && *q == '-') ++q;
  if (q >= end || !is_digit(*q)) return nullptr;
  if (*q == '0') {
    ++q;
  } else {
    while (q < end && is_digit(*q)) ++q;
  }
  if (q < end && *q == '.') {
    if (++q >= end || !is_digit(*q)) return nullptr;
    while (q < end && is_digit(*q)) ++q;
  }
  if (q < end && (*q == 'e' || *q == 'E')) {
    if (++q < end && (*q == '+' || *q == '-')) ++q;
    if (q >= end || !is_digit(*q)) return nullptr;
    while (q < end && is_digit(*q)) ++q;
  }
  const auto [ptr, error] = std::from_chars(p, q, out);
  if (error != std::errc{} || ptr != q) return nullptr;
  return q;
}

// ---- values: each reader returns the byte after the value, or nullptr ----

// A type this reader has no rule for (a map, an exit status, a char): never
// the form, always the general path's.
template <class T>
const char* read(const char*, const char*, T&) {
  return nullptr;
}

template <class T>
  requires(std::is_integral_v<T> && !std::is_same_v<T, bool> && !std::is_same_v<T, char>)
const char* read(const char* p, const char* end, T& out) {
  if (p >= end) return nullptr;
  const char* after = plain_integer(p, out);
  return after != nullptr && after <= end ? after : nullptr;
}

inline const char* read(const char* p, const char* end, double& out) { return read_double(p, end, out); }

inline const char* read(const char* p, const char* end, bool& out) {
  const auto left = end - p;
  if (left >= 4 && std::memcmp(p, "true", 4) == 0) {
    out = true;
    return p + 4;
  }
  if (left >= 5 && std::memcmp(p, "false", 5) == 0) {
    out = false;
    return p + 5;
  }
  return nullptr;
}

// A string of printable ASCII without escapes (nothing to check or unescape).
inline const char* read_text(const char* p, const char* end, std::string_view& out) {
  if (p >= end || *p != '"') return nullptr;
  const char* q = p + 1;
  while (q < end && *q >= 0x20 && *q <= 0x7E && *q != '"' && *q != '\\') ++q;
  if (q >= end || *q != '"') return nullptr;
  out = std::string_view(p + 1, static_cast<std::size_t>(q - p - 1));
  return q + 1;
}

inline const char* read(const char* p, const char* end, std::string& out) {
  std::string_view text;
  const char* after = read_text(p, end, text);
  if (after != nullptr) out.assign(text);
  return after;
}

// A map of strings, as the writer orders it (keys strictly increasing: a
// repeated or unordered key is not the writer's form).
inline const char* read(const char* p, const char* end, std::map<std::string, std::string>& out) {
  if (p >= end || *p != '{') return nullptr;
  ++p;
  out.clear();
  if (p < end && *p == '}') return p + 1;
  std::string_view previous;
  for (bool first = true;; first = false) {
    std::string_view key, value;
    p = read_text(p, end, key);
    if (p == nullptr || p >= end || *p != ':' || (!first && key <= previous)) return nullptr;
    p = read_text(p + 1, end, value);
    if (p == nullptr || p >= end) return nullptr;
    out.emplace_hint(out.end(), key, value);
    previous = key;
    if (*p == '}') return p + 1;
    if (*p != ',') return nullptr;
    ++p;
  }
}

[[gnu::always_inline]] inline bool is_null(const char* p, const char* end) {
  return end - p >= 4 && std::memcmp(p, "null", 4) == 0;
}

template <class T>
const char* read(const char* p, const char* end, std::optional<T>& out);
template <class T>
const char* read(const char* p, const char* end, std::vector<T>& out);
template <class T>
const char* read(const char* p, const char* end, Fact<T>& out);
template <Described T>
const char* read(const char* p, const char* end, T& out);

// ---- objects with a field table ----

// The key "type" of a record's line, besides its table's keys.
struct NoTypeKey {};
template <class Record>
struct TypeKey {};

template <const auto& kTable>
constexpr std::size_t kFieldCount = std::tuple_size_v<std::remove_cvref_t<decltype(kTable)>>;

// Key I of a table; index kFieldCount is "type".
template <const auto& kTable, std::size_t I>
constexpr std::string_view key_of() {
  if constexpr (I == kFieldCount<kTable>) {
    return "type";
  } else {
    return std::get<I>(kTable).key;
  }
}

// The first N keys' indices in the order `ftdiag run` writes them: sorted
// (nlohmann's objects are std::maps).
template <const auto& kTable, std::size_t N>
constexpr std::array<std::size_t, N> kWriterOrder = [] {
  std::array<std::string_view, N> keys{};
  [&]<std::size_t... I>(std::index_sequence<I...>) { ((keys[I] = key_of<kTable, I>()), ...); }(
      std::make_index_sequence<N>{});
  std::array<std::size_t, N> order{};
  for (std::size_t i = 0; i < N; ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return keys[a] < keys[b]; });
  return order;
}();

// `"KEY":` as bytes, to compare a member's start with in one go.
template <const auto& kTable, std::size_t I>
constexpr auto kKeyPattern = [] {
  constexpr std::string_view k = key_of<kTable, I>();
  std::array<char, k.size() + 3> bytes{};
  bytes[0] = '"';
  for (std::size_t i = 0; i < k.size(); ++i) bytes[i + 1] = k[i];
  bytes[k.size() + 1] = '"';
  bytes[k.size() + 2] = ':';
  return bytes;
}();

// Whether `p` starts with `pattern` (at least 4 bytes): words compared, the
// last one overlapping (memcmp would be a call for most lengths).
template <std::size_t N>
[[gnu::always_inline]] inline bool starts_with(const char* p, const char* end, const std::array<char, N>& pattern) {
  static_assert(N >= 4);
  if (static_cast<std::size_t>(end - p) <= N) return false;
  auto load = [](const char* at, auto word) {
    std::memcpy(&word, at, sizeof word);
    return word;
  };
  if constexpr (N < 8) {
    return load(p, std::uint32_t{}) == load(pattern.data(), std::uint32_t{}) &&
           load(p + N - 4, std::uint32_t{}) == load(pattern.data() + N - 4, std::uint32_t{});
  } else {
    bool same = true;
    for (std::size_t i = 0; i + 8 < N; i += 8) same &= load(p + i, std::uint64_t{}) == load(pattern.data() + i, std::uint64_t{});
    return same && load(p + N - 8, std::uint64_t{}) == load(pattern.data() + N - 8, std::uint64_t{});
  }
}

template <class T, const auto& kTable, class Extra = NoTypeKey>
class ObjectScan {
 public:
  static constexpr std::size_t kFields = kFieldCount<kTable>;
  static constexpr bool kTyped = !std::is_same_v<Extra, NoTypeKey>;
  static constexpr std::size_t kKeys = kFields + (kTyped ? 1 : 0);  // index kFields: "type"
  static_assert(kKeys <= 64);

  // `out` is blank (T{}). Returns the byte after the closing '}', or nullptr;
  // then `out` may hold part of the object.
  static const char* scan(const char* p, const char* end, T& out) {
    if (p >= end || *p != '{' || ++p >= end) return nullptr;
    Cursor at{p};
    if (*p == '}') {
      at.closed = true;
    } else {
      // The writer's order first; then, from the first surprise on, any order.
      in_order(at, end, out, std::make_index_sequence<kKeys>{});
      while (!at.closed && at.next != nullptr) {
        at.next = any_member(at, end, out, std::make_index_sequence<kKeys>{});
        after_value(at, end);
      }
    }
    if (at.next == nullptr || !finish(out, at.seen, std::make_index_sequence<kFields>{})) return nullptr;
    if (kTyped && !(at.seen & (std::uint64_t{1} << kFields))) return nullptr;  // no "type"
    return at.next + 1;
  }

 private:
  template <std::size_t I>
  [[gnu::always_inline]] static bool key_at(const char* p, const char* end) {
    return starts_with(p, end, kKeyPattern<kTable, I>);
  }

  struct Cursor {
    const char* next;        // the next member's '"', or the closing '}'; nullptr: not the form
    std::uint64_t seen = 0;  // the keys read
    bool closed = false;     // next is the closing '}'
  };

  // After a value: on to the next member, or the end of the object.
  static void after_value(Cursor& at, const char* end) {
    if (at.next == nullptr || at.next >= end) {
      at.next = nullptr;
    } else if (*at.next == '}') {
      at.closed = true;
    } else if (*at.next != ',' || ++at.next >= end || *at.next != '"') {
      at.next = nullptr;
    }
  }

  // The members in the writer's order, as long as they come so.
  template <std::size_t... J>
  static void in_order(Cursor& at, const char* end, T& out, std::index_sequence<J...>) {
    (void)(in_order_one<kWriterOrder<kTable, kKeys>[J]>(at, end, out) && ...);
  }
  // False once the object ended, is not the form, or its next key is not I.
  template <std::size_t I>
  [[gnu::always_inline]] static bool in_order_one(Cursor& at, const char* end, T& out) {
    if (!key_at<I>(at.next, end)) return false;
    at.next = member<I>(at, end, out);
    after_value(at, end);
    return !at.closed && at.next != nullptr;
  }

  // The member at `at.next`, whichever key of the table it has.
  template <std::size_t... I>
  static const char* any_member(Cursor& at, const char* end, T& out, std::index_sequence<I...>) {
    const char* after = nullptr;
    (void)((key_at<I>(at.next, end) && (after = member<I>(at, end, out), true)) || ...);
    return after;
  }

  // The value of key I (at.next is its '"'); nullptr when not the form or
  // when the key came before (the general path keeps the last).
  template <std::size_t I>
  static const char* member(Cursor& at, const char* end, T& out) {
    constexpr std::uint64_t bit = std::uint64_t{1} << I;
    if (at.seen & bit) return nullptr;
    at.seen |= bit;
    const char* value = at.next + kKeyPattern<kTable, I>.size();
    if constexpr (I == kFields) {
      return type_value(value, end);
    } else {
      const char* after = read(value, end, out.*(std::get<I>(kTable).member));
      return after != nullptr && after < end ? after : nullptr;
    }
  }

  // "type": the record's own, as a plain string.
  static const char* type_value(const char* p, const char* end) {
    if constexpr (kTyped) {
      std::string_view text;
      const char* after = read_text(p, end, text);
      return after != nullptr && text == record_type<T>() && after < end ? after : nullptr;
    } else {
      return nullptr;
    }
  }

  // Absent keys: as the general path, a fact says "no KEY", anything else
  // keeps its default; a required key absent is the general path's to report.
  template <std::size_t... I>
  static bool finish(T& out, std::uint64_t seen, std::index_sequence<I...>) {
    return (finish_one<I>(out, seen) && ...);
  }
  template <std::size_t I>
  static bool finish_one(T& out, std::uint64_t seen) {
    const auto& f = std::get<I>(kTable);
    if (seen & (std::uint64_t{1} << I)) return true;
    if (f.presence == Presence::required) return false;
    mark_absent(out.*(f.member), f.key);
    return true;
  }
  template <class M>
  static void mark_absent(M& /*member*/, std::string_view /*key*/) {}
  template <class M>
  static void mark_absent(Fact<M>& member, std::string_view key) {
    member = Missing{MissingReason::not_present, "no " + std::string(key)};
  }
};

template <Described T>
const char* read(const char* p, const char* end, T& out) {
  return ObjectScan<T, Fields<T>::list>::scan(p, end, out);
}

template <class T>
const char* read(const char* p, const char* end, std::optional<T>& out) {
  if (is_null(p, end)) {
    out.reset();
    return p + 4;
  }
  if constexpr (requires { T{}; }) {
    return read(p, end, out.emplace());
  } else {
    return nullptr;
  }
}

template <class T>
const char* read(const char* p, const char* end, std::vector<T>& out) {
  out.clear();
  if (p >= end || *p != '[' || ++p >= end) return nullptr;
  if (*p == ']') return p + 1;
  // Most arrays are as long as the last one of their kind (a sample's
  // processes): reserve that much rather than grow step by step.
  thread_local std::size_t last_size = 0;
  out.reserve(last_size);
  while (true) {
    if constexpr (requires { out.emplace_back(); }) {
      p = read(p, end, out.emplace_back());
    } else {
      return nullptr;
    }
    if (p == nullptr || p >= end) return nullptr;
    if (*p == ']') break;
    if (*p != ',' || ++p >= end) return nullptr;
  }
  last_size = std::min<std::size_t>(std::max(out.size(), last_size - last_size / 64), 4096);
  return p + 1;
}

// ---- facts: the value, or {"missing":{"detail":...,"reason":...}} ----

// missing_from_json's defaults: an absent reason reads as "failed", an absent
// detail as "".
struct MissingText {
  std::string detail;
  std::string reason = "failed";
};
inline constexpr auto kMissingFields =
    std::tuple{field("detail", &MissingText::detail), field("reason", &MissingText::reason)};

inline constexpr std::array<char, 11> kMissingKey = {'{', '"', 'm', 'i', 's', 's', 'i', 'n', 'g', '"', ':'};

// {"missing":{...}} and nothing else.
inline const char* read_missing(const char* p, const char* end, Missing& out) {
  if (!starts_with(p, end, kMissingKey)) return nullptr;
  MissingText text;
  p = ObjectScan<MissingText, kMissingFields>::scan(p + kMissingKey.size(), end, text);
  if (p == nullptr || p >= end || *p != '}') return nullptr;
  out = Missing{missing_reason_from_string(text.reason), std::move(text.detail)};
  return p + 1;
}

template <class T>
const char* read(const char* p, const char* end, Fact<T>& out) {
  if (p >= end) return nullptr;
  if (starts_with(p, end, kMissingKey)) {
    // Only {"missing":{...}} is a Missing; whatever else starts so is the
    // general path's.
    Missing missing;
    const char* after = read_missing(p, end, missing);
    if (after != nullptr) out = std::move(missing);
    return after;
  }
  if constexpr (requires { T{}; }) {
    T value{};
    const char* after = read(p, end, value);
    if (after == nullptr) return nullptr;
    // A fresh fact holds a blank Missing: replace it directly, not through
    // the variant's generic assignment.
    if constexpr (std::is_nothrow_move_constructible_v<T>) {
      std::destroy_at(&out);
      std::construct_at(&out, std::move(value));
    } else {
      out = std::move(value);
    }
    return after;
  } else {
    return nullptr;
  }
}

// ---- a line ----

template <class M>
constexpr bool kIsVector = false;
template <class M>
constexpr bool kIsVector<std::vector<M>> = true;

// Makes `out` blank, as Record{} is, but for its arrays, which are emptied
// and keep their capacity for the next record read into it: a reader that
// reuses its records (journal_reader.cpp) allocates almost nothing.
template <Described Record>
void reset_keeping_capacity(Record& out) {
  Record blank{};
  std::apply(
      [&](const auto&... f) {
        auto keep = [&](const auto& field) {
          auto& member = blank.*(field.member);
          if constexpr (kIsVector<std::remove_cvref_t<decltype(member)>>) {
            member.swap(out.*(field.member));
            member.clear();
          }
        };
        (keep(f), ...);
      },
      Fields<Record>::list);
  out = std::move(blank);
}

// Reads `line` into `out` (blank) when it is in the writer's form, its
// "type" being Record's. False otherwise, `out` then holding anything: the
// general path reads the line.
template <class Record>
bool read_canonical(std::string_view line, Record& out) {
  const char* end = line.data() + line.size();
  return ObjectScan<Record, Fields<Record>::list, TypeKey<Record>>::scan(line.data(), end, out) == end;
}

}  // namespace ftdiag::evidence::canonical
