// libFuzzer target: one NVIDIA Xid or fallen-off-the-bus line.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "parse/kernel/kernel_log.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view message(reinterpret_cast<const char*>(data), size);
  auto xid = ftdiag::parse::parse_xid_line(message);
  // A PCI id is normalised to "dddd:bb:dd" or left empty.
  if (xid && !xid->pci.empty() && (xid->pci.size() != 10 || xid->pci[4] != ':' || xid->pci[7] != ':')) {
    __builtin_trap();
  }
  return 0;
}
