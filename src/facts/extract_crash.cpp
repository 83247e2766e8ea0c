// Facts from the crash the probes recorded for the incident's process: where
// it crashed (function, file:line, module and whose code that module is),
// the Python frames that led there, what kind of address faulted, and
// libraries mapped twice in two versions.
#include <algorithm>
#include <csignal>
#include <map>
#include <set>

#include <fmt/format.h>

#include "facts/extract.h"
#include "facts/module_roles.h"
#include "facts/stack_text.h"

namespace ftdiag::facts {

namespace {

using evidence::CrashEvidence;
using evidence::StackFrame;

constexpr std::uint64_t kNullPage = 64 * 1024;     // the kernel's default mmap_min_addr is 64 KiB
constexpr std::uint64_t kNearStack = 64 * 1024;    // a push or call lands within this of the stack pointer
constexpr std::uint64_t kGuardGap = 1024 * 1024;   // the kernel keeps 256 pages below a growing stack
constexpr int kSiKernel = 0x80;                    // SI_KERNEL: x86's general protection fault
constexpr std::size_t kStackFramesAsText = 12;

const char* kCrashFacts[] = {"crash.ld_library_path", "crash.ld_preload", "crash.recorded",   "crash.source",       "crash.function",     "crash.source_line",
                             "crash.module",     "crash.module_role",  "crash.stack",        "crash.roles_on_stack",
                             "crash.python_frame", "crash.python_stack", "crash.address_class", "crash.duplicate_library",
                             "crash.jit_extension", "crash.unwind"};

// The crash of the incident's process: by pid, or by its pid inside its own
// namespace (the probe records what getpid() says there).
const CrashEvidence* incident_crash(const evidence::RunEvidence& run, const std::optional<Incident>& incident, std::size_t& index) {
  if (!incident || !incident->process) return nullptr;
  const auto& process = run.processes[*incident->process];
  for (std::size_t i = 0; i < run.crashes.size(); ++i) {
    const auto& crash = run.crashes[i];
    if (!crash.pid) continue;
    const bool same = *crash.pid == process.pid || (!process.nspid.empty() && process.nspid.back() == *crash.pid);
    if (same) {
      index = i;
      return &crash;
    }
  }
  return nullptr;
}


// The first frame in code that is not the C/C++ runtime: abort() and raise()
// are how a fault is reported, not where it is.
std::optional<std::size_t> code_frame(const std::vector<StackFrame>& frames) {
  std::optional<std::size_t> first;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    if (frames[i].language != "native") continue;
    if (!first) first = i;
    if (module_role(frames[i].object) != "c-runtime") return i;
  }
  return first;
}

std::optional<std::string> address_class(const CrashEvidence& crash) {
  if (!crash.signal || (*crash.signal != SIGSEGV && *crash.signal != SIGBUS)) return std::nullopt;
  if (crash.code && *crash.code == kSiKernel) return "general-protection";  // no address: non-canonical or privileged
  if (!crash.fault_address) return std::nullopt;
  const auto address = *crash.fault_address;
  if (address < kNullPage) return "null-page";
  const bool unmapped = crash.maps_recorded && !crash.fault_mapping;
  if (crash.stack_low && address < *crash.stack_low && *crash.stack_low - address <= kGuardGap) return "stack-guard";
  if (unmapped && crash.stack_pointer) {
    const auto sp = *crash.stack_pointer;
    if ((address <= sp && sp - address <= kNearStack) || (address > sp && address - sp <= kNearStack)) return "stack-guard";
  }
  if (unmapped) return "unmapped";
  if (crash.maps_recorded) return "mapped";
  return std::nullopt;
}

// "libcudart.so.11.0 (/opt/conda/lib) and libcudart.so.12 (/usr/local/cuda/lib64)"
std::optional<std::string> duplicate_library(const CrashEvidence& crash) {
  std::map<std::string, std::vector<std::string>> families;
  for (const auto& module : crash.modules) {
    auto family = library_family(module.path);
    if (family.empty()) continue;
    auto& paths = families[family];
    if (std::find(paths.begin(), paths.end(), module.path) == paths.end()) paths.push_back(module.path);
  }
  for (const auto& [family, paths] : families) {
    if (paths.size() < 2) continue;
    auto shown = [](const std::string& path) {
      const auto name = base_name(path);
      return fmt::format("{} ({})", name, path.substr(0, path.size() - name.size() - (path.size() > name.size() ? 1 : 0)));
    };
    return fmt::format("{} and {}", shown(paths[0]), shown(paths[1]));
  }
  return std::nullopt;
}

const evidence::PythonThreadStack* crashed_python_thread(const CrashEvidence& crash) {
  for (const auto& thread : crash.python) {
    if (thread.current) return &thread;
  }
  return crash.python.empty() ? nullptr : &crash.python.front();
}

}  // namespace

void extract_crash_facts(const evidence::EvidenceDocument& document, const std::optional<Incident>& incident, FactSet& facts) {
  const auto focus = focus_run(document, incident);
  std::size_t index = 0;
  const CrashEvidence* crash = focus ? incident_crash(evidence::run_at(document, *focus), incident, index) : nullptr;
  if (!crash) {
    const Missing why{MissingReason::not_present,
                      "no crash record of the incident's process (the probes were off, it did not crash, or it was killed)"};
    for (const char* name : kCrashFacts) facts.set_missing(name, why);
    return;
  }
  const auto at = fmt::format("{}/crashes/{}", focus->pointer(), index);
  const Missing not_recorded{MissingReason::not_present, "the crash record does not have it"};
  auto set_or_missing = [&](const char* name, std::optional<std::string> value, const std::string& pointer) {
    if (value) {
      facts.set(name, std::move(*value), pointer);
    } else {
      facts.set_missing(name, not_recorded);
    }
  };
  facts.set("crash.recorded", true, at);
  for (const auto& [fact, variable] : {std::pair{"crash.ld_library_path", "LD_LIBRARY_PATH"}, std::pair{"crash.ld_preload", "LD_PRELOAD"}}) {
    if (auto it = crash->environment.find(variable); it != crash->environment.end() && !it->second.empty()) {
      facts.set(fact, it->second, at + "/environment/" + variable);
    } else {
      facts.set_missing(fact, Missing{MissingReason::not_present, fmt::format("{} was not set in the process", variable)});
    }
  }
  facts.set("crash.source", crash->source, at + "/source");
  if (crash->unwind.empty()) {
    facts.set_missing("crash.unwind", not_recorded);
  } else {
    facts.set("crash.unwind", crash->unwind, at + "/unwind");
  }

  const auto& frames = crash->frames;
  const auto code = code_frame(frames);
  if (code) {
    const auto& frame = frames[*code];
    const auto pointer = fmt::format("{}/frames/{}", at, *code);
    set_or_missing("crash.function", frame.function.empty() ? std::nullopt : std::optional(frame.function), pointer + "/function");
    set_or_missing("crash.source_line",
                   frame.file.empty() || !frame.line ? std::nullopt : std::optional(fmt::format("{}:{}", frame.file, *frame.line)),
                   pointer + "/file");
    set_or_missing("crash.module", frame.object.empty() ? std::nullopt : std::optional(std::string(base_name(frame.object))),
                   pointer + "/object");
    set_or_missing("crash.module_role", frame.object.empty() ? std::nullopt : std::optional(std::string(module_role(frame.object))),
                   pointer + "/object");
    facts.set("crash.jit_extension", is_jit_extension(frame.object), pointer + "/object");
    std::vector<StackFrame> native;
    std::vector<std::string> roles;
    for (const auto& f : frames) {
      if (f.language != "native") continue;
      native.push_back(f);
      if (native.size() > kStackFramesAsText || f.object.empty()) continue;
      std::string role(module_role(f.object));
      if (std::find(roles.begin(), roles.end(), role) == roles.end()) roles.push_back(role);
    }
    facts.set("crash.stack", stack_text(native, kStackFramesAsText), at + "/frames");
    facts.set("crash.roles_on_stack", fmt::format("{}", fmt::join(roles, ", ")), at + "/frames");
  } else {
    for (const char* name : {"crash.function", "crash.source_line", "crash.module", "crash.module_role", "crash.stack",
                             "crash.roles_on_stack", "crash.jit_extension"}) {
      facts.set_missing(name, Missing{MissingReason::not_present, "the crash record has no native frames"});
    }
  }

  if (const auto* thread = crashed_python_thread(*crash); thread && !thread->frames.empty()) {
    facts.set("crash.python_frame", frame_place(thread->frames.front()), at + "/python");
    facts.set("crash.python_stack", python_stack_text(thread->frames, kPythonFramesAsText), at + "/python");
  } else {
    facts.set_missing("crash.python_frame", Missing{MissingReason::not_present, "no Python frames were dumped for the process"});
    facts.set_missing("crash.python_stack", Missing{MissingReason::not_present, "no Python frames were dumped for the process"});
  }
  set_or_missing("crash.address_class", address_class(*crash), at + "/fault_address");
  if (crash->maps_recorded) {
    auto duplicate = duplicate_library(*crash);
    if (duplicate) {
      facts.set("crash.duplicate_library", *duplicate, at + "/modules");
    } else {
      facts.set_missing("crash.duplicate_library", Missing{MissingReason::not_present, "no library is mapped in two versions"});
    }
  } else {
    facts.set_missing("crash.duplicate_library", not_recorded);
  }
}

}  // namespace ftdiag::facts
