// The project's rules/log-events.json against real console captures and
// public log lines: every line that reports a death gives the expected event,
// every other line (tracebacks, progress bars, loss dicts, lines that merely
// mention a signal) gives none. An expectation lists every event of its file.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "line_event_testing.h"

using ftdiag::parse::testing::events_of_log;

TEST_CASE("line events: torchrun captures (torch 1.13)") {
  CHECK(events_of_log("torchrun-torch1.13-kill.txt") == std::vector<std::string>{
            "7: launcher-teardown torchrun pid=21119 signal=15",
            "8: rank-failed torchrun pid=21120 signal=9 exit_code=-9 rank=1 binary=/usr/bin/python3.11",
            "37: rank-failed torchrun pid=21120 signal=9 exit_code=-9",
            "39: rank-failed torchrun pid=21120 signal=9",
        });
  CHECK(events_of_log("torchrun-torch1.13-segv.txt") == std::vector<std::string>{
            "7: launcher-teardown torchrun pid=21182 signal=15",
            "8: rank-failed torchrun pid=21181 signal=11 exit_code=-11 rank=0 binary=/usr/bin/python3.11",
            "37: rank-failed torchrun pid=21181 signal=11 exit_code=-11",
            "39: rank-failed torchrun pid=21181 signal=11",
        });
  CHECK(events_of_log("torchrun-torch1.13-both.txt") == std::vector<std::string>{
            "5: rank-failed torchrun pid=21229 signal=9 exit_code=-9 rank=0 binary=/usr/bin/python3.11",
            "31: rank-failed torchrun pid=21230 signal=11 exit_code=-11",
            "33: rank-failed torchrun pid=21230 signal=11",
            "40: rank-failed torchrun pid=21229 signal=9 exit_code=-9",
            "42: rank-failed torchrun pid=21229 signal=9",
        });
  CHECK(events_of_log("torchrun-torch1.13-exc.txt") == std::vector<std::string>{
            "12: cuda-oom pytorch requested=2.00 GiB",
            "13: cuda-oom pytorch requested=2.00 GiB",
            "14: launcher-teardown torchrun pid=21187 signal=15",
            "15: rank-failed torchrun pid=21188 exit_code=1 rank=1 binary=/usr/bin/python3.11",
            "45: rank-failed torchrun pid=21188 exit_code=1",
            "52: cuda-oom pytorch requested=2.00 GiB",
            "53: cuda-oom pytorch requested=2.00 GiB",
        });
  CHECK(events_of_log("torchrun-torch1.13-sigterm.txt") == std::vector<std::string>{
            "5: launcher-signalled torchrun signal=15",
            "6: launcher-teardown torchrun pid=21292 signal=15",
            "7: launcher-teardown torchrun pid=21293 signal=15",
            "35: launcher-signalled torchrun pid=21288 signal=15",
        });
}

TEST_CASE("line events: torch 2.x logger prefixes, rank prefixes, CR and NUL") {
  CHECK(events_of_log("torch2-prefixes.txt") == std::vector<std::string>{
            "1: launcher-teardown torchrun pid=5938 signal=15",
            "2: rank-failed torchrun pid=5939 exit_code=1 rank=2 binary=/opt/conda/bin/python",
            "3: launcher-teardown torchrun pid=33051 signal=15",
            "4: rank-failed torchrun pid=33054 exit_code=1 rank=3 binary=/usr/bin/python",
            "5: rank-failed torchrun pid=3304155 signal=11 exit_code=-11 rank=0 binary=/home/u/.venv/bin/python3",
            "6: launcher-teardown torchrun pid=21292 signal=9 first_signal=Signals.SIGTERM",
            "7: launcher-teardown torchrun pid=21293 signal=9 first_signal=15",
            "8: launcher-signalled torchrun signal=15",
            "9: worker-died pytorch-dataloader pid=777 signal=9",
            "10: worker-died pytorch-dataloader pids=778, 779",
            "11: rank-failed torchrun pid=21120 signal=9 exit_code=-9",
            "12: worker-died pytorch-dataloader pid=21417 signal=11",
            "13: worker-died pytorch-dataloader pid=21418 signal=Unknown signal 77",
        });
}

TEST_CASE("line events: DataLoader worker captures (NUL bytes included)") {
  CHECK(events_of_log("dataloader-torch1.13-worker-kill.txt") == std::vector<std::string>{
            "22: worker-died pytorch-dataloader pid=21406 signal=9",
            "40: worker-died pytorch-dataloader pid=21406",
        });
  CHECK(events_of_log("dataloader-torch1.13-worker-segv.txt") == std::vector<std::string>{
            "1: worker-fault pytorch-dataloader signal=11",
            "34: worker-died pytorch-dataloader pid=21417 signal=11",
            "52: worker-died pytorch-dataloader pid=21417",
        });
  CHECK(events_of_log("dataloader-torch1.13-worker-bus.txt") == std::vector<std::string>{
            "1: worker-fault pytorch-dataloader signal=7",
            "23: worker-died pytorch-dataloader pid=21428 signal=7",
            "41: worker-died pytorch-dataloader pid=21428",
        });
  CHECK(events_of_log("dataloader-torch1.13-worker-abort.txt") == std::vector<std::string>{
            "22: worker-died pytorch-dataloader pid=21439 signal=6",
            "40: worker-died pytorch-dataloader pid=21439",
        });
}

TEST_CASE("line events: Python standard library captures") {
  CHECK(events_of_log("python-stdlib-signal-errors.txt") == std::vector<std::string>{
            "7: rank-failed python signal=9",
            "15: rank-failed python signal=11",
            "18: worker-died python pid=23101 signal=9 exit_code=-9 name=Process-2",
            "38: worker-died python pool=concurrent.futures",
        });
}

TEST_CASE("line events: shell job lines") {
  CHECK(events_of_log("shell-signal-messages.txt") == std::vector<std::string>{
            "2: shell-reported-death bash pid=23108 signal=11 command=./crash null_read",
            "4: shell-reported-death bash pid=23109 signal=9 command=./crash kill9",
            "6: shell-reported-death bash pid=23110 signal=6 command=./crash abort",
            "8: shell-reported-death bash pid=23111 signal=7 command=./crash sigbus",
            "10: shell-reported-death bash pid=23112 signal=4 command=./crash ud2",
            "12: shell-reported-death bash pid=23113 signal=8 command=./crash div0",
            "15: shell-reported-death shell signal=11",
            "17: shell-reported-death shell signal=9",
            "19: shell-reported-death shell signal=6",
            "21: shell-reported-death shell signal=7",
            "24: shell-reported-death bash pid=8534 signal=11 command=./crash null_read core=core dumped",
            "26: shell-reported-death bash pid=8535 signal=7 command=./crash sigbus core=core dumped",
            "27: shell-reported-death bash pid=8536 signal=9 command=./crash kill9",
            "28: shell-reported-death bash pid=8537 signal=6 command=./crash abort core=core dumped",
            "29: shell-reported-death bash pid=8538 signal=11 command=python3 -c 'import ctypes; ctypes.string_at(0)' core=core dumped",
        });
}

TEST_CASE("line events: DeepSpeed launcher") {
  CHECK(events_of_log("deepspeed-launcher.txt") == std::vector<std::string>{
            "1: launcher-teardown deepspeed pid=13266",
            "2: rank-failed deepspeed signal=9 exit_code=-9 rank=0",
            "3: rank-failed deepspeed signal=11 exit_code=-11 rank=1",
            "4: launcher-teardown deepspeed pid=250621",
            "5: rank-failed deepspeed signal=9 rank=3",
            "6: rank-failed deepspeed exit_code=1",
            "7: launcher-signalled deepspeed signal=15",
        });
}

TEST_CASE("line events: Slurm job output in every wording") {
  CHECK(events_of_log("slurm-job-output.txt") == std::vector<std::string>{
            "1: scheduler-oom slurm count=1 job=18835145 step=18835145.batch",
            "2: scheduler-oom slurm count=1 job=6959634 step=6959634.0",
            "3: scheduler-oom slurm rank=0 node=holy8a24101",
            "4: scheduler-oom slurm count=1 job=4833316 step=4833316.0",
            "5: scheduler-oom slurm rank=0 node=ideafix03",
            "6: scheduler-oom slurm count=1 job=10483536 step=10483536.batch",
            "7: scheduler-oom slurm count=2 job=7 step=7.0",
            "8: scheduler-oom slurm count=1 job=14037828 step=14037828.batch",
            "9: scheduler-oom slurm count=52 job=7401930 step=7401930.batch",
            "10: scheduler-oom slurm count=1 job=35491929 step=35491929.batch",
            "11: scheduler-cancel slurm job=25428400 node=node022 reason=cancelled time=2023-05-30T19:46:40",
            "12: scheduler-cancel slurm job=7 node=node1 reason=time-limit time=2026-09-21T10:00:00",
            "13: scheduler-cancel slurm job=41239 node=fnode01 reason=time-limit time=2016-11-30T11:22:57",
            "14: scheduler-cancel slurm job=1234 node=gpu17 reason=preemption time=2026-02-01T03:04:05",
            "15: scheduler-cancel slurm job=1235 node=gpu18 reason=node-failure time=2026-02-01T03:04:06",
            "16: scheduler-cancel slurm job=1236 node=gpu19 reason=requeue time=2026-02-01T03:04:07",
            "17: scheduler-cancel slurm job=1237 reason=time-limit time=2015-06-01T10:00:00",
            "18: scheduler-cancel slurm node=gpu20 reason=cancelled step=1238.0 time=2026-02-01T03:04:08",
            "19: scheduler-cancel slurm reason=time-limit step=1239.0 time=2014-01-01T00:00:00",
            "20: scheduler-cancel slurm job=1240 node=gpu21 reason=memory-error time=2026-02-01T03:04:09",
            "21: scheduler-memory-kill slurm signal=9 job=7 limit=52428800 step=7.batch usage=734003200",
            "22: scheduler-memory-kill slurm signal=9 job=41176 limit=2068480 step=41176 usage=3940736",
            "23: scheduler-memory-kill slurm signal=9 scope=job",
            "24: scheduler-memory-limit-hit slurm scope=step",
            "25: scheduler-memory-limit-hit slurm job=9 step=9.0",
            "26: scheduler-task-died slurm signal=9 rank=0 node=nid001",
            "27: scheduler-task-died slurm signal=9 node=nid001 tasks=0-7",
            "28: scheduler-task-died slurm signal=11 rank=3 core=core dumped node=node3",
            "29: scheduler-task-exited slurm exit_code=1 rank=1 node=node3",
            "30: launcher-teardown slurm wait_seconds=32",
            "31: shell-reported-death bash pid=2113061 signal=9 command=python3 Experiments.py",
        });
}

TEST_CASE("line events: Kubernetes and Docker") {
  CHECK(events_of_log("kubernetes-docker.txt") == std::vector<std::string>{
            "2: container-oom kubernetes signal=9",
            "3: container-exited kubernetes signal=9 exit_code=137",
            "4: container-oom kubernetes signal=9",
            "5: container-oom kubernetes signal=9",
            "6: container-oom docker signal=9",
            "8: container-oom kubernetes signal=9 pod=trainer-7d9c5b-0",
            "9: eviction kubernetes pod=trainer-7d9c5b-1",
            "10: container-oom docker container=46b3e0a4df44c1b2a3f4e5d6c7b8a9f0",
            "12: eviction kubernetes",
            "13: eviction kubernetes available=51200Ki container=trainer resource=memory threshold=100Mi usage=31457280Ki",
            "14: eviction kubernetes resource=ephemeral-storage",
            "15: eviction kubernetes limit=1Gi volume=dshm",
            "16: node-oom kubernetes pid=3103923 signal=9 name=stress-ng-vm",
            "17: node-oom kubernetes pid=4242 signal=9 name=python3",
            "19: container-exited kubernetes signal=9 exit_code=137",
        });
}

TEST_CASE("line events: systemd, systemd-oomd and earlyoom") {
  CHECK(events_of_log("systemd-oomd-earlyoom.txt") == std::vector<std::string>{
            "1: unit-oom systemd signal=9 unit=run-u820.service",
            "2: unit-killed systemd signal=9 unit=run-u820.service",
            "3: unit-oom systemd signal=9 unit=run-u820.service",
            "4: unit-oom systemd signal=9 unit=user@1000.service",
            "5: unit-oom systemd signal=9",
            "6: unit-killed systemd signal=9",
            "8: oomd-kill systemd-oomd signal=9 cgroup=/user.slice/user-1000.slice/user@1000.service/app.slice/flatpak-session-helper.service duration=20s monitored=/user.slice/user-1000.slice/user@1000.service/app.slice pressure=82.36% threshold=80.00%",
            "9: oomd-kill systemd-oomd signal=9 cgroup=/user.slice/user-1000.slice/user@1000.service/app.slice/train.scope duration=20s monitored=/user.slice/user-1000.slice/user@1000.service pressure=86.80% threshold=50.00%",
            "10: oomd-kill systemd-oomd signal=9 cgroup=/system.slice/train.service memory_total=33554432000 memory_used=33285996544 swap_total=8589930496 swap_used=8053063680 threshold=90.00%",
            "11: oomd-kill systemd-oomd signal=9 cgroup=/system.slice/old.service swap_total=8589930496 swap_used=8053063680 threshold=90.00%",
            "12: oomd-kill systemd signal=9 count=3 unit=vte-spawn-f6518140-41fe-4a13-b828-55c5b8738fb8.scope",
            "14: earlyoom-low-memory earlyoom limit=SIGTERM mem_percent=10.00 swap_percent=5.00",
            "15: earlyoom-kill earlyoom pid=4242 signal=15 name=python3 rss_mib=28113 score=812 uid=1000",
            "16: earlyoom-kill earlyoom signal=9 after_seconds=0.5",
            "17: earlyoom-kill earlyoom pid=4243 signal=9 name=pt_data_worker rss_mib=1024 score=900 uid=1000",
            "18: earlyoom-kill earlyoom pid=4244 signal=15 name=python rss_mib=2048 score=650",
            "19: earlyoom-kill earlyoom pid=4245 signal=15 name=python3 rss_mib=4096 score=700",
            "20: earlyoom-kill earlyoom pid=4246 name=python3 rss_mib=4097 score=710",
            "21: earlyoom-low-memory earlyoom limit=SIGKILL mem_percent=5.00 swap_percent=2.50",
        });
}

TEST_CASE("line events: ordinary training output gives nothing") {
  CHECK(events_of_log("ordinary-training.txt").empty());
}
