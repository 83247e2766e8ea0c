#include "collect/python_env/python_interpreter.h"

#include <unistd.h>

#include <span>

#include "base/text.h"
#include "collect/python_env/python_files.h"
#include "parse/configs/env_command.h"
#include "parse/python_env/shebang.h"

namespace ftdiag::collect {
namespace {

constexpr std::size_t kScriptHead = 4096;

bool is_executable_file(const std::string& path) {
  return path_is_regular_file(path) && ::access(path.c_str(), X_OK) == 0;
}

// A command's words, with env's prefix taken off and PATH as env leaves it.
struct Launch {
  std::vector<std::string> words;
  std::string search_path;
};

Launch without_env(std::vector<std::string> words, std::string search_path) {
  if (words.empty() || parse::command_basename(words.front()) != "env") return {std::move(words), std::move(search_path)};
  parse::EnvCommand env = parse::strip_env(std::span<const std::string>(words).subspan(1));
  return {std::move(env.command), env.search_path.value_or(std::move(search_path))};
}

class Resolver {
 public:
  Resolver(const InterpreterSearch& search, std::vector<std::string>& problems)
      : search_(search), problems_(problems) {}

  std::optional<FoundInterpreter> from_command() {
    const Launch launch = without_env(search_.command, search_.search_path);
    if (launch.words.empty()) return give_up("the command names no program after env");
    const std::string& program = launch.words.front();
    const std::string_view name = parse::command_basename(program);
    if (parse::is_python_name(name)) {
      if (auto path = find_executable(program, launch.search_path)) return FoundInterpreter{*path, "the command"};
      return give_up("the command's " + program + " is not an executable on its PATH");
    }
    if (parse::is_shell_name(name)) {
      return give_up("the command runs a shell (" + std::string(name) + "), whose Python cannot be known beforehand");
    }
    auto script = find_executable(program, launch.search_path);
    if (!script) return give_up("the command's program " + program + " is not an executable on its PATH");
    return from_script(*script, launch.search_path);
  }

 private:
  std::optional<FoundInterpreter> give_up(std::string why) {
    problems_.push_back(std::move(why));
    return std::nullopt;
  }

  std::optional<FoundInterpreter> from_script(const std::string& script, const std::string& search_path) {
    auto head = read_regular_file(script, kScriptHead);
    if (!head) return give_up("could not read " + script + ": " + head.missing().detail);
    auto shebang = parse::parse_shebang(*head);
    if (!shebang) return give_up(script + " is not a script (it has no #! line)");
    const std::string_view runner = parse::command_basename(shebang->program);
    const std::string found_by = "the shebang of " + script;
    if (parse::is_python_name(runner)) return existing(shebang->program, found_by);
    if (runner == "env") return from_env_shebang(*shebang, search_path, found_by);
    if (parse::is_shell_name(runner)) {
      if (auto program = parse::parse_exec_line(*head)) return existing(*program, "the exec line of " + script);
    }
    return give_up(script + " runs with " + shebang->program + ", not Python");
  }

  // `#!/usr/bin/env python3`: the kernel hands env the rest of the line as
  // one word, which env splits only after -S.
  std::optional<FoundInterpreter> from_env_shebang(const parse::Shebang& shebang, const std::string& search_path,
                                                   const std::string& found_by) {
    std::vector<std::string> words{shebang.program};
    if (!shebang.argument.empty()) words.push_back(shebang.argument);
    const Launch launch = without_env(std::move(words), search_path);
    if (launch.words.empty() || !parse::is_python_name(parse::command_basename(launch.words.front()))) {
      return give_up(found_by + " (" + shebang.program + " " + shebang.argument + ") does not run Python");
    }
    auto path = find_executable(launch.words.front(), launch.search_path);
    if (!path) return give_up(found_by + " names " + launch.words.front() + ", which is not on PATH");
    return FoundInterpreter{*path, found_by};
  }

  std::optional<FoundInterpreter> existing(const std::string& path, const std::string& found_by) {
    if (is_executable_file(path)) return FoundInterpreter{path, found_by};
    return give_up(found_by + " names " + path + ", which is not an executable file");
  }

  const InterpreterSearch& search_;
  std::vector<std::string>& problems_;
};

Fact<FoundInterpreter> from_search_path(const std::string& search_path) {
  for (const char* name : {"python3", "python"}) {
    if (auto path = find_executable(name, search_path)) return FoundInterpreter{*path, "PATH"};
  }
  return Missing{MissingReason::not_present, "no python3 or python on PATH (" + search_path + ")"};
}

}  // namespace

std::optional<std::string> find_executable(std::string_view name, std::string_view search_path) {
  if (name.empty()) return std::nullopt;
  if (name.find('/') != std::string_view::npos) {
    std::string path(name);
    return is_executable_file(path) ? std::optional(path) : std::nullopt;
  }
  for (std::string_view directory : text::split(search_path, ':')) {
    std::string path = std::string(directory.empty() ? "." : directory) + "/" + std::string(name);
    if (is_executable_file(path)) return path;
  }
  return std::nullopt;
}

InterpreterResolution resolve_python_interpreter(const InterpreterSearch& search) {
  InterpreterResolution resolution;
  if (search.explicit_interpreter) {
    const std::string& named = *search.explicit_interpreter;
    if (auto path = find_executable(named, search.search_path)) {
      resolution.interpreter = FoundInterpreter{*path, "--python"};
    } else {
      resolution.interpreter = Missing{MissingReason::not_present, "--python " + named + ": no such executable"};
    }
    return resolution;
  }
  if (!search.command.empty()) {
    Resolver resolver(search, resolution.problems);
    if (auto found = resolver.from_command()) {
      resolution.interpreter = std::move(*found);
      return resolution;
    }
  }
  resolution.interpreter = from_search_path(search.search_path);
  return resolution;
}

}  // namespace ftdiag::collect
