#!/usr/bin/env bash
# Every local policy on every shared trace: whole-process wall time of
# `gridscope simulate TRACE --policy P --json`, one process per case, as a Markdown table.
# A case over the time limit (TRACE_LIMIT seconds, default 30) shows "> limit"; a file that
# is not SWF shows the error. Optional argument: a substring of the trace names.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/time_case.sh
cargo build --release --quiet --bin gridscope
bin=$PWD/target/release/gridscope
limit=${TRACE_LIMIT:-30}
traces=$(cd ../shared/traces && ls ./*.swf.gz | sed 's|^\./||' | grep -F -- "${1:-}" || true)
echo "| trace | jobs | fcfs | easy | conservative | sjf | firstfit |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for f in $traces; do
  path=../shared/traces/$f
  jobs=$("$bin" lint "$path" --json 2>/dev/null | sed -n 's/^  "jobs": \([0-9]*\),$/\1/p')
  row="| ${f%.swf.gz} | ${jobs:-?} |"
  for p in fcfs easy conservative sjf firstfit; do
    row="$row $(time_case "$limit" "$bin" simulate "$path" --policy "$p" --json) |"
  done
  echo "$row"
done
