// Finding the interpreter a command will use, with scripts and PATH
// directories made for each case.
#include <doctest/doctest.h>

#include <string>

#include "collect/python_env/python_interpreter.h"
#include "python_fixtures.h"

using namespace ftdiag::collect;
using ftdiag::collect::testing::ScratchDirectory;

namespace {

// A PATH of two folders: bin/ with the launchers, py/ with a python3.
struct FakeInstall {
  ScratchDirectory scratch;
  std::string python = scratch.write("py/python3", "#!/bin/sh\n", true);
  std::string search_path = scratch.path("bin") + ":" + scratch.path("py");

  std::string launcher(const std::string& name, const std::string& content) {
    return scratch.write("bin/" + name, content, true);
  }
  InterpreterResolution resolve(std::vector<std::string> command) {
    return resolve_python_interpreter(InterpreterSearch{std::move(command), std::nullopt, search_path});
  }
};

}  // namespace

TEST_CASE("python interpreter: the command's own python, after an env prefix") {
  FakeInstall install;
  auto direct = install.resolve({"python3", "train.py"});
  REQUIRE(direct.interpreter);
  CHECK(direct.interpreter->path == install.python);
  CHECK(direct.interpreter->found_by == "the command");
  CHECK(direct.problems.empty());

  auto through_env = install.resolve({"/usr/bin/env", "-S", "python3 -u", "train.py"});
  REQUIRE(through_env.interpreter);
  CHECK(through_env.interpreter->path == install.python);

  // env's PATH= decides where env looks, not the job's PATH.
  ScratchDirectory other;
  const std::string other_python = other.write("python3", "#!/bin/sh\n", true);
  auto env_path = install.resolve({"env", "PATH=" + other.root().string(), "python3"});
  REQUIRE(env_path.interpreter);
  CHECK(env_path.interpreter->path == other_python);
}

TEST_CASE("python interpreter: a launcher's shebang, direct or through env") {
  FakeInstall install;
  const std::string pinned = install.scratch.write("envs/train/bin/python3.11", "#!/bin/sh\n", true);
  const std::string deepspeed = install.launcher("deepspeed", "#!" + pinned + "\nimport sys\n");
  auto direct = install.resolve({"deepspeed", "--num_gpus", "8", "train.py"});
  REQUIRE(direct.interpreter);
  CHECK(direct.interpreter->path == pinned);
  CHECK(direct.interpreter->found_by == "the shebang of " + deepspeed);

  const std::string torchrun = install.launcher("torchrun", "#!/usr/bin/env python3\n");
  auto via_env = install.resolve({"torchrun", "train.py"});
  REQUIRE(via_env.interpreter);
  CHECK(via_env.interpreter->path == install.python);
  CHECK(via_env.interpreter->found_by == "the shebang of " + torchrun);

  install.launcher("accelerate", "#!/usr/bin/env -S python3 -u\n");
  auto split = install.resolve({"accelerate", "launch", "train.py"});
  REQUIRE(split.interpreter);
  CHECK(split.interpreter->path == install.python);
}

TEST_CASE("python interpreter: pip's exec line for a long interpreter path") {
  FakeInstall install;
  const std::string spaced = install.scratch.write("with space/bin/python", "#!/bin/sh\n", true);
  const std::string cli = install.launcher(
      "llamafactory-cli", "#!/bin/sh\n'''exec' \"" + spaced + "\" \"$0\" \"$@\"\n' '''\nimport re\n");
  auto resolution = install.resolve({"llamafactory-cli", "train", "config.yaml"});
  REQUIRE(resolution.interpreter);
  CHECK(resolution.interpreter->path == spaced);
  CHECK(resolution.interpreter->found_by == "the exec line of " + cli);
}

TEST_CASE("python interpreter: shells, binaries and broken launchers fall back to PATH, saying why") {
  FakeInstall install;
  install.launcher("run.sh", "#!/bin/bash\npython3 train.py\n");
  install.launcher("binary", std::string("\x7f" "ELF\x02\x01\x01\0", 8));
  install.launcher("gone", "#!/nonexistent/bin/python3\n");
  install.launcher("pyenv-shim", "#!/usr/bin/env bash\nexec pyenv exec python3 \"$@\"\n");
  const std::vector<std::vector<std::string>> commands = {
      {"bash", "-c", "deepspeed train.py"}, {"run.sh"}, {"binary"}, {"gone"}, {"pyenv-shim"},
      {"not-installed", "x"}, {"env"}, {"python3.99"}};
  for (const auto& command : commands) {
    auto resolution = install.resolve(command);
    CAPTURE(command.front());
    REQUIRE(resolution.interpreter);
    CHECK(resolution.interpreter->path == install.python);
    CHECK(resolution.interpreter->found_by == "PATH");
    CHECK(resolution.problems.size() == 1);
  }
  CHECK(install.resolve({"bash", "-c", "x"}).problems.front().find("runs a shell (bash)") != std::string::npos);
}

TEST_CASE("python interpreter: --python wins, and is never replaced by another") {
  FakeInstall install;
  const std::string named = install.scratch.write("custom/python", "#!/bin/sh\n", true);
  auto chosen = resolve_python_interpreter(InterpreterSearch{{"python3"}, named, install.search_path});
  REQUIRE(chosen.interpreter);
  CHECK(chosen.interpreter->path == named);
  CHECK(chosen.interpreter->found_by == "--python");

  auto by_name = resolve_python_interpreter(InterpreterSearch{{}, "python3", install.search_path});
  REQUIRE(by_name.interpreter);
  CHECK(by_name.interpreter->path == install.python);

  auto missing = resolve_python_interpreter(InterpreterSearch{{"python3"}, "/nonexistent/python", install.search_path});
  REQUIRE_FALSE(missing.interpreter);
  CHECK(missing.interpreter.missing().reason == ftdiag::MissingReason::not_present);
}

TEST_CASE("python interpreter: no command uses PATH, nothing on PATH is missing") {
  FakeInstall install;
  auto plain = install.resolve({});
  REQUIRE(plain.interpreter);
  CHECK(plain.interpreter->found_by == "PATH");
  CHECK(plain.problems.empty());

  ScratchDirectory empty;
  auto none = resolve_python_interpreter(InterpreterSearch{{"python3"}, std::nullopt, empty.root().string()});
  REQUIRE_FALSE(none.interpreter);
  CHECK(none.interpreter.missing().reason == ftdiag::MissingReason::not_present);
  CHECK(none.problems.size() == 1);
}

TEST_CASE("python interpreter: find_executable skips folders and files that cannot run") {
  ScratchDirectory scratch;
  scratch.write("a/tool", "data");  // not executable
  std::filesystem::create_directories(scratch.root() / "b" / "tool");
  const std::string real = scratch.write("c/tool", "#!/bin/sh\n", true);
  const std::string path = scratch.path("a") + ":" + scratch.path("b") + "::" + scratch.path("c");
  CHECK(find_executable("tool", path) == real);
  CHECK(find_executable(real, "") == real);
  CHECK_FALSE(find_executable("", path));
  CHECK_FALSE(find_executable(scratch.path("a/tool"), path));
}
