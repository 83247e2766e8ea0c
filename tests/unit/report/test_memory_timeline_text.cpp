#include <doctest/doctest.h>

#include <csignal>
#include <string>
#include <vector>

#include "../facts/evidence_builder.h"
#include "base/text.h"
#include "report/memory_timeline_text.h"

using namespace ftdiag;
using namespace ftdiag::facts::testing;
using ftdiag::report::TextStyle;

namespace {

// A job that trains, then saves, and is SIGKILLed at its cgroup's limit.
evidence::RunEvidence killed_while_saving() {
  auto run = run_started();
  add_process(run, kJobPid, {"python", "train.py"}, 30.0, ExitStatus::killed(SIGKILL));
  const Bytes limit = 1000 << 20;
  run.memory.cgroup_last = cgroup(limit, 1);
  for (int s = 0; s <= 30; ++s) run.timeline.push_back(point(s, Bytes(s < 24 ? 400 << 20 : 990 << 20), std::nullopt));
  run.console.phases = {stretch("training", 1, "step 1"), stretch("checkpoint-save", 24, "Saving model checkpoint")};
  end_run(run, 30.2, ExitStatus::killed(SIGKILL));
  return run;
}


}  // namespace

TEST_CASE("memory timeline: the job's memory against its limit, the phases under it, the death marked, within the width") {
  TextStyle style;
  style.width = 80;
  style.unicode = false;
  const auto text = report::render_memory_timeline(killed_while_saving(), style, "  ");
  INFO(text);
  const auto lines = ftdiag::text::lines(text);
  REQUIRE(lines.size() >= 2);
  for (const auto& line : lines) CHECK(report::display_width(line) <= 80);
  CHECK(lines[0].rfind("  memory ", 0) == 0);
  CHECK(lines[0].find("X peak 990.0 MiB of 1000.0 MiB limit") != std::string::npos);
  // Training at 40 % of the limit, the save at 99 %: low marks, then the highest.
  CHECK(lines[0].find('@') != std::string::npos);
  CHECK(lines[0].find('=') < lines[0].find('@'));
  CHECK(lines[1].find('T') < lines[1].find('S'));
  CHECK(text.find("T train") != std::string::npos);
  CHECK(text.find("S save") != std::string::npos);
  CHECK(text.find("X killed by SIGKILL at +30.0 s") != std::string::npos);
}

TEST_CASE("memory timeline: UTF-8 blocks on a UTF-8 terminal, and nothing from fewer than three readings") {
  TextStyle style;
  const auto text = report::render_memory_timeline(killed_while_saving(), style, "");
  CHECK(text.find("█") != std::string::npos);
  CHECK(text.find("✕") != std::string::npos);
  auto sparse = killed_while_saving();
  sparse.timeline.resize(2);
  CHECK(report::render_memory_timeline(sparse, style, "").empty());
}
