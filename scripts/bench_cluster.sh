#!/usr/bin/env bash
# The 1,000-case sweep of docs/cluster.md: 5 local policies × 20 shared traces × 10 seeds,
# planned, run by one `sweep run --shard 0/1` process + merge, then as a Slurm array of
# TASKS tasks (default 8, one CPU each) with the chained merge on the local one-node Slurm
# (scripts/slurm_local.sh). Prints each wall time and the array's overhead against the one
# process. Needs root; a few minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
TASKS=${TASKS:-8}
W=$ROOT/target/slurm-local/bench
G=$ROOT/target/release/gridscope
TRACES=$(realpath "${GRIDSCOPE_TRACES:-$ROOT/../shared/traces}")
source scripts/slurm_local.sh
cargo build --release --bin gridscope -q
rm -rf "$W" && mkdir -p "$W"

# Every shared trace but the five slowest under conservative backfilling (RICC-2010-2:
# 45 s for the five policies, METACENTRUM: 4 s, CEA-Curie, SDSC-BLUE) and alea-wagap
# (not SWF).
list=""
for t in CTC-SP2-1996-3.1-cln DAS2-fs1-2003-1 HPC2N-2002-2.2-cln KTH-SP2-1996-2.1-cln \
  LANL-CM5-1994-4.1-cln LCG LLNL-Atlas-2006-2.1-cln LLNL-Thunder-2007-1.1-cln \
  LPC-EGEE-2004-1.2-cln NASA-iPSC-1993-3.1-cln NASA-iPSC-1993-3 OSC-Clust-2000-3.1-cln \
  SDSC-DS-2004-2.1-cln SDSC-Par-1996-3.1-cln SDSC-SP2-1998-4.2-cln Sandia-Ross-2001-1.1-cln \
  alea-hpc2n lublin-aaroh lublin_256 lublin_256_new2; do
  list="$list${list:+, }\"$TRACES/$t.swf.gz\""
done
cat > "$W/sweep.json" <<JSON
{
  "name": "5 policies x 20 traces x 10 seeds",
  "base": { "scenario": { "platform": { "kind": "from_trace" },
                          "workload": { "kind": "swf", "file": "" },
                          "algorithms": [ { "local": "easy" } ] } },
  "axes": [
    { "name": "policy", "path": "algorithms[0].local",
      "values": ["fcfs", "easy", "conservative", "sjf", "firstfit"] },
    { "name": "trace", "path": "workload.file", "values": [ $list ] },
    { "path": "seed", "range": { "from": 1, "to": 10 } }
  ]
}
JSON
now() { date +%s.%N; }
secs() { echo "$1 $2" | awk '{ printf "%.1f", $2 - $1 }'; }

t0=$(now); "$G" sweep plan "$W/sweep.json" --out "$W/one" | head -1; t1=$(now)
say "plan: $(secs "$t0" "$t1") s"
t0=$(now); "$G" sweep run "$W/one" --shard 0/1; t1=$(now)
"$G" sweep merge "$W/one" >/dev/null; t2=$(now)
one_run=$(secs "$t0" "$t1"); one_all=$(secs "$t0" "$t2")
say "one process: run $one_run s, run + merge $one_all s"

"$G" sweep plan "$W/sweep.json" --out "$W/array" >/dev/null
t0=$(now)
ids=$("$G" sweep slurm "$W/array" --tasks "$TASKS" --submit)
read -r _ array _ merge <<<"$ids"
wait_done "$array" 1200; t1=$(now)
wait_done "$merge" 600; t2=$(now)
[ "$(state "$merge")" = COMPLETED ] || fail "merge job $merge: $(state "$merge")"
for f in cases.csv points.csv merged.json; do
  cmp "$W/one/merged/$f" "$W/array/merged/$f" || fail "$f differs"
done
arr_run=$(secs "$t0" "$t1"); arr_all=$(secs "$t0" "$t2")
say "array of $TASKS tasks: submit to last task $arr_run s, to merged $arr_all s (tables identical)"
grep -h '^end shard' "$W"/array/log/*.log | sort -k3 -n | awk '{ print "  " $0 }'
busy() { cat "$1"/log/*.log | awk '/^case / { s += $5 } END { printf "%.1f", s }'; }
say "time inside cases (sum over cases): one process $(busy "$W/one") s, array $(busy "$W/array") s"
echo "$one_all $arr_all" | awk '{ printf "overhead of the array (submit to merged) against one process (run + merge): %+.1f %%\n", 100 * ($2 - $1) / $1 }'
