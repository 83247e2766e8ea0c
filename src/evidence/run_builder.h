// Folds the records of one journal into a RunEvidence: the processes with
// their deaths, the memory watermarks and the timeline. Aggregation only:
// nothing here decides a cause.
#pragma once

#include <string>
#include <unordered_map>

#include "evidence/document.h"
#include "evidence/records.h"

namespace ftdiag::evidence {

class RunBuilder {
 public:
  void add(const JournalRecord& record);
  void add_problem(std::string problem) { run_.journal_problems.push_back(std::move(problem)); }
  bool has_start() const { return has_start_; }

  // Completes the run: the job's status, the downsampled timeline.
  RunEvidence finish(std::string directory) &&;

 private:
  void on(const RunStarted& r);
  void on(const ProcessSeen& p);
  void on(const ProcessDied& d);
  void on(const MemorySample& s);
  void on(const SupervisorNote& n) { run_.notes.push_back(n); }
  void on(const RunEnded& e) { run_.ended = e; }
  ProcessEvidence& process(int pid, double time);
  void add_to_node_watermarks(const MemorySample& s);
  void add_to_cgroup_watermarks(const MemorySample& s);

  RunEvidence run_;
  bool has_start_ = false;
  std::unordered_map<int, std::size_t> live_index_;  // pid -> index of its current process
  // The last RSS written for each live process: samples carry only the
  // processes whose memory moved, so the job's total is kept as a running sum.
  std::unordered_map<int, Bytes> last_rss_;
  Bytes job_rss_ = 0;
};

}  // namespace ftdiag::evidence
