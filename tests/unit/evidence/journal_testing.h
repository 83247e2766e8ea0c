// Journal lines for the tests of the journal's readers: the nlohmann path
// the fast reader is checked against, and a sample as `ftdiag run` writes it.
#pragma once

#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/fact.h"
#include "evidence/records.h"
#include "evidence/records_json.h"

namespace ftdiag::evidence::testing {

inline Fact<JournalRecord> nlohmann_path(std::string_view line) {
  auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Missing{MissingReason::unparseable, "not JSON"};
  return record_from_json(j);
}

inline std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

// A sample as `ftdiag run` writes it (cgroup v1, one fact missing), with
// `processes` processes.
inline MemorySample make_sample(double time, int processes, std::mt19937_64& rng) {
  MemorySample s;
  s.time = time;
  s.node.mem_total = 25276063744u;
  s.node.mem_available = 23310483456u - rng() % 1000000;
  s.node.swap_total = 0u;
  s.node.swap_free = 0u;
  s.node.shmem = 9138176u;
  CgroupMemory cg;
  cg.version = 1;
  cg.path = "/process_api/e219be324f0645a4844e14b62a72354e";
  cg.usage = 8462336u + rng() % 100000;
  cg.limit = std::optional<Bytes>();
  cg.peak = 321118208u;
  cg.oom_events = Missing{MissingReason::unsupported, "cgroup v1 has no OOM event counter (under_oom is a state)"};
  cg.oom_kill = 0u;
  cg.max_events = 0u;
  cg.swap = 0u;
  cg.anon = 2011136u;
  cg.file = 4915200u;
  cg.shmem = 0u;
  cg.under_oom = false;
  s.cgroup = cg;
  s.dev_shm = FilesystemUsage{25276063744u, 0u, 25276063744u};
  for (int i = 0; i < processes; ++i) {
    const Bytes rss = 1675264u + rng() % (1u << 30);
    ProcessMemory& p = s.processes.emplace_back();
    p.pid = 4122 + i;
    p.rss = rss;
    p.rss_anon = rss / 10;
    p.rss_file = rss - rss / 10;
    p.rss_shmem = Bytes{0};
    p.vm_hwm = rss + 4096;
    p.swap = Bytes{0};
  }
  return s;
}

inline const std::string kNote = R"({"type":"note","time":1,"what":"x"})";

}  // namespace ftdiag::evidence::testing
