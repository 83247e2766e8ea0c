// One definition per datum: a type's JSON form is declared once, as a table
// of (key, member) pairs in a Fields<T> specialization, and every reader and
// writer is generic over that table (json_fields.h for nlohmann,
// journal_parse.cpp for simdjson). Adding a field to a record is one line in
// its table; docs/evidence.md lists the same keys.
#pragma once

#include <string_view>
#include <tuple>

namespace ftdiag::evidence {

// Whether a reader must find the key. An optional key that is absent keeps
// the member's default; for a Fact member that default is "missing: no KEY",
// so documents of older schema versions read with the reason spelled out.
enum class Presence { optional, required };

template <class Struct, class Member>
struct Field {
  std::string_view key;
  Member Struct::*member;
  Presence presence;
};

template <class Struct, class Member>
constexpr Field<Struct, Member> field(std::string_view key, Member Struct::*member,
                                      Presence presence = Presence::optional) {
  return {key, member, presence};
}

inline constexpr Presence required = Presence::required;

// Specialise with `static constexpr auto list = std::tuple{field(...), ...};`
template <class T>
struct Fields;

template <class T>
concept Described = requires { Fields<T>::list; };

template <Described T, class Visit>
constexpr void for_each_field(Visit&& visit) {
  std::apply([&](const auto&... f) { (visit(f), ...); }, Fields<T>::list);
}

// Calls visit(field) for the field whose key is `key`; false when none is.
template <Described T, class Visit>
constexpr bool visit_field(std::string_view key, Visit&& visit) {
  return std::apply([&](const auto&... f) { return ((f.key == key ? (visit(f), true) : false) || ...); },
                    Fields<T>::list);
}

}  // namespace ftdiag::evidence
