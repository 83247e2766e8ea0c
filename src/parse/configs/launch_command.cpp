#include "parse/configs/launch_command.h"

#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace ftdiag::parse {
namespace {

constexpr std::size_t kMaxCommandText = 2000;

struct Word {
  std::string text;
  bool shell_operator = false;  // &&, ||, ;, |, >, <, &
};

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '`'; }  // a backtick: Markdown around a command
bool is_operator_char(char c) { return c == ';' || c == '|' || c == '&' || c == '>' || c == '<'; }

// A shell's continuation lines, joined: "train.py \\\n --bf16" is one line.
std::string join_continuations(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == '\n') {
      out.push_back(' ');
      ++i;
    } else if (text[i] == '\\' && i + 2 < text.size() && text[i + 1] == '\r' && text[i + 2] == '\n') {
      out.push_back(' ');
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

// Words as a shell splits them (quotes removed, a backslash escapes one
// character), operators apart; no expansion.
std::vector<Word> shell_words(std::string_view line) {
  std::vector<Word> words;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_blank(line[i])) ++i;
    if (i >= line.size()) break;
    if (is_operator_char(line[i])) {
      const std::size_t start = i;
      while (i < line.size() && is_operator_char(line[i])) ++i;
      words.push_back({std::string(line.substr(start, i - start)), true});
      continue;
    }
    std::string word;
    while (i < line.size() && !is_blank(line[i]) && !is_operator_char(line[i])) {
      const char c = line[i++];
      if (c == '\'' || c == '"') {
        while (i < line.size() && line[i] != c) {
          if (c == '"' && line[i] == '\\' && i + 1 < line.size()) ++i;
          word.push_back(line[i++]);
        }
        if (i < line.size()) ++i;
      } else if (c == '\\' && i < line.size()) {
        word.push_back(line[i++]);
      } else {
        word.push_back(c);
      }
    }
    words.push_back({std::move(word), false});
  }
  return words;
}

std::string_view base_name(std::string_view word) {
  const auto slash = word.rfind('/');
  return slash == std::string_view::npos ? word : word.substr(slash + 1);
}

bool is_python(std::string_view word) {
  const auto name = base_name(word);
  if (!name.starts_with("python")) return false;
  return std::all_of(name.begin() + 6, name.end(), [](char c) { return (c >= '0' && c <= '9') || c == '.'; });
}

bool is_env_assignment(std::string_view word) {
  const auto equals = word.find('=');
  if (equals == std::string_view::npos || equals == 0) return false;
  return std::all_of(word.begin(), word.begin() + static_cast<std::ptrdiff_t>(equals), [](char c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

bool is_negative_number(std::string_view word) { return word.size() > 1 && word[0] == '-' && word[1] >= '0' && word[1] <= '9'; }

// Launcher options that take no value: the word after them is the script.
bool is_launcher_flag(std::string_view name) {
  static constexpr std::array<std::string_view, 17> kFlags = {
      "no_python", "no_local_rank", "no_ssh_check", "force_multi", "save_pid", "bind_cores_to_rank", "elastic_training",
      "standalone", "module", "m", "run_path", "use_deepspeed", "use_fsdp", "use_megatron_lm", "multi_gpu", "cpu", "quiet"};
  return std::find(kFlags.begin(), kFlags.end(), name) != kFlags.end();
}

struct Launcher {
  std::string name;
  std::size_t next = 0;          // the first word after the launcher itself
  bool has_launcher_options = true;
  bool has_subcommand = false;   // llamafactory-cli train CONFIG, axolotl train CONFIG
};

std::optional<Launcher> launcher_at(const std::vector<Word>& words, std::size_t i) {
  const auto name = base_name(words[i].text);
  auto word_at = [&](std::size_t k) -> std::string_view { return k < words.size() && !words[k].shell_operator ? std::string_view(words[k].text) : ""; };
  if (name == "deepspeed" || name == "torchrun") return Launcher{std::string(name), i + 1};
  if (name == "accelerate" && word_at(i + 1) == "launch") return Launcher{"accelerate", i + 2};
  if (name == "llamafactory-cli" || name == "lmf") return Launcher{"llamafactory-cli", i + 1, false, true};
  if (name == "axolotl" && !word_at(i + 1).empty()) return Launcher{"axolotl", i + 1, false, true};
  // ms-swift's command line (swift/cli/main.py): `swift sft --model ... --deepspeed zero3`,
  // its training subcommands only (Apple's `swift build` is another program).
  if (name == "swift") {
    static constexpr std::array<std::string_view, 3> kTraining = {"sft", "pt", "rlhf"};
    const auto subcommand = word_at(i + 1);
    if (std::find(kTraining.begin(), kTraining.end(), subcommand) != kTraining.end()) return Launcher{"swift", i + 1, false, true};
  }
  if (!is_python(name)) return std::nullopt;
  std::size_t k = i + 1;
  while (word_at(k).starts_with("-") && word_at(k) != "-m") ++k;  // python -u, -O
  if (word_at(k) == "-m") {
    const auto module = word_at(k + 1);
    if (module == "torch.distributed.run" || module == "torch.distributed.launch") return Launcher{"torch.distributed.run", k + 2};
    if (module == "accelerate.commands.launch") return Launcher{"accelerate", k + 2};
    if (module == "deepspeed.launcher.runner") return Launcher{"deepspeed", k + 2};
    if (module.starts_with("axolotl.cli.")) return Launcher{"axolotl", k + 2, false};
    if (!module.empty()) return Launcher{"python", k + 1, false};
    return std::nullopt;
  }
  if (word_at(k).ends_with(".py")) return Launcher{"python", k, false};
  return std::nullopt;
}

class CommandReader {
 public:
  explicit CommandReader(const std::vector<Word>& words) : words_(words) {}

  std::optional<DottedSettings> run() {
    for (std::size_t i = 0; i < words_.size(); ++i) {
      if (words_[i].shell_operator) {
        settings_.clear();  // NAME=value before an operator belonged to another command
        continue;
      }
      if (is_env_assignment(words_[i].text)) {
        const auto equals = words_[i].text.find('=');
        settings_["env." + words_[i].text.substr(0, equals)] = words_[i].text.substr(equals + 1);
        continue;
      }
      if (auto launcher = launcher_at(words_, i)) return read(*launcher, i);
    }
    return std::nullopt;
  }

 private:
  bool usable(std::size_t k) const { return k < end_ && !words_[k].shell_operator; }

  DottedSettings read(const Launcher& launcher, std::size_t first) {
    end_ = first;
    while (end_ < words_.size() && !words_[end_].shell_operator) ++end_;
    settings_["launcher"] = launcher.name;
    std::size_t k = launcher.next;
    if (launcher.has_launcher_options) k = options(k, "launcher_args.", true);
    if (launcher.has_subcommand && usable(k) && !words_[k].text.starts_with("-")) settings_["subcommand"] = words_[k++].text;
    if (usable(k) && !words_[k].text.starts_with("-")) settings_["script"] = words_[k++].text;
    k = options(k, "args.", false);
    settings_["command"] = command_text(first);
    return std::move(settings_);
  }

  // --name value, --name=value, --flag; words that are not options are
  // positional.N. Stops at the script when reading a launcher's options.
  std::size_t options(std::size_t k, const std::string& prefix, bool launcher) {
    std::size_t positional = 0;
    while (usable(k)) {
      const std::string& word = words_[k].text;
      if (!word.starts_with("-") || word == "-" || is_negative_number(word)) {
        if (launcher) return k;
        settings_[fmt::format("{}positional.{}", prefix, positional++)] = word;
        ++k;
        continue;
      }
      const auto name_at = word.find_first_not_of('-');
      if (name_at == std::string::npos) {
        // "--" ends the options (POSIX): a launcher's script follows it, and
        // a script's words after it are positional; a longer run of dashes
        // is no option at all.
        ++k;
        if (word != "--") continue;
        if (launcher) return k;
        while (usable(k)) settings_[fmt::format("{}positional.{}", prefix, positional++)] = words_[k++].text;
        return k;
      }
      std::string name = word.substr(name_at);
      std::string value = "true";
      if (const auto equals = name.find('='); equals != std::string::npos) {
        value = name.substr(equals + 1);
        name.resize(equals);
      } else if (usable(k + 1) && takes_value(name, words_[k + 1].text, launcher)) {
        value = words_[++k].text;
      }
      std::replace(name.begin(), name.end(), '-', '_');
      if (!name.empty()) settings_[prefix + name] = value;
      ++k;
    }
    return k;
  }

  static bool takes_value(const std::string& name, const std::string& next, bool launcher) {
    if (next.starts_with("-") && !is_negative_number(next)) return false;
    if (launcher) return !is_launcher_flag(name) && !next.ends_with(".py");
    return true;
  }

  std::string command_text(std::size_t first) const {
    std::string out;
    for (std::size_t k = first; k < end_ && out.size() < kMaxCommandText; ++k) out += (out.empty() ? "" : " ") + words_[k].text;
    if (out.size() > kMaxCommandText) out.resize(kMaxCommandText);
    return out;
  }

  const std::vector<Word>& words_;
  std::size_t end_ = 0;
  DottedSettings settings_;
};

}  // namespace

std::optional<DottedSettings> read_launch_command(std::string_view text) {
  const std::string joined = join_continuations(text);
  std::string_view rest = joined;
  while (!rest.empty()) {
    const auto newline = rest.find('\n');
    const auto words = shell_words(rest.substr(0, newline));
    if (auto settings = CommandReader(words).run()) return settings;
    if (newline == std::string_view::npos) break;
    rest.remove_prefix(newline + 1);
  }
  return std::nullopt;
}

}  // namespace ftdiag::parse
