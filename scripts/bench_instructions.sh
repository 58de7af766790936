#!/usr/bin/env bash
# Instructions executed by whole `gridscope simulate` processes, counted by valgrind's
# callgrind: the same count on every run of the same binary, however loaded the machine,
# so a change of a few percent shows where wall and user times on a shared 2-core machine
# jitter by 10-20 %. (It is how the KTH-SP2 EASY headline's slide from 188 to 236 million
# instructions was found and partly taken back, 2026-12-04.) Instructions are not time:
# cache misses and page faults count for nothing here, so confirm a change with the timed
# benchmarks too.
#
#   bash scripts/bench_instructions.sh            # this checkout's release binary
#   BASE=/path/to/old/gridscope bash scripts/bench_instructions.sh   # and the ratio to it
#   CASES=long bash scripts/bench_instructions.sh # also RICC on its nodes (minutes each)
#   BIN=/path/to/gridscope bash scripts/bench_instructions.sh     # another binary than this checkout's
#
# valgrind is installed from Debian's packages when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/time_case.sh
need_debian_package valgrind valgrind
# BIN= counts another binary than this checkout's (which is then not built).
if [ -z "${BIN:-}" ]; then
  cargo build --release --quiet --bin gridscope
fi
bin=${BIN:-$PWD/target/release/gridscope}
traces=../shared/traces
platforms=benches/platforms
cases=(
  "KTH-SP2-1996-2.1-cln.swf.gz --policy easy"
  "KTH-SP2-1996-2.1-cln.swf.gz --policy first-fit"
  "SDSC-BLUE-2000-4.2-cln.swf.gz --policy easy"
  "HPC2N-2002-2.2-cln.swf.gz --platform $platforms/hpc2n.json --policy easy"
  "HPC2N-2002-2.2-cln.swf.gz --platform $platforms/hpc2n.json --policy easy --failures lanl05-wbl"
)
if [ "${CASES:-}" = long ]; then
  cases+=(
    "RICC-2010-2.swf.gz --platform $platforms/ricc.json --policy easy"
    "RICC-2010-2.swf.gz --platform $platforms/ricc.json --policy easy --failures lanl05-wbl"
    "RICC-2010-2.swf.gz --platform $platforms/ricc.json --policy first-fit --failures lanl05-wbl"
  )
fi

# Instructions of one whole process (`Collected` in callgrind's summary), or "error" when
# the process failed (an older binary may not know a case's flags).
count() {
  local out
  out=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null --error-exitcode=0 "$@" 2>&1 > /dev/null) \
    || { echo error; return; }
  echo "$out" | awk '/Collected :/ { gsub(",", "", $NF); print $NF }'
}

# A count in millions, or what `count` said instead.
millions() {
  case $1 in
    error) printf 'error' ;;
    *) awk -v x="$1" 'BEGIN { printf "%.1f M", x / 1e6 }' ;;
  esac
}

if [ -n "${BASE:-}" ]; then
  echo "| case | base | this | ratio |"
  echo "|---|---:|---:|---:|"
else
  echo "| case | instructions |"
  echo "|---|---:|"
fi
for c in "${cases[@]}"; do
  # shellcheck disable=SC2086 # a case is its words
  set -- $c
  trace=$1
  shift
  this=$(count "$bin" simulate "$traces/$trace" "$@")
  name="${trace%%.swf.gz} $*"
  if [ -n "${BASE:-}" ]; then
    base=$(count "$BASE" simulate "$traces/$trace" "$@")
    ratio=—
    if [ "$base" != error ] && [ "$this" != error ]; then
      ratio=$(awk -v a="$base" -v b="$this" 'BEGIN { printf "%.3f", b / a }')
    fi
    echo "| $name | $(millions "$base") | $(millions "$this") | $ratio |"
  else
    echo "| $name | $(millions "$this") |"
  fi
done
