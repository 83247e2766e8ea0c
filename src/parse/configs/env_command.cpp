#include "parse/configs/env_command.h"

#include <array>
#include <deque>

namespace ftdiag::parse {
namespace {

// A word env treats as an assignment: NAME=VALUE with a non-empty NAME.
bool is_assignment(std::string_view word) {
  const auto equals = word.find('=');
  return equals != std::string_view::npos && equals > 0 && !word.starts_with('-');
}

// Options of GNU env that take the next word as their value, short and long.
bool takes_value(std::string_view option) {
  return option == "-u" || option == "-C" || option == "-S" || option == "--unset" || option == "--chdir" ||
         option == "--split-string";
}

// The option's value when attached: "-uPATH" -> "PATH", "--unset=PATH" -> "PATH".
std::optional<std::string> attached_value(std::string_view word, char short_name, std::string_view long_name) {
  if (word.size() > 2 && word[0] == '-' && word[1] == short_name) return std::string(word.substr(2));
  if (word.starts_with(long_name) && word.size() > long_name.size() && word[long_name.size()] == '=') {
    return std::string(word.substr(long_name.size() + 1));
  }
  return std::nullopt;
}

class EnvReader {
 public:
  explicit EnvReader(std::span<const std::string> arguments) : words_(arguments.begin(), arguments.end()) {}

  EnvCommand run() {
    while (!words_.empty() && option_or_assignment()) {
    }
    result_.command.assign(words_.begin(), words_.end());
    return std::move(result_);
  }

 private:
  std::string take() {
    std::string word = std::move(words_.front());
    words_.pop_front();
    return word;
  }

  // Consumes one option or assignment; false when the command starts here.
  bool option_or_assignment() {
    const std::string& word = words_.front();
    if (word == "--") {
      take();
      return false;
    }
    if (is_assignment(word)) {
      assignment(take());
      return true;
    }
    if (word == "-") {  // the old spelling of -i
      take();
      ignore_environment();
      return true;
    }
    if (!word.starts_with('-')) return false;
    option(take());
    return true;
  }

  void option(const std::string& option) {
    if (takes_value(option)) {
      if (!words_.empty()) apply(option, take());
    } else if (auto unset = attached_value(option, 'u', "--unset")) {
      apply("-u", *unset);
    } else if (auto split = attached_value(option, 'S', "--split-string")) {
      apply("-S", *split);
    } else if (option == "-i" || option == "--ignore-environment") {
      ignore_environment();
    }
    // -0, -v, -C…, and options env may gain: nothing to follow.
  }

  void assignment(const std::string& word) {
    if (word.starts_with("PATH=")) result_.search_path = word.substr(5);
  }

  void ignore_environment() { result_.search_path = std::string(kDefaultSearchPath); }

  void apply(std::string_view option, const std::string& value) {
    if ((option == "-u" || option == "--unset") && value == "PATH") {
      result_.search_path = std::string(kDefaultSearchPath);
    }
    if (option == "-S" || option == "--split-string") {
      auto split = split_env_string(value);
      words_.insert(words_.begin(), split.begin(), split.end());
    }
  }

  std::deque<std::string> words_;
  EnvCommand result_;
};

}  // namespace

EnvCommand strip_env(std::span<const std::string> arguments) { return EnvReader(arguments).run(); }

std::vector<std::string> split_env_string(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ' ' || c == '\t') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\'') {
      const auto close = text.find('\'', i + 1);
      const auto end = close == std::string_view::npos ? text.size() : close;
      word.append(text.substr(i + 1, end - i - 1));
      i = end;
    } else if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\' && i + 1 < text.size()) ++i;
        word += text[i];
      }
    } else if (c == '\\' && i + 1 < text.size()) {
      word += text[++i];
    } else {
      word += c;
    }
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

std::string_view command_basename(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

bool is_python_name(std::string_view name) {
  if (name.starts_with("python")) {
    name.remove_prefix(6);
  } else if (name.starts_with("pypy")) {
    name.remove_prefix(4);
  } else {
    return false;
  }
  // A version ("3", "3.11"), then at most one ABI letter ("t": free-threaded).
  if (!name.empty() && name.back() >= 'a' && name.back() <= 'z') name.remove_suffix(1);
  for (char c : name) {
    if (!(c >= '0' && c <= '9') && c != '.') return false;
  }
  return name.empty() || (name.front() != '.' && name.back() != '.');
}

bool is_shell_name(std::string_view name) {
  static constexpr std::array kShells = {std::string_view("sh"), std::string_view("bash"), std::string_view("dash"),
                                         std::string_view("zsh"), std::string_view("ksh"), std::string_view("fish")};
  for (auto shell : kShells) {
    if (name == shell) return true;
  }
  return false;
}

}  // namespace ftdiag::parse
