#!/usr/bin/env bash
# Cluster sweeps on a real Slurm (issue #26, docs/cluster.md): a one-node Slurm on this
# machine runs a 40-case sweep as a 4-task job array with the merge chained after it, and
# the merged tables must equal, byte for byte, one process's `sweep run --shard 0/1` +
# merge. Then the resume test: one array element is cancelled mid-way, the merge never runs
# (afterok), the sweep is resubmitted and completes without running any finished case
# again (the result files' mtimes and the run logs say so).
#
# The Slurm comes from scripts/slurm_local.sh: installed when missing, started only when not
# up, stopped by pid on exit. Needs root (the daemons, apt-get). About a minute.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
W=$ROOT/target/slurm-local/work
G=$ROOT/target/release/gridscope
TRACES=$(realpath "${GRIDSCOPE_TRACES:-$ROOT/../shared/traces}")

source scripts/slurm_local.sh

cargo build --release --bin gridscope -q

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
