// Every key of every field table (the JSON of the journal and of the evidence
// document) is described in docs/evidence.md: adding a field without saying
// what it means fails here.
#include <doctest/doctest.h>

#include <fstream>
#include <sstream>

#include "evidence/document_fields.h"

using namespace ftdiag::evidence;

namespace {

std::string evidence_doc() {
  std::ifstream in(std::string(FTDIAG_FIXTURES_DIR) + "/../../docs/evidence.md");
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

template <class T>
void check_documented(const std::string& doc, const std::string& type) {
  for_each_field<T>([&](const auto& f) {
    const std::string quoted = "`" + std::string(f.key) + "`";
    CHECK_MESSAGE(doc.find(quoted) != std::string::npos, type, ": key ", quoted, " is not in docs/evidence.md");
  });
}

}  // namespace

TEST_CASE("docs/evidence.md describes every key of the journal and the evidence document") {
  const auto doc = evidence_doc();
  check_documented<RunStarted>(doc, "run record");
  check_documented<ProcessSeen>(doc, "process record");
  check_documented<ProcessDied>(doc, "death record");
  check_documented<MemorySample>(doc, "sample record");
  check_documented<SupervisorNote>(doc, "note record");
  check_documented<WriteFailure>(doc, "write failure");
  check_documented<RunEnded>(doc, "end record");
  check_documented<ProcessMemory>(doc, "process memory");
  check_documented<NodeMemory>(doc, "node memory");
  check_documented<CgroupMemory>(doc, "cgroup memory");
  check_documented<FilesystemUsage>(doc, "filesystem usage");
  check_documented<EvidenceDocument>(doc, "document");
  check_documented<HostEvidence>(doc, "host");
  check_documented<RunEvidence>(doc, "run");
  check_documented<ProcessEvidence>(doc, "process");
  check_documented<ProcessSummary>(doc, "process summary");
  check_documented<MemoryWatermarks>(doc, "memory watermarks");
  check_documented<TimelinePoint>(doc, "timeline point");
  check_documented<ConsoleEvidence>(doc, "console");
  check_documented<ConsoleLine>(doc, "console line");
  check_documented<PhaseStretch>(doc, "phase stretch");
  check_documented<Provenance>(doc, "provenance");
  check_documented<LogEvent>(doc, "event");
  check_documented<KernelLogEvidence>(doc, "kernel");
  check_documented<LogFileEvidence>(doc, "log file");
  check_documented<ConfigEvidence>(doc, "config");
  check_documented<CheckpointEvidence>(doc, "checkpoint");
  check_documented<StackFrame>(doc, "stack frame");
  check_documented<CrashEvidence>(doc, "crash");
  check_documented<CollectorReport>(doc, "collector");
}
