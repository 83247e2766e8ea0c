// simdjson On-Demand reader of journal lines, generic over the field tables.
//
// Lines as `ftdiag run` writes them, nearly all of a journal, never get here:
// journal_canonical.h reads them straight into their records, and leaves
// anything else to this reader, which gives the same records for those.
//
// It must agree with the nlohmann path (json_fields.h, records_json.cpp) on
// every input, so it walks every byte of a line even where it has no use for
// the value: nlohmann refuses a line with a syntax error anywhere, also in the
// value of a key nobody reads, while On-Demand only looks at what it is asked
// for (and steps over the rest loosely). Each reader therefore returns one of
//   ok       the value was read;
//   invalid  well-formed JSON of the wrong shape (a wrong type, an absent
//            required key, an integer that does not fit): the record fails,
//            but the walk goes on, since a later duplicate of the key may
//            replace the value (nlohmann keeps the last) and the rest of the
//            line must still be checked for syntax;
//   broken   not JSON: the line fails at once.
//
// Besides its own checks it relies on simdjson's stage 1, which runs over the
// whole line before anything is read: UTF-8, unescaped control characters in
// strings, unterminated strings. Stage 1 is simdjson's runtime-dispatched
// kernel (AVX2 or AVX-512 where the CPU has them); the On-Demand walk is
// header code, compiled for the build's target (simdjson's "fallback" in a
// baseline x86-64 build), which is why the hot paths below (keys compared raw
// against the tables, integers parsed eight digits at a time) are written out
// here. Compiling this file for AVX2 made it no faster (docs/performance.md):
// the walk is scalar code in every simdjson implementation.
//
// A line is read in one pass when its "type" can be guessed from its end
// (`ftdiag run` writes keys sorted, so "type" comes last) and the guess is
// confirmed by the last "type" member read; otherwise a first pass finds the
// type and a second reads the record.
#include "evidence/journal_parse.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <simdjson.h>

#include "evidence/fields.h"
#include "evidence/journal_canonical.h"
#include "evidence/record_fields.h"

namespace ftdiag::evidence {

namespace {

namespace od = simdjson::ondemand;

enum class Status : std::uint8_t { ok, invalid, broken };

struct Ctx {
  std::string error;        // why the last value read was invalid
  const char* end = nullptr;  // the end of the line
};

[[gnu::always_inline]] constexpr bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
[[gnu::always_inline]] constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The value's token: from its first byte to the next structural character,
// trailing whitespace removed. For a scalar that is all of it (plus any junk
// glued to it, which the checks below refuse); for a container, its opening
// bracket. Empty past the end of the line: where a document is unbalanced,
// On-Demand can step onto its end marker, whose token has no sensible length.
std::string_view token_of(od::value& v, const Ctx& ctx) {
  const std::string_view raw = v.raw_json_token();
  if (raw.data() >= ctx.end) return {};
  std::string_view t(raw.data(), std::min<std::size_t>(raw.size(), static_cast<std::size_t>(ctx.end - raw.data())));
  while (!t.empty() && is_space(t.back())) t.remove_suffix(1);
  return t;
}

// The value's first byte, or '\0' past the end of the line (see token_of).
[[gnu::always_inline]] inline char first_char(od::value& v, const Ctx& ctx) {
  const char* p = v.raw_json_token().data();
  return p < ctx.end ? *p : '\0';
}

[[gnu::always_inline]] constexpr bool is_delimiter(char c) { return c == ',' || c == '}' || c == ']' || is_space(c); }

// RFC 8259 number grammar, on the whole token.
bool is_json_number(std::string_view t) {
  std::size_t i = 0;
  const std::size_t n = t.size();
  if (i < n && t[i] == '-') ++i;
  if (i >= n) return false;
  if (t[i] == '0') {
    ++i;
  } else if (is_digit(t[i])) {
    while (i < n && is_digit(t[i])) ++i;
  } else {
    return false;
  }
  if (i < n && t[i] == '.') {
    ++i;
    if (i >= n || !is_digit(t[i])) return false;
    while (i < n && is_digit(t[i])) ++i;
  }
  if (i < n && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < n && (t[i] == '+' || t[i] == '-')) ++i;
    if (i >= n || !is_digit(t[i])) return false;
    while (i < n && is_digit(t[i])) ++i;
  }
  return i == n;
}

// nlohmann refuses a number that overflows a double ("number overflow"),
// also where nobody reads it; so does simdjson's get_double.
bool is_finite_number(od::value& v) {
  double ignored = 0;
  return v.get_double().get(ignored) == simdjson::SUCCESS;
}

// A number token as nlohmann stores it: an integer when it has neither
// fraction nor exponent and fits int64 (negative) or uint64, else a double.
struct IntegerToken {
  bool is_integer = false;
  bool negative = false;
  std::uint64_t magnitude = 0;
};

IntegerToken classify_integer(std::string_view t) {
  IntegerToken out;
  if (t.find_first_of(".eE") != std::string_view::npos) return out;
  std::size_t i = 0;
  if (t[0] == '-') {
    out.negative = true;
    i = 1;
  }
  std::uint64_t m = 0;
  for (; i < t.size(); ++i) {
    const auto d = static_cast<std::uint64_t>(t[i] - '0');
    if (m > (std::numeric_limits<std::uint64_t>::max() - d) / 10) return out;  // a double for nlohmann
    m = m * 10 + d;
  }
  if (out.negative && m > (std::uint64_t{1} << 63)) return out;
  out.is_integer = true;
  out.magnitude = m;
  return out;
}

// A string token, quotes included, is exactly one string: the first
// unescaped quote after the opening one is its last byte.
bool is_one_string(std::string_view t) {
  if (t.size() < 2 || t.front() != '"') return false;
  for (std::size_t i = 1; i < t.size(); ++i) {
    if (t[i] == '\\') {
      ++i;
    } else if (t[i] == '"') {
      return i + 1 == t.size();
    }
  }
  return false;
}

// The text of a string value, unescaped; views the line when it holds no
// escape, else simdjson's string buffer (valid while the line is parsed).
// `token` is token_of(v). A string followed by ':' is refused here: it is a
// key where a value should be, and On-Demand, stepping over a string it was
// not asked to read, would take it for a key and walk on.
Status string_text(od::value& v, std::string_view token, const Ctx& ctx, std::string_view& out) {
  const std::string_view raw = v.raw_json_token();
  const char* next = raw.data() + raw.size();  // the next structural character
  if (next < ctx.end && *next == ':') return Status::broken;
  if (token.size() >= 2 && token.back() == '"') {
    const std::string_view inner = token.substr(1, token.size() - 2);
    bool plain = true;
    for (const char c : inner) plain &= c != '\\' && c != '"';
    if (plain) {
      out = inner;
      return Status::ok;
    }
  }
  if (!is_one_string(token)) return Status::broken;
  if (v.get_string().get(out) != simdjson::SUCCESS) return Status::broken;  // a bad escape
  return Status::ok;
}

// ---- walking a value only to check it is JSON ----
Status validate(od::value& v, Ctx& ctx);

// A member's key. Most keys are compared raw against a table's keys, which
// have no escapes, so a key is unescaped (and its escapes checked) only when
// something asks for its text or nothing matched it raw.
class Key {
 public:
  Key(std::string_view raw, od::field& field) : raw_(raw), field_(field) {}

  std::string_view raw() const { return raw_; }

  // Whether the key is `k` (which has no escapes). False on a bad escape;
  // for_each_member then refuses the line.
  bool is(std::string_view k) {
    if (raw_.size() == k.size() && __builtin_memcmp(raw_.data(), k.data(), k.size()) == 0) {
      checked_ = true;  // it equals a text without escapes, so it has none
      return true;
    }
    std::string_view t;
    return has_escape() && text(t) && t == k;
  }
  // The raw key equalled a text without escapes, so it has none.
  void matched_raw() { checked_ = true; }
  bool has_escape() {
    if (escape_ == Escape::unknown) escape_ = raw_.find('\\') == std::string_view::npos ? Escape::none : Escape::some;
    return escape_ == Escape::some;
  }
  // The key unescaped; false when an escape is bad.
  bool text(std::string_view& out) {
    if (!has_escape()) {
      checked_ = true;
      out = raw_;
      return true;
    }
    if (!checked_) {
      checked_ = true;
      unescape_ok_ = field_.unescaped_key().get(unescaped_) == simdjson::SUCCESS;  // once: it consumes the key
    }
    out = unescaped_;
    return unescape_ok_;
  }
  // After the member was handled: false when its key is not valid JSON.
  bool check() {
    if (checked_ && escape_ != Escape::some) return true;
    std::string_view ignored;
    return text(ignored);
  }

 private:
  enum class Escape : std::uint8_t { unknown, none, some };
  std::string_view raw_;
  od::field& field_;
  Escape escape_ = Escape::unknown;
  bool checked_ = false;
  bool unescape_ok_ = false;
  std::string_view unescaped_;
};

// Calls on_field(key, value) for each member of `object`. Between a key and
// its value only whitespace and the ':' may stand (On-Demand steps from
// structural to structural and does not look between them).
template <class OnField>
Status for_each_member(od::object& object, const Ctx& ctx, OnField&& on_field) {
  for (auto result : object) {
    // By reference: copying On-Demand's small structs costs more than it seems
    // (stores then wider loads of the same bytes stall the CPU).
    if (result.error() != simdjson::SUCCESS) return Status::broken;
    od::field& f = result.value_unsafe();
    const char* raw = f.key().raw();
    od::value& v = f.value();
    const char* value = v.raw_json_token().data();
    if (value >= ctx.end || raw >= value) return Status::broken;
    // Back from the value: whitespace, ':', whitespace, the key's closing
    // quote (as `ftdiag run` writes it: no whitespace at all).
    const char* p = value - 2;
    if (p < raw || value[-1] != ':' || *p != '"') {
      p = value - 1;
      while (p > raw && is_space(*p)) --p;
      if (p <= raw || *p != ':') return Status::broken;
      --p;
      while (p >= raw && is_space(*p)) --p;
      if (p < raw || *p != '"') return Status::broken;
    }
    Key key(std::string_view(raw, static_cast<std::size_t>(p - raw)), f);
    if (on_field(key, v) == Status::broken || !key.check()) return Status::broken;
  }
  return Status::ok;
}

Status validate(od::value& v, Ctx& ctx) {
  const std::string_view t = token_of(v, ctx);
  if (t.empty()) return Status::broken;
  switch (t[0]) {
    case '{': {
      od::object object;
      if (v.get_object().get(object) != simdjson::SUCCESS) return Status::broken;
      return for_each_member(object, ctx, [&](Key&, od::value& child) { return validate(child, ctx); });
    }
    case '[': {
      od::array array;
      if (v.get_array().get(array) != simdjson::SUCCESS) return Status::broken;
      for (auto result : array) {
        if (result.error() != simdjson::SUCCESS) return Status::broken;
        if (validate(result.value_unsafe(), ctx) == Status::broken) return Status::broken;
      }
      return Status::ok;
    }
    case '"': {
      std::string_view ignored;
      return string_text(v, t, ctx, ignored);
    }
    case 't': return t == "true" ? Status::ok : Status::broken;
    case 'f': return t == "false" ? Status::ok : Status::broken;
    case 'n': return t == "null" ? Status::ok : Status::broken;
    default:
      return is_json_number(t) && is_finite_number(v) ? Status::ok : Status::broken;
  }
}

// A value of the wrong type: invalid, once it is known to be JSON at all.
Status wrong_type(od::value& v, Ctx& ctx, std::string_view expected) {
  if (validate(v, ctx) == Status::broken) return Status::broken;
  ctx.error = fmt::format("expected {}", expected);
  return Status::invalid;
}

// A value to read into: T{}, or for a Fact (which has no default) a Missing,
// as json_fields.h's Blank.
template <class T>
T blank() {
  if constexpr (requires { T{}; }) {
    return T{};
  } else {
    return T(Missing{});
  }
}

// out = value, without the variant's generic assignment (a fresh Fact holds
// a Missing, which this destroys directly).
template <class T>
void replace(Fact<T>& out, T&& value) {
  if constexpr (std::is_nothrow_move_constructible_v<T>) {
    std::destroy_at(&out);
    std::construct_at(&out, std::move(value));
  } else {
    out = std::move(value);
  }
}

template <class T>
T& emplace_blank(std::vector<T>& values) {
  if constexpr (requires { T{}; }) {
    return values.emplace_back();
  } else {
    return values.emplace_back(Missing{});
  }
}

// ---- the readers: one overload per kind of member, declared first ----
template <class T>
  requires std::is_arithmetic_v<T>
Status read_simd(od::value& v, T& out, Ctx& ctx);
Status read_simd(od::value& v, std::string& out, Ctx& ctx);
Status read_simd(od::value& v, char& out, Ctx& ctx);
Status read_simd(od::value& v, ExitStatus& out, Ctx& ctx);
template <class T>
Status read_simd(od::value& v, Fact<T>& out, Ctx& ctx);
template <class T>
Status read_simd(od::value& v, std::optional<T>& out, Ctx& ctx);
template <class T>
Status read_simd(od::value& v, std::vector<T>& out, Ctx& ctx);
template <class T>
Status read_simd(od::value& v, std::map<std::string, T>& out, Ctx& ctx);
template <Described T>
Status read_simd(od::value& v, T& out, Ctx& ctx);

// The common case of an integer (canonical::plain_integer) followed by a
// delimiter; true when it was that and fits T. The value is left to
// On-Demand to step over.
template <class T>
[[gnu::always_inline]] inline bool read_plain_integer(od::value& v, T& out, const Ctx& ctx) {
  const char* p = v.raw_json_token().data();
  if (p >= ctx.end) return false;
  T value{};
  const char* after = canonical::plain_integer(p, value);
  if (after == nullptr || after >= ctx.end || !is_delimiter(*after)) return false;
  out = value;
  return true;
}

template <class T>
  requires std::is_arithmetic_v<T>
[[gnu::noinline]] Status read_arithmetic_checked(od::value& v, T& out, Ctx& ctx);

template <class T>
  requires std::is_arithmetic_v<T>
[[gnu::always_inline]] inline Status read_simd(od::value& v, T& out, Ctx& ctx) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    if (read_plain_integer(v, out, ctx)) return Status::ok;
  }
  return read_arithmetic_checked(v, out, ctx);
}

template <class T>
  requires std::is_arithmetic_v<T>
Status read_arithmetic_checked(od::value& v, T& out, Ctx& ctx) {
  const std::string_view t = token_of(v, ctx);
  if (t.empty()) return Status::broken;
  if constexpr (std::is_same_v<T, bool>) {
    if (t == "true") {
      out = true;
      return Status::ok;
    }
    if (t == "false") {
      out = false;
      return Status::ok;
    }
    return wrong_type(v, ctx, "a boolean");
  } else if constexpr (std::is_floating_point_v<T>) {
    static_assert(std::is_same_v<T, double>, "only double members are read");
    if (t[0] != '-' && !is_digit(t[0])) return wrong_type(v, ctx, "a number");
    double d = 0;
    if (v.get_double().get(d) == simdjson::SUCCESS) {
      out = d;
      return Status::ok;
    }
    return Status::broken;  // bad grammar, or it overflows a double: nlohmann refuses both
  } else {
    if (t[0] != '-' && !is_digit(t[0])) return wrong_type(v, ctx, "an integer");
    // The slow path decides between a syntax error and a number that does
    // not fit: a fraction, an exponent, too large, or "-0" for an unsigned.
    if (!is_json_number(t) || !is_finite_number(v)) return Status::broken;
    const IntegerToken n = classify_integer(t);
    if (n.is_integer) {
      bool fits = false;
      T value{};
      if (n.negative) {
        if (n.magnitude == 0) {
          fits = true;
        } else if constexpr (std::is_signed_v<T>) {
          const std::int64_t x = n.magnitude == (std::uint64_t{1} << 63)
                                     ? std::numeric_limits<std::int64_t>::min()
                                     : -static_cast<std::int64_t>(n.magnitude);
          fits = std::in_range<T>(x);
          if (fits) value = static_cast<T>(x);
        }
      } else {
        fits = std::in_range<T>(n.magnitude);
        if (fits) value = static_cast<T>(n.magnitude);
      }
      if (fits) {
        out = value;
        return Status::ok;
      }
    }
    ctx.error = n.is_integer ? fmt::format("{} is out of range", t) : fmt::format("{} is not an integer", t);
    return Status::invalid;
  }
}

Status read_simd(od::value& v, std::string& out, Ctx& ctx) {
  const std::string_view t = token_of(v, ctx);
  if (t.empty()) return Status::broken;
  if (t[0] != '"') return wrong_type(v, ctx, "a string");
  std::string_view text;
  if (Status s = string_text(v, t, ctx, text); s != Status::ok) return s;
  out.assign(text);
  return Status::ok;
}

// One-letter codes ("o", "e"); no journal record has one yet.
[[maybe_unused]] Status read_simd(od::value& v, char& out, Ctx& ctx) {
  std::string text;
  if (Status s = read_simd(v, text, ctx); s != Status::ok) return s;
  if (text.size() != 1) {
    ctx.error = fmt::format("expected a one-letter code, got \"{}\"", text);
    return Status::invalid;
  }
  out = text[0];
  return Status::ok;
}

// ---- objects with a field table ----

// visit_field (fields.h) over a table known at compile time, so that each
// key compares as a length and a fixed-size memcmp; it also passes the
// field's index.
template <const auto& kTable, class Visit, std::size_t... I>
bool visit_indexed(std::string_view key, Visit&& visit, std::index_sequence<I...>) {
  auto matches = [&](std::string_view k) {
    return key.size() == k.size() && __builtin_memcmp(key.data(), k.data(), k.size()) == 0;
  };
  return ((matches(std::get<I>(kTable).key) &&
           (visit(std::integral_constant<std::size_t, I>{}, std::get<I>(kTable)), true)) ||
          ...);
}

// Reads the members of one object into `out`, following the field table
// kTable: the same rules as json_fields.h's read_json for a Described type.
// Feed it each member with on_field, then call finish.
template <class Struct, const auto& kTable>
class TableReader {
 public:
  static constexpr std::size_t kFields = std::tuple_size_v<std::remove_cvref_t<decltype(kTable)>>;
  static_assert(kFields <= 64);

  explicit TableReader(Struct& out) : out_(out) {}

  // False when `key` is not in the table (the caller decides what to do).
  bool on_field(Key& key, od::value& v, Ctx& ctx, Status& status) {
    if (visit_field(key.raw(), v, ctx, status)) {
      key.matched_raw();
      return true;
    }
    std::string_view text;
    if (!key.has_escape()) return false;
    if (!key.text(text)) {
      status = Status::broken;
      return true;
    }
    return visit_field(text, v, ctx, status);
  }

  // Absent keys take their default; the first failure in table order wins.
  Status finish(Ctx& ctx) {
    Status status = Status::ok;
    finish_each(ctx, status, std::make_index_sequence<kFields>{});
    return status;
  }

 private:
  bool visit_field(std::string_view key, od::value& v, Ctx& ctx, Status& status) {
    return visit_indexed<kTable>(
        key,
        [&](auto index, const auto& f) {
          constexpr std::size_t i = decltype(index)::value;
          constexpr std::uint64_t bit = std::uint64_t{1} << i;
          auto& member = out_.*(f.member);
          // A key seen again reads afresh: nlohmann keeps only the last.
          if (seen_ & bit) member = blank<std::remove_cvref_t<decltype(member)>>();
          seen_ |= bit;
          if (f.presence == Presence::required && first_char(v, ctx) == 'n') {
            status = token_of(v, ctx) == "null" ? Status::invalid : Status::broken;
            ctx.error = fmt::format("no \"{}\"", f.key);
          } else {
            status = read_simd(v, member, ctx);
            if (status == Status::invalid) ctx.error = fmt::format("\"{}\": {}", f.key, ctx.error);
          }
          if (status == Status::ok) {
            failed_ &= ~bit;
          } else if (status == Status::invalid) {
            failed_ |= bit;
            if (messages_.empty()) messages_.resize(kFields);
            messages_[i] = std::move(ctx.error);
          }
        },
        std::make_index_sequence<kFields>{});
  }

  template <class M>
  static void mark_absent(M& /*member*/, std::string_view /*key*/) {}
  template <class T>
  static void mark_absent(Fact<T>& member, std::string_view key) {
    member = Missing{MissingReason::not_present, "no " + std::string(key)};
  }

  template <std::size_t... I>
  void finish_each(Ctx& ctx, Status& status, std::index_sequence<I...>) {
    (finish_one<I>(ctx, status), ...);
  }
  template <std::size_t I>
  void finish_one(Ctx& ctx, Status& status) {
    const auto& f = std::get<I>(kTable);
    constexpr std::uint64_t bit = std::uint64_t{1} << I;
    if (!(seen_ & bit)) {
      if (f.presence == Presence::required) {
        if (status == Status::ok) ctx.error = fmt::format("no \"{}\"", f.key);
        status = Status::invalid;
      } else {
        mark_absent(out_.*(f.member), f.key);
      }
    } else if (failed_ & bit) {
      if (status == Status::ok) ctx.error = messages_[I];
      status = Status::invalid;
    }
  }

  Struct& out_;
  std::uint64_t seen_ = 0;
  std::uint64_t failed_ = 0;
  std::vector<std::string> messages_;  // sized on the first failure
};

// Reads `object`'s members through a TableReader; keys outside the table are
// checked and ignored. on_other(key, value, status) sees every member first
// and may take it (returning true and setting the status).
template <const auto& kTable, class Struct, class OnOther>
Status read_table(od::object& object, Struct& out, Ctx& ctx, OnOther&& on_other) {
  TableReader<Struct, kTable> reader(out);
  Status walk = for_each_member(object, ctx, [&](Key& key, od::value& v) {
    Status status = Status::ok;
    if (on_other(key, v, status)) return status;
    if (reader.on_field(key, v, ctx, status)) return status;
    return validate(v, ctx);
  });
  if (walk == Status::broken) return walk;
  return reader.finish(ctx);
}

constexpr auto kNoOther = [](Key&, od::value&, Status&) { return false; };

// ExitStatus's own form (records_json.cpp): exit_code and signal (null when
// not set), core_dumped; launcher_code, description and signal_name are
// derived, ignored on read.
constexpr auto kExitStatusFields = std::tuple{field("exit_code", &ExitStatus::exit_code),
                                              field("signal", &ExitStatus::signal),
                                              field("core_dumped", &ExitStatus::core_dumped)};

// The members of an object read into a type with a field table. `out` is
// blank (a duplicate key was reset by the TableReader above it).
template <Described T, class OnOther>
Status read_fields(od::object& object, T& out, Ctx& ctx, OnOther&& on_other) {
  return read_table<Fields<T>::list>(object, out, ctx, on_other);
}
template <class OnOther>
Status read_fields(od::object& object, ExitStatus& out, Ctx& ctx, OnOther&& on_other) {
  return read_table<kExitStatusFields>(object, out, ctx, on_other);
}

template <Described T>
Status read_simd(od::value& v, T& out, Ctx& ctx) {
  const char c = first_char(v, ctx);
  if (c == '\0') return Status::broken;
  if (c != '{') return wrong_type(v, ctx, "an object");
  od::object object;
  if (v.get_object().get(object) != simdjson::SUCCESS) return Status::broken;
  return read_fields(object, out, ctx, kNoOther);
}

Status read_simd(od::value& v, ExitStatus& out, Ctx& ctx) {
  const char c = first_char(v, ctx);
  if (c == '\0') return Status::broken;
  if (c != '{') return wrong_type(v, ctx, "an exit status object");
  od::object object;
  if (v.get_object().get(object) != simdjson::SUCCESS) return Status::broken;
  return read_fields(object, out, ctx, kNoOther);
}

template <class T>
Status read_simd(od::value& v, std::optional<T>& out, Ctx& ctx) {
  if (first_char(v, ctx) == 'n' && token_of(v, ctx) == "null") {
    out.reset();
    return Status::ok;
  }
  out = blank<T>();
  return read_simd(v, *out, ctx);
}

template <class T>
Status read_simd(od::value& v, std::vector<T>& out, Ctx& ctx) {
  const char c = first_char(v, ctx);
  if (c == '\0') return Status::broken;
  if (c != '[') return wrong_type(v, ctx, "an array");
  // Most arrays are as long as the last one of their kind (a sample's
  // processes): reserve that much rather than grow step by step.
  thread_local std::size_t last_size = 0;
  od::array array;
  if (v.get_array().get(array) != simdjson::SUCCESS) return Status::broken;
  out.clear();
  out.reserve(last_size);
  Status status = Status::ok;
  std::string first_error;
  for (auto result : array) {
    if (result.error() != simdjson::SUCCESS) return Status::broken;
    const Status s = read_simd(result.value_unsafe(), emplace_blank(out), ctx);
    if (s == Status::broken) return s;
    if (s == Status::invalid && status == Status::ok) {
      status = s;
      first_error = fmt::format("[{}]: {}", out.size() - 1, ctx.error);
    }
  }
  last_size = std::min<std::size_t>(std::max(out.size(), last_size - last_size / 64), 4096);
  if (status == Status::invalid) ctx.error = std::move(first_error);
  return status;
}

template <class T>
Status read_simd(od::value& v, std::map<std::string, T>& out, Ctx& ctx) {
  const char c = first_char(v, ctx);
  if (c == '\0') return Status::broken;
  if (c != '{') return wrong_type(v, ctx, "an object");
  od::object object;
  if (v.get_object().get(object) != simdjson::SUCCESS) return Status::broken;
  out.clear();
  std::vector<std::pair<std::string, std::string>> failing;  // key, why: only the last of duplicates counts
  const Status walk = for_each_member(object, ctx, [&](Key& k, od::value& item) {
    std::string_view key;
    if (!k.text(key)) return Status::broken;
    T value = blank<T>();
    const Status s = read_simd(item, value, ctx);
    if (s == Status::broken) return s;
    std::erase_if(failing, [&](const auto& entry) { return entry.first == key; });
    if (s == Status::ok) {
      out.insert_or_assign(std::string(key), std::move(value));
    } else {
      failing.emplace_back(std::string(key), std::move(ctx.error));
    }
    return Status::ok;
  });
  if (walk == Status::broken) return walk;
  if (failing.empty()) return Status::ok;
  ctx.error = fmt::format("\"{}\": {}", failing.front().first, failing.front().second);
  return Status::invalid;
}

// ---- facts: the value, or {"missing": {"reason": ..., "detail": ...}} ----

// missing_from_json's defaults: an absent reason reads as "failed", an absent
// detail as "".
struct MissingText {
  std::string reason = "failed";
  std::string detail;
};
constexpr auto kMissingFields =
    std::tuple{field("reason", &MissingText::reason), field("detail", &MissingText::detail)};

// What the members named "missing" of an object said; the last one counts.
struct MissingCandidate {
  bool seen = false;
  bool is_object = false;  // only then is the whole a Missing
  Status status = Status::ok;
  std::string error;
  Missing missing;

  Status take(od::value& v, Ctx& ctx) {
    seen = true;
    const std::string_view t = token_of(v, ctx);
    if (t.empty()) return Status::broken;
    is_object = t[0] == '{';
    if (!is_object) return validate(v, ctx);
    od::object object;
    if (v.get_object().get(object) != simdjson::SUCCESS) return Status::broken;
    MissingText text;
    status = read_table<kMissingFields>(object, text, ctx, kNoOther);
    if (status == Status::broken) return status;
    if (status == Status::invalid) error = "\"missing\": " + ctx.error;
    missing = Missing{missing_reason_from_string(text.reason), std::move(text.detail)};
    return Status::ok;
  }
};

// The field table of a type read from an object, for Fact<T> to read in one
// pass beside a possible "missing"; std::optional<T> reads as T.
template <class T>
constexpr bool kHasTable = false;
template <Described T>
constexpr bool kHasTable<T> = true;
template <>
constexpr bool kHasTable<ExitStatus> = true;
template <class T>
constexpr bool kHasTable<std::optional<T>> = kHasTable<T>;

template <class T, class OnOther>
Status read_object_fields(od::object& object, T& out, Ctx& ctx, OnOther&& on_other) {
  return read_fields(object, out, ctx, on_other);
}
template <class T, class OnOther>
Status read_object_fields(od::object& object, std::optional<T>& out, Ctx& ctx, OnOther&& on_other) {
  out = blank<T>();
  return read_fields(object, *out, ctx, on_other);
}

template <class T>
constexpr bool kIsMap = false;
template <class T>
constexpr bool kIsMap<std::map<std::string, T>> = true;

template <class T>
[[gnu::noinline]] Status read_fact_object(od::value& v, Fact<T>& out, Ctx& ctx);

template <class T>
[[gnu::always_inline]] inline Status read_simd(od::value& v, Fact<T>& out, Ctx& ctx) {
  // nlohmann would read a map's "missing" member both ways; no table has a
  // Fact of a map, so that case is not written.
  static_assert(!kIsMap<T>, "Fact<std::map<...>> is not read");
  const char c = first_char(v, ctx);
  if (c == '\0') return Status::broken;
  if (c == '{') return read_fact_object(v, out, ctx);
  T value = blank<T>();  // not a Missing: the value itself
  const Status s = read_simd(v, value, ctx);
  if (s == Status::ok) replace(out, std::move(value));
  return s;
}

template <class T>
Status read_fact_object(od::value& v, Fact<T>& out, Ctx& ctx) {
  // An object is a Missing when its only key is "missing" and that holds an
  // object (is_missing_json); otherwise it is read as T.
  od::object object;
  if (v.get_object().get(object) != simdjson::SUCCESS) return Status::broken;
  MissingCandidate candidate;
  bool others = false;
  auto take_missing = [&](Key& key, od::value& item, Status& status) {
    if (!key.is("missing")) {
      others = true;
      return false;
    }
    status = candidate.take(item, ctx);
    return true;
  };
  Status s = Status::ok;
  T value{};
  if constexpr (kHasTable<T>) {
    s = read_object_fields(object, value, ctx, take_missing);
  } else {
    s = for_each_member(object, ctx, [&](Key& key, od::value& item) {
      Status status = Status::ok;
      if (take_missing(key, item, status)) return status;
      return validate(item, ctx);
    });
    if (s == Status::ok) {
      ctx.error = "expected a value or {\"missing\": {...}}, got another object";
      s = Status::invalid;
    }
  }
  if (s == Status::broken) return s;
  if (candidate.seen && candidate.is_object && !others) {
    if (candidate.status == Status::ok) {
      out = std::move(candidate.missing);
      return Status::ok;
    }
    ctx.error = std::move(candidate.error);
    return Status::invalid;
  }
  if (s == Status::ok) out = std::move(value);
  return s;
}

// ---- a whole line ----

Missing unparseable(std::string detail) { return Missing{MissingReason::unparseable, std::move(detail)}; }

// The members named "type" of a record's line: the last one counts.
struct TypeSeen {
  bool is_string = false;
  std::string text;
};

template <class Record>
bool try_record(std::string_view type, od::object& object, Ctx& ctx, std::optional<JournalRecord>& out,
                Status& status, TypeSeen& seen) {
  if (type != record_type<Record>()) return false;
  Record record;
  auto note_type = [&](Key& key, od::value& v, Status& s) {
    if (!key.is("type")) return false;
    const std::string_view t = token_of(v, ctx);
    seen.is_string = !t.empty() && t[0] == '"';
    if (!seen.is_string) {
      s = validate(v, ctx);
      return true;
    }
    std::string_view text;
    s = string_text(v, t, ctx, text);
    seen.text.assign(text);
    return true;
  };
  status = read_table<Fields<Record>::list>(object, record, ctx, note_type);
  if (status == Status::ok) out.emplace(std::in_place_type<Record>, std::move(record));
  return true;
}

template <class... Records>
bool parse_record(std::string_view type, od::object& object, Ctx& ctx, std::optional<JournalRecord>& out,
                  Status& status, TypeSeen& seen, std::variant<Records...>* /*tag*/) {
  return (try_record<Records>(type, object, ctx, out, status, seen) || ...);
}

// The type as `ftdiag run` writes it: keys sorted, so the line ends with
// ,"type":"sample"}. Only a guess, confirmed by reading the line.
std::string_view guess_type(const char* data, std::size_t size) {
  std::size_t end = size;
  while (end > 0 && is_space(data[end - 1])) --end;
  if (end < 2 || data[end - 1] != '}' || data[end - 2] != '"') return {};
  const std::size_t close = end - 2;
  std::size_t open = close;
  while (open > 0 && data[open - 1] != '"') {
    const char c = data[open - 1];
    if (c < 'a' || c > 'z' || close - open > 16) return {};
    --open;
  }
  constexpr std::string_view key = "\"type\":";
  if (open < 1 + key.size() || std::memcmp(data + open - 1 - key.size(), key.data(), key.size()) != 0) return {};
  return {data + open, close - open};
}

// The line's record when it is written as `ftdiag run` writes it
// (journal_canonical.h), read without simdjson; nullopt otherwise. `reuse`:
// see JournalLineParser::parse_in_place.
template <class Record>
bool try_canonical(std::string_view line, JournalRecord* reuse, std::optional<JournalRecord>& out) {
  if (reuse != nullptr && std::holds_alternative<Record>(*reuse)) {
    Record& record = std::get<Record>(*reuse);
    canonical::reset_keeping_capacity(record);
    if (!canonical::read_canonical(line, record)) return false;
    out.emplace(std::move(*reuse));
    return true;
  }
  out.emplace(std::in_place_type<Record>);
  if (canonical::read_canonical(line, std::get<Record>(*out))) return true;
  out.reset();
  return false;
}
template <class... Records>
std::optional<JournalRecord> canonical_record(std::string_view line, JournalRecord* reuse,
                                              std::variant<Records...>* /*tag*/) {
  const std::string_view type = guess_type(line.data(), line.size());
  std::optional<JournalRecord> out;
  (void)((type == record_type<Records>() && try_canonical<Records>(line, reuse, out)) || ...);
  return out;
}

// Whether nothing but whitespace follows the root value.
bool at_end(od::document& doc) {
  const char* location = nullptr;
  return doc.current_location().get(location) == simdjson::OUT_OF_BOUNDS;
}

// For a line that fails: not JSON at all, or the given reason. Parses the
// line again from the start (a failed get_object() may have abandoned the
// document, which then cannot be rewound), entering the root through
// get_object() or get_array(), whose checks On-Demand relies on to stay
// inside an unbalanced document.
Missing why_not(od::parser& parser, const simdjson::padded_string_view& line, Ctx& ctx, std::string reason) {
  const Missing not_json = unparseable(std::string(kNotAJsonObject));
  od::document doc;
  od::json_type type;
  if (parser.iterate(line).get(doc) != simdjson::SUCCESS || doc.type().get(type) != simdjson::SUCCESS) return not_json;
  if (type == od::json_type::object) {
    od::object object;
    if (doc.get_object().get(object) != simdjson::SUCCESS) return not_json;
    if (for_each_member(object, ctx, [&](Key&, od::value& v) { return validate(v, ctx); }) == Status::broken) {
      return not_json;
    }
  } else if (type == od::json_type::array) {
    od::array array;
    if (doc.get_array().get(array) != simdjson::SUCCESS) return not_json;
    for (auto result : array) {
      if (result.error() != simdjson::SUCCESS || validate(result.value_unsafe(), ctx) == Status::broken) {
        return not_json;
      }
    }
  } else {
    return unparseable("not a JSON object");  // a scalar: whether valid or not, it is no record
  }
  if (!at_end(doc)) return not_json;
  return unparseable(std::move(reason));
}

}  // namespace

struct JournalLineParser::Impl {
  od::parser parser;
  Ctx ctx;
  std::string type;
  std::unique_ptr<char[]> copy;  // for parse(): the line, padded
  std::size_t copy_capacity = 0;

  Fact<JournalRecord> parse(const char* data, std::size_t size, std::size_t capacity, JournalRecord* reuse) {
    auto record = parse_once(data, size, capacity, reuse);
    // nlohmann takes a NUL byte outside a string for the end of its input (a
    // file cut short by a crash may end in zeros); such a line fails here
    // (NUL is never valid JSON), so only then is it looked for.
    if (!record) {
      if (const void* nul = std::memchr(data, '\0', size)) {
        return parse_once(data, static_cast<std::size_t>(static_cast<const char*>(nul) - data), capacity, nullptr);
      }
    }
    return record;
  }

  Fact<JournalRecord> parse_once(const char* data, std::size_t size, std::size_t capacity, JournalRecord* reuse) {
    // nlohmann skips a byte order mark at the start.
    if (size >= 3 && std::memcmp(data, "\xEF\xBB\xBF", 3) == 0) {
      data += 3;
      size -= 3;
      capacity -= 3;
    }
    // Most lines: as `ftdiag run` writes them, read straight into the record.
    if (auto record = canonical_record({data, size}, reuse, static_cast<JournalRecord*>(nullptr))) {
      return std::move(*record);
    }

    const simdjson::padded_string_view line(data, size, capacity);
    ctx.end = data + size;
    od::document doc;
    if (parser.iterate(line).get(doc) != simdjson::SUCCESS) {
      return unparseable(std::string(kNotAJsonObject));
    }
    od::object object;
    if (doc.get_object().get(object) != simdjson::SUCCESS) return why_not(parser, line, ctx, "not a JSON object");

    std::optional<JournalRecord> record;
    Status status = Status::ok;
    TypeSeen seen;
    auto finish = [&]() -> Fact<JournalRecord> {
      if (status == Status::invalid) return unparseable(std::move(ctx.error));
      return std::move(*record);
    };

    // One pass when the type read from the line's end is the record's.
    type.assign(guess_type(data, size));
    if (!type.empty() && parse_record(type, object, ctx, record, status, seen, static_cast<JournalRecord*>(nullptr))) {
      if (status == Status::broken || !at_end(doc)) return unparseable(std::string(kNotAJsonObject));
      if (seen.is_string && seen.text == type) return finish();
      record.reset();
      doc.rewind();
      if (doc.get_object().get(object) != simdjson::SUCCESS) return unparseable(std::string(kNotAJsonObject));
    }

    // Otherwise pass 1 finds the "type" (the last one, as for nlohmann)...
    bool type_is_string = false;
    const Status types = for_each_member(object, ctx, [&](Key& key, od::value& v) {
      if (!key.is("type")) return Status::ok;
      const std::string_view t = token_of(v, ctx);
      type_is_string = !t.empty() && t[0] == '"';
      if (!type_is_string) return Status::ok;
      std::string_view text;
      const Status s = string_text(v, t, ctx, text);
      type.assign(text);
      return s;
    });
    if (types == Status::broken) return unparseable(std::string(kNotAJsonObject));
    if (!type_is_string) return why_not(parser, line, ctx, "no \"type\"");

    // ... and pass 2 reads the record, every byte checked.
    doc.rewind();
    if (doc.get_object().get(object) != simdjson::SUCCESS) return unparseable(std::string(kNotAJsonObject));
    status = Status::ok;
    if (!parse_record(type, object, ctx, record, status, seen, static_cast<JournalRecord*>(nullptr))) {
      return why_not(parser, line, ctx, fmt::format("unknown record type \"{}\"", type));
    }
    // Pass 2 saw every "type" member, checked: the last one must be pass 1's.
    if (status == Status::broken || !at_end(doc) || !seen.is_string || seen.text != type) {
      return unparseable(std::string(kNotAJsonObject));
    }
    return finish();
  }
};

JournalLineParser::JournalLineParser() : impl_(std::make_unique<Impl>()) {}
JournalLineParser::~JournalLineParser() = default;
JournalLineParser::JournalLineParser(JournalLineParser&&) noexcept = default;
JournalLineParser& JournalLineParser::operator=(JournalLineParser&&) noexcept = default;

std::size_t JournalLineParser::padding() { return simdjson::SIMDJSON_PADDING; }

Fact<JournalRecord> JournalLineParser::parse_in_place(const char* data, std::size_t size, std::size_t capacity,
                                                      JournalRecord* reuse) {
  try {
    return impl_->parse(data, size, capacity, reuse);
  } catch (const std::exception& e) {  // std::bad_alloc, from a record's members
    return unparseable(e.what());
  }
}

Fact<JournalRecord> JournalLineParser::parse(std::string_view line) {
  const std::size_t needed = line.size() + padding();
  if (impl_->copy_capacity < needed) {
    impl_->copy = std::make_unique<char[]>(needed);
    impl_->copy_capacity = needed;
  }
  if (!line.empty()) std::memcpy(impl_->copy.get(), line.data(), line.size());
  std::memset(impl_->copy.get() + line.size(), 0, padding());
  return parse_in_place(impl_->copy.get(), line.size(), impl_->copy_capacity);
}

Fact<JournalRecord> parse_journal_line(std::string_view line) {
  thread_local JournalLineParser parser;
  return parser.parse(line);
}

}  // namespace ftdiag::evidence
