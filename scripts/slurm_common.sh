# Sourced by scripts/slurm_local.sh and scripts/slurm_replay.sh: what both need to run Slurm
# daemons on this machine and leave nothing behind. Defines wait_for, STARTED (pid files of
# what the sourcing script started), stop_pids (stops them, newest first, by pid file: never
# by name) and start_munge (munged as its own user, when it is not already answering).
# Expects say and fail.

wait_for() { # SECONDS CMD...: poll CMD every 0.1 s until it succeeds
  local n=$(($1 * 10)); shift
  for _ in $(seq "$n"); do "$@" >/dev/null 2>&1 && return 0; sleep 0.1; done
  return 1
}

STARTED=()
stop_pids() {
  local i pid
  for ((i = ${#STARTED[@]} - 1; i >= 0; i--)); do
    pid=$(cat "${STARTED[$i]}" 2>/dev/null || true)
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    fi
  done
  STARTED=()
}

start_munge() {
  munge -n >/dev/null 2>&1 && return 0
  say "starting munged"
  mkdir -p /run/munge && chown munge:munge /run/munge
  chown -R munge:munge /var/log/munge /var/lib/munge /etc/munge
  [ -s /etc/munge/munge.key ] || { /usr/sbin/mungekey --create 2>/dev/null || /usr/sbin/create-munge-key -f; chown munge:munge /etc/munge/munge.key; }
  runuser -u munge -- /usr/sbin/munged
  STARTED+=(/run/munge/munged.pid)
  wait_for 10 munge -n || fail "munged did not come up"
}
