// Facts from what launchers, schedulers, container runtimes and OOM daemons
// printed (the run's console events, and events of log files): a scheduler's
// cancel and its reason, an OOM it reported, an OOM daemon's kill, the
// launcher's teardown of surviving ranks.
#include <cstdlib>
#include <functional>
#include <vector>

#include <fmt/format.h>

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
  set_text("log.scheduler_memory_kill", first_of(events, {"scheduler-memory-kill"}), [](const LogEvent& e) { return e.text; });
  set_text("log.oom_daemon_kill", first_of(events, {"oomd-kill", "earlyoom-kill"}), [](const LogEvent& e) { return e.text; });
  set_text("log.eviction", first_of(events, {"eviction"}), [](const LogEvent& e) { return e.text; });
  set_text("log.shm_error", first_of(events, {"shm-error"}), [](const LogEvent& e) { return e.text; });
  set_text("log.cuda_oom", first_of(events, {"cuda-oom"}), [](const LogEvent& e) { return e.text; });
  set_text("log.cuda_driver_too_old", first_of(events, {"cuda-driver-too-old"}), [](const LogEvent& e) { return e.text; });
  if (const auto* old = first_of(events, {"cuda-driver-too-old"}); old && !old->event->detail("driver_version").empty()) {
    // torch prints the driver's CUDA as cuDriverGetVersion does: 12040 is 12.4.
    const long v = std::strtol(old->event->detail("driver_version").c_str(), nullptr, 10);
    if (v > 0 && v < 1000000) facts.set("log.cuda_driver_found_version", fmt::format("{}.{}", v / 1000, (v % 1000) / 10), old->pointer);
  }
  set_text("log.cuda_unsupported_ptx", first_of(events, {"cuda-unsupported-ptx"}), [](const LogEvent& e) { return e.text; });
  set_text("log.nccl_error", first_of(events, {"nccl-error"}), [](const LogEvent& e) { return e.text; });
  set_text("log.worker_died", first_of(events, {"worker-died"}), [](const LogEvent& e) { return e.text; });
  std::int64_t teardown = 0;
  for (const auto& e : events) teardown += e.event->kind == "launcher-teardown";
  facts.set("log.launcher_teardown", teardown, "/hosts");
  set_text("log.first_event", events.empty() ? nullptr : &events.front(),
           [](const LogEvent& e) { return fmt::format("{}: {}", e.kind, e.text); });
}

}  // namespace ftdiag::facts
