#!/usr/bin/env bash
# Time per job on nodes at scale (issue #37's goal: flat from 10^5 to 10^6 jobs): the
# Lublin–Feitelson model (seed 1, jobs up to 1,024 processors, arrivals 5× the model's:
# offered load about 0.65) on one site of 1,024 nodes × 8 cores × 12 GB, 30 % of the jobs
# asking 2 GB per processor, placed on nodes by first fit, one policy per process
# (--threads 1), whole process (generation + simulation + checks + report), user CPU
# seconds. Optional arguments: job counts (default: 100000 1000000). Prints a Markdown table.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet --bin gridscope
bin=target/release/gridscope
counts=("$@")
[ ${#counts[@]} -gt 0 ] || counts=(100000 1000000)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "| jobs | policy | user s | µs / job | peak RSS MB |"
echo "|---:|---|---:|---:|---:|"
for n in "${counts[@]}"; do
  for policy in fcfs easy sjf firstfit conservative; do
    cat > "$tmp/s.json" <<JSON
{"version":7,"name":"lublin-nodes","platform":{"kind":"sites","name":"c","sites":[{"name":"c","nodes":1024,"cpus_per_node":8,"node_types":[{"name":"n","count":1024,"cores":8,"mem_kb":12582912}]}]},"workload":{"kind":"lublin","jobs":$n,"nodes":1024,"load_factor":5,"mem_share":0.3,"mem_kb_per_proc":2097152},"algorithms":[{"local":"$policy"}],"seed":1}
JSON
    /usr/bin/time -f "%U %M" -o "$tmp/t" "$bin" run "$tmp/s.json" --threads 1 > /dev/null
    read -r user kb < "$tmp/t"
    awk -v n="$n" -v p="$policy" -v u="$user" -v kb="$kb" 'BEGIN {
      printf "| %d | %s | %.2f | %.2f | %.0f |\n", n, p, u, u * 1e6 / n, kb / 1024 }'
  done
done
