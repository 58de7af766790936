#!/usr/bin/env bash
# What the energy accounting costs (issue #40's goal: at most 10 % of a run): EASY on
# HPC2N-2002's 120 nodes and RICC-2010-2's 1,024, with no power model, with Batsim's
# cluster_energy_128 model on every node (always on: same schedule, so the difference is the
# accounting), and with idle nodes switched off after 600 s (the issue's other goal: RICC in
# under 2 s). Whole process, least of RUNS (default 5) runs per case, wall and CPU time, as
# a Markdown table with the accounting's share of the always-on run.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/time_case.sh
cargo build --release --quiet --bin gridscope
bin=$PWD/target/release/gridscope
runs=${RUNS:-5}
# Least wall time and least CPU time (user + system) of `runs` runs, as "WALL CPU"
# (`least_times`, time_case.sh). The report's energy and resource accounts run side by side
# on a second thread when there is one, so the wall time can hide what the CPU time shows:
# both are given.
least() {
  least_times "$runs" "$@" | awk '{ print $1, $3 }'
}
share() {
  awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f %%", 100 * (b - a) / b }'
}
echo "| EASY | no power model (wall, CPU) | always on (wall, CPU) | accounting (wall, CPU) | off after 600 s (wall, CPU) |"
echo "|---|---:|---:|---:|---:|"
for pair in HPC2N-2002-2.2-cln:hpc2n RICC-2010-2:ricc; do
  case=("$bin" simulate "../shared/traces/${pair%%:*}.swf.gz" --platform "benches/platforms/${pair##*:}.json" --policy easy)
  read -r none_w none_c < <(least "${case[@]}")
  read -r on_w on_c < <(least "${case[@]}" --power batsim-cluster-energy-128)
  read -r off_w off_c < <(least "${case[@]}" --power batsim-cluster-energy-128 --power-off-after 600)
  echo "| ${pair%%:*} | $none_w s, $none_c s | $on_w s, $on_c s | $(share "$none_w" "$on_w"), $(share "$none_c" "$on_c") | $off_w s, $off_c s |"
done
