// signal:signal_generate lines as trace_pipe prints them: real ones captured
// on Linux 6.18 (tests/fixtures/trace/signal_generate.txt), the layouts other
// options and kernels give, and lines that must not parse.
#include "parse/kernel/trace_signal.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "parse/kernel/trace_pipe_lines.h"

#ifndef FTDIAG_FIXTURES_DIR
#error "FTDIAG_FIXTURES_DIR must name the absolute path of tests/fixtures"
#endif

using ftdiag::parse::find_saved_comm;
using ftdiag::parse::generated_by_kernel;
using ftdiag::parse::parse_lost_events;
using ftdiag::parse::parse_signal_generate;
using ftdiag::parse::signal_result_name;
using ftdiag::parse::SignalGenerated;
using ftdiag::parse::TracePipeLines;

namespace {

// The fixture's records, without its '#' notes.
std::vector<std::string> captured_lines() {
  std::ifstream in(std::filesystem::path(FTDIAG_FIXTURES_DIR) / "trace/signal_generate.txt");
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.front() != '#') lines.push_back(line);
  }
  return lines;
}

SignalGenerated parsed(const std::string& line) {
  auto record = parse_signal_generate(line);
  REQUIRE_MESSAGE(record.has_value(), line);
  return *record;
}

constexpr const char* kKill =
    "            bash-1574    [001] d..1. 10466.748426: signal_generate: sig=9 errno=0 code=0 comm=sleep pid=1578 grp=1 res=0";

}  // namespace

TEST_CASE("signal trace: every captured line parses") {
  const auto lines = captured_lines();
  REQUIRE(lines.size() == 18);
  for (const auto& line : lines) CHECK_MESSAGE(parse_signal_generate(line).has_value(), line);
}

TEST_CASE("signal trace: a kill from a shell") {
  const SignalGenerated record = parsed(captured_lines().at(0));
  CHECK(record.sender_comm == "bash");
  CHECK(record.sender_pid == 1574);
  CHECK(record.cpu == 1);
  CHECK(record.timestamp == doctest::Approx(10466.748426).epsilon(1e-12));
  CHECK(record.signal == 9);
  CHECK(record.error == 0);
  CHECK(record.code == 0);
  CHECK(record.target_comm == "sleep");
  CHECK(record.target_pid == 1578);
  CHECK(record.group);
  CHECK(record.result == 0);
  CHECK(signal_result_name(record.result) == "delivered");
  CHECK_FALSE(generated_by_kernel(record.code));
}

TEST_CASE("signal trace: names with spaces and dashes, on either side") {
  const auto lines = captured_lines();
  const SignalGenerated step = parsed(lines.at(1));
  CHECK(step.sender_comm == "slurm-step d");
  CHECK(step.sender_pid == 1582);
  CHECK(step.signal == 15);
  const SignalGenerated scheduler = parsed(lines.at(2));
  CHECK(scheduler.sender_comm == "scheduler");
  CHECK(scheduler.sender_pid == 1585);
  const SignalGenerated trainer = parsed(lines.at(3));
  CHECK(trainer.target_comm == "my train-er");
  CHECK(trainer.target_pid == 1587);
  const SignalGenerated unknown = parsed(lines.at(14));
  CHECK(unknown.sender_comm.empty());  // "<...>": the tracer had no name for it
  CHECK(unknown.sender_pid == 31324);
  CHECK(unknown.target_comm == "a b-c");
}

TEST_CASE("signal trace: results, codes and who generated it") {
  const auto lines = captured_lines();
  CHECK(signal_result_name(parsed(lines.at(4)).result) == "ignored");
  CHECK(signal_result_name(parsed(lines.at(6)).result) == "already-pending");
  const SignalGenerated abort = parsed(lines.at(7));
  CHECK(abort.code == -6);  // SI_TKILL: abort() raises it by tgkill
  CHECK_FALSE(abort.group);
  CHECK_FALSE(generated_by_kernel(abort.code));
  const SignalGenerated null_deref = parsed(lines.at(8));
  CHECK(null_deref.code == 1);  // SEGV_MAPERR
  CHECK(null_deref.sender_pid == null_deref.target_pid);
  CHECK(generated_by_kernel(null_deref.code));
  CHECK(parsed(lines.at(9)).code == 0x80);  // SI_KERNEL: a general-protection fault
  CHECK(parsed(lines.at(10)).signal == 7);
  const SignalGenerated oom = parsed(lines.at(11));
  CHECK(oom.signal == 9);
  CHECK(oom.code == 0x80);  // SI_KERNEL: the OOM killer
  CHECK(generated_by_kernel(oom.code));
}

TEST_CASE("signal trace: without the flags column, with a tgid column") {
  const auto lines = captured_lines();
  const SignalGenerated unknown_tgid = parsed(lines.at(15));
  CHECK(unknown_tgid.sender_comm == "timeout");
  CHECK(unknown_tgid.sender_pid == 1575);
  CHECK(unknown_tgid.cpu == 1);
  CHECK(unknown_tgid.timestamp == doctest::Approx(10472.446690));
  const SignalGenerated tgid = parsed(lines.at(16));
  CHECK(tgid.sender_comm == "bash");
  CHECK(tgid.sender_pid == 1741);
  CHECK(tgid.cpu == 0);
  const SignalGenerated no_flags = parsed(lines.at(17));
  CHECK(no_flags.sender_pid == 575);
  CHECK(no_flags.target_pid == 577);
}

TEST_CASE("signal trace: layouts of other kernels and hostile names") {
  // Kernels before 6.x print four flags; an old one may print no cpu column.
  auto old_flags = parse_signal_generate(
      "   python3-77    [003] d..2  12.5: signal_generate: sig=11 errno=0 code=1 comm=python3 pid=77 grp=0 res=0");
  REQUIRE(old_flags);
  CHECK(old_flags->cpu == 3);
  CHECK(old_flags->timestamp == doctest::Approx(12.5));
  auto no_cpu = parse_signal_generate("a-1 5: signal_generate: sig=9 errno=0 code=0 comm=b pid=2 grp=1 res=0");
  REQUIRE(no_cpu);
  CHECK_FALSE(no_cpu->cpu);
  CHECK(no_cpu->sender_comm == "a");
  // A comm that looks like columns, and a target comm holding " pid=".
  auto hostile = parse_signal_generate(
      " x [9] d..1.-9-42    [000] d..1. 1.000001: signal_generate: sig=15 errno=0 code=0 comm=a pid=1 b pid=43 grp=1 res=0\r\n");
  REQUIRE(hostile);
  CHECK(hostile->sender_comm == "x [9] d..1.-9");
  CHECK(hostile->sender_pid == 42);
  CHECK(hostile->target_comm == "a pid=1 b");
  CHECK(hostile->target_pid == 43);
  // The counter clocks print whole numbers.
  auto counter = parse_signal_generate("k-1 [000] d..1. 123456789: signal_generate: sig=9 errno=0 code=0 comm=b pid=2 grp=1 res=0");
  REQUIRE(counter);
  CHECK(counter->timestamp == doctest::Approx(123456789.0));
  // An empty target comm is what the kernel prints for one.
  auto empty_comm = parse_signal_generate("k-1 [000] 1.0: signal_generate: sig=9 errno=0 code=0 comm= pid=2 grp=1 res=0");
  REQUIRE(empty_comm);
  CHECK(empty_comm->target_comm.empty());
}

TEST_CASE("signal trace: lines that are not records") {
  const std::string kill = kKill;
  for (const char* line : {
           "",
           "\n",
           "garbage",
           // latency-format and nocontext-info layouts
           "    bash-643       1d..1. 110342981us : signal_generate: sig=9 errno=0 code=0 comm=sleep pid=645 grp=1 res=0",
           "signal_generate: sig=9 errno=0 code=0 comm=sleep pid=660 grp=1 res=0",
           // another event
           "            bash-1574    [001] d..1. 10466.748426: signal_deliver: sig=9 errno=0 code=0 sa_handler=0 sa_flags=0",
           // numbers that are not
           "bash-x [001] d..1. 1.0: signal_generate: sig=9 errno=0 code=0 comm=sleep pid=1 grp=1 res=0",
           "bash-1 [001] d..1. 1.0: signal_generate: sig=99999999999 errno=0 code=0 comm=sleep pid=1 grp=1 res=0",
           "bash-1 [001] d..1. 1.0: signal_generate: sig=9 errno=0 code=0 comm=sleep pid=1 grp=1 res=0x",
           "bash-1 [001] d..1. -1.0: signal_generate: sig=9 errno=0 code=0 comm=sleep pid=1 grp=1 res=0",
           "bash-1 [001] d..1. nan: signal_generate: sig=9 errno=0 code=0 comm=sleep pid=1 grp=1 res=0",
           // a field missing, or out of order
           "bash-1 [001] d..1. 1.0: signal_generate: sig=9 code=0 comm=sleep pid=1 grp=1 res=0",
           "bash-1 [001] d..1. 1.0: signal_generate: errno=0 sig=9 code=0 comm=sleep pid=1 grp=1 res=0",
           "bash-1 [001] d..1. 1.0: signal_generate: sig=9 errno=0 code=0 comm=sleep grp=1 res=0",
           "bash1 [001] d..1. 1.0: signal_generate: sig=9 errno=0 code=0 comm=sleep pid=1 grp=1 res=0",
       }) {
    CHECK_FALSE_MESSAGE(parse_signal_generate(line).has_value(), line);
  }
  // Every cut of a real line but the whole: nothing read past the end, and
  // only cuts inside the trailing result's digits could parse (there are none).
  for (std::size_t size = 0; size < kill.size(); ++size) {
    CHECK_FALSE(parse_signal_generate(std::string_view(kill).substr(0, size)).has_value());
  }
}

TEST_CASE("signal trace: the ring buffer's loss reports") {
  CHECK(parse_lost_events("CPU:3 [LOST 42 EVENTS]") == 42u);
  CHECK(parse_lost_events("CPU:0 [LOST 18446744073709551615 EVENTS]\n") == 18446744073709551615ull);
  CHECK_FALSE(parse_lost_events("CPU:x [LOST 42 EVENTS]"));
  CHECK_FALSE(parse_lost_events("CPU:3 [LOST EVENTS]"));
  CHECK_FALSE(parse_lost_events("CPU:3 [LOST 42 EVENTS"));
  CHECK_FALSE(parse_lost_events(kKill));
  CHECK(signal_result_name(3) == "overflow");
  CHECK(signal_result_name(4) == "lost-info");
  CHECK(signal_result_name(-1) == "unknown");
}

TEST_CASE("signal trace: lines cut across reads are joined, at every cut") {
  const std::string text = std::string(kKill) + "\n" + kKill + "\nCPU:1 [LOST 2 EVENTS]\n";
  for (std::size_t cut = 0; cut <= text.size(); ++cut) {
    TracePipeLines lines;
    std::vector<std::string> seen;
    auto keep = [&](std::string_view line) { seen.emplace_back(line); };
    lines.feed(std::string_view(text).substr(0, cut), keep);
    lines.feed(std::string_view(text).substr(cut), keep);
    REQUIRE(seen.size() == 3);
    CHECK(seen[0] == kKill);
    CHECK(seen[1] == kKill);
    CHECK(seen[2] == "CPU:1 [LOST 2 EVENTS]");
    CHECK(lines.pending_bytes() == 0);
  }
}

TEST_CASE("signal trace: an endless line is dropped, not kept") {
  TracePipeLines lines(64);
  std::vector<std::string> seen;
  auto keep = [&](std::string_view line) { seen.emplace_back(line); };
  lines.feed("start of a line", keep);
  for (int i = 0; i < 1000; ++i) lines.feed("no end in sight ", keep);
  CHECK(lines.pending_bytes() <= 64);
  lines.feed(" end\nnext\npartial", keep);
  REQUIRE(seen.size() == 1);
  CHECK(seen[0] == "next");
  CHECK(lines.overlong_lines() == 1);
  CHECK(lines.pending_bytes() == 7);
  lines.feed("\n", keep);
  CHECK(seen.back() == "partial");
}

TEST_CASE("signal trace: a sender's name from saved_cmdlines, spaces and all") {
  // As the kernel prints it (saved_cmdlines_show: "%d %s\n").
  const std::string_view saved = "1 systemd\n4242 scheduler\n977 Xwayland worker\n12 \n13 <...>\n";
  CHECK(find_saved_comm(saved, 4242) == "scheduler");
  CHECK(find_saved_comm(saved, 977) == "Xwayland worker");
  CHECK(find_saved_comm(saved, 42) == std::nullopt);  // 4242 is not 42
  CHECK(find_saved_comm(saved, 12) == std::nullopt);  // no name
  CHECK(find_saved_comm(saved, 13) == std::nullopt);  // the tracer's "unknown"
  CHECK(find_saved_comm("", 1) == std::nullopt);
  CHECK(find_saved_comm("not a pid line\n-1\n", -1) == std::nullopt);
  CHECK(find_saved_comm("7 last line without newline", 7) == "last line without newline");
}
