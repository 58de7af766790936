#!/usr/bin/env bash
# What the energy accounting costs (issue #40's goal: at most 10 % of a run): EASY on
# HPC2N-2002's 120 nodes and RICC-2010-2's 1,024, with no power model, with Batsim's
# cluster_energy_128 model on every node (always on: same schedule, so the difference is the
# accounting), and with idle nodes switched off after 600 s (the issue's other goal: RICC in
# under 2 s). Whole-process wall time, least of RUNS (default 5) runs per case, as a
# Markdown table with the accounting's share of the always-on run.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet --bin gridscope
bin=$PWD/target/release/gridscope
runs=${RUNS:-5}
least() {
  local best="" t start end
  for _ in $(seq "$runs"); do
    start=$(date +%s%N)
    "$@" > /dev/null 2>&1
    end=$(date +%s%N)
    t=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')
    best=$(awk -v a="$t" -v b="${best:-$t}" 'BEGIN { print (a < b) ? a : b }')
  done
  echo "$best"
}
echo "| EASY | no power model | always on | accounting | off after 600 s |"
echo "|---|---:|---:|---:|---:|"
for pair in HPC2N-2002-2.2-cln:hpc2n RICC-2010-2:ricc; do
  case=("$bin" simulate "../shared/traces/${pair%%:*}.swf.gz" --platform "benches/platforms/${pair##*:}.json" --policy easy)
  none=$(least "${case[@]}")
  on=$(least "${case[@]}" --power batsim-cluster-energy-128)
  off=$(least "${case[@]}" --power batsim-cluster-energy-128 --power-off-after 600)
  share=$(awk -v a="$none" -v b="$on" 'BEGIN { printf "%.0f %%", 100 * (b - a) / b }')
  echo "| ${pair%%:*} | $none s | $on s | $share | $off s |"
done
