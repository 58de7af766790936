#!/usr/bin/env bash
# The headline: whole-process wall time of `gridscope simulate KTH-SP2 --policy easy` (gzip
# inflate, SWF parse, simulation, invariant check, metrics, report), next to `lint` alone
# (inflate + parse) and `--version` (process start), as the median and minimum of RUNS runs
# (default 41) after 5 warm-ups, timed by hyperfine without a shell (installed from Debian's
# packages when missing). Whole-process times on a shared VM jitter by a few ms: read the
# median. Optional argument: another shared trace's file name.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/time_case.sh
need_debian_package hyperfine hyperfine
cargo build --release --quiet --bin gridscope
bin=$PWD/target/release/gridscope
trace=../shared/traces/${1:-KTH-SP2-1996-2.1-cln.swf.gz}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
hyperfine -N -w 5 -r "${RUNS:-41}" --export-json "$out" \
  -n "simulate --policy easy" "$bin simulate $trace --policy easy" \
  -n "lint (inflate + parse)" "$bin lint $trace" \
  -n "process start (--version)" "$bin --version" > /dev/null
echo "# $(basename "$trace"), whole process"
python3 - "$out" <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    print(f"{r['command']:<28} median {r['median'] * 1e3:6.1f} ms   min {r['min'] * 1e3:6.1f} ms   ({len(r['times'])} runs)")
PY
