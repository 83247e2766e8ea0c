#!/usr/bin/env bash
# A real Slurm cluster on this machine, for the multi-node tests: one
# slurmctld and N slurmd daemons (`slurmd -N nodeK`, Debian's build has
# MULTIPLE_SLURMD), each node on its own port, memory enforced by Slurm's own
# cgroup plugin (task/cgroup, ConstrainRAMSpace), munge with a generated key.
# Everything lives under one folder; nothing in /etc is touched.
#
#   tests/slurm/cluster.sh start DIR [NODES]   # prints the SLURM_CONF to export
#   tests/slurm/cluster.sh stop DIR
#
# Needs root (slurmd runs jobs as their users and makes cgroups) and the
# packages slurmctld, slurmd, slurm-client and munge. Exits 77 when it cannot
# run here, so a test built on it is reported as skipped, never as passed.
set -euo pipefail

skip() { echo "slurm cluster: $*" >&2; exit 77; }

command=${1:-}
dir=${2:-}
[ -n "$command" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop DIR [NODES]" >&2; exit 2; }

stop_cluster() {
  local pidfile
  for pidfile in "$dir"/run/*.pid; do
    [ -f "$pidfile" ] || continue
    kill "$(cat "$pidfile")" 2>/dev/null || true
  done
  # slurmd and slurmctld finish their shutdown in a moment; wait for them so a
  # next start finds the ports free.
  for _ in $(seq 50); do
    local alive=0
    for pidfile in "$dir"/run/*.pid; do
      [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null && alive=1
    done
    [ "$alive" -eq 0 ] && break
    sleep 0.1
  done
  for pidfile in "$dir"/run/*.pid; do
    [ -f "$pidfile" ] && kill -9 "$(cat "$pidfile")" 2>/dev/null || true
  done
  rm -f "$dir"/run/*.pid
  # A step whose slurmd is gone (a node killed by a test) leaves its slurmstepd
  # waiting for it; they run in this cluster's log folder.
  local pid cwd
  for pid in $(pgrep -x slurmstepd || true); do
    cwd=$(readlink "/proc/$pid/cwd" 2>/dev/null || true)
    [[ "$cwd" == "$dir"/* ]] && kill -9 "$pid" 2>/dev/null || true
  done
  # The steps' cgroups, once empty (a later cluster's job 1 must not find its
  # predecessor's). Deepest first; a busy one is left alone.
  local node_name
  for node_name in $(sed -n 's/^NodeName=\([^ ]*\) .*/\1/p' "$dir/etc/slurm.conf" 2>/dev/null); do
    find /sys/fs/cgroup/*/"slurm_$node_name" /sys/fs/cgroup/"slurm_$node_name" -depth -type d -exec rmdir {} + 2>/dev/null || true
  done
}

if [ "$command" = stop ]; then
  stop_cluster
  exit 0
fi
[ "$command" = start ] || { echo "usage: $0 start|stop DIR [NODES]" >&2; exit 2; }

nodes=${3:-2}
[ "$(id -u)" -eq 0 ] || skip "needs root"
for program in slurmctld slurmd munged srun sinfo; do
  command -v "$program" >/dev/null || PATH=$PATH:/usr/sbin command -v "$program" >/dev/null ||
    skip "$program is not installed (apt-get install slurmctld slurmd slurm-client munge)"
done
export PATH=$PATH:/usr/sbin
[ -d /sys/fs/cgroup/memory ] || [ -f /sys/fs/cgroup/cgroup.controllers ] || skip "no memory cgroup"

mkdir -p "$dir"/{etc,run,log,state,spool,munge}
chmod 0700 "$dir" "$dir/munge"
stop_cluster

# Ports from the folder's name, so two clusters on one machine (two test runs)
# do not collide.
base_port=$((20000 + $(printf '%s' "$dir" | cksum | cut -d' ' -f1) % 20000))
host=$(hostname -s)

dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
chmod 0400 "$dir/munge/munge.key"
munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/munge.socket" \
  --pid-file="$dir/run/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/munge/seed" \
  || skip "munged did not start ($(tail -1 "$dir/log/munged.log" 2>/dev/null))"

memory_mb=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 / 2 / nodes ))
cpus=$(nproc)
node_lines=""
for k in $(seq 1 "$nodes"); do
  node_lines+="NodeName=node$k NodeHostname=$host NodeAddr=127.0.0.1 Port=$((base_port + k)) CPUs=$cpus RealMemory=$memory_mb State=UNKNOWN"$'\n'
done

cat > "$dir/etc/slurm.conf" <<CONF
ClusterName=ftdiag-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$base_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
SlurmdDebug=info
SlurmctldDebug=info
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ProctrackType=proctrack/cgroup
TaskPlugin=task/cgroup
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
SlurmdParameters=config_overrides
KillWait=5
OverTimeLimit=0
InactiveLimit=0
MinJobAge=300
SlurmdTimeout=30
$node_lines
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF

if [ -f /sys/fs/cgroup/cgroup.controllers ]; then cgroup_plugin=cgroup/v2; else cgroup_plugin=cgroup/v1; fi
cat > "$dir/etc/cgroup.conf" <<CONF
CgroupPlugin=$cgroup_plugin
ConstrainRAMSpace=yes
ConstrainSwapSpace=yes
AllowedSwapSpace=0
CONF
chmod 0644 "$dir/etc/slurm.conf" "$dir/etc/cgroup.conf"
export SLURM_CONF=$dir/etc/slurm.conf

slurmctld -f "$SLURM_CONF" -i || skip "slurmctld did not start ($(tail -2 "$dir/log/slurmctld.log"))"
for k in $(seq 1 "$nodes"); do
  slurmd -f "$SLURM_CONF" -N "node$k" || skip "slurmd node$k did not start ($(tail -2 "$dir/log/slurmd-node$k.log"))"
done

# Ready when every node is idle.
for _ in $(seq 100); do
  idle=$(sinfo -h -N -o '%N %t' 2>/dev/null | awk '$2 == "idle"' | wc -l)
  [ "$idle" -ge "$nodes" ] && { echo "SLURM_CONF=$SLURM_CONF"; exit 0; }
  sleep 0.2
done
sinfo -N >&2 || true
tail -5 "$dir"/log/*.log >&2 || true
stop_cluster
skip "the nodes did not come up"
