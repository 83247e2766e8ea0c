// The words that pick a command's program: shebang lines as Linux reads
// them, pip's exec line for long paths, env's prefix, interpreter names.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "parse/configs/env_command.h"
#include "collect/python_env/shebang.h"

using namespace ftdiag::collect;

TEST_CASE("python shebang: program and one argument, as binfmt_script splits them") {
  CHECK(parse_shebang("#!/usr/bin/python3\nimport sys\n") == Shebang{"/usr/bin/python3", ""});
  CHECK(parse_shebang("#! /usr/bin/env python3\n") == Shebang{"/usr/bin/env", "python3"});
  CHECK(parse_shebang("#!/usr/bin/env -S python3 -u  \n") == Shebang{"/usr/bin/env", "-S python3 -u"});
  CHECK(parse_shebang("#!\t/opt/conda/bin/python3.11\t-E\r\n") == Shebang{"/opt/conda/bin/python3.11", "-E"});
  CHECK(parse_shebang("#!/bin/sh") == Shebang{"/bin/sh", ""});
  CHECK_FALSE(parse_shebang(""));
  CHECK_FALSE(parse_shebang("#!"));
  CHECK_FALSE(parse_shebang("#!   \n/usr/bin/python3"));
  CHECK_FALSE(parse_shebang(" #!/usr/bin/python3"));
  CHECK_FALSE(parse_shebang(std::string("\x7f" "ELF\x02\x01\x01", 7)));
}

TEST_CASE("python shebang: pip's exec line for an interpreter path too long for the kernel") {
  const std::string quoted =
      "#!/bin/sh\n"
      "'''exec' \"/home/user/a very long path/envs/train/bin/python3.11\" \"$0\" \"$@\"\n"
      "' '''\n"
      "# -*- coding: utf-8 -*-\n"
      "import re\n";
  CHECK(parse_exec_line(quoted) == "/home/user/a very long path/envs/train/bin/python3.11");
  CHECK(parse_exec_line("#!/bin/sh\n'''exec' /opt/x/bin/python \"$0\" \"$@\"\n' '''\n") == "/opt/x/bin/python");
  CHECK_FALSE(parse_exec_line("#!/bin/sh\nexec python3 \"$@\"\n"));
  CHECK_FALSE(parse_exec_line("#!/bin/sh\n'''exec' \"unterminated\n"));
  CHECK_FALSE(parse_exec_line("#!/bin/sh\n'''exec' \"\" \"$0\"\n"));
  CHECK_FALSE(parse_exec_line("1\n2\n3\n4\n5\n'''exec' /too/late/python \"$0\"\n"));
}

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
