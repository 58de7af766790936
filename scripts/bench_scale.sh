#!/usr/bin/env bash
# Time per job and bytes per job from 10^4 to 5·10^6 jobs: the Lublin–Feitelson model
# (128 nodes, the paper's parameters, seed 1) under each local policy, one run per process
# (--threads 1), whole process (generation + simulation + report). Prints a Markdown table.
# Optional arguments: job counts (default: 10000 100000 1000000 5000000). With SVG=FILE it
# also draws time per job against jobs on log-log axes into FILE (the README's
# docs/scaling.svg: `SVG=docs/scaling.svg bash scripts/bench_scale.sh`).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet --bin gridscope
bin=target/release/gridscope
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(10000 100000 1000000 5000000)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "| jobs | policy | wall s | µs / job | peak RSS MB | bytes / job |"
echo "|---:|---|---:|---:|---:|---:|"
# The model's estimates are exact, so nothing ends early and conservative never
# compresses; `@est2` runs conservative (compression) and conservative-rebuild with every
# estimate twice the run time, so every job ends early.
for n in "${counts[@]}"; do
  for case in fcfs easy conservative sjf firstfit conservative@est2 conservative-rebuild@est2; do
    policy=${case%@*}
    factor=1.0
    [ "$case" = "$policy" ] || factor=2.0
    cat > "$tmp/s.json" <<JSON
{"platform":{"kind":"from_trace","procs":128},"workload":{"kind":"lublin","jobs":$n,"estimate_factor":$factor},"algorithms":[{"local":"$policy"}],"seed":1}
JSON
    start=$(date +%s%N)
    /usr/bin/time -f "%M" -o "$tmp/t" "$bin" run "$tmp/s.json" --threads 1 > /dev/null
    end=$(date +%s%N)
    wall=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", (b - a) / 1e9 }')
    read -r kb < "$tmp/t"
    awk -v n="$n" -v p="$case" -v w="$wall" -v kb="$kb" 'BEGIN {
      printf "| %d | %s | %.3f | %.2f | %.0f | %.0f |\n", n, p, w, w * 1e6 / n, kb / 1024, kb * 1024 / n }'
    awk -v n="$n" -v p="$case" -v w="$wall" 'BEGIN { printf "%d %s %.4f\n", n, p, w * 1e6 / n }' >> "$tmp/points"
  done
done
if [ -n "${SVG:-}" ]; then
  awk -f scripts/plot_loglog.awk "$tmp/points" > "$SVG"
  echo "plot: $SVG"
fi
