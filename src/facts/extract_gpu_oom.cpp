// Facts about a CUDA out-of-memory error (a "cuda-oom" line of the console or
// a log): the sizes PyTorch's allocator printed, what the process was doing
// (the traceback's frames above the line, else the phase the log was in),
// and how many training steps the log counted before it. Together they say
// which memory did not fit and whether it ever had: the rung of the ladder
// that fixes it is the rules' to name.
#include <algorithm>
#include <optional>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "facts/extract.h"
#include "facts/event_sites.h"
#include "facts/frame_phase.h"
#include "parse/logs/cuda_oom_message.h"
#include "parse/logs/python_traceback.h"
#include "parse/logs/training_progress.h"

namespace ftdiag::facts {

namespace {

void set_gpu_bytes(FactSet& facts, const char* name, const std::optional<std::uint64_t>& bytes, const std::string& pointer,
               const Missing& why) {
  if (bytes) {
    facts.set(name, static_cast<std::int64_t>(*bytes), pointer);
  } else {
    facts.set_missing(name, why);
  }
}

// What the message printed about the other processes on the GPU. Only when
// it names this process too are the "Process N" entries surely others.
void set_processes(FactSet& facts, const parse::CudaOomMessage& m, const std::string& pointer, const Missing& unprinted) {
  std::optional<std::uint64_t> own;
  std::uint64_t others = 0;
  for (const auto& process : m.processes) {
    if (process.pid) others += process.bytes;
    else own = process.bytes;
  }
  set_gpu_bytes(facts, "gpu_oom.process_bytes", own, pointer,
            m.processes.empty() ? unprinted
                                : Missing{MissingReason::not_present,
                                          "the message names no process as this one: in a container NVML's pids are the host's, "
                                          "so this process is one of the \"Process N\" entries"});
  set_gpu_bytes(facts, "gpu_oom.other_processes_bytes", own ? std::optional<std::uint64_t>(others) : std::nullopt, pointer,
            m.processes.empty() ? unprinted
                                : Missing{MissingReason::not_present,
                                          "the message names no process as this one, so which \"Process N\" entries are others is unknown"});
}

void set_message_facts(FactSet& facts, const parse::CudaOomMessage& m, const std::string& pointer) {
  const Missing unprinted{MissingReason::not_present,
                          m.wording == parse::CudaOomWording::request_only
                              ? "the message gives only the request (cut short, or in a wording not known)"
                              : fmt::format("torch {}'s wording of the message does not print it", parse::first_release_of(m.wording))};
  facts.set("gpu_oom.requested_bytes", static_cast<std::int64_t>(m.requested_bytes), pointer);
  if (m.gpu) facts.set("gpu_oom.gpu", std::int64_t{*m.gpu}, pointer);
  else facts.set_missing("gpu_oom.gpu", unprinted);
  set_gpu_bytes(facts, "gpu_oom.total_bytes", m.total_bytes, pointer, unprinted);
  set_gpu_bytes(facts, "gpu_oom.free_bytes", m.free_bytes, pointer, unprinted);
  set_gpu_bytes(facts, "gpu_oom.allocated_bytes", m.allocated_bytes, pointer, unprinted);
  set_gpu_bytes(facts, "gpu_oom.reserved_bytes", m.reserved_bytes, pointer, unprinted);
  set_gpu_bytes(facts, "gpu_oom.reserved_unallocated_bytes", m.reserved_unallocated_bytes, pointer, unprinted);
  if (m.reserved_bytes && m.reserved_unallocated_bytes && *m.reserved_bytes > 0) {
    facts.set("gpu_oom.fragmentation_ratio",
              static_cast<double>(*m.reserved_unallocated_bytes) / static_cast<double>(*m.reserved_bytes), pointer);
  } else {
    facts.set_missing("gpu_oom.fragmentation_ratio", m.reserved_bytes ? Missing{MissingReason::not_present, "PyTorch had reserved nothing"} : unprinted);
  }
  // Even had the cached memory been one block: what was still missing.
  if (m.free_bytes && m.reserved_unallocated_bytes) {
    const std::uint64_t available = *m.free_bytes + *m.reserved_unallocated_bytes;
    facts.set("gpu_oom.shortfall_bytes", static_cast<std::int64_t>(m.requested_bytes > available ? m.requested_bytes - available : 0), pointer);
  } else {
    facts.set_missing("gpu_oom.shortfall_bytes", unprinted);
  }
  set_processes(facts, m, pointer, unprinted);
  if (m.wording != parse::CudaOomWording::request_only) {
    facts.set("gpu_oom.message_release", std::string(parse::first_release_of(m.wording)), pointer);
  } else {
    facts.set_missing("gpu_oom.message_release", unprinted);
  }
}

bool set_phase_from_frames(FactSet& facts, const EventSite& site) {
  const auto frames = traceback_above(site);
  const auto phase = phase_from_frames(frames);
  if (!phase) return false;
  const auto pointer = fmt::format("{}/{}/text", site.tail_pointer, frames[phase->frame].index);
  facts.set("gpu_oom.phase", phase->phase, pointer);
  facts.set("gpu_oom.phase_because", fmt::format("the traceback's frame {}", phase->because), pointer);
  return true;
}

// Without frames, the phase the log was in when the error came.
void set_phase_from_log(FactSet& facts) {
  static constexpr std::string_view kStepless[] = {"model-load", "evaluation", "checkpoint-save", "training"};
  const auto& at_death = facts.get("phase.at_death");
  const auto* phase = at_death.value ? std::get_if<std::string>(&at_death.value.value()) : nullptr;
  if (!phase || std::find(std::begin(kStepless), std::end(kStepless), *phase) == std::end(kStepless)) {
    const Missing none{MissingReason::not_present, "no traceback frame above the error names a phase, nor does the log"};
    facts.set_missing("gpu_oom.phase", none);
    facts.set_missing("gpu_oom.phase_because", none);
    return;
  }
  facts.set("gpu_oom.phase", *phase, at_death.pointer);
  const auto& line = facts.get("phase.at_death_line");
  facts.set("gpu_oom.phase_because",
            line.value && std::holds_alternative<std::string>(line.value.value())
                ? fmt::format("the log's last phase line (no traceback frame decided): {}", std::get<std::string>(line.value.value()))
                : std::string("the log's phase (no traceback frame decided)"),
            at_death.pointer);
}

// The last step counter printed before the error.
void set_steps_before(FactSet& facts, const EventSite& site) {
  for (std::size_t i = site.at.value_or(0); i-- > 0;) {
    if (auto steps = parse::training_steps_done(site.lines[i])) {
      facts.set("gpu_oom.steps_before", static_cast<std::int64_t>(*steps), fmt::format("{}/{}/text", site.tail_pointer, i));
      return;
    }
  }
  facts.set_missing("gpu_oom.steps_before",
                    Missing{MissingReason::not_present, site.at ? "no progress bar or step line before the error in the log's last lines"
                                                                : "the log's last lines do not reach back to the error"});
}

// The error the facts describe: the first the allocator worded in full (ranks
// that fail together print the same), else the first it worded at all, else
// the first out-of-memory line of any kind.
std::pair<const EventSite*, std::optional<parse::CudaOomMessage>> chosen_site(const std::vector<EventSite>& sites) {
  std::pair<const EventSite*, std::optional<parse::CudaOomMessage>> chosen{&sites.front(), std::nullopt};
  for (const auto& s : sites) {
    auto m = parse::parse_cuda_oom_message(s.event->text);
    if (!m) continue;
    const bool full = m->wording != parse::CudaOomWording::request_only;
    if (!chosen.second || full) chosen = {&s, std::move(m)};
    if (full) break;
  }
  return chosen;
}

}  // namespace

void extract_gpu_oom_facts(const evidence::EvidenceDocument& document, const std::optional<Incident>&, FactSet& facts) {
  const auto sites = sites_of(document, "cuda-oom");
  if (sites.empty()) return;  // every gpu_oom fact stays missing: no such line
  const auto [site, message] = chosen_site(sites);
  if (message) {
    set_message_facts(facts, *message, site->pointer + "/text");
  } else {
    const Missing no_sizes{MissingReason::not_present,
                           "the out-of-memory line is not PyTorch's allocator message (a CUDA call outside it, cuBLAS): it gives no sizes"};
    for (const char* name : {"gpu_oom.requested_bytes", "gpu_oom.gpu", "gpu_oom.total_bytes", "gpu_oom.free_bytes", "gpu_oom.allocated_bytes",
                             "gpu_oom.reserved_bytes", "gpu_oom.reserved_unallocated_bytes", "gpu_oom.fragmentation_ratio",
                             "gpu_oom.shortfall_bytes", "gpu_oom.process_bytes", "gpu_oom.other_processes_bytes", "gpu_oom.message_release"}) {
      facts.set_missing(name, no_sizes);
    }
  }
  if (!set_phase_from_frames(facts, *site)) set_phase_from_log(facts);
  set_steps_before(facts, *site);
}

}  // namespace ftdiag::facts
