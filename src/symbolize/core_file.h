// An ELF core file opened for reading: checked to be a whole core of this
// machine's kind before anything else reads it, and its notes parsed.
#pragma once

#include <libelf.h>

#include <cstdint>
#include <filesystem>
#include <memory>

#include "base/fact.h"
#include "base/unique_fd.h"
#include "symbolize/core_notes.h"

namespace ftdiag::symbolize {

class CoreFile {
 public:
  // A Missing (unparseable, with the reason in words) when the file is not
  // ELF, not a core, of another architecture, shorter than its program
  // headers say (the core size limit or a full disk cut it), or has no
  // thread; an errno's Missing when it cannot be opened. Only regular files
  // are opened (a FIFO would block).
  static Fact<std::unique_ptr<CoreFile>> open(const std::filesystem::path& path);
  ~CoreFile();
  CoreFile(const CoreFile&) = delete;
  CoreFile& operator=(const CoreFile&) = delete;

  Elf* elf() const { return elf_; }
  const CoreNotes& notes() const { return notes_; }

 private:
  CoreFile() = default;
  UniqueFd fd_;
  Elf* elf_ = nullptr;
  CoreNotes notes_;
};

}  // namespace ftdiag::symbolize
