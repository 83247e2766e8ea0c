// NVIDIA Xid lines and lost GPUs (log-formats.md §4.1).
#include <doctest/doctest.h>

#include "kernel_fixtures.h"

using namespace ftdiag::parse;
using namespace ftdiag::parse::testing;

TEST_CASE("xid: every variant of the fixture") {
  auto xids = scan_for<GpuXid>(kernel_fixture("nvidia-xid.dmesg.txt"));
  REQUIRE(xids.size() == 10);  // not the UUID, serial, RmInitAdapter or SXid lines

  CHECK(xids[0].code == 31);
  CHECK(xids[0].pci == "0000:65:00");
  CHECK(xids[0].pid == 31245);
  CHECK(xids[0].process_name == "python3");
  CHECK(xids[0].message.starts_with("Ch 00000018, intr 00000000. MMU Fault:"));
  CHECK(xids[0].stamp.monotonic_us == 1200000010);

  CHECK(xids[1].code == 43);

  CHECK(xids[2].code == 94);
  CHECK(xids[2].pci == "0000:01:00");
  CHECK(xids[2].gpu_instance == 5);
  CHECK_FALSE(xids[2].compute_instance);
  CHECK(xids[2].pid == 7194);
  CHECK(xids[2].process_name.empty());
  CHECK(xids[2].message == "Contained: CE User Channel (0x9). RST: No, D-RST: No");

  CHECK(xids[3].code == 95);
  CHECK(xids[3].gpu_instance == 5);
  CHECK(xids[3].compute_instance == 1);
  CHECK_FALSE(xids[3].pid);  // '<unknown>'
  CHECK(xids[3].process_name == "<unknown>");

  CHECK(xids[4].code == 79);
  CHECK(xids[4].pci == "0002:00:00");
  CHECK(xids[4].process_name == "nvc:[driver]");
  CHECK(xids[4].message == "GPU has fallen off the bus.");

  CHECK_FALSE(xids[5].code);
  CHECK(xids[5].pci == "0000:2b:00");
  CHECK(xids[5].message == "GPU has fallen off the bus.");
  CHECK_FALSE(xids[6].code);
  CHECK(xids[6].pci == "0000:01:00");
  CHECK(xids[6].message == "GPU has fallen off the bus.");

  CHECK(xids[7].code == 14);
  CHECK(xids[7].pci == "0000:03:00");
  CHECK(xids[7].message == "Channel 00000001");

  CHECK(xids[8].code == 119);
  CHECK(xids[8].pci == "0004:01:00");
  CHECK(xids[8].process_name == "nv_queue");

  CHECK(xids[9].code == 154);
  CHECK_FALSE(xids[9].pid);
  CHECK(xids[9].message == "GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)");
}

TEST_CASE("xid: single lines") {
  auto no_owner = parse_xid_line("NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.");
  REQUIRE(no_owner);
  CHECK(no_owner->code == 79);
  CHECK(no_owner->message == "GPU has fallen off the bus.");
  auto pid_only = parse_xid_line("NVRM: Xid (PCI:0000:10:1c): 63, pid=1896, Row Remapper: New row marked for remapping, reset gpu to activate.");
  REQUIRE(pid_only);
  CHECK(pid_only->pci == "0000:10:1c");
  CHECK(pid_only->pid == 1896);
  CHECK(pid_only->message == "Row Remapper: New row marked for remapping, reset gpu to activate.");
  auto nowhere = parse_xid_line("NVRM: GPU has fallen off the bus.");
  REQUIRE(nowhere);
  CHECK(nowhere->pci.empty());
  CHECK_FALSE(nowhere->code);
  CHECK_FALSE(parse_xid_line("NVRM: GPU at PCI:0000:2b:00: GPU-0b11d014-1685-04bd-26ed-5fc0bc1c44ae"));
  CHECK_FALSE(parse_xid_line("NVRM: Xid (PCI:zz:00:00): 13, x"));
  CHECK_FALSE(parse_xid_line("NVRM: Xid (PCI:0000:01:00): x"));
}

TEST_CASE("xid: the AER driver's fatal errors on the GPU's own link, and not its routine noise") {
  auto fatal = parse_xid_line("nvidia 0000:03:00.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction Layer, (Requester ID)");
  REQUIRE(fatal);
  CHECK(fatal->pcie_error);
  CHECK_FALSE(fatal->code);
  CHECK(fatal->pci == "0000:03:00");
  auto stuck = parse_xid_line("nvidia 0000:03:00.0: AER: can't recover (no error_detected callback)");
  REQUIRE(stuck);
  CHECK(stuck->message == "AER: can't recover (no error_detected callback)");
  CHECK_FALSE(parse_xid_line("nvidia 0000:03:00.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver ID)"));
  CHECK_FALSE(parse_xid_line("nvidia 0000:03:00.0: PCIe Bus Error: severity=Uncorrected (Non-Fatal), type=Transaction Layer"));
  CHECK_FALSE(parse_xid_line("pcieport 0000:00:03.0: AER: device recovery failed"));  // the port names no GPU
  CHECK_FALSE(parse_xid_line("nvidia-modeset: Loading NVIDIA Kernel Mode Setting Driver"));
  CHECK_FALSE(parse_xid_line("nvidia zz:03:00.0: AER: can't recover (no error_detected callback)"));

  auto xids = scan_for<GpuXid>(
      "[  +0.000844] nvidia 0000:03:00.0: AER: can't recover (no error_detected callback)\n"
      "[  +0.000001] snd_hda_intel 0000:03:00.1: AER: can't recover (no error_detected callback)\n"
      "[  +0.000008] pcieport 0000:00:03.0: AER: device recovery failed\n");
  REQUIRE(xids.size() == 1);
  CHECK(xids[0].pcie_error);
}
