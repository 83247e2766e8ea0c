// NVIDIA driver Xid lines and lost GPUs (log-formats.md §4.1). The Xid code
// is the number after "): ", never the first number after "Xid" (that is the
// PCI domain); PCI ids are normalised to "dddd:bb:dd" for joins with
// nvidia-smi ("00000000:3B:00.0") and sysfs ("0000:3b:00.0").
#include <algorithm>

#include "parse/kernel/kernel_log.h"
#include "parse/kernel/kernel_text.h"

namespace ftdiag::parse {
namespace {

using namespace text;
constexpr auto npos = std::string_view::npos;

bool all_hex(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!hex_digit(c)) return false;
  }
  return true;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'F') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// "0000:2b:00", "0000:2b:00.0", "00000000:3B:00.0" -> "0000:2b:00"; empty when not one.
std::string normalise_pci(std::string_view id) {
  id = id.substr(0, id.find('.'));
  const auto first = id.find(':');
  const auto second = first == npos ? npos : id.find(':', first + 1);
  if (second == npos) return {};
  std::string_view domain = id.substr(0, first), bus = id.substr(first + 1, second - first - 1),
                   device = id.substr(second + 1);
  if (!all_hex(domain) || !all_hex(bus) || !all_hex(device) || domain.size() > 8 || bus.size() > 2 ||
      device.size() > 2) {
    return {};
  }
  while (domain.size() > 4 && domain.front() == '0') domain.remove_prefix(1);
  if (domain.size() > 4) return {};
  return lower(std::string(4 - domain.size(), '0').append(domain)) + ":" + lower(bus) + ":" + lower(device);
}

// "(PCI:0000:65:00 GPU-I:05 GPU-CI:01)"'s inside.
bool read_xid_source(std::string_view inside, GpuXid& xid) {
  consume(inside, "PCI:");
  const auto space = inside.find(' ');
  xid.pci = normalise_pci(inside.substr(0, space));
  if (xid.pci.empty()) return false;
  if (space == npos) return true;
  std::string_view rest = inside.substr(space);
  if (const auto gi = rest.find(" GPU-I:"); gi != npos) {
    std::string_view value = rest.substr(gi + 7);
    xid.gpu_instance = take_int(value);
  }
  if (const auto ci = rest.find(" GPU-CI:"); ci != npos) {
    std::string_view value = rest.substr(ci + 8);
    xid.compute_instance = take_int(value);
  }
  return true;
}

// "pid=7194, name=python3, <message>": pid digits or '<unknown>'; the name
// (may hold ':' '[' ']') runs to the next ", ".
void read_owner(std::string_view rest, GpuXid& xid) {
  if (consume(rest, "pid=")) {
    const auto comma = rest.find(", ");
    xid.pid = to_int(rest.substr(0, comma));
    rest = comma == npos ? std::string_view() : rest.substr(comma + 2);
  }
  if (consume(rest, "name=")) {
    const auto comma = rest.find(", ");
    xid.process_name = std::string(rest.substr(0, comma));
    rest = comma == npos ? std::string_view() : rest.substr(comma + 2);
  }
  xid.message = std::string(trim(rest));
}

std::optional<GpuXid> read_xid(std::string_view message) {
  const auto at = message.find("NVRM: Xid (");
  if (at == npos) return std::nullopt;
  std::string_view rest = message.substr(at + 11);
  const auto close = rest.find("): ");
  if (close == npos || close > 64) return std::nullopt;
  GpuXid xid;
  if (!read_xid_source(rest.substr(0, close), xid)) return std::nullopt;
  rest.remove_prefix(close + 3);
  xid.code = take_int(rest);
  if (!xid.code) return std::nullopt;
  consume(rest, ",");
  consume(rest, " ");
  read_owner(rest, xid);
  return xid;
}

// "NVRM: GPU 0000:2b:00.0: GPU has fallen off the bus.", "NVRM: GPU at
// 0000:01:00.0 has fallen off the bus.", "NVRM: GPU has fallen off the bus."
std::optional<GpuXid> read_fallen_off(std::string_view message) {
  const auto at = message.find("NVRM: GPU ");
  if (at == npos || message.find("fallen off the bus") == npos) return std::nullopt;
  std::string_view rest = message.substr(at + 10);
  GpuXid xid;
  consume(rest, "at ");
  if (!rest.starts_with("GPU has") && !rest.starts_with("has")) {
    const auto end = std::min(rest.find(": "), rest.find(' '));
    xid.pci = normalise_pci(rest.substr(0, end));
    if (xid.pci.empty()) return std::nullopt;
    rest = end == npos ? std::string_view() : rest.substr(end);
    consume(rest, ":");
    consume(rest, " ");
  }
  xid.message = std::string(trim(rest));
  if (!xid.message.starts_with("GPU ")) xid.message.insert(0, "GPU ");
  return xid;
}

// The PCIe AER driver's lines about the NVIDIA GPU itself (dev_printk's
// "nvidia 0000:03:00.0: " prefix): a fatal uncorrectable error on its link,
// "PCIe Bus Error: severity=Uncorrected (Fatal), type=..." (aer.c; spelled
// "Uncorrectable (Fatal)" in some releases), or a recovery that cannot run,
// "AER: can't recover (no error_detected callback)" (pcie/err.c, since
// 4.19; aerdrv_core.c before): the nvidia driver registers no AER handlers,
// so an uncorrectable error leaves the GPU lost to its processes.
// Corrected and non-fatal errors are the link's routine noise: not read.
std::optional<GpuXid> read_pcie_error(std::string_view message) {
  std::string_view rest = message;
  if (!consume(rest, "nvidia ")) return std::nullopt;
  const auto colon = rest.find(": ");
  if (colon == npos) return std::nullopt;
  GpuXid xid;
  xid.pci = normalise_pci(rest.substr(0, colon));
  if (xid.pci.empty()) return std::nullopt;
  rest = trim(rest.substr(colon + 2));
  const bool fatal = rest.starts_with("PCIe Bus Error: severity=Uncorrected (Fatal)") ||
                     rest.starts_with("PCIe Bus Error: severity=Uncorrectable (Fatal)");
  const bool unrecoverable = rest.starts_with("AER: can't recover");
  if (!fatal && !unrecoverable) return std::nullopt;
  xid.pcie_error = true;
  xid.message = std::string(rest);
  return xid;
}

}  // namespace

std::optional<GpuXid> parse_xid_line(std::string_view message) {
  if (auto xid = read_xid(message)) return xid;
  if (auto xid = read_pcie_error(message)) return xid;
  return read_fallen_off(message);
}

}  // namespace ftdiag::parse
