#include "collect/configs/command_configs.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <string_view>

#include <fmt/format.h>

#include "base/read_file.h"
#include "base/unique_fd.h"
#include "collect/weights/model_weights.h"
#include "parse/configs/config_text.h"
#include "parse/configs/json_settings.h"
#include "parse/configs/launch_command.h"

namespace ftdiag::collect {

namespace fs = std::filesystem;

namespace {

// A command names a handful of files; a recipe that names itself, or a
// chain of recipes, stops here.
constexpr std::size_t kMaxFiles = 8;

// Where the command names a DeepSpeed or accelerate config.
constexpr std::array<std::string_view, 6> kConfigOptions = {
    "args.deepspeed", "args.deepspeed_config", "args.ds_config", "launcher_args.deepspeed_config_file",
    "launcher_args.config_file", "args.config_file"};
// Where a command or a recipe names the model it trains.
constexpr std::array<std::string_view, 3> kModelKeys = {"args.model_name_or_path", "model_name_or_path", "base_model"};

std::string_view value_of(const parse::DottedSettings& settings, std::string_view key) {
  auto it = settings.find(std::string(key));
  if (it == settings.end() || it->second.empty() || it->second == "true") return {};
  return it->second;
}

fs::path resolved(const fs::path& working_directory, std::string_view named) {
  fs::path path{std::string(named)};
  return path.is_absolute() ? path : working_directory / path;
}

// The text of a regular file, bounded; a FIFO or a device planted under the
// name is not opened for reading (O_NONBLOCK) nor read.
Fact<std::string> read_regular_file(const fs::path& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
  if (!fd.valid()) return missing_from_errno(errno, "open " + path.string());
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return missing_from_errno(errno, "fstat " + path.string());
  if (!S_ISREG(st.st_mode)) return Missing{MissingReason::unparseable, path.string() + ": not a regular file"};
  return read_small_file_fd(fd.get(), path.string(), parse::kMaxJsonSettingsBytes);
}

bool is_folder(const fs::path& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

class Reader {
 public:
  explicit Reader(fs::path working_directory) : working_directory_(std::move(working_directory)) {}

  CommandConfigs take() && { return std::move(out_); }

  void add(CommandConfig config) {
    const std::string kind = config.kind;
    const auto settings = config.settings;
    out_.configs.push_back(std::move(config));
    for (auto option : kConfigOptions) {
      if (auto named = value_of(settings, option); !named.empty()) read_config(named);
    }
    // LLaMA-Factory's and axolotl's recipes name their DeepSpeed config.
    if (kind == "llamafactory" || kind == "axolotl") {
      if (auto named = value_of(settings, "deepspeed"); !named.empty()) read_config(named);
    }
    // A recipe given as the launcher's script (llamafactory-cli train x.yaml).
    if (kind == "launch-command" && (value_of(settings, "launcher") == "llamafactory-cli" || value_of(settings, "launcher") == "axolotl")) {
      if (auto script = value_of(settings, "script"); !script.empty()) read_config(script);
    }
    for (auto key : kModelKeys) {
      if (auto named = value_of(settings, key); !named.empty()) read_model(named);
    }
  }

 private:
  bool first_time(const fs::path& path) {
    for (const auto& seen : seen_) {
      if (seen == path) return false;
    }
    if (seen_.size() >= kMaxFiles) return false;
    seen_.push_back(path);
    return true;
  }

  void read_config(std::string_view named) {
    const auto path = resolved(working_directory_, named);
    if (!first_time(path)) return;
    auto text = read_regular_file(path);
    if (!text) {
      out_.unread.push_back(fmt::format("{}: {}", named, text.missing().detail));
      return;
    }
    auto reading = parse::read_config_text(*text);
    if (!reading) {
      out_.unread.push_back(fmt::format("{}: not a configuration ftdiag knows (JSON or YAML of DeepSpeed, accelerate, a recipe)", named));
      return;
    }
    add({.file = std::string(named), .kind = std::move(reading->kind), .settings = std::move(reading->settings)});
  }

  // A model named by a local folder: its config.json and its weights'
  // headers. A hub name ("meta-llama/Llama-2-7b-hf") is not a folder here;
  // its size is read from the name elsewhere.
  void read_model(std::string_view named) {
    const auto folder = resolved(working_directory_, named);
    if (!is_folder(folder) || !first_time(folder)) return;
    if (auto text = read_regular_file(folder / "config.json")) {
      if (auto reading = parse::read_config_text(*text)) {
        out_.configs.push_back({.file = (fs::path(std::string(named)) / "config.json").string(), .kind = std::move(reading->kind),
                                .settings = std::move(reading->settings)});
      }
    } else if (text.missing().reason != MissingReason::not_present) {
      out_.unread.push_back(fmt::format("{}/config.json: {}", named, text.missing().detail));
    }
    auto weights = read_model_weights(folder);
    if (weights) {
      out_.configs.push_back({.file = std::string(named), .kind = "model-weights", .settings = std::move(weights).value()});
    } else if (weights.missing().reason != MissingReason::not_present && weights.missing().reason != MissingReason::unsupported) {
      out_.unread.push_back(fmt::format("{}: the weights were not read: {}", named, weights.missing().detail));
    }
  }

  fs::path working_directory_;
  std::vector<fs::path> seen_;
  CommandConfigs out_;
};

}  // namespace

std::string command_line_text(const std::vector<std::string>& argv) {
  std::string line;
  for (const auto& word : argv) {
    if (!line.empty()) line += ' ';
    if (!word.empty() && word.find_first_of(" \t\n'\"\\$`;&|<>") == std::string::npos) {
      line += word;
      continue;
    }
    line += '\'';
    for (char c : word) line += c == '\'' ? std::string("'\\''") : std::string(1, c);
    line += '\'';
  }
  return line;
}

CommandConfigs read_command_configs(const std::vector<std::string>& argv, const fs::path& working_directory,
                                    const std::string& label) {
  auto launch = parse::read_launch_command(command_line_text(argv));
  if (!launch) return {};
  Reader reader(working_directory);
  reader.add({.file = label, .kind = "launch-command", .settings = std::move(*launch)});
  return std::move(reader).take();
}

}  // namespace ftdiag::collect
