// One evidence document from several collectors: a run's journal, kernel-like
// records from a second collector and a log event without a timestamp from a
// third; judged, then round-tripped through JSON and judged again.
#include <doctest/doctest.h>

#include <fcntl.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <regex>

#include <fmt/format.h>

#include "collectors/journal_collector.h"
#include "collectors/post_mortem.h"
#include "collectors/registry.h"
#include "evidence/document_json.h"
#include "facts/extract.h"
#include "journal/job_directory.h"
#include "journal/journal_writer.h"
#include "rules/engine.h"
#include "rules/rule_loader.h"
#include "rules/rule_paths.h"

using namespace ftdiag;
using namespace ftdiag::evidence;
using namespace ftdiag::journal;
namespace fs = std::filesystem;

namespace {

constexpr double kStart = 1764405600;

struct PostMortemDir {
  fs::path path;
  PostMortemDir() {
    char tmpl[] = "/tmp/ftdiag-post-mortem-XXXXXX";
    REQUIRE(::mkdtemp(tmpl) != nullptr);
    path = tmpl;
  }
  ~PostMortemDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

CgroupMemory cgroup_reading(Bytes usage, std::uint64_t oom_kill) {
  CgroupMemory c;
  c.version = 2;
  c.path = "/job.slice";
  c.usage = usage;
  c.limit = std::optional<Bytes>(Bytes{1} << 30);
  c.peak = usage;
  c.oom_kill = oom_kill;
  c.oom_events = oom_kill;
  return c;
}

MemorySample sample(double at, Bytes usage, std::uint64_t oom_kill) {
  MemorySample s;
  s.time = kStart + at;
  s.node.mem_total = Bytes{64} << 30;
  s.node.mem_available = Bytes{40} << 30;
  s.cgroup = cgroup_reading(usage, oom_kill);
  return s;
}

// A launcher (pid 100) whose worker was killed unseen (no netlink): the
// journal knows only that the launcher exited 1.
void write_run(const fs::path& job_dir) {
  auto dir = RunDirectory::create(job_dir, "node07-rank0");
  REQUIRE(dir);
  auto fd = dir->create_file(kJournalFileName);
  REQUIRE(fd);
  JournalWriter journal(std::move(fd).value());
  RunStarted start;
  start.time = kStart;
  start.journal_format = kJournalFormat;
  start.host = "node07";
  start.argv = {"torchrun", "train.py"};
  start.job_pid = 100;
  journal.append(start);
  journal.append(ProcessSeen{kStart, 100, 1, {100}, {"torchrun", "train.py"}, "torchrun", 1u, "spawn"});
  for (int i = 0; i < 20; ++i) journal.append(sample(i, (Bytes{700} << 20) + (Bytes(i) << 20), 0));
  journal.append(sample(20.5, Bytes{1} << 30, 1));
  journal.append(ProcessDied{kStart + 21, 100, ExitStatus::exited(1), {"waitpid"}});
  journal.append(RunEnded{kStart + 21.1, ExitStatus::exited(1)});
  std::ofstream(dir->path() / kConsoleFileName) << fmt::format("{:.6f} o step 10 loss 2.1\n", kStart + 5);
}

// Host-level sources of a single-host job go to its host.
HostEvidence& the_host(EvidenceDocument& document) {
  return document.hosts.empty() ? host_named(document, "") : document.hosts.front();
}

// Kernel-like records: "<seconds since boot> Killed process <pid> (<comm>)".
class KernelLikeCollector final : public collectors::Collector {
 public:
  std::string_view name() const override { return "test-kernel"; }
  std::string_view section() const override { return "hosts[].kernel"; }
  collectors::Mode mode() const override { return collectors::Mode::post_mortem; }
  std::string_view looks_for() const override { return "kern.log"; }
  bool recognises(const collectors::Inventory& inventory) const override { return inventory.root().filename() == "kern.log"; }
  CollectorReport collect(const collectors::Inventory& inventory, const collectors::CollectContext&,
                          EvidenceDocument& document) const override {
    const fs::path& path = inventory.root();
    KernelLogEvidence kernel{.from = {.collector = "test-kernel", .file = path.string()}, .boot_time = kStart - 1000};
    std::ifstream in(path);
    std::string line;
    std::uint64_t number = 0;
    const std::regex killed(R"(^(\d+\.\d+) Killed process (\d+) \((\S+)\))");
    while (std::getline(in, line)) {
      ++number;
      std::smatch m;
      if (!std::regex_search(line, m, killed)) continue;
      kernel.records.push_back(LogEvent{.kind = "oom-kill",
                                        .time = *kernel.boot_time + std::stod(m[1]),
                                        .from = {.collector = "test-kernel", .file = path.string(), .line = number},
                                        .text = line,
                                        .pid = std::stoi(m[2]),
                                        .signal = SIGKILL,
                                        .details = {{"command", m[3]}}});
    }
    the_host(document).kernel = std::move(kernel);
    return {.name = "test-kernel", .section = "hosts[].kernel", .sources = {path.string()}};
  }
};

// A launcher's log without timestamps.
class PlainLogCollector final : public collectors::Collector {
 public:
  std::string_view name() const override { return "test-log"; }
  std::string_view section() const override { return "hosts[].logs"; }
  collectors::Mode mode() const override { return collectors::Mode::post_mortem; }
  std::string_view looks_for() const override { return "*.log"; }
  bool recognises(const collectors::Inventory& inventory) const override {
    return inventory.root().extension() == ".log" && inventory.root().filename() != "kern.log";
  }
  CollectorReport collect(const collectors::Inventory& inventory, const collectors::CollectContext&,
                          EvidenceDocument& document) const override {
    const fs::path& path = inventory.root();
    LogFileEvidence log{.from = {.collector = "test-log", .file = path.string()}};
    std::ifstream in(path);
    std::string line;
    const std::regex exit_line(R"(local_rank: (\d+) \(pid: (\d+)\) of binary: \S+ exits with return code = -(\d+))");
    while (std::getline(in, line)) {
      ++log.line_count;
      std::smatch m;
      if (!std::regex_search(line, m, exit_line)) continue;
      log.events.push_back(LogEvent{.kind = "process-exit",
                                    .from = {.collector = "test-log", .file = path.string(), .line = log.line_count},
                                    .text = line,
                                    .pid = std::stoi(m[2]),
                                    .signal = std::stoi(m[3]),
                                    .rank = std::stoi(m[1])});
    }
    the_host(document).logs.push_back(std::move(log));
    return {.name = "test-log", .section = "hosts[].logs", .sources = {path.string()}};
  }
};

rules::Judgement judge(const EvidenceDocument& document) {
  static const auto rules = rules::load_rules(rules::builtin_rules_directory());
  REQUIRE(rules.ok());
  return rules::judge(rules.rules, facts::extract_facts(document));
}

}  // namespace

TEST_CASE("a run, kernel records and an untimed log event in one document: judged and round-tripped") {
  PostMortemDir tmp;
  write_run(tmp.path / "job");
  std::ofstream(tmp.path / "kern.log") << "1015.250000 Killed process 101 (python) total-vm:1000kB\n";
  std::ofstream(tmp.path / "launcher.log")
      << "W1201 04:00:01 torch/distributed/elastic/multiprocessing/api.py:900] Sending process 102 closing signal SIGTERM\n"
      << "E1201 local_rank: 0 (pid: 101) of binary: /usr/bin/python3 exits with return code = -9\n";

  const collectors::JournalCollector journal;
  const KernelLikeCollector kernel;
  const PlainLogCollector logs;
  auto document = collectors::collect_post_mortem({tmp.path / "job", tmp.path / "kern.log", tmp.path / "launcher.log"},
                                                  {}, {&journal, &kernel, &logs});
  REQUIRE_MESSAGE(document.has_value(), document.missing().detail);
  REQUIRE(document->hosts.size() == 1);
  const auto& host = document->hosts[0];
  CHECK(host.name == "node07");
  REQUIRE(host.runs.size() == 1);
  REQUIRE(host.kernel);
  REQUIRE(host.kernel->records.size() == 1);
  REQUIRE(host.logs.size() == 1);
  REQUIRE(host.logs[0].events.size() == 1);
  CHECK_FALSE(host.logs[0].events[0].time.has_value());
  CHECK(host.logs[0].events[0].from.line == 2u);
  CHECK(document->collectors.size() == 3);

  // The journal saw no death by a signal; the kernel's record (timed) comes
  // before the untimed log line, and decides the incident.
  const auto facts = facts::extract_facts(document.value());
  CHECK(std::get<std::string>(*facts.get("death.source").value) == "kernel");
  CHECK(facts.get("death.source").pointer == "/hosts/0/kernel/records/0");
  CHECK(std::get<std::int64_t>(*facts.get("death.signal").value) == SIGKILL);
  CHECK(std::get<std::int64_t>(*facts.get("death.pid").value) == 101);
  CHECK(std::get<std::string>(*facts.get("death.command").value) == "python");
  CHECK(std::get<double>(*facts.get("death.after").value) == doctest::Approx(15.25));

  const auto first = judge(document.value());
  CHECK(first.verdict.cause == "container-oom");

  auto back = document_from_json(nlohmann::json::parse(document_to_json(document.value()).dump()));
  REQUIRE_MESSAGE(back.has_value(), back.missing().detail);
  CHECK(back.value() == document.value());
  const auto second = judge(back.value());
  CHECK(second.verdict.cause == first.verdict.cause);
  CHECK(second.verdict.confidence == first.verdict.confidence);
  CHECK(second.findings.size() == first.findings.size());
}

TEST_CASE("without a kernel record, an untimed log event decides and says it has no time") {
  PostMortemDir tmp;
  write_run(tmp.path / "job");
  std::ofstream(tmp.path / "launcher.log") << "local_rank: 1 (pid: 102) of binary: python3 exits with return code = -11\n";
  const collectors::JournalCollector journal;
  const PlainLogCollector logs;
  auto document = collectors::collect_post_mortem({tmp.path / "job", tmp.path / "launcher.log"}, {}, {&journal, &logs});
  REQUIRE(document);
  const auto facts = facts::extract_facts(document.value());
  CHECK(std::get<std::string>(*facts.get("death.source").value) == "log");
  CHECK(std::get<std::int64_t>(*facts.get("death.signal").value) == SIGSEGV);
  REQUIRE_FALSE(facts.get("death.after").value);
  CHECK(facts.get("death.after").value.missing().detail.find("no time") != std::string::npos);
}

TEST_CASE("post-mortem collection says what it could not do") {
  PostMortemDir tmp;
  const auto all = collectors::post_mortem_collectors();
  auto missing = collectors::collect_post_mortem({tmp.path / "nope"}, {}, all);
  REQUIRE_FALSE(missing.has_value());
  CHECK(missing.missing().detail.find("does not exist") != std::string::npos);

  // Text is read as a log whatever it says; a model's weights and a script
  // are nothing ftdiag reads.
  std::ofstream(tmp.path / "weights.bin", std::ios::binary) << std::string("\x80\x02\x8a\x0al\xfc\x9c" "F\xf9 j\xa8P\x19.", 15);
  std::ofstream(tmp.path / "train.py") << "trainer.save_model()\n";
  auto nothing = collectors::collect_post_mortem({tmp.path}, {}, all);
  REQUIRE_FALSE(nothing.has_value());
  CHECK(nothing.missing().reason == MissingReason::not_present);
  CHECK(nothing.missing().detail.find("journal.jsonl") != std::string::npos);

  // A collector that recognised something and then failed costs only its own
  // evidence, reported with the reason.
  class Failing final : public collectors::Collector {
   public:
    std::string_view name() const override { return "failing"; }
    std::string_view section() const override { return "hosts[].logs"; }
    collectors::Mode mode() const override { return collectors::Mode::post_mortem; }
    std::string_view looks_for() const override { return "anything"; }
    bool recognises(const collectors::Inventory&) const override { return true; }
    CollectorReport collect(const collectors::Inventory&, const collectors::CollectContext&, EvidenceDocument&) const override {
      throw std::runtime_error("disk on fire");
    }
  } failing;
  auto reported = collectors::collect_post_mortem({tmp.path}, {}, {&failing});
  REQUIRE(reported);
  REQUIRE(reported->collectors.size() == 1);
  REQUIRE_FALSE(reported->collectors[0].outcome.has_value());
  CHECK(reported->collectors[0].outcome.missing().detail == "disk on fire");
}
