// Folds the records of one journal into a RunEvidence: the processes with
// their deaths, the memory watermarks and the timeline. Aggregation only:
// nothing here decides a cause.
//
// Memory is bounded by the shape of the job, not by its length or churn:
// live processes are kept by pid; when one ends it is kept whole if it
// matters (the job itself, a death by a signal, a failure or an unknown end,
// a long life such as a rank's or a worker's), else counted into a summary
// per command. The timeline is downsampled as it grows; notes and problems
// are capped with a count of what was left out.
//
// The same builder runs live inside `ftdiag run` (fed each record as it is
// journaled) and post-mortem on a journal read back, so both give the same
// evidence and the same verdict.
#pragma once

#include <deque>
#include <map>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "evidence/document.h"
#include "evidence/records.h"

namespace ftdiag::evidence {

// A process that ran at least this long is kept whole even when it exited 0.
inline constexpr double kLongLivedSeconds = 10.0;
// Caps on what is kept one by one; past them, processes are summarised.
inline constexpr std::size_t kMaxKeptProcesses = 20000;
inline constexpr std::size_t kMaxSummaryCommands = 1000;
inline constexpr std::size_t kMaxNotes = 1000;
inline constexpr std::size_t kMaxJournalProblems = 100;
inline constexpr std::size_t kMaxSignalRecords = 10000;
// A job that saves every few steps sends two markers each time; gasps and
// stacks are rare by design (one per climb to the limit).
inline constexpr std::size_t kMaxProbeMarkers = 20000;
inline constexpr std::size_t kMaxLastGasps = 100;
inline constexpr std::size_t kMaxPythonStacks = 400;
inline constexpr std::size_t kMaxSaveForecasts = 10;  // a run journals one, and one more with a warning
// GPU memory is sampled every few seconds for the whole run: past the cap,
// every other sample is dropped and the rate kept halves, so a week-long run
// still covers its whole time in bounded memory.
inline constexpr std::size_t kMaxGpuSamples = 4096;

class RunBuilder {
 public:
  void add(const JournalRecord& record);
  void add_problem(std::string problem);
  bool has_start() const { return has_start_; }
  // True once a note of a failed write of the record was added (such notes
  // are kept past kMaxNotes: they say from when the record is incomplete).
  bool has_write_failure() const { return has_write_failure_; }

  // Completes the run: the job's status, the downsampled timeline, the
  // processes in order of first sight.
  RunEvidence finish(std::string directory) &&;

 private:
  void on(const RunStarted& r);
  void on(const ProcessSeen& p);
  void on(const ProcessDied& d);
  void on(const MemorySample& s);
  void on(const SupervisorNote& n);
  void on(const RunEnded& e) { run_.ended = e; }
  void on(const KernelLogged& k);
  void on(const SignalSent& s);
  void on(const SignalReceived& s);
  void on(const ProbeMarker& m);
  void on(const LastGasp& g);
  void on(const PythonStacksTaken& s);
  void on(const model::GpuMemorySample& s);
  void on(const SaveForecast& f) {
    if (run_.save_forecasts.size() < kMaxSaveForecasts) run_.save_forecasts.push_back(f);
  }
  void on(const Heartbeat& h) {
    ++run_.heartbeats;
    run_.last_heartbeat = h.time;
  }
  void finish_kernel_log();
  ProcessEvidence* find_process(int pid);
  ProcessEvidence& live_process(int pid, double time);
  void retire(int pid);
  bool keep_whole(const ProcessEvidence& p) const;
  void summarise(const ProcessEvidence& p);
  void forget_rss(int pid);
  void add_to_node_watermarks(const MemorySample& s);
  void add_to_cgroup_watermarks(const MemorySample& s);

  RunEvidence run_;
  bool has_start_ = false;
  bool has_write_failure_ = false;
  std::uint64_t gpu_samples_seen_ = 0;
  std::uint64_t gpu_sample_stride_ = 1;  // keep every Nth sample (doubles at each thinning)
  std::unordered_map<int, ProcessEvidence> live_;  // pid -> process not yet ended
  // pid -> index in run_.processes of its latest kept death, so a second
  // witness of the same death (netlink, then waitpid) merges into it.
  std::unordered_map<int, std::size_t> dead_index_;
  // Pids of recently summarised deaths, oldest first: a late witness of one
  // of them must not resurrect it as an unannounced process.
  std::unordered_set<int> recently_summarised_;
  std::deque<int> summarised_order_;
  std::map<std::string, std::size_t> summary_index_;  // command -> index in run_.process_summary
  // The last RSS written for each live process: samples carry only the
  // processes whose memory moved, so the job's total is kept as a running sum.
  std::unordered_map<int, Bytes> last_rss_;
  Bytes job_rss_ = 0;
  std::uint64_t notes_left_out_ = 0;
  std::vector<KernelLogged> kernel_records_;  // parsed at finish: a report spans many records
  std::uint64_t kernel_records_left_out_ = 0;
  std::uint64_t signals_left_out_ = 0;
  std::uint64_t problems_left_out_ = 0;
};

}  // namespace ftdiag::evidence
