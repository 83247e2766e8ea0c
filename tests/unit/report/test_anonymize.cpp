#include <doctest/doctest.h>

#include <string>

#include "report/anonymize.h"
#include "report/report_markdown.h"

using ftdiag::report::anonymize;

TEST_CASE("anonymize: host names become host-N, whole words only, the long name before its short form") {
  const auto text = anonymize("gpu-node-07.cluster.example said: gpu-node-07 died; gpu-node-070 is another", {"gpu-node-07.cluster.example"});
  CHECK(text == "host-1 said: host-1 died; gpu-node-070 is another");
}

TEST_CASE("anonymize: private paths keep their last part, system paths and evidence pointers stay whole") {
  const auto text = anonymize("File \"/home/alice/proj/train.py\", line 3 in /usr/lib/python3/dist-packages/torch/serialization.py "
                              "from /hosts/0/runs/0/memory/cgroup/limit_bytes and /scratch/bob/jobs/",
                              {});
  CHECK(text.find("\"…/train.py\"") != std::string::npos);
  CHECK(text.find("/usr/lib/python3/dist-packages/torch/serialization.py") != std::string::npos);
  CHECK(text.find("/hosts/0/runs/0/memory/cgroup/limit_bytes") != std::string::npos);
  CHECK(text.find("…/jobs/") != std::string::npos);
  CHECK(text.find("alice") == std::string::npos);
  CHECK(text.find("bob") == std::string::npos);
}

TEST_CASE("anonymize: a user's name found in a home directory is replaced wherever it stands as a word") {
  const auto text = anonymize("cd /home/alice/run && echo alice owns it, malice does not", {});
  CHECK(text == "cd …/run && echo user owns it, malice does not");
}

TEST_CASE("markdown: a frame's <module> is text, not a tag, and a table cell keeps its pipes") {
  CHECK(ftdiag::report::markdown_text("File x.py, in <module>") == "File x.py, in &lt;module&gt;");
  CHECK(ftdiag::report::markdown_cell("a | b\nc") == "a \\| b c");
  // In a code span entities are not read: a command keeps its quotes and brackets.
  CHECK(ftdiag::report::markdown_code("python -c \"print('<x>')\" | tee `log`") == "`python -c \"print('<x>')\" \\| tee 'log'`");
}
