# Sourced by the whole-process benchmarks (bench_traces.sh, bench_nodes.sh, bench_energy.sh,
# bench_failures.sh, bench_headline.sh, bench_instructions.sh): `time_case LIMIT CMD...`
# runs CMD (its output dropped) and prints its wall time as a table cell, "> LIMIT s" when
# it ran over LIMIT seconds, or "error"; `least_times RUNS CMD...` runs CMD RUNS times and
# prints its least wall, user and CPU (user + system) seconds, each the least of its own;
# `need_debian_package CMD PACKAGE` installs PACKAGE from Debian's packages when CMD is
# missing (a benchmark's own tool: hyperfine, valgrind).
need_debian_package() {
  command -v "$1" > /dev/null && return
  local sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "$2" > /dev/null \
    || { $sudo apt-get update -q > /dev/null && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "$2" > /dev/null; }
}

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

least_times() {
  local runs=$1 best="" times
  shift
  times=$(mktemp)
  for _ in $(seq "$runs"); do
    /usr/bin/time -o "$times" -f "%e %U %S" "$@" > /dev/null 2>&1
    # This run's wall, user and CPU seconds against the least so far, field by field.
    best=$(tail -1 "$times" | awk -v best="$best" '{
      n = split(best, b, " "); w = $1 + 0; u = $2 + 0; c = $2 + $3
      if (n == 3) { if (b[1] + 0 < w) w = b[1] + 0; if (b[2] + 0 < u) u = b[2] + 0; if (b[3] + 0 < c) c = b[3] + 0 }
      printf "%.2f %.2f %.2f\n", w, u, c
    }')
  done
  rm -f "$times"
  echo "$best"
}
