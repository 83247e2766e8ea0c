// The module-level assignments of files Python packages generate at build
// time — torch/version.py, deepspeed/git_version_info_installed.py — read as
// text, never executed:
//
//   __version__ = '2.7.0+cu128'
//   cuda: Optional[str] = '12.8'
//   installed_ops={'async_io': False, 'cpu_adam': True}
//
// Only literals are understood: strings, None, True, False, numbers, and
// dicts, lists and tuples of them. A statement that is anything else (a
// call, an import, an indented block) is skipped, so a file a user edited
// still yields the assignments that remain literal.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace ftdiag::parse {

struct PythonDictItem;

struct PythonLiteral {
  enum class Kind { none, boolean, string, number, dict, sequence };
  Kind kind = Kind::none;
  std::string text;  // a string's value, a number's spelling
  bool boolean = false;
  std::vector<PythonDictItem> items;  // a dict's entries with string keys, in order

  bool is_string() const { return kind == Kind::string; }
  bool is_none() const { return kind == Kind::none; }
  // The value of a string or the spelling of a number; empty otherwise.
  std::string scalar_text() const;
  // A dict's entry for key, or nullptr (also when this is not a dict).
  const PythonLiteral* find(std::string_view key) const;
};

struct PythonDictItem {
  std::string key;
  PythonLiteral value;
};

// Name -> value of each top-level `name = literal` or `name: annotation =
// literal` statement; a later assignment replaces an earlier one, as when
// Python runs the file. Pure and total: any bytes give a (possibly empty)
// map in time linear in the input; nesting deeper than 16 is not a literal.
std::map<std::string, PythonLiteral> parse_python_assignments(std::string_view source);

}  // namespace ftdiag::parse
