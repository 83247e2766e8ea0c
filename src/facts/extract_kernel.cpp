// Facts from the kernel's log: the OOM killer's record of the incident's
// process (scope, victim, its memory, the top consumers), the fault the
// kernel logged for it, and GPU Xids over the job's time.
#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <limits>

#include <fmt/format.h>

#include "facts/extract.h"
#include "facts/kernel_match.h"

namespace ftdiag::facts {

namespace {

using evidence::LogEvent;


void set_detail(FactSet& facts, const char* name, const KernelMatch& match, const char* key) {
  auto value = match.event->detail(key);
  if (value.empty()) {
    facts.set_missing(name, Missing{MissingReason::not_present, fmt::format("the kernel's record does not print {}", key)});
  } else {
    facts.set(name, value, match.pointer + "/details/" + key);
  }
}

void set_bytes_detail(FactSet& facts, const char* name, const KernelMatch& match, const char* key) {
  if (const auto value = match.event->detail_count(key)) {
    facts.set(name, static_cast<std::int64_t>(*value), match.pointer + "/details/" + key);
  } else if (match.event->detail(key).empty()) {
    facts.set_missing(name, Missing{MissingReason::not_present, fmt::format("the kernel's record does not print {}", key)});
  } else {
    facts.set_missing(name, Missing{MissingReason::unparseable,
                                    fmt::format("the record's {} is not a count: \"{}\"", key, match.event->detail(key))});
  }
}

// The kernel record of `kind` about the incident: the one that decided it,
// or one attributed to the incident's process.
const KernelMatch* incident_record(const std::vector<KernelMatch>& matches, const std::optional<Incident>& incident,
                                   std::string_view kind) {
  if (!incident) return nullptr;
  for (const auto& m : matches) {
    if (m.event->kind != kind) continue;
    if (incident->event == m.event) return &m;
    if (incident->run && m.run && incident->process && m.process && m.run->host == incident->run->host &&
        m.run->run == incident->run->run && *m.process == *incident->process) {
      return &m;
    }
  }
  return nullptr;
}

const char* kOomFacts[] = {"oom.scope", "oom.constraint", "oom.victim", "oom.victim_anon_rss_bytes",
                           "oom.victim_file_rss_bytes", "oom.victim_shmem_rss_bytes", "oom.cgroup", "oom.limit_bytes",
                           "oom.top_consumers", "oom.matched_by", "oom.report", "oom.group_kill"};

// OOM kills that cannot be told to be or not to be the incident's: no process
// of a run is theirs, and their time or the incident's is unknown (a kernel
// log with only boot-relative stamps and no boot time, a log line without a
// time), while the victim's pid means nothing in the job's pid namespace.
std::vector<const KernelMatch*> unplaced_oom_kills(const std::vector<KernelMatch>& matches, const std::optional<Incident>& incident) {
  std::vector<const KernelMatch*> unplaced;
  if (!incident || incident->status.signal != SIGKILL) return unplaced;
  for (const auto& m : matches) {
    if (m.event->kind != "oom-kill" || m.process || m.event == incident->event) continue;
    if (!m.event->time || !incident->time) unplaced.push_back(&m);
  }
  return unplaced;
}

std::string time_apart(double seconds) {
  const double apart = std::abs(seconds);
  const char* side = seconds >= 0 ? "before" : "after";
  if (apart < 120) return fmt::format("{:.0f} s {}", apart, side);
  if (apart < 7200) return fmt::format("{:.0f} min {}", apart / 60, side);
  return fmt::format("{:.1f} h {}", apart / 3600, side);
}

// The kernel's other OOM kills, so that a node's log of many is never judged
// on one without the others being said: the nearest to the death first.
void extract_other_oom_kills(const evidence::EvidenceDocument& document, const std::vector<KernelMatch>& matches,
                             const KernelMatch* chosen, const std::optional<Incident>& incident, const Fact<bool>& read,
                             FactSet& facts) {
  if (!read) {
    facts.set_missing("kernel.other_oom_kills", read.missing());
    facts.set_missing("kernel.other_oom_victims", read.missing());
    return;
  }
  const std::optional<double> death_time = incident ? incident->time : std::nullopt;
  std::vector<const KernelMatch*> others;
  for (const auto& m : matches) {
    // A recorded run's host log is the whole node's: its kills of other jobs
    // are not this job's story (kernel.oom_kills counts the same way).
    const bool of_the_job = m.run || document.hosts[m.host].runs.empty();
    if (m.event->kind == "oom-kill" && &m != chosen && of_the_job) others.push_back(&m);
  }
  facts.set("kernel.other_oom_kills", static_cast<std::int64_t>(others.size()), "/hosts");
  if (others.empty()) {
    facts.set_missing("kernel.other_oom_victims", Missing{MissingReason::not_present, "no other OOM kill in the kernel's log"});
    return;
  }
  const auto distance = [&](const KernelMatch* m) {
    return death_time && m->event->time ? std::abs(*death_time - *m->event->time) : std::numeric_limits<double>::infinity();
  };
  std::stable_sort(others.begin(), others.end(), [&](const auto* a, const auto* b) { return distance(a) < distance(b); });
  constexpr std::size_t kListed = 5;
  std::string text;
  for (std::size_t i = 0; i < others.size() && i < kListed; ++i) {
    const auto& event = *others[i]->event;
    if (!text.empty()) text += "; ";
    text += fmt::format("pid {} ({})", event.pid.value_or(0), event.detail("comm"));
    if (death_time && event.time) text += " " + time_apart(*death_time - *event.time);
  }
  if (others.size() > kListed) text += fmt::format("; and {} more", others.size() - kListed);
  facts.set("kernel.other_oom_victims", text, others.front()->pointer);
}

void extract_oom(const evidence::EvidenceDocument& document, const std::vector<KernelMatch>& matches,
                 const std::optional<Incident>& incident, const Fact<bool>& read, FactSet& facts) {
  const auto* oom = incident_record(matches, incident, "oom-kill");
  extract_other_oom_kills(document, matches, oom, incident, read, facts);
  const auto unplaced = oom ? std::vector<const KernelMatch*>{} : unplaced_oom_kills(matches, incident);
  if (read) {
    facts.set("kernel.unplaced_oom_kills", static_cast<std::int64_t>(unplaced.size()), "/hosts");
  } else {
    facts.set_missing("kernel.unplaced_oom_kills", read.missing());
  }
  if (unplaced.empty()) {
    const Missing none{MissingReason::not_present, "no OOM kill whose time cannot be compared"};
    facts.set_missing("kernel.unplaced_oom_victim", none);
    facts.set_missing("kernel.unplaced_oom_scope", none);
  } else {
    // The last one in the log: the nearest to the log's end, where a death that ended the job is.
    const auto* last = unplaced.back();
    facts.set("kernel.unplaced_oom_victim", fmt::format("pid {} ({})", last->event->pid.value_or(0), last->event->detail("comm")),
              last->pointer + "/pid");
    set_detail(facts, "kernel.unplaced_oom_scope", *last, "scope");
  }
  if (!oom) {
    const Missing why = !read ? read.missing()
                              : Missing{MissingReason::not_present, "no OOM kill of the incident's process in the kernel's log"};
    if (!unplaced.empty()) {
      // Neither yes nor no: rules that need the kernel's word stay undecided.
      facts.set_missing("oom.killed_by_kernel",
                        Missing{MissingReason::not_present,
                                fmt::format("the kernel's log has {} OOM kill(s) whose time cannot be compared with the death's",
                                            unplaced.size())});
    } else if (read && incident && incident->status.signal == SIGKILL) {
      facts.set("oom.killed_by_kernel", false, "/hosts");
    } else {
      facts.set_missing("oom.killed_by_kernel", why);
    }
    for (const char* name : kOomFacts) facts.set_missing(name, why);
    return;
  }
  facts.set("oom.killed_by_kernel", true, oom->pointer);
  set_detail(facts, "oom.scope", *oom, "scope");
  set_detail(facts, "oom.constraint", *oom, "constraint");
  if (oom->event->pid) {
    facts.set("oom.victim", fmt::format("pid {} ({})", *oom->event->pid, oom->event->detail("comm")), oom->pointer + "/pid");
  } else {
    facts.set_missing("oom.victim", Missing{MissingReason::not_present,
                                            "the kernel's report was cut before it named its victim, and its task table "
                                            "(when pasted) does not single one out"});
  }
  set_bytes_detail(facts, "oom.victim_anon_rss_bytes", *oom, "anon_rss_bytes");
  set_bytes_detail(facts, "oom.victim_file_rss_bytes", *oom, "file_rss_bytes");
  set_bytes_detail(facts, "oom.victim_shmem_rss_bytes", *oom, "shmem_rss_bytes");
  set_detail(facts, "oom.cgroup", *oom, "oom_memcg");
  set_bytes_detail(facts, "oom.limit_bytes", *oom, "limit_bytes");
  set_detail(facts, "oom.top_consumers", *oom, "top_consumers");
  set_detail(facts, "oom.report", *oom, "report");
  if (oom->matched_by.empty() && incident->event == oom->event && !incident->chosen_because.empty()) {
    facts.set("oom.matched_by", incident->chosen_because, oom->pointer);
  } else if (oom->matched_by.empty()) {
    facts.set_missing("oom.matched_by", Missing{MissingReason::not_present, "the record stands alone: no run to match it to"});
  } else {
    facts.set("oom.matched_by", oom->matched_by, oom->pointer);
  }
  facts.set("oom.group_kill", oom->event->detail("oom_group") == "true", oom->pointer);
}

const char* kFaultFacts[] = {"fault.kind", "fault.object", "fault.address", "fault.error_meaning", "fault.null_pointer",
                             "fault.near_stack_pointer", "fault.function", "fault.source"};

void extract_fault(const std::vector<KernelMatch>& matches, const std::optional<Incident>& incident, const Fact<bool>& read,
                   FactSet& facts) {
  const auto* fault = incident_record(matches, incident, "fault");
  if (!fault) {
    const Missing why = !read ? read.missing()
                              : Missing{MissingReason::not_present,
                                        "the kernel logged no fault of the incident's process (it logs none for a process "
                                        "that handles the signal itself, e.g. with faulthandler)"};
    facts.set_missing("fault.kernel_line", why);
    for (const char* name : kFaultFacts) facts.set_missing(name, why);
    return;
  }
  facts.set("fault.kernel_line", fault->event->text, fault->pointer + "/text");
  set_detail(facts, "fault.kind", *fault, "fault");
  set_detail(facts, "fault.object", *fault, "object");
  set_detail(facts, "fault.address", *fault, "address");
  set_detail(facts, "fault.error_meaning", *fault, "error_meaning");
  set_detail(facts, "fault.function", *fault, "function");
  set_detail(facts, "fault.source", *fault, "source");
  facts.set("fault.null_pointer", fault->event->detail("null_pointer") == "true", fault->pointer);
  facts.set("fault.near_stack_pointer", fault->event->detail("near_stack_pointer") == "true", fault->pointer);
}

// Xids over the job's time: they are the GPU's, not a process's, so every
// Xid of a host of the job counts (the reader already kept the runs' time).
void extract_xids(const std::vector<KernelMatch>& matches, const std::optional<Incident>& incident, const Fact<bool>& read,
                  FactSet& facts) {
  const KernelMatch* chosen = nullptr;
  std::int64_t count = 0;
  for (const auto& m : matches) {
    if (m.event->kind != "gpu-xid") continue;
    ++count;
    // The first one of hardware origin says the most; else the first.
    const bool hardware = m.event->detail("origin") == "hardware";
    if (!chosen || (hardware && chosen->event->detail("origin") != "hardware")) chosen = &m;
  }
  if (!read) {
    for (const char* name : {"gpu.xid", "gpu.xid_count", "gpu.xid_meaning", "gpu.xid_origin", "gpu.xid_action", "gpu.xid_pci",
                             "gpu.xid_before_death"}) {
      facts.set_missing(name, read.missing());
    }
    return;
  }
  facts.set("gpu.xid_count", count, "/hosts");
  if (!chosen) {
    const Missing none{MissingReason::not_present, "the kernel logged no Xid over the job's time"};
    for (const char* name : {"gpu.xid", "gpu.xid_meaning", "gpu.xid_origin", "gpu.xid_action", "gpu.xid_pci", "gpu.xid_before_death"}) {
      facts.set_missing(name, none);
    }
    return;
  }
  if (const auto xid = chosen->event->detail_count("xid")) {
    facts.set("gpu.xid", static_cast<std::int64_t>(*xid), chosen->pointer + "/details/xid");
  } else if (chosen->event->detail("xid").empty()) {
    facts.set_missing("gpu.xid", Missing{MissingReason::not_present, "the GPU's failure was a PCIe error the kernel reported, not an Xid"});
  } else {
    facts.set_missing("gpu.xid", Missing{MissingReason::unparseable, "the Xid record's number is not one"});
  }
  set_detail(facts, "gpu.xid_meaning", *chosen, "meaning");
  set_detail(facts, "gpu.xid_origin", *chosen, "origin");
  set_detail(facts, "gpu.xid_action", *chosen, "action");
  set_detail(facts, "gpu.xid_pci", *chosen, "pci");
  if (incident && incident->time && chosen->event->time) {
    facts.set("gpu.xid_before_death", *incident->time - *chosen->event->time, chosen->pointer + "/time");
  } else {
    facts.set_missing("gpu.xid_before_death", Missing{MissingReason::not_present, "the Xid or the incident has no time"});
  }
}

}  // namespace

void extract_kernel_facts(const evidence::EvidenceDocument& document, const std::optional<Incident>& incident, FactSet& facts) {
  const auto matches = match_kernel_events(document);
  const auto read = kernel_log_read(document);
  if (read) {
    facts.set("kernel_log.read", true, "/hosts");
  } else {
    facts.set_missing("kernel_log.read", read.missing());
  }
  std::int64_t oom_kills = 0;
  for (const auto& m : matches) {
    if (m.event->kind == "oom-kill" && (m.run || document.hosts[m.host].runs.empty())) ++oom_kills;
  }
  if (read) {
    facts.set("kernel.oom_kills", oom_kills, "/hosts");
  } else {
    facts.set_missing("kernel.oom_kills", read.missing());
  }
  extract_oom(document, matches, incident, read, facts);
  extract_fault(matches, incident, read, facts);
  extract_xids(matches, incident, read, facts);
}

}  // namespace ftdiag::facts
