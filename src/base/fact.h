// A fact is a value that was gathered, or the reason it could not be.
//
// Absence is evidence: "could not read the kernel log (permission denied)" is
// something a rule and a user must see, so readers never return sentinel zeros.
// Fact<T> is also the result type at every boundary that can fail (errors are
// values; nothing is thrown across a collector boundary).
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace ftdiag {

enum class MissingReason {
  not_present,        // the file, process or mechanism does not exist here
  permission_denied,  // EACCES / EPERM / missing capability
  timed_out,          // gave up after a deadline
  unparseable,        // read but not understood
  unsupported,        // the kernel or platform does not offer it
  failed,             // any other error; detail says which
};

std::string_view to_string(MissingReason reason);
// Inverse of to_string; unknown text maps to MissingReason::failed.
MissingReason missing_reason_from_string(std::string_view text);

struct Missing {
  // The default is what an empty slot of a record means: nothing was seen.
  MissingReason reason = MissingReason::not_present;
  std::string detail = "not recorded";  // human-readable: what was tried and what went wrong

  bool operator==(const Missing&) const = default;
};

// Maps an errno value to a Missing with `what` (e.g. "open /proc/1/status")
// and strerror text in the detail.
Missing missing_from_errno(int error_number, std::string_view what);

template <class T>
class Fact {
 public:
  Fact(T value) : state_(std::move(value)) {}          // NOLINT: implicit by design
  Fact(Missing missing) : state_(std::move(missing)) {}  // NOLINT: implicit by design

  bool has_value() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return has_value(); }

  const T& value() const& { return std::get<T>(state_); }
  T& value() & { return std::get<T>(state_); }
  T&& value() && { return std::get<T>(std::move(state_)); }
  const T& operator*() const& { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }

  const Missing& missing() const { return std::get<Missing>(state_); }

  T value_or(T fallback) const { return has_value() ? value() : std::move(fallback); }

  bool operator==(const Fact&) const = default;

 private:
  std::variant<T, Missing> state_;
};

}  // namespace ftdiag
