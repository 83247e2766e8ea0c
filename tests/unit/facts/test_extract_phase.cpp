#include <doctest/doctest.h>

#include "evidence_builder.h"
#include "facts/extract.h"

using namespace ftdiag;
using namespace ftdiag::facts;
using namespace ftdiag::facts::testing;

namespace {

evidence::RunEvidence run_killed_at(double at) {
  auto run = run_started();
  add_process(run, kJobPid, {"python", "train.py"}, at, ExitStatus::killed(SIGKILL));
  end_run(run, at + 0.1, ExitStatus::killed(SIGKILL));
  run.console.line_count = 500;
  run.console.phases = {stretch("model-load", 1, "Loading checkpoint shards:   0%|"),
                        stretch("training", 10, "{'loss': 2.1}"),
                        stretch("checkpoint-save", 40, "Saving model checkpoint to /out/checkpoint-100"),
                        stretch("training", 45, "{'loss': 1.7}"),
                        stretch("checkpoint-save", 70, "Saving model checkpoint to /out/checkpoint-200")};
  return run;
}

}  // namespace

TEST_CASE("phase facts: the last stretch that started before the incident") {
  const FactSet facts = extract_facts(document_of({run_killed_at(75)}));
  CHECK(value_of<std::string>(facts, "phase.at_death") == "checkpoint-save");
  CHECK(value_of<std::string>(facts, "phase.at_death_line") == "Saving model checkpoint to /out/checkpoint-200");
  CHECK(value_of<double>(facts, "phase.at_death_age") == doctest::Approx(5));
  CHECK(value_of<std::int64_t>(facts, "phase.checkpoint_saves_before") == 2);
  CHECK(facts.get("phase.at_death").pointer == "/hosts/0/runs/0/console/phases/4/phase");
}

TEST_CASE("phase facts: a death during training between two saves") {
  const FactSet facts = extract_facts(document_of({run_killed_at(60)}));
  CHECK(value_of<std::string>(facts, "phase.at_death") == "training");
  CHECK(value_of<double>(facts, "phase.at_death_age") == doctest::Approx(15));
  CHECK(value_of<std::int64_t>(facts, "phase.checkpoint_saves_before") == 1);
}

TEST_CASE("phase facts: a line read a moment after the death still counts, a later one does not") {
  FactSet facts = extract_facts(document_of({run_killed_at(69.7)}));
  CHECK(value_of<std::string>(facts, "phase.at_death") == "checkpoint-save");
  CHECK(value_of<double>(facts, "phase.at_death_age") == doctest::Approx(0));
  CHECK(value_of<std::int64_t>(facts, "phase.checkpoint_saves_before") == 2);

  facts = extract_facts(document_of({run_killed_at(68)}));
  CHECK(value_of<std::string>(facts, "phase.at_death") == "training");
  CHECK(value_of<std::int64_t>(facts, "phase.checkpoint_saves_before") == 1);
}

TEST_CASE("phase facts: no phase before the incident") {
  const FactSet facts = extract_facts(document_of({run_killed_at(0.2)}));
  CHECK(missing_reason(facts, "phase.at_death").find("no console line marked a training phase") != std::string::npos);
  CHECK(value_of<std::int64_t>(facts, "phase.checkpoint_saves_before") == 0);
}

TEST_CASE("phase facts: an unreadable console passes its reason on") {
  auto run = run_killed_at(75);
  run.console.readable = Missing{MissingReason::permission_denied, "open console.log: Permission denied"};
  const FactSet facts = extract_facts(document_of({run}));
  for (const char* name : {"phase.at_death", "phase.checkpoint_saves_before", "console.tail", "console.lines"}) {
    CAPTURE(name);
    CHECK(missing_reason(facts, name) == "open console.log: Permission denied");
  }
}

TEST_CASE("console facts: the last 60 lines of the tail, joined") {
  auto run = run_killed_at(75);
  for (int i = 0; i < 100; ++i) {
    evidence::ConsoleLine line;
    line.text = "line " + std::to_string(i);
    run.console.tail.push_back(line);
  }
  const FactSet facts = extract_facts(document_of({run}));
  const auto tail = value_of<std::string>(facts, "console.tail");
  CHECK(tail.rfind("line 40\nline 41\n", 0) == 0);
  CHECK(tail.size() >= 8);
  CHECK(tail.substr(tail.size() - 8) == "line 99\n");
  CHECK(tail.find("line 39\n") == std::string::npos);
  CHECK(value_of<std::int64_t>(facts, "console.lines") == 500);
}

TEST_CASE("console.exception: the line that ended the last traceback, on the traceback's own stream") {
  auto run = run_started();
  add_process(run, kJobPid, {"python", "train.py"}, 10.0, ExitStatus::exited(1));
  end_run(run, 10.1, ExitStatus::exited(1));
  auto line = [](char stream, std::string text) {
    evidence::ConsoleLine l;
    l.stream = stream;
    l.text = std::move(text);
    return l;
  };
  run.console.line_count = 7;
  run.console.tail = {line('e', "[rank0]: Traceback (most recent call last):"),
                      line('e', "[rank0]:   File \"train.py\", line 3, in <module>"),
                      line('o', "training"),  // stdout, flushed at exit, relayed in between
                      line('e', "[rank0]:     step()"),
                      line('e', "[rank0]: RuntimeError: loss is NaN at step 3"),
                      line('o', ""),
                      line('o', "bye")};
  const FactSet facts = extract_facts(document_of({run}));
  CHECK(value_of<std::string>(facts, "console.exception") == "RuntimeError: loss is NaN at step 3");
  CHECK(value_of<std::string>(facts, "console.last_line") == "bye");
}

TEST_CASE("console.exception_before_death: what a rank reported before a peer's abort, not the launcher's re-raise") {
  auto run = run_started();
  add_process(run, kJobPid, {"python", "launch.py"}, 11.0, ExitStatus::exited(1));
  add_process(run, 101, {"python", "launch.py"}, 10.0, ExitStatus::killed(SIGABRT)).ppid = kJobPid;
  add_process(run, 102, {"python", "launch.py"}, 10.2, ExitStatus::killed(SIGTERM)).ppid = kJobPid;
  end_run(run, 11.1, ExitStatus::exited(1));
  auto line = [](double at, std::string text) {
    evidence::ConsoleLine l;
    l.time = kStart + at;
    l.stream = 'e';
    l.text = std::move(text);
    return l;
  };
  run.console.line_count = 6;
  run.console.tail = {line(9.5, "Traceback (most recent call last):"),
                      line(9.5, "  File \"train.py\", line 3, in step"),
                      line(9.5, "RuntimeError: loss is NaN at step 3"),
                      line(10.9, "Traceback (most recent call last):"),
                      line(10.9, "  File \"launch.py\", line 9, in <module>"),
                      line(10.9, "torch.multiprocessing.spawn.ProcessExitedException: process 0 terminated with signal SIGABRT")};
  const FactSet facts = extract_facts(document_of({run}));
  CHECK(value_of<std::int64_t>(facts, "death.signal") == SIGABRT);
  CHECK(value_of<std::string>(facts, "console.exception").starts_with("torch.multiprocessing.spawn.ProcessExitedException"));
  CHECK(value_of<std::string>(facts, "console.exception_before_death") == "RuntimeError: loss is NaN at step 3");
}

TEST_CASE("console.exception_before_death: a traceback that ends after the incident does not count") {
  auto run = run_killed_at(20);
  auto line = [](double at, std::string text) {
    evidence::ConsoleLine l;
    l.time = kStart + at;
    l.stream = 'e';
    l.text = std::move(text);
    return l;
  };
  run.console.tail = {line(19.0, "Traceback (most recent call last):"), line(19.0, "  File \"a.py\", line 1, in <module>"),
                      line(25.0, "KeyboardInterrupt")};
  const FactSet facts = extract_facts(document_of({run}));
  CHECK(facts.get("console.exception").value);
  CHECK_FALSE(facts.get("console.exception_before_death").value);
}

TEST_CASE("console facts: the first failure word of the console's last lines, as for a plain log") {
  auto run = run_killed_at(75);
  const auto line = [](std::string text, std::optional<std::string> word) {
    evidence::ConsoleLine l;
    l.time = 74;
    l.text = std::move(text);
    l.word = std::move(word);
    return l;
  };
  run.console.tail = {line("{'loss': 1.7}", std::nullopt), line("Fatal: GPU ran OUT OF MEMORY in kernel foo", "gpu-memory"),
                      line("NCCL watchdog thread terminated with exception", "nccl")};
  const FactSet facts = extract_facts(document_of({run}));
  CHECK(value_of<std::string>(facts, "log.word") == "gpu-memory");
  CHECK(value_of<std::string>(facts, "log.word_line") == "Fatal: GPU ran OUT OF MEMORY in kernel foo");
  CHECK(facts.get("log.word").pointer == "/hosts/0/runs/0/console/tail/1/word");
  run.console.tail = {line("{'loss': 1.7}", std::nullopt)};
  const FactSet none = extract_facts(document_of({run}));
  CHECK_FALSE(none.get("log.word").value.has_value());
}
