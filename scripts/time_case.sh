# Sourced by the whole-process benchmarks (bench_traces.sh, bench_nodes.sh): `time_case
# LIMIT CMD...` runs CMD (its output dropped) and prints its wall time as a table cell,
# "> LIMIT s" when it ran over LIMIT seconds, or "error".
time_case() {
  local limit=$1 start end rc=0
  shift
  start=$(date +%s%N)
  timeout "$limit" "$@" > /dev/null 2>&1 || rc=$?
  end=$(date +%s%N)
  case $rc in
    0) awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f s", (b - a) / 1e9 }' ;;
    124) printf '> %s s' "$limit" ;;
    *) printf 'error' ;;
  esac
}
