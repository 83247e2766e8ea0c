// Facts from what launchers, schedulers, container runtimes and OOM daemons
// printed (the run's console events, and events of log files): a scheduler's
// cancel and its reason, an OOM it reported, an OOM daemon's kill, the
// launcher's teardown of surviving ranks.
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <vector>

#include <fmt/format.h>

#include "base/ascii.h"
#include "facts/extract.h"

namespace ftdiag::facts {

namespace {

using evidence::LogEvent;

struct Located {
  const LogEvent* event;
  std::string pointer;
};

std::vector<Located> job_events(const evidence::EvidenceDocument& document) {
  std::vector<Located> events;
  evidence::for_each_run(document, [&](const evidence::RunRef& ref, const evidence::RunEvidence& run) {
    for (std::size_t i = 0; i < run.console.events.size(); ++i) {
      events.push_back({&run.console.events[i], fmt::format("{}/console/events/{}", ref.pointer(), i)});
    }
  });
  for (std::size_t h = 0; h < document.hosts.size(); ++h) {
    for (std::size_t f = 0; f < document.hosts[h].logs.size(); ++f) {
      const auto& log = document.hosts[h].logs[f];
      for (std::size_t i = 0; i < log.events.size(); ++i) {
        events.push_back({&log.events[i], fmt::format("/hosts/{}/logs/{}/events/{}", h, f, i)});
      }
    }
  }
  return events;
}

const Located* first_of(const std::vector<Located>& events, std::initializer_list<std::string_view> kinds) {
  for (const auto& e : events) {
    for (auto kind : kinds) {
      if (e.event->kind == kind) return &e;
    }
  }
  return nullptr;
}

// A worker's death reported while Python ran its exit functions: the lines
// after "Error in atexit._run_exitfuncs:" in the same file, a traceback's
// length away at most. multiprocessing's exit function terminates the
// daemonic children still alive (a DataLoader's workers), whose SIGCHLD
// handler then reports them "killed by signal: Terminated".
const Located* worker_died_at_interpreter_exit(const std::vector<Located>& events) {
  constexpr std::uint64_t kTracebackLines = 40;
  for (const auto& exit : events) {
    if (exit.event->kind != "interpreter-exit" || !exit.event->from.line) continue;
    for (const auto& died : events) {
      if (died.event->kind != "worker-died" || !died.event->from.line || died.event->from.file != exit.event->from.file ||
          died.event->from.collector != exit.event->from.collector) {
        continue;
      }
      const auto after = *died.event->from.line;
      if (after > *exit.event->from.line && after - *exit.event->from.line <= kTracebackLines) return &died;
    }
  }
  return nullptr;
}

// The innermost frame of a backtrace that only a fatal-error handler prints
// (UCX's: a fatal signal, or its own abort), when no line of the log reports
// the crash itself: a paste that starts below "Caught signal 11".
const Located* innermost_fatal_error_frame(const std::vector<Located>& events) {
  const Located* innermost = nullptr;
  std::uint64_t lowest = 0;
  for (const auto& e : events) {
    if (e.event->kind != "native-frame" || e.event->detail("printed_by") != "fatal-error-handler") continue;
    const auto index = e.event->detail_count("index").value_or(UINT64_MAX);
    if (!innermost || index < lowest) {
      innermost = &e;
      lowest = index;
    }
  }
  return innermost;
}

}  // namespace

void extract_log_event_facts(const evidence::EvidenceDocument& document, const std::optional<Incident>&, FactSet& facts) {
  const auto events = job_events(document);
  facts.set("log.events", static_cast<std::int64_t>(events.size()), "/hosts");
  const Missing none{MissingReason::not_present, "no such line in the console or the logs"};
  auto set_text = [&](const char* name, const Located* found, const std::function<std::string(const LogEvent&)>& text) {
    if (found) {
      facts.set(name, text(*found->event), found->pointer);
    } else {
      facts.set_missing(name, none);
    }
  };
  set_text("log.scheduler_cancel", first_of(events, {"scheduler-cancel"}), [](const LogEvent& e) {
    auto reason = e.detail("reason");
    return reason.empty() ? std::string("cancelled") : reason;
  });
  set_text("log.scheduler_cancel_line", first_of(events, {"scheduler-cancel"}), [](const LogEvent& e) { return e.text; });
  const auto* oom = first_of(events, {"scheduler-oom", "container-oom", "unit-oom", "node-oom"});
  facts.set("log.oom_reported", oom != nullptr, oom ? oom->pointer : "/hosts");
  set_text("log.oom_reported_line", oom, [](const LogEvent& e) { return e.text; });
  set_text("log.oom_reported_source", oom, [](const LogEvent& e) { return e.detail("source"); });
  set_text("log.scheduler_memory_kill", first_of(events, {"scheduler-memory-kill"}), [](const LogEvent& e) { return e.text; });
  set_text("log.oom_daemon_kill", first_of(events, {"oomd-kill", "earlyoom-kill"}), [](const LogEvent& e) { return e.text; });
  set_text("log.eviction", first_of(events, {"eviction"}), [](const LogEvent& e) { return e.text; });
  set_text("log.shm_error", first_of(events, {"shm-error"}), [](const LogEvent& e) { return e.text; });
  set_text("log.cuda_oom", first_of(events, {"cuda-oom"}), [](const LogEvent& e) { return e.text; });
  set_text("log.cuda_driver_too_old", first_of(events, {"cuda-driver-too-old"}), [](const LogEvent& e) { return e.text; });
  if (const auto* old = first_of(events, {"cuda-driver-too-old"})) {
    // torch prints the driver's CUDA as cuDriverGetVersion does: 12040 is 12.4.
    const auto v = old->event->detail_count("driver_version");
    if (v && *v > 0 && *v < 1000000) facts.set("log.cuda_driver_found_version", fmt::format("{}.{}", *v / 1000, (*v % 1000) / 10), old->pointer);
  }
  set_text("log.cuda_unsupported_ptx", first_of(events, {"cuda-unsupported-ptx"}), [](const LogEvent& e) { return e.text; });
  set_text("log.nccl_error", first_of(events, {"nccl-error"}), [](const LogEvent& e) { return e.text; });
  set_text("log.worker_died", first_of(events, {"worker-died"}), [](const LogEvent& e) { return e.text; });
  set_text("log.host_memory_error", first_of(events, {"host-memory-error"}), [](const LogEvent& e) { return e.text; });
  set_text("log.library_abi_error", first_of(events, {"library-abi-error"}), [](const LogEvent& e) { return e.text; });
  const auto* crash = first_of(events, {"native-crash"});
  set_text("log.native_crash", crash, [](const LogEvent& e) { return e.text; });
  if (crash && crash->event->signal) {
    facts.set("log.native_crash_signal", std::int64_t{*crash->event->signal}, crash->pointer + "/signal");
  } else {
    facts.set_missing("log.native_crash_signal", none);
  }
  set_text("log.fatal_error_backtrace", crash ? nullptr : innermost_fatal_error_frame(events), [](const LogEvent& e) {
    // The file and line, without the build machine's directories.
    const auto location = e.detail("location");
    const auto file = location.substr(location.find_last_of('/') + 1);
    return fmt::format("{}(){}", e.detail("function"), file.empty() ? "" : " at " + file);
  });
  set_text("log.stack_overflow", first_of(events, {"stack-overflow"}), [](const LogEvent& e) { return e.text; });
  set_text("log.memory_corruption", first_of(events, {"memory-corruption"}), [](const LogEvent& e) { return e.text; });
  set_text("log.cpp_terminate", first_of(events, {"cpp-terminate"}), [](const LogEvent& e) { return e.text; });
  set_text("log.native_assert", first_of(events, {"native-assert"}), [](const LogEvent& e) { return e.text; });
  set_text("log.native_abort", first_of(events, {"native-assert", "cpp-terminate"}), [](const LogEvent& e) { return e.text; });
  set_text("log.cuda_ecc_error", first_of(events, {"cuda-ecc-error"}), [](const LogEvent& e) { return e.text; });
  set_text("log.gpu_lost", first_of(events, {"gpu-lost"}), [](const LogEvent& e) { return e.text; });
  set_text("log.cuda_illegal_address", first_of(events, {"cuda-illegal-address"}), [](const LogEvent& e) { return e.text; });
  set_text("log.cuda_no_kernel_image", first_of(events, {"cuda-no-kernel-image"}), [](const LogEvent& e) { return e.text; });
  set_text("log.driver_module_mismatch", first_of(events, {"driver-module-mismatch"}), [](const LogEvent& e) { return e.text; });
  set_text("log.launcher_signalled", first_of(events, {"launcher-signalled"}), [](const LogEvent& e) { return e.text; });
  set_text("log.worker_died_at_exit", worker_died_at_interpreter_exit(events), [](const LogEvent& e) { return e.text; });
  const Located* timeout = nullptr;
  std::int64_t frames = 0;
  std::optional<std::uint64_t> deepest_frame;
  std::string deepest_pointer;
  std::optional<double> memory_percent;
  std::string memory_pointer;
  const Located* exited = nullptr;
  for (const auto& e : events) {
    frames += e.event->kind == "native-frame";
    if (e.event->kind == "native-frame") {
      const auto index = e.event->detail_count("index");
      if (index && (!deepest_frame || *index > *deepest_frame)) {
        deepest_frame = index;
        deepest_pointer = e.pointer + "/details/index";
      }
    }
    // The watchdog's line names the timeout it enforced; the store's wait
    // for rank 0's ncclUniqueId says "Socket Timeout" or "wait timeout".
    if (!timeout && e.event->kind == "nccl-error" &&
        (!e.event->detail("timeout_ms").empty() || ascii::contains_ignoring_case(e.event->text, "timed out") ||
         ascii::contains_ignoring_case(e.event->text, "timeout"))) {
      timeout = &e;
    }
    if (e.event->kind == "host-memory-usage") {
      const double percent = e.event->detail_number("percent").value_or(0);
      if (percent > 0 && (!memory_percent || percent > *memory_percent)) {
        memory_percent = percent;
        memory_pointer = e.pointer + "/details/percent";
      }
    }
    if (!exited && e.event->kind == "container-exited" && e.event->exit_code) exited = &e;
  }
  set_text("log.nccl_timeout", timeout, [](const LogEvent& e) { return e.text; });
  facts.set("log.native_frames", frames, "/hosts");
  if (deepest_frame) {
    facts.set("log.native_frame_depth", static_cast<std::int64_t>(std::min<std::uint64_t>(*deepest_frame, 1u << 30)), deepest_pointer);
  } else {
    facts.set_missing("log.native_frame_depth", none);
  }
  if (memory_percent) {
    facts.set("log.host_memory_percent", *memory_percent, memory_pointer);
  } else {
    facts.set_missing("log.host_memory_percent", none);
  }
  if (exited) {
    facts.set("log.container_exit_code", std::int64_t{*exited->event->exit_code}, exited->pointer + "/exit_code");
  } else {
    facts.set_missing("log.container_exit_code", none);
  }
  std::int64_t teardown = 0;
  for (const auto& e : events) teardown += e.event->kind == "launcher-teardown";
  facts.set("log.launcher_teardown", teardown, "/hosts");
  set_text("log.first_event", events.empty() ? nullptr : &events.front(),
           [](const LogEvent& e) { return fmt::format("{}: {}", e.kind, e.text); });
}

}  // namespace ftdiag::facts
