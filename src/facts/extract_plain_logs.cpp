// Facts from plain logs when no `ftdiag run` recorded the job (`analyze` of
// a folder a crashed job left): whether it failed, the phase its log was in
// when the death was printed (placed by line numbers, and by time where the
// lines carry one), its last lines and exception, and what the process that
// died was, as the log names it. A journal's console says all this better:
// with runs in the document nothing here is set.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>
#include <string_view>

#include <fmt/format.h>

#include "facts/console_tail.h"
#include "facts/extract.h"
#include "parse/logs/faulthandler.h"
#include "parse/logs/python_traceback.h"
#include "parse/logs/training_progress.h"

namespace ftdiag::facts {

namespace {

struct LogRef {
  std::size_t host = 0;
  std::size_t log = 0;
  const evidence::LogFileEvidence* evidence = nullptr;
  std::string pointer() const { return fmt::format("/hosts/{}/logs/{}", host, log); }
};

// Events whose kind means a failure (rules/log-events.json declares what each
// kind means): a death, an error, a stop from outside, even without a signal.
bool reports_failure(const evidence::LogEvent& event) { return event.means == "failure"; }

// The log the incident was printed in; else (a kernel record, or no death)
// the log with most recognised lines, then the longest.
std::optional<LogRef> main_log(const evidence::EvidenceDocument& document, const std::optional<Incident>& incident) {
  std::optional<LogRef> best;
  for (std::size_t h = 0; h < document.hosts.size(); ++h) {
    const auto& logs = document.hosts[h].logs;
    for (std::size_t f = 0; f < logs.size(); ++f) {
      const auto& log = logs[f];
      if (incident && incident->event && !log.events.empty() && incident->event >= log.events.data() &&
          incident->event < log.events.data() + log.events.size()) {
        return LogRef{h, f, &log};
      }
      const auto weight = [](const evidence::LogFileEvidence& l) {
        return std::make_pair(l.events.size() + l.phases.size(), l.line_count);
      };
      if (!best || weight(log) > weight(*best->evidence)) best = LogRef{h, f, &log};
    }
  }
  return best;
}

// The exception line that ends the last Python traceback in the tail.
std::optional<std::size_t> last_exception(const std::vector<evidence::LogLine>& tail, std::string& exception) {
  constexpr std::string_view kTraceback = "Traceback (most recent call last):";
  for (std::size_t t = tail.size(); t-- > 0;) {
    const std::string_view line = tail[t].text;
    const auto at = line.find(kTraceback);
    if (at == std::string_view::npos) continue;
    const std::string_view prefix = line.substr(0, at);  // "[rank0]: ", a logger's stamp
    for (std::size_t i = t + 1; i < tail.size(); ++i) {
      std::string_view text = tail[i].text;
      if (text.substr(0, prefix.size()) == prefix) text.remove_prefix(prefix.size());
      if (text.empty() || text.front() == ' ' || text.front() == '\t') continue;
      if (!std::isalpha(static_cast<unsigned char>(text.front())) && text.front() != '_') return std::nullopt;
      exception = std::string(text);
      return i;
    }
    return std::nullopt;
  }
  return std::nullopt;
}

void set_if_missing(FactSet& facts, const std::string& name, FactValue value, const std::string& pointer) {
  if (facts.get(name).value) return;
  facts.set(name, std::move(value), pointer);
}

void extract_console(const LogRef& log, FactSet& facts) {
  const auto& tail = log.evidence->tail;
  const auto at = log.pointer();
  set_if_missing(facts, "console.lines", static_cast<std::int64_t>(log.evidence->line_count), at + "/line_count");
  set_if_missing(facts, "console.tail", console_tail_text(tail), at + "/tail");
  for (std::size_t i = tail.size(); i-- > 0;) {
    if (tail[i].text.find_first_not_of(" \t\r") == std::string::npos) continue;
    set_if_missing(facts, "console.last_line", tail[i].text, fmt::format("{}/tail/{}/text", at, i));
    break;
  }
  std::string exception;
  if (auto index = last_exception(tail, exception)) {
    set_if_missing(facts, "console.exception", std::move(exception), fmt::format("{}/tail/{}/text", at, *index));
  }
}

// The phase of the last phase line before the death's line (the whole log
// when the death is not in it: a kernel record, a launcher's other file).
void extract_phase(const LogRef& log, const std::optional<Incident>& incident, FactSet& facts) {
  std::optional<std::uint64_t> death_line;
  if (incident && incident->event && incident->event->from.file == log.evidence->from.file) death_line = incident->event->from.line;
  const auto& phases = log.evidence->phases;
  const evidence::LogPhase* current = nullptr;
  std::size_t index = 0;
  std::int64_t saves = 0;
  for (std::size_t i = 0; i < phases.size(); ++i) {
    if (death_line && phases[i].first_line_number > *death_line) break;
    current = &phases[i];
    index = i;
    saves += phases[i].phase == "checkpoint-save";
  }
  const auto at = log.pointer();
  set_if_missing(facts, "phase.checkpoint_saves_before", saves, at + "/phases");
  if (!current) return;
  const auto pointer = fmt::format("{}/phases/{}", at, index);
  if (facts.get("phase.at_death").value) return;
  facts.set("phase.at_death", current->phase, pointer + "/phase");
  facts.set("phase.at_death_line", current->first_line, pointer + "/first_line");
  facts.set("phase.source", std::string("log"), pointer);
  const std::uint64_t end = death_line.value_or(log.evidence->line_count);
  facts.set("phase.lines_to_death", static_cast<std::int64_t>(end > current->last_line_number ? end - current->last_line_number : 0),
            pointer + "/last_line_number");
  if (incident && incident->time && current->first_time) {
    facts.set("phase.at_death_age", std::max(0.0, *incident->time - *current->first_time), pointer + "/first_time");
  }
}

// The last step counter the log printed before the death, and whether it
// is a step the Trainer saves after: transformers' Trainer logs a step,
// then evaluates and saves in the same call (_maybe_log_save_evaluate), and
// at its default verbosity prints no line as it saves. A death after a
// save step's line and before the next step's is in that save, or in the
// next step.
void extract_save_step(const LogRef& log, const std::optional<Incident>& incident, FactSet& facts) {
  std::optional<std::uint64_t> death_line;
  if (incident && incident->event && incident->event->from.file == log.evidence->from.file) death_line = incident->event->from.line;
  const auto& tail = log.evidence->tail;
  for (std::size_t i = tail.size(); i-- > 0;) {
    if (death_line && tail[i].line_number > *death_line) continue;
    const auto steps = parse::training_steps_done(tail[i].text);
    if (!steps) continue;
    const auto pointer = fmt::format("{}/tail/{}/text", log.pointer(), i);
    set_if_missing(facts, "phase.steps_before_death", static_cast<std::int64_t>(*steps), pointer);
    const auto every = facts.value_of<std::int64_t>("config.save_steps");
    const auto strategy = facts.value_of<std::string>("config.save_strategy");
    if (every && *every > 0 && *steps > 0 && (!strategy || *strategy == "steps")) {
      set_if_missing(facts, "phase.after_save_step", static_cast<std::int64_t>(*steps) % *every == 0, pointer);
    }
    return;
  }
}

// A native crash while Python loaded an extension module: the crashing
// thread's innermost frames are importlib's own, with the extension loader's
// create_module (importlib._bootstrap_external: ExtensionFileLoader runs
// _imp.create_dynamic, the dynamic loader and the module's init) or
// exec_module among them. The first frame outside importlib is the import
// that loaded it.
void extract_crash_in_import(const LogRef& log, FactSet& facts) {
  parse::FaulthandlerReader reader;
  std::optional<parse::FaulthandlerDump> last;
  for (const auto& line : log.evidence->tail) {
    if (auto dump = reader.feed(line.text, line.line_number)) last = std::move(dump);
  }
  if (auto dump = reader.finish()) last = std::move(dump);
  if (!last) return;
  const parse::PythonThread* crashed = nullptr;
  for (const auto& thread : last->threads) {
    if (thread.current || !crashed) crashed = &thread;
  }
  if (!crashed) return;
  bool loading = false;
  for (const auto& frame : crashed->frames) {
    const bool importlib = frame.file.starts_with("<frozen importlib.");
    if (importlib) {
      loading = loading || frame.function == "create_module" || frame.function == "exec_module";
      continue;
    }
    if (loading) {
      set_if_missing(facts, "log.crash_loading_module",
                     fmt::format("{}{} ({})", frame.file, frame.line ? fmt::format(", line {}", *frame.line) : std::string(), frame.function),
                     fmt::format("{}/tail", log.pointer()));
    }
    return;
  }
}

// The frames that repeat at the end of `log`, when it ends inside a
// traceback: set as facts, true; else false.
bool cut_recursion_in(const LogRef& log, FactSet& facts) {
  const auto& tail = log.evidence->tail;
  std::vector<std::string_view> lines;
  lines.reserve(tail.size());
  for (const auto& line : tail) lines.push_back(line.text);
  while (!lines.empty() && lines.back().find_first_not_of(" \t\r") == std::string_view::npos) lines.pop_back();
  const auto frames = parse::traceback_frames_above(lines, lines.size());
  // The innermost frame's own lines (its code, 3.11's carets) end the log.
  if (frames.empty() || lines.size() - frames.front().index > 3) return false;
  const auto repeating = parse::repeating_frames_across_elisions(frames, lines);
  if (!repeating) return false;
  const auto& frame = frames.front();
  const auto at = fmt::format("{}/tail/{}/text", log.pointer(), frame.index);
  facts.set("log.cut_traceback_repeats", static_cast<std::int64_t>(repeating->frames), at);
  facts.set("log.cut_traceback_frame", line_excerpt(fmt::format("{}, line {}, in {}", frame.file, frame.line, frame.function)), at);
  return true;
}

// What a log line that reports a death says the process was: a
// DataLoader's "worker (pid N) is killed", a launcher's failed rank.
std::string role_of(const evidence::LogEvent& e) {
  if (e.kind == "worker-died" || e.kind == "worker-fault") {
    return e.detail("source") == "pytorch-dataloader" ? "dataloader-worker" : "worker";
  }
  if (e.kind == "rank-failed") return "rank";
  return "";
}

struct NamedPid {
  std::string role;
  std::string line;   // the log line's words
  std::string where;  // "FILE line N", and what joins it to the victim
  std::string because() const { return fmt::format("{} ({})", line, where); }
  std::string pointer;
  std::optional<int> rank;
};

// A log line that reports the death of `pid` with a role, if one does.
std::optional<NamedPid> log_line_naming(const evidence::EvidenceDocument& document, int pid) {
  for (std::size_t h = 0; h < document.hosts.size(); ++h) {
    for (std::size_t f = 0; f < document.hosts[h].logs.size(); ++f) {
      const auto& log = document.hosts[h].logs[f];
      for (std::size_t i = 0; i < log.events.size(); ++i) {
        const auto& e = log.events[i];
        if (e.pid != pid || role_of(e).empty()) continue;
        // The line first: a sentence shows a value's first 160 characters,
        // and a log's path can take them all.
        return NamedPid{role_of(e), line_excerpt(e.text), fmt::format("{} line {}", log.from.file, e.from.line.value_or(0)),
                        fmt::format("/hosts/{}/logs/{}/events/{}", h, f, i), e.rank};
      }
    }
  }
  return std::nullopt;
}

// Kills the kernel counts as one OOM episode: the same memory cgroup and
// command, within this many seconds of each other.
constexpr double kSameEpisodeSeconds = 60;

// The kernel record `victim` is one of a host's kernel logs' records: the
// other processes the same episode killed that a log line names. Processes
// that grow alike (a DataLoader's workers) die together, and the DataLoader
// reports whichever dead worker it checks first, not the first killed.
// Seconds between two kernel records: by wall time, else by the printk
// clock (a saved log whose boot time is not known); none when neither says.
std::optional<double> seconds_apart(const evidence::LogEvent& a, const evidence::LogEvent& b) {
  if (a.time && b.time) return *b.time - *a.time;
  const auto a_us = a.detail_number("monotonic_us");
  const auto b_us = b.detail_number("monotonic_us");
  if (!a_us || !b_us) return std::nullopt;
  return (*b_us - *a_us) / 1e6;
}

std::optional<NamedPid> sibling_named_in_logs(const evidence::EvidenceDocument& document, const evidence::LogEvent& victim) {
  if (victim.kind != "oom-kill") return std::nullopt;
  const auto same_episode = [&](const evidence::LogEvent& other) {
    if (&other == &victim || other.kind != "oom-kill" || !other.pid || other.pid == victim.pid) return false;
    if (other.detail("oom_memcg") != victim.detail("oom_memcg") || other.detail("comm") != victim.detail("comm")) return false;
    const auto apart = seconds_apart(victim, other);
    return apart && std::abs(*apart) <= kSameEpisodeSeconds;
  };
  for (const auto& host : document.hosts) {
    if (!host.kernel) continue;
    const auto& records = host.kernel.value().records;
    const bool holds_victim = std::any_of(records.begin(), records.end(), [&](const auto& r) { return &r == &victim; });
    if (!holds_victim) continue;
    for (const auto& other : records) {
      if (!same_episode(other)) continue;
      if (auto named = log_line_naming(document, *other.pid)) {
        named->rank.reset();  // the sibling's rank, if it had one, is not the victim's
        const double apart = *seconds_apart(victim, other);
        named->where = fmt::format("the kernel killed pid {} too, {:.1f} s {} in the same cgroup; {}", *other.pid,
                                   std::abs(apart), apart >= 0 ? "later" : "earlier", named->where);
        return named;
      }
    }
  }
  return std::nullopt;
}

// What the process that died was, as the line that reported it says, or a
// log line that named the pid of the kernel's victim (or of another process
// the same OOM episode killed).
void extract_role(const evidence::EvidenceDocument& document, const Incident& incident, FactSet& facts) {
  if (facts.get("death.role").value || !incident.event) return;
  const auto& event = *incident.event;
  std::string role = role_of(event);
  std::string because = role.empty() ? "" : fmt::format("the line that reported the death: {}", line_excerpt(event.text));
  std::string pointer = incident.pointer;
  std::optional<int> rank = event.rank;
  if (role.empty() && event.pid) {
    auto named = log_line_naming(document, *event.pid);
    if (!named) named = sibling_named_in_logs(document, event);
    if (named) {
      role = named->role;
      because = named->because();
      pointer = named->pointer;
      rank = named->rank;
    }
  }
  if (role.empty()) return;
  facts.set("death.role", role, pointer);
  facts.set("death.role_because", because, pointer);
  if (rank) set_if_missing(facts, "death.rank", std::int64_t{*rank}, pointer + "/rank");
}

// Whether `found` holds for a log: the main log first, then the others in
// the document's order (a pasted console beside a script or a config).
template <class Found>
bool in_any_log(const evidence::EvidenceDocument& document, const LogRef& main, Found found) {
  if (found(main)) return true;
  for (std::size_t h = 0; h < document.hosts.size(); ++h) {
    for (std::size_t f = 0; f < document.hosts[h].logs.size(); ++f) {
      if (h == main.host && f == main.log) continue;
      if (found(LogRef{h, f, &document.hosts[h].logs[f]})) return true;
    }
  }
  return false;
}

// The first line, in the main log's last lines (then the other logs'), that
// holds a failure word (rules/failure-words.json): the words a line no
// recogniser knows still says, for the fallback rules. The first, not the
// last: what follows a failure (a launcher's teardown, the peers' timeouts)
// has words of its own.
void extract_failure_word(const evidence::EvidenceDocument& document, const LogRef& main, FactSet& facts) {
  const bool found = in_any_log(document, main, [&](const LogRef& log) {
    const auto& tail = log.evidence->tail;
    const auto i = first_worded_line(tail);
    if (!i) return false;
    const auto at = fmt::format("{}/tail/{}", log.pointer(), *i);
    facts.set("log.word", *tail[*i].word, at + "/word");
    facts.set("log.word_line", line_excerpt(tail[*i].text), at + "/text");
    return true;
  });
  if (found) return;
  const Missing none{MissingReason::not_present, "no failure word in the last lines of the logs"};
  facts.set_missing("log.word", none);
  facts.set_missing("log.word_line", none);
}

// A log that ends inside a traceback, cut before its exception line, whose
// frames repeat: a recursion. A RecursionError's traceback runs to a
// thousand frames (CPython collapses only a frame repeated alone), more than
// an issue form or a terminal's scrollback keeps, so the paste of one often
// stops in the middle of the repeating frames.
void extract_cut_recursion(const evidence::EvidenceDocument& document, const LogRef& main, FactSet& facts) {
  if (in_any_log(document, main, [&](const LogRef& log) { return cut_recursion_in(log, facts); })) return;
  const Missing none{MissingReason::not_present, "the logs do not end inside a traceback whose frames repeat"};
  facts.set_missing("log.cut_traceback_repeats", none);
  facts.set_missing("log.cut_traceback_frame", none);
}

}  // namespace

void extract_plain_log_facts(const evidence::EvidenceDocument& document, const std::optional<Incident>& incident,
                             FactSet& facts) {
  if (evidence::count_runs(document) > 0) return;
  const auto log = main_log(document, incident);
  if (!log) return;
  extract_console(*log, facts);
  extract_phase(*log, incident, facts);
  extract_save_step(*log, incident, facts);
  extract_crash_in_import(*log, facts);
  extract_failure_word(document, *log, facts);
  extract_cut_recursion(document, *log, facts);
  if (incident) extract_role(document, *incident, facts);
  // Failed: a death, a line that reports a failure, or a Python traceback.
  std::string pointer;
  bool failed = incident.has_value();
  if (failed) pointer = incident->pointer;
  for (std::size_t h = 0; h < document.hosts.size() && !failed; ++h) {
    for (std::size_t f = 0; f < document.hosts[h].logs.size() && !failed; ++f) {
      const auto& events = document.hosts[h].logs[f].events;
      for (std::size_t i = 0; i < events.size(); ++i) {
        if (!reports_failure(events[i])) continue;
        failed = true;
        pointer = fmt::format("/hosts/{}/logs/{}/events/{}", h, f, i);
        break;
      }
    }
  }
  if (!failed && facts.get("console.exception").value) {
    failed = true;
    pointer = facts.get("console.exception").pointer;
  }
  if (failed) set_if_missing(facts, "job.failed", true, pointer);
}

}  // namespace ftdiag::facts
