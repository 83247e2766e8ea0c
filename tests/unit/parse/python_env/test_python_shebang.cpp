// The words that pick a command's program: shebang lines as Linux reads
// them, and pip's exec line for long paths.
#include <doctest/doctest.h>

#include <string>

#include "parse/python_env/shebang.h"

using namespace ftdiag::parse;

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
