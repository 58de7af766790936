#!/usr/bin/env bash
# Jobs on nodes (issue #37): every policy that places on nodes, on the two shared traces that
# state memory, on their machines' nodes (benches/platforms/*.json, AccaSim's configuration
# format): HPC2N-2002 on 120 nodes × 2 cores × 1 GB, RICC-2010-2 on 1,024 nodes × 8 cores
# × 12 GB. Whole-process wall time of `gridscope simulate TRACE --platform FILE --policy P
# --placement first-fit|best-fit --json`, one process per case, as a Markdown table (a row
# per trace and placement); a case over TRACE_LIMIT seconds
# (default 120) shows "> limit".
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/time_case.sh
cargo build --release --quiet --bin gridscope
bin=$PWD/target/release/gridscope
limit=${TRACE_LIMIT:-120}
policies="fcfs easy conservative sjf firstfit slurm"
echo "| trace | platform | $(echo $policies | sed 's/ / | /g') |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
for pair in HPC2N-2002-2.2-cln:hpc2n RICC-2010-2:ricc; do
  trace=../shared/traces/${pair%%:*}.swf.gz
  platform=benches/platforms/${pair##*:}.json
  # First fit (the default), then best fit (--placement best-fit, docs/nodes.md).
  for placement in first-fit best-fit; do
    row="| ${pair%%:*} | ${pair##*:}, $placement |"
    for p in $policies; do
      row="$row $(time_case "$limit" "$bin" simulate "$trace" --platform "$platform" --policy "$p" --placement "$placement" --json) |"
    done
    echo "$row"
  done
done
