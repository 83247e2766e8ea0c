#include "report/anonymize.h"

#include <algorithm>
#include <array>
#include <set>

#include <fmt/format.h>

#include "base/text.h"

namespace ftdiag::report {

namespace {

// Top-level directories whose paths say nothing about a person or a site;
// "hosts" begins the evidence document's own JSON pointers (/hosts/0/runs/0/...).
constexpr std::array<std::string_view, 14> kSystemDirectories = {"usr", "lib", "lib32", "lib64", "bin", "sbin", "dev",
                                                                 "proc", "sys", "etc", "run", "opt", "var", "hosts"};
// Directories whose next part is a user's name.
constexpr std::array<std::string_view, 3> kHomes = {"home", "Users", "scratch"};

bool path_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '/' || c == '.' || c == '_' || c == '-' || c == '+' || c == '@' || c == '~';
}

bool starts_token(std::string_view text, std::size_t at) {
  if (at == 0) return true;
  const char before = text[at - 1];
  return std::string_view(" \t\n\"'(=:,[<`").find(before) != std::string_view::npos;
}

// The non-empty parts of a path ("/a//b/" -> a, b).
std::vector<std::string_view> parts_of(std::string_view path) {
  auto parts = ftdiag::text::split(path, '/');
  std::erase_if(parts, [](std::string_view part) { return part.empty(); });
  return parts;
}

bool word_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; }

// Whole-word occurrences only: a user called "ml" leaves "html" alone.
void replace_word(std::string& text, std::string_view word, std::string_view to) {
  for (std::size_t at = text.find(word); at != std::string::npos; at = text.find(word, at)) {
    const bool left = at == 0 || !word_char(text[at - 1]);
    const bool right = at + word.size() >= text.size() || !word_char(text[at + word.size()]);
    if (left && right) {
      text.replace(at, word.size(), to);
      at += to.size();
    } else {
      at += word.size();
    }
  }
}

}  // namespace

std::string anonymize(std::string_view input, const std::vector<std::string>& host_names) {
  std::string text(input);
  // Host names, longest first (node01.cluster before node01).
  std::vector<std::string> hosts;
  for (const auto& name : host_names) {
    if (!name.empty() && std::find(hosts.begin(), hosts.end(), name) == hosts.end()) hosts.push_back(name);
  }
  std::vector<std::pair<std::string, std::string>> host_map;
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    const auto label = fmt::format("host-{}", i + 1);
    host_map.emplace_back(hosts[i], label);
    if (const auto dot = hosts[i].find('.'); dot != std::string::npos && dot > 0) host_map.emplace_back(hosts[i].substr(0, dot), label);
  }
  std::sort(host_map.begin(), host_map.end(), [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  for (const auto& [name, label] : host_map) replace_word(text, name, label);

  // Paths: user names collected from home directories, private paths shortened.
  std::set<std::string> users;
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] != '/' || !starts_token(text, i)) {
      out += text[i++];
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && path_char(text[end])) ++end;
    const std::string_view path(text.data() + i, end - i);
    const auto parts = parts_of(path);
    const bool system = !parts.empty() && std::find(kSystemDirectories.begin(), kSystemDirectories.end(), parts.front()) != kSystemDirectories.end();
    if (parts.size() >= 2 && std::find(kHomes.begin(), kHomes.end(), parts.front()) != kHomes.end()) users.insert(std::string(parts[1]));
    if (parts.size() < 2 || system) {
      out.append(path);
    } else {
      out += "…/";
      out.append(parts.back());
      if (path.back() == '/') out += '/';
    }
    i = end;
  }
  for (const auto& user : users) {
    if (user.size() >= 2) replace_word(out, user, "user");
  }
  return out;
}

}  // namespace ftdiag::report
