#!/usr/bin/env bash
# Cluster sweeps on a real Slurm (issue #26, docs/cluster.md): a one-node Slurm on this
# machine runs a 40-case sweep as a 4-task job array with the merge chained after it, and
# the merged tables must equal, byte for byte, one process's `sweep run --shard 0/1` +
# merge. Then the resume test: one array element is cancelled mid-way, the merge never runs
# (afterok), the sweep is resubmitted and completes without running any finished case
# again (the result files' mtimes and the run logs say so).
#
# Installs Debian's slurm-wlm and munge when missing; starts munged, slurmctld and slurmd
# only when they are not already up (the recipe below, state under target/slurm-local) and
# stops what it started, by pid, on exit. Needs root (the daemons, apt-get). About a minute.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
D=$ROOT/target/slurm-local
W=$D/work
G=$ROOT/target/release/gridscope
TRACES=$(realpath "${GRIDSCOPE_TRACES:-$ROOT/../shared/traces}")
CONF=/etc/slurm/slurm.conf
say() { printf '\033[1mslurm_test:\033[0m %s\n' "$*"; }
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
STARTED=()   # pid files of what this script started, stopped in reverse order on exit
stop_started() {
  local i pid
  for ((i = ${#STARTED[@]} - 1; i >= 0; i--)); do
    pid=$(cat "${STARTED[$i]}" 2>/dev/null || true)
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    fi
  done
  if [ -f "$D/slurm.conf.before" ]; then mv "$D/slurm.conf.before" "$CONF"; fi
  if [ -f "$D/slurm.conf.ours" ]; then rm -f "$CONF" "$D/slurm.conf.ours"; fi
}
trap stop_started EXIT

# munge: its daemon must run as its own user.
if ! munge -n >/dev/null 2>&1; then
  say "starting munged"
  mkdir -p /run/munge && chown munge:munge /run/munge
  chown -R munge:munge /var/log/munge /var/lib/munge /etc/munge
  [ -s /etc/munge/munge.key ] || { /usr/sbin/mungekey --create 2>/dev/null || /usr/sbin/create-munge-key -f; chown munge:munge /etc/munge/munge.key; }
  runuser -u munge -- /usr/sbin/munged
  STARTED+=(/run/munge/munged.pid)
  for _ in $(seq 50); do munge -n >/dev/null 2>&1 && break; sleep 0.1; done
fi

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

cargo build --release --bin gridscope -q

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
same_tables() { # DIR_A DIR_B
  for f in cases.csv points.csv merged.json; do
    cmp "$1/merged/$f" "$2/merged/$f" || fail "$2/merged/$f differs from $1/merged/$f"
  done
}

rm -rf "$W" && mkdir -p "$W"
# 40 cases: conservative backfilling (the costliest policy, ~0.1-0.4 s a case) over four
# shared traces × 10 seeds; the seeds change nothing for a trace, the medians still come out.
cat > "$W/sweep.json" <<JSON
{
  "name": "slurm test: conservative x 4 traces x 10 seeds",
  "base": { "scenario": { "platform": { "kind": "from_trace" },
                          "workload": { "kind": "swf", "file": "" },
                          "algorithms": [ { "local": "conservative" } ] } },
  "axes": [
    { "name": "trace", "path": "workload.file",
      "values": [ "$TRACES/CTC-SP2-1996-3.1-cln.swf.gz", "$TRACES/SDSC-DS-2004-2.1-cln.swf.gz",
                  "$TRACES/LANL-CM5-1994-4.1-cln.swf.gz", "$TRACES/SDSC-SP2-1998-4.2-cln.swf.gz" ] },
    { "path": "seed", "range": { "from": 1, "to": 10 } }
  ]
}
JSON

say "reference: one process, --shard 0/1"
"$G" sweep plan "$W/sweep.json" --out "$W/one" | head -1
"$G" sweep run "$W/one" --shard 0/1
"$G" sweep merge "$W/one"

say "a 4-task array and the merge chained after it"
"$G" sweep plan "$W/sweep.json" --out "$W/array" >/dev/null
ids=$("$G" sweep slurm "$W/array" --tasks 4 --submit)
read -r _ array _ merge <<<"$ids"
say "submitted: $ids"
wait_done "$array"
wait_done "$merge"
[ "$(state "$merge")" = COMPLETED ] || fail "merge job $merge: $(state "$merge"); $(cat "$W"/array/slurm/logs/merge-*.out 2>/dev/null)"
same_tables "$W/one" "$W/array"
say "the array's merged tables equal the single process's, byte for byte"

say "resume: one element cancelled mid-way, then the sweep resubmitted"
"$G" sweep plan "$W/sweep.json" --out "$W/resume" >/dev/null
# One task at a time, so element 3 runs alone and its progress is easy to catch.
ids=$("$G" sweep slurm "$W/resume" --tasks 4 --max-parallel 1 --submit)
read -r _ array _ merge <<<"$ids"
for i in $(seq 1500); do
  log=$(grep -l 'start shard 3/4' "$W"/resume/log/*.log 2>/dev/null | head -1 || true)
  if [ -n "$log" ] && [ "$(grep -c '^case ' "$log")" -ge 2 ]; then break; fi
  [ "$i" = 1500 ] && fail "element 3 never got going"
  sleep 0.05
done
scancel "${array}_3"
wait_done "$array"
grep -q '^end shard 3/4' "$log" && fail "element 3 finished before it was cancelled (cases too fast?)"
sleep 1
mstate=$(state "$merge")
[ "$mstate" = PENDING ] || [ "$mstate" = CANCELLED ] || fail "the merge job is $mstate after a failed array (afterok should hold it)"
scancel "$merge" 2>/dev/null || true
"$G" sweep status "$W/resume"
done_before=$(find "$W/resume/results" -name '*.result' | wc -l)
[ "$done_before" -lt 40 ] || fail "every case is done: nothing was cancelled"
find "$W/resume/results" -name '*.result' -printf '%f %T@\n' | sort > "$W/before.txt"
ids=$("$G" sweep slurm "$W/resume" --tasks 4 --submit)
read -r _ array _ merge <<<"$ids"
wait_done "$array"
wait_done "$merge"
[ "$(state "$merge")" = COMPLETED ] || fail "resubmitted merge $merge: $(state "$merge")"
find "$W/resume/results" -name '*.result' -printf '%f %T@\n' | sort > "$W/after.txt"
changed=$(join "$W/before.txt" "$W/after.txt" | awk '$2 != $3' | wc -l)
[ "$changed" = 0 ] || fail "$changed finished results were written again"
runs=$(cat "$W"/resume/log/*.log | grep -c '^case ')
[ "$runs" = 40 ] || fail "$runs case runs in the logs for 40 cases: some case ran twice"
same_tables "$W/one" "$W/resume"
say "resumed: $done_before cases done before, $((40 - done_before)) run after, none twice; merged tables identical"
say "PASS"
