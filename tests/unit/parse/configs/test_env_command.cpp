// The words that pick a command's program after a shebang or a launch
// command: env's prefix and interpreter names.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "parse/configs/env_command.h"

using namespace ftdiag::parse;

TEST_CASE("python env prefix: options and assignments are consumed, -S is split and read in turn") {
  auto words = [](std::vector<std::string> argv) { return strip_env(argv); };
  CHECK(words({"python3", "train.py"}).command == std::vector<std::string>{"python3", "train.py"});
  CHECK(words({"-i", "A=1", "--", "python3"}).command == std::vector<std::string>{"python3"});
  CHECK(words({"-u", "HOME", "-C", "/tmp", "-v", "python3"}).command == std::vector<std::string>{"python3"});
  CHECK(words({"-S", "python3 -u", "train.py"}).command == std::vector<std::string>{"python3", "-u", "train.py"});
  CHECK(words({"-SPATH=/opt/bin python3"}).command == std::vector<std::string>{"python3"});
  CHECK(words({"--split-string=-i 'python 3' x"}).command == std::vector<std::string>{"python 3", "x"});
  CHECK(words({"-u"}).command.empty());
  CHECK(words({}).command.empty());

  CHECK(words({"PATH=/opt/venv/bin", "python3"}).search_path == "/opt/venv/bin");
  CHECK(words({"-S", "PATH=/x python3"}).search_path == "/x");
  CHECK(words({"-u", "PATH", "python3"}).search_path == std::string(kDefaultSearchPath));
  CHECK(words({"--unset=PATH", "python3"}).search_path == std::string(kDefaultSearchPath));
  CHECK(words({"-i", "python3"}).search_path == std::string(kDefaultSearchPath));
  CHECK_FALSE(words({"python3"}).search_path);
}

TEST_CASE("python env prefix: -S quoting") {
  CHECK(split_env_string("  python3   -u ") == std::vector<std::string>{"python3", "-u"});
  CHECK(split_env_string("'a b' \"c \\\" d\" e\\ f") == std::vector<std::string>{"a b", "c \" d", "e f"});
  CHECK(split_env_string("'unterminated") == std::vector<std::string>{"unterminated"});
  CHECK(split_env_string("\"\"") == std::vector<std::string>{""});
  CHECK(split_env_string("").empty());
}

TEST_CASE("python names: interpreters and shells") {
  for (const char* name : {"python", "python3", "python3.11", "python3.13t", "python2.7", "pypy3", "pypy3.10"}) {
    CHECK_MESSAGE(is_python_name(name), name);
  }
  for (const char* name : {"ipython", "python3-config", "python3.", "py", "pythonista3", "deepspeed", ""}) {
    CHECK_MESSAGE(!is_python_name(name), name);
  }
  CHECK(is_shell_name("bash"));
  CHECK(is_shell_name("sh"));
  CHECK_FALSE(is_shell_name("bashful"));
  CHECK(command_basename("/usr/bin/env") == "env");
  CHECK(command_basename("env") == "env");
  CHECK(command_basename("/usr/bin/").empty());
}
