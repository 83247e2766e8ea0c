#!/usr/bin/env python3
"""Writes a 1,000,000-line kernel log in dmesg format and runs kernel_log_scan
on it: split_kernel_log + scan_kernel_lines against `grep -c 'Killed process'`.

The mix is what a busy GPU node's ring buffer holds: mostly ordinary kernel
lines (network, storage, audit, USB, NVIDIA driver chatter), with a full OOM
report (6.x memcg layout, a 40-line call trace and a task table) every 5,000
lines, a segfault every 2,000, an Xid every 3,000 and a rate-limiter line now
and then. The file goes to a temporary folder and is removed afterwards
unless --keep.

    bench/kernel_log_scan.py [--build build/default] [--lines N] [--reps R] [--keep]
"""
import argparse
import os
import pathlib
import random
import subprocess
import sys
import tempfile

ORDINARY = [
    "IPv6: ADDRCONF(NETDEV_CHANGE): eth{n}: link becomes ready",
    "mlx5_core 0000:{b:02x}:00.0: mlx5_fw_tracer_handle_traces:761:(pid {p}): FW tracer: event {n}",
    "EXT4-fs (nvme0n1p{n}): re-mounted. Opts: errors=remount-ro. Quota mode: none.",
    "audit: type=1400 audit({t:.3f}:{n}): apparmor=\"DENIED\" operation=\"open\" profile=\"snap.lxd\" pid={p} comm=\"lxd\"",
    "nvidia-modeset: WARNING: GPU:{n}: Lost display notification (0:0x00000000); continuing.",
    "usb 1-{n}: new high-speed USB device number {p} using xhci_hcd",
    "perf: interrupt took too long ({p} > {n}), lowering kernel.perf_event_max_sample_rate to 50000",
    "systemd-journald[812]: Data hash table of /var/log/journal/x/system.journal has a fill level at 75.0",
    "nfs: server fileserver{n} not responding, still trying",
    "TCP: request_sock_TCP: Possible SYN flooding on port {p}. Sending cookies.",
    "docker0: port {n}(veth{p:x}) entered forwarding state",
    "NVRM: nvAssertOkFailedNoLog: Assertion failed: Call timed out [NV_ERR_TIMEOUT] (0x00000065) returned from pRmApi->Control",
    "Memory cgroup out of memory event counter incremented for /system.slice/unit{n}.service",
    "python3[{p}] is installing a program with bpf_probe_write_user helper that may corrupt user memory!",
    "process '{n}/bin/pip' started with executable stack",
]

OOM_HEADER = """{c} invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0
CPU: {cpu} UID: 1000 PID: {p} Comm: {c} Not tainted 6.8.0-50-generic #51-Ubuntu
Hardware name: Supermicro SYS-821GE-TNHR/X13DEG-OAD, BIOS 2.1 04/10/2024
Call Trace:
 <TASK>"""
OOM_TRACE = [" dump_stack_lvl+0x57/0x80", " dump_header+0x43/0x1c0", " oom_kill_process+0x10d/0x1c0",
             " out_of_memory+0x214/0x500", " mem_cgroup_out_of_memory+0xc0/0x110", " try_charge_memcg+0x422/0x6f0",
             " ? srso_alias_return_thunk+0x5/0xfbef5", " __handle_mm_fault+0xa1e/0xf20", " handle_mm_fault+0xd0/0x310",
             " exc_page_fault+0x176/0x770", " asm_exc_page_fault+0x22/0x30"]
OOM_TAIL = """ </TASK>
memory: usage 83886080kB, limit 83886080kB, failcnt {n}
swap: usage 0kB, limit 0kB, failcnt 0
Memory cgroup stats for /slurm/job_{j}:
anon 85899345920
file 12288
Tasks state (memory values in pages):
[  pid  ]   uid  tgid total_vm      rss rss_anon rss_file rss_shmem pgtables_bytes swapents oom_score_adj name
[{p:7d}]  1000 {p:5d} 25600000 20971520 20900000    71520         0 170000000        0             0 {c}
[{w:7d}]  1000 {w:5d}  1200000   400000   390000    10000         0  5000000        0             0 pt_data_worker
oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=(null),cpuset=/,mems_allowed=0-1,oom_memcg=/slurm/job_{j},task_memcg=/slurm/job_{j},task={c},pid={p},uid=1000
Memory cgroup out of memory: Killed process {p} ({c}) total-vm:102400000kB, anon-rss:83600000kB, file-rss:286080kB, shmem-rss:0kB, UID:1000 pgtables:166015kB oom_score_adj:0"""

SEGFAULT = ("pt_data_worker[{p}]: segfault at 0 ip 00007f19f1b56ad8 sp 00007ffc760f00d8 error 4 in "
            "libc.so.6[167ad8,7f19f1a15000+156000] likely on CPU {cpu} (core {cpu}, socket 0)")
CODE = "Code: e1 ff ff ff c3 66 2e 0f 1f 84 00 00 00 00 00 0f 1f 00 89 f8 62 a1 fd 00 ef c0 25 ff 0f 00 00 3d e0 0f 00 00"
XID = ("NVRM: Xid (PCI:0000:{b:02x}:00): 31, pid={p}, name=python3, Ch 00000018, intr 00000000. MMU Fault: ENGINE "
       "GRAPHICS GPCCLIENT_T1_0 faulted @ 0x7f2c_4a000000. Fault is of type FAULT_PDE ACCESS_TYPE_READ")


def generate(path, count, seed=7):
    rnd = random.Random(seed)
    t = 100.0
    written = 0
    with open(path, "w") as out:
        def emit(message):
            nonlocal t, written
            t += rnd.random() * 0.01
            out.write("[%12.6f] %s\n" % (t, message))
            written += 1

        while written < count:
            n = written
            p = rnd.randrange(1000, 4000000)
            if n % 5000 == 4999:
                fields = dict(c="pt_main_thread", cpu=rnd.randrange(96), p=p, w=p + 7, n=n, j=n // 5000)
                for line in OOM_HEADER.format(**fields).splitlines():
                    emit(line)
                for _ in range(3):
                    for frame in OOM_TRACE:
                        emit(frame)
                for line in OOM_TAIL.format(**fields).splitlines():
                    emit(line)
            elif n % 2000 == 1999:
                emit(SEGFAULT.format(p=p, cpu=rnd.randrange(96)))
                emit(CODE)
            elif n % 3000 == 2999:
                emit(XID.format(b=rnd.randrange(256), p=p))
            elif n % 10000 == 9998:
                emit("show_signal_msg: %d callbacks suppressed" % rnd.randrange(1, 30))
            else:
                emit(rnd.choice(ORDINARY).format(n=rnd.randrange(64), p=p, b=rnd.randrange(256), t=t))
    return written


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build/default", help="build folder holding bench/kernel_log_scan")
    parser.add_argument("--lines", type=int, default=1_000_000)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--keep", action="store_true", help="keep the generated log and print its path")
    args = parser.parse_args()

    binary = pathlib.Path(args.build) / "bench" / "kernel_log_scan"
    if not binary.exists():
        sys.exit(f"{binary} is missing: cmake --build {args.build} --target kernel_log_scan")
    folder = tempfile.mkdtemp(prefix="ftdiag-kernel-log-", dir=os.environ.get("TMPDIR"))
    path = pathlib.Path(folder) / "dmesg.txt"
    try:
        lines = generate(path, args.lines)
        print(f"generated {lines} lines, {path.stat().st_size / 1e6:.1f} MB", flush=True)
        subprocess.run([str(binary), "--file", str(path), "--reps", str(args.reps)], check=True)
    finally:
        if args.keep:
            print(f"kept {path}")
        else:
            path.unlink(missing_ok=True)
            os.rmdir(folder)


if __name__ == "__main__":
    main()
