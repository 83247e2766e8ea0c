#include "evidence/crash_evidence.h"

#include "parse/probes/crash_record.h"

namespace ftdiag::evidence {

namespace {

// A file removed or replaced since it was mapped keeps the kernel's
// " (deleted)": the file now at that path is another one, and naming frames
// from it would be wrong.
std::string as_mapped(const parse::MapsEntry& entry) { return entry.deleted ? entry.path + " (deleted)" : entry.path; }

StackFrame python_frame(const parse::PythonFrame& frame) {
  StackFrame f;
  f.language = "python";
  f.file = frame.file;
  f.function = frame.function;
  if (frame.line) f.line = static_cast<std::uint64_t>(*frame.line);
  return f;
}

}  // namespace

void add_python_dump(CrashEvidence& crash, const parse::FaulthandlerDump& dump) {
  for (const auto& thread : dump.threads) {
    PythonThreadStack stack;
    stack.thread_id = thread.id;
    stack.name = thread.name;
    stack.current = thread.current;
    stack.truncated = thread.truncated;
    for (const auto& frame : thread.frames) stack.frames.push_back(python_frame(frame));
    crash.python.push_back(std::move(stack));
  }
  crash.extension_modules = dump.extension_modules;
  if (!crash.signal) crash.signal = dump.signal;
}

CrashEvidence crash_from_record(std::string_view text, const Provenance& from) {
  CrashEvidence crash;
  crash.from = from;
  crash.source = "crash-probe";
  std::string why_not;
  auto record = parse::parse_crash_record(text, &why_not);
  if (!record) {
    crash.problems.push_back(from.file + ": " + why_not);
    return crash;
  }
  crash.time = record->time;
  crash.pid = record->pid;
  crash.tid = record->tid;
  crash.thread = record->thread;
  crash.signal = record->signal;
  crash.code = record->code;
  crash.fault_address = record->address;
  for (const char* name : {"rsp", "sp"}) {
    if (auto sp = record->register_value(name)) crash.stack_pointer = sp;
  }
  if (record->stack) {
    crash.stack_low = record->stack->first;
    crash.stack_high = record->stack->second;
  }
  crash.maps_recorded = !record->maps.empty();
  if (crash.maps_recorded && record->address) {
    if (const auto* held = parse::mapping_of(record->maps, *record->address)) crash.fault_mapping = held->path;
  }
  for (const auto& entry : record->maps) {
    if (entry.executable() && !entry.path.empty() && entry.path.front() != '[') {
      crash.modules.push_back(MappedModule{as_mapped(entry), entry.start, entry.end, entry.offset});
    }
  }
  for (const auto address : record->frames) {
    StackFrame frame;
    frame.language = "native";
    frame.address = address;
    // The module and offset of the address as recorded; the symbolizer
    // adjusts return addresses when it names them.
    if (const auto* held = parse::mapping_of(record->maps, address); held && !held->path.empty()) {
      frame.object = as_mapped(*held);
      frame.offset = address - held->start + held->offset;
    }
    crash.frames.push_back(std::move(frame));
  }
  crash.unwind = record->unwind;
  for (const auto& [name, value] : record->environment) crash.environment[name] = value;
  for (auto& problem : record->problems) crash.problems.push_back(from.file + ": " + problem);
  return crash;
}

}  // namespace ftdiag::evidence
