#!/usr/bin/env bash
# What a failure model costs (issue #41: at most 20 % of the run): HPC2N-2002 and RICC-2010-2
# on their nodes (benches/platforms/*.json) under FCFS, EASY and first-fit, without
# failures, with `--failures lanl05-wbl` and with `--checkpoint young` too. Each cell is the
# least user CPU time of REPEAT runs (default 3) of the whole process `gridscope simulate
# TRACE --platform FILE --policy P [...] --json` (user time, since wall time follows the
# machine's load), and the ratio to the run without failures, as a Markdown table.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/time_case.sh
cargo build --release --quiet --bin gridscope
bin=$PWD/target/release/gridscope
repeat=${REPEAT:-3}

# The least user seconds of `repeat` runs of the command given (`least_times`, time_case.sh).
least_user() {
  least_times "$repeat" "$@" | awk '{ print $2 }'
}

echo "| trace, policy | no failures | \`lanl05-wbl\` | with \`--checkpoint young\` |"
echo "|---|---:|---:|---:|"
for pair in HPC2N-2002-2.2-cln:hpc2n RICC-2010-2:ricc; do
  trace=../shared/traces/${pair%%:*}.swf.gz
  platform=benches/platforms/${pair##*:}.json
  for p in fcfs easy firstfit; do
    run=("$bin" simulate "$trace" --platform "$platform" --policy "$p" --json)
    base=$(least_user "${run[@]}")
    fail=$(least_user "${run[@]}" --failures lanl05-wbl)
    young=$(least_user "${run[@]}" --failures lanl05-wbl --checkpoint young)
    cell() { awk -v t="$1" -v b="$base" 'BEGIN { printf "%.2f s (%.2f×)", t, (b > 0) ? t / b : 0 }'; }
    echo "| ${pair%%:*}, $p | ${base} s | $(cell "$fail") | $(cell "$young") |"
  done
done
