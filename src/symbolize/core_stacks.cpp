#include "symbolize/core_stacks.h"

#include <elfutils/libdwfl.h>

#include <algorithm>
#include <memory>
#include <new>

#include "symbolize/core_file.h"
#include "symbolize/dwarf_places.h"

namespace ftdiag::symbolize {

namespace {

// The unwinder needs no debuginfo: call frame information is in each
// module's own .eh_frame (what the C++ runtime unwinds with), and libdwfl
// reads .debug_frame only when .eh_frame has no entry for a pc. Naming (with
// the debuginfo, by build-id) is ModuleSymbols' work; opening a separate
// debug file here too would decompress it twice (glibc's: a third of the
// time of a small core).
int no_debuginfo(Dwfl_Module*, void**, const char*, Dwarf_Addr, const char*, const char*, GElf_Word, char**) {
  return -1;
}
char* g_core_debuginfo_path = nullptr;
const Dwfl_Callbacks kCoreCallbacks = {
    .find_elf = dwfl_build_id_find_elf,  // by build-id, else the NT_FILE path (as eu-stack --core)
    .find_debuginfo = no_debuginfo,
    .debuginfo_path = &g_core_debuginfo_path,
};

// A loop in a corrupt stack ends here (eu-stack's default is 256).
constexpr std::size_t kMaxFrames = 1024;

struct DwflDeleter {
  void operator()(Dwfl* dwfl) const { dwfl_end(dwfl); }
};

struct UnwoundThread {
  int tid = 0;
  std::vector<RawFrame> frames;
  std::string unwind_end;
};

// libdwfl callbacks: nothing may be thrown through them, so allocation
// failure ends the walk instead.
int on_frame(Dwfl_Frame* state, void* arg) noexcept {
  auto* thread = static_cast<UnwoundThread*>(arg);
  Dwarf_Addr pc = 0;
  bool activation = false;
  if (!dwfl_frame_pc(state, &pc, &activation)) return DWARF_CB_ABORT;
  try {
    // An activation is the instruction itself (frame 0, or the frame a
    // signal interrupted); every other pc is a return address.
    thread->frames.push_back({pc, !activation});
  } catch (const std::bad_alloc&) {
    thread->unwind_end = "out of memory";
    return DWARF_CB_ABORT;
  }
  if (thread->frames.size() < kMaxFrames) return DWARF_CB_OK;
  thread->unwind_end = "more than 1024 frames";
  return DWARF_CB_ABORT;
}

int on_thread(Dwfl_Thread* state, void* arg) noexcept {
  auto* threads = static_cast<std::vector<UnwoundThread>*>(arg);
  try {
    UnwoundThread& thread = threads->emplace_back();
    thread.tid = static_cast<int>(dwfl_thread_tid(state));
    if (dwfl_thread_getframes(state, on_frame, &thread) == -1 && thread.unwind_end.empty()) {
      thread.unwind_end = dwfl_errmsg(-1);
    }
  } catch (const std::bad_alloc&) {
    return DWARF_CB_ABORT;
  }
  return DWARF_CB_OK;
}

// The build-id libdwfl read out of the core's memory for the module mapped
// at each range (the kernel dumps the first page of every ELF mapping).
void note_build_ids(Dwfl* dwfl, std::vector<MappedRange>& maps) {
  for (auto& range : maps) {
    Dwfl_Module* module = dwfl_addrmodule(dwfl, range.start);
    const unsigned char* bits = nullptr;
    GElf_Addr vaddr = 0;
    const int size = module != nullptr ? dwfl_module_build_id(module, &bits, &vaddr) : 0;
    if (size > 0) range.build_id = hex_bytes(bits, size);
  }
}

// Every thread libdwfl finds in the core, each walked from its registers;
// a thread that cannot be walked says why. Notes the core's build-ids in `maps`.
std::vector<UnwoundThread> unwind(const CoreFile& core, const std::string& executable, std::vector<MappedRange>& maps) {
  std::vector<UnwoundThread> threads;
  std::unique_ptr<Dwfl, DwflDeleter> dwfl(dwfl_begin(&kCoreCallbacks));
  if (dwfl == nullptr) return threads;
  dwfl_report_begin(dwfl.get());
  const int modules = dwfl_core_file_report(dwfl.get(), core.elf(), executable.empty() ? nullptr : executable.c_str());
  dwfl_report_end(dwfl.get(), nullptr, nullptr);
  note_build_ids(dwfl.get(), maps);
  if (modules < 0 || dwfl_core_file_attach(dwfl.get(), core.elf()) < 0) {
    const std::string why = dwfl_errmsg(-1);
    for (int tid : core.notes().thread_ids) threads.push_back({tid, {}, "cannot unwind: " + why});
    return threads;
  }
  const std::string why = dwfl_getthreads(dwfl.get(), on_thread, &threads) == -1 ? dwfl_errmsg(-1) : "not found";
  // Every thread the notes list is reported, walked or not.
  for (int tid : core.notes().thread_ids) {
    auto same = [tid](const UnwoundThread& t) { return t.tid == tid; };
    if (std::none_of(threads.begin(), threads.end(), same)) threads.push_back({tid, {}, "cannot unwind: " + why});
  }
  return threads;
}

// The dumping thread first, the others in the core's order.
void crashed_first(std::vector<UnwoundThread>& threads, int crashed_tid) {
  auto crashed = std::find_if(threads.begin(), threads.end(), [&](const auto& t) { return t.tid == crashed_tid; });
  if (crashed != threads.end()) std::rotate(threads.begin(), crashed, crashed + 1);
}

}  // namespace

Fact<CoreStacks> read_core_stacks(const std::filesystem::path& path, ModuleSymbols& symbols, StackBudget budget) {
  const auto deadline = deadline_after(budget);
  auto core = CoreFile::open(path);
  if (!core) return core.missing();
  const CoreNotes& notes = core.value()->notes();
  CoreStacks stacks;
  stacks.executable = executable_of(notes);
  stacks.pid = notes.pid;
  stacks.signal = notes.signal;
  stacks.fault_address = notes.fault_address;
  stacks.crashed_tid = notes.thread_ids.front();
  stacks.maps = notes.files;
  auto threads = unwind(*core.value(), stacks.executable, stacks.maps);
  if (stacks.executable.empty()) stacks.executable = notes.command;
  crashed_first(threads, stacks.crashed_tid);
  for (auto& thread : threads) {
    auto named = symbolize_frames(thread.frames, stacks.maps, symbols, deadline);
    stacks.truncated = stacks.truncated || named.out_of_time;
    stacks.threads.push_back({thread.tid, std::move(named.frames), std::move(thread.unwind_end)});
  }
  return stacks;
}

Fact<CoreStacks> read_core_stacks(const std::filesystem::path& path, StackBudget budget) {
  ModuleSymbols symbols;
  return read_core_stacks(path, symbols, budget);
}

}  // namespace ftdiag::symbolize
