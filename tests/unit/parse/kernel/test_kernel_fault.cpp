// Fault lines (log-formats.md §3): live x86 captures, older forms, arm64.
#include <doctest/doctest.h>

#include "kernel_fixtures.h"

using namespace ftdiag::parse;
using namespace ftdiag::parse::testing;

TEST_CASE("fault: live segfaults and traps, dmesg and /dev/kmsg alike") {
  auto from_dmesg = scan_for<KernelFault>(kernel_fixture("segfault-and-traps.dmesg.txt"));
  auto from_kmsg = scan_for<KernelFault>(kernel_fixture("segfault-and-traps.kmsg.txt"));
  REQUIRE(from_dmesg.size() >= 12);
  REQUIRE(from_kmsg.size() >= 12);
  for (std::size_t i = 0; i < 12; ++i) {
    KernelFault a = from_dmesg[i], b = from_kmsg[i];
    a.stamp = b.stamp = {};
    a.line_number = b.line_number = 0;
    CHECK(a == b);
  }
  const KernelFault& first = from_dmesg[0];
  CHECK(first.kind == "segfault");
  CHECK(first.comm == "crash");
  CHECK(first.pid == 7487);
  CHECK(first.signal == 11);
  CHECK(first.address == 0u);
  CHECK(first.ip == 0x5585e0eaf27dULL);
  CHECK(first.sp == 0x7ffd8a031e00ULL);
  CHECK(first.error_code == 4u);
  CHECK(first.object == "crash");
  CHECK(first.object_offset == 0x127du);
  CHECK(first.map_start == 0x5585e0eaf000ULL);
  CHECK(first.map_size == 0x1000u);
  CHECK(first.cpu == 1);
  CHECK(first.stamp.monotonic_us == 281275205);

  CHECK(from_dmesg[3].error_code == 0x15u);  // "error 15" is hex
  CHECK(from_dmesg[4].error_code == 0x14u);
  CHECK(from_dmesg[4].object.empty());       // ip in no mapping: no "in" part
  CHECK(from_dmesg[4].ip == 0u);
  CHECK(from_dmesg[5].address == 0xffffffff81000000ULL);

  CHECK(from_dmesg[6].kind == "general-protection");
  CHECK(from_dmesg[6].signal == 11);
  CHECK(from_dmesg[6].ip == 0x55b75cffd38dULL);
  CHECK(from_dmesg[6].error_code == 0u);
  CHECK(from_dmesg[6].object_offset == 0x138du);
  CHECK(from_dmesg[7].trap == "invalid opcode");
  CHECK(from_dmesg[7].signal == 4);
  CHECK(from_dmesg[8].trap == "divide error");
  CHECK(from_dmesg[8].signal == 8);
  CHECK(from_dmesg[9].trap == "int3");
  CHECK(from_dmesg[9].signal == 5);

  CHECK(from_dmesg[10].object == "libc.so.6");
  CHECK(from_dmesg[10].object_offset == 0x167ad8u);
  CHECK(from_dmesg[10].map_size == 0x156000u);

  auto suppressed = scan_for<KernelSuppressed>(kernel_fixture("segfault-and-traps.dmesg.txt"));
  REQUIRE(suppressed.size() == 1);
  CHECK(suppressed[0].source == "show_signal_msg");
  CHECK(suppressed[0].count == 1u);
}

TEST_CASE("fault: older and odd segfault forms") {
  SUBCASE("32-bit, ip printed as (null)") {
    auto fault = parse_fault_line("chromium-browse[2901]: segfault at 0 ip   (null) sp bfcbb58c error 4 in libX11.so.6.3.0[110000+131000]");
    REQUIRE(fault);
    CHECK(fault->ip == 0u);
    CHECK(fault->sp == 0xbfcbb58cu);
    CHECK(fault->object == "libX11.so.6.3.0");
    CHECK_FALSE(fault->object_offset);
    CHECK(fault->map_start == 0x110000u);
    CHECK(fault->map_size == 0x131000u);
  }
  SUBCASE("no file offset, no CPU (4.x, 5.15)") {
    auto fault = parse_fault_line("turnserver[15494]: segfault at bd ip 00007f559238d562 sp 00007f554fbb4bc0 error 4 in libc-2.23.so[7f5592309000+1c0000]");
    REQUIRE(fault);
    CHECK(fault->address == 0xbdu);
    CHECK(fault->object == "libc-2.23.so");
    CHECK(fault->map_start == 0x7f5592309000ULL);
    CHECK_FALSE(fault->cpu);
  }
  SUBCASE("a comm with spaces, brackets and parentheses") {
    auto fault = parse_fault_line("a [b] (c)[x[12345]: segfault at 8 ip 0000000000401000 sp 00007ffc00000000 error 6 in my lib (deleted)[401000+1000] likely on CPU 12 (core 24, socket 0)");
    REQUIRE(fault);
    CHECK(fault->comm == "a [b] (c)[x");
    CHECK(fault->pid == 12345);
    CHECK(fault->object == "my lib (deleted)");
    CHECK(fault->cpu == 12);
  }
  SUBCASE("old general protection without traps:") {
    auto fault = parse_fault_line("Xorg[1221] general protection ip:46fca4 sp:7fffe1154fa0 error:0 in Xorg[400000+1be000]");
    REQUIRE(fault);
    CHECK(fault->kind == "general-protection");
    CHECK(fault->comm == "Xorg");
    CHECK(fault->pid == 1221);
    CHECK(fault->ip == 0x46fca4u);
    CHECK(fault->object == "Xorg");
  }
  SUBCASE("other trap names") {
    auto fault = parse_fault_line("traps: python[77] trap stack segment ip:7f00 sp:7ff0 error:0 in libfoo.so[7f00+1000]");
    REQUIRE(fault);
    CHECK(fault->kind == "trap");
    CHECK(fault->trap == "stack segment");
    CHECK(fault->signal == 7);
  }
  SUBCASE("not faults") {
    CHECK_FALSE(parse_fault_line("Code: 48 8d 05 aa 0d 00 00"));
    CHECK_FALSE(parse_fault_line("segfault at 0 ip 0 sp 0 error 4"));
    CHECK_FALSE(parse_fault_line("foo[bar]: segfault at 0"));
    CHECK_FALSE(parse_fault_line(""));
  }
}

TEST_CASE("fault: arm64 unhandled exceptions") {
  auto faults = scan_for<KernelFault>(kernel_fixture("arm64-faults.dmesg.txt"));
  REQUIRE(faults.size() == 4);
  CHECK(faults[0].kind == "unhandled-exception");
  CHECK(faults[0].comm == "detect_demo");
  CHECK(faults[0].pid == 2510);
  CHECK(faults[0].error_code == 0x92000046u);
  CHECK(faults[0].detail == "DABT (lower EL), ESR 0x92000046, level 2 translation fault");
  CHECK(faults[0].object == "libnn_detect.so");
  CHECK(faults[0].map_start == 0x7fbd4f0000ULL);
  CHECK_FALSE(faults[0].signal);
  CHECK(faults[1].error_code == 0x92000051u);
  CHECK(faults[1].object == "mte_test");
  CHECK(faults[2].detail == "level 2 translation fault");
  CHECK(faults[2].signal == 11);
  CHECK(faults[2].address == 0u);
  CHECK(faults[2].error_code == 0x92000046u);
  CHECK(faults[2].object == "sigsegv");
  CHECK(faults[3].comm == "linphonec");
  CHECK(faults[3].error_code == 0x92000006u);
  CHECK(faults[3].object.empty());
}

TEST_CASE("fault: potentially unexpected fatal signal in its three forms") {
  auto faults = scan_for<KernelFault>(kernel_fixture("print-fatal-signals.dmesg.txt"));
  std::vector<KernelFault> fatal;
  for (const auto& fault : faults) {
    if (fault.kind == "fatal-signal") fatal.push_back(fault);
  }
  REQUIRE(fatal.size() == 3);
  CHECK(fatal[0].signal == 11);
  CHECK(fatal[0].comm == "crash");
  CHECK(fatal[0].object == "crash");
  CHECK(fatal[0].pid == 8666);  // from the "CPU: .. PID:" line after it
  CHECK(fatal[0].cpu == 0);
  CHECK(fatal[0].ip == 0x55ac2bf522a3ULL);  // from "RIP: 0033:"
  CHECK(fatal[1].signal == 7);
  CHECK(fatal[1].pid == 8668);
  CHECK(fatal[2].signal == 6);
  CHECK(fatal[2].pid == 8688);

  auto old = parse_fault_line("a.out/25311: potentially unexpected fatal signal 11.");
  REQUIRE(old);
  CHECK(old->comm == "a.out");
  CHECK(old->pid == 25311);
  auto kworker = parse_fault_line("kworker/0:2: potentially unexpected fatal signal 7.");
  REQUIRE(kworker);
  CHECK(kworker->comm == "kworker/0:2");
  CHECK_FALSE(kworker->pid);
  auto bare = parse_fault_line("potentially unexpected fatal signal 6.");
  REQUIRE(bare);
  CHECK(bare->signal == 6);
  CHECK(bare->comm.empty());
}
