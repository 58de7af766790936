#!/usr/bin/env bash
# Sourced by scripts/slurm_test.sh and scripts/bench_cluster.sh: a one-node Slurm on this
# machine for cluster sweeps (docs/cluster.md). Installs Debian's slurm-wlm and munge when
# missing; starts munged, slurmctld and slurmd only when they are not already up (state under
# target/slurm-local, the config in /etc/slurm/slurm.conf, restored on exit) and stops what it
# started, by pid file, when the sourcing script exits (never by name). Needs root.
# Expects ROOT (the repository); defines D, say and fail.
D=$ROOT/target/slurm-local
CONF=/etc/slurm/slurm.conf
say() { printf '\033[1m%s:\033[0m %s\n' "$(basename "$0" .sh)" "$*"; }
fail() { say "FAIL: $*"; exit 1; }

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null; then
  say "installing Debian slurm-wlm and munge"
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends slurm-wlm munge
fi
[ "$(id -u)" = 0 ] || fail "run as root: it starts the Slurm daemons"

mkdir -p "$D/state" "$D/spool"
source "$ROOT/scripts/slurm_common.sh"
stop_started() {
  stop_pids
  if [ -f "$D/slurm.conf.before" ]; then mv "$D/slurm.conf.before" "$CONF"; fi
  if [ -f "$D/slurm.conf.ours" ]; then rm -f "$CONF" "$D/slurm.conf.ours"; fi
}
trap stop_started EXIT

start_munge

if ! scontrol ping 2>/dev/null | grep -q UP; then
  say "starting slurmctld and slurmd (state in $D)"
  H=$(hostname -s)
  if [ -f "$CONF" ]; then cp "$CONF" "$D/slurm.conf.before"; else touch "$D/slurm.conf.ours"; fi
  mkdir -p /etc/slurm
  cat > "$CONF" <<CONF
ClusterName=local
SlurmctldHost=$H
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmUser=root
ReturnToService=2
MinJobAge=600
NodeName=$H CPUs=$(nproc) State=UNKNOWN
PartitionName=debug Nodes=$H Default=YES MaxTime=INFINITE State=UP
CONF
  slurmctld
  STARTED+=("$D/slurmctld.pid")
  slurmd
  STARTED+=("$D/slurmd.pid")
fi
for i in $(seq 120); do
  sinfo -h -o %T 2>/dev/null | grep -qx idle && break
  [ "$i" = 120 ] && fail "the node never became idle: $(sinfo 2>&1 | tail -2)"
  sleep 0.5
done
say "Slurm is up: $(sinfo -h -o '%P %D %T %c' | head -1)"

# The state of job ID (the first element's for an array), empty once Slurm forgot it.
state() { scontrol show job -o "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | head -1 | cut -d= -f2; }
wait_done() { # JOB [SECONDS]: until no element of JOB is pending or running
  local i
  for i in $(seq "$((${2:-300} * 5))"); do
    squeue -h -j "$1" 2>/dev/null | grep -q . || return 0
    sleep 0.2
  done
  fail "job $1 still queued after ${2:-300} s: $(squeue -j "$1")"
}
