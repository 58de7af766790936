#!/usr/bin/env bash
# Issue #42's check against a real slurmctld (docs/slurm.md "Against a real slurmctld"):
# a private Slurm 22.05 with slurmdbd accounting (MariaDB), multifactor priority with
# classic fair share and backfill at 1-s intervals, replays tests/slurm/replay_workload.txt
# (sleep jobs of seconds: three users with shares, two partitions, 16-CPU jobs the backfill
# must go around). Its own sacct log, slurm.conf and association dump then go, unchanged,
# to `gridscope simulate --policy slurm --slurm-conf --slurm-assoc --vs-log --jobs`, and
# scripts/slurm_replay_compare.py sets every job's simulated start against Slurm's.
#
# Usage (root): bash scripts/slurm_replay.sh [RUNS] [classic|fair-tree|accounts|job-accounts|qos]
#   (default 1 run of classic fair share, PriorityFlags=NO_FAIR_TREE; fair-tree leaves the
#   flag out, so Slurm ranks users by Fair Tree, its default; accounts is Fair Tree with
#   alice and bob under account phys and carol under chem; job-accounts puts alice in chem
#   too and submits her even-numbered jobs (a2, a4, …, WIDE3 not) with --account=chem, so
#   that her two associations have their own usage; qos weighs QOS and partition
#   alone, under two QOS with limits: normal with MaxJobsPU=2, and high, Priority 100 and
#   GrpTRES=cpu=8, for carol's jobs of 8 CPUs or fewer; ~3.5 min a run)
# Slurm may start a job up to 6 s after the simulation (its 1-s scheduler loops, inherited
# along chains of jobs) and up to 2 s before it (sacct's whole seconds); two jobs may not
# start in opposite orders more than 3 s apart (scripts/slurm_replay_compare.py).
# Everything lives in target/slurm-replay: the configuration (SLURM_CONF points there;
# /etc/slurm is never written), the database, state, logs and each run's outputs. Installs
# slurm-wlm, slurmdbd, munge and mariadb-server when missing; creates the users alice, bob
# and carol when missing; stops what it started, by pid file, on exit (never by name).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
R=$ROOT/target/slurm-replay
E=$R/etc
D=$R/run
WL=$ROOT/tests/slurm/replay_workload.txt
G=$ROOT/target/release/gridscope
RUNS=${1:-1}
FAIRSHARE=${2:-classic}
# Fair share and age weighed (priorities change at the ticks), or QOS and partition alone.
WEIGHTS="PriorityWeightAge=1000
PriorityWeightFairshare=10000
PriorityWeightPartition=1000"
ENFORCE=associations
case "$FAIRSHARE" in
  classic) FLAGS="PriorityFlags=NO_FAIR_TREE" ;;
  fair-tree|accounts|job-accounts) FLAGS="# PriorityFlags: none, so Fair Tree" ;;
  qos)
    FLAGS="PriorityFlags=NO_FAIR_TREE"
    WEIGHTS="PriorityWeightPartition=1000
PriorityWeightQOS=10000"
    ENFORCE=associations,limits,qos ;;
  *) echo "slurm_replay: mode '$FAIRSHARE': classic, fair-tree, accounts, job-accounts or qos" >&2; exit 2 ;;
esac
export SLURM_CONF=$E/slurm.conf
H=$(hostname -s)
say() { printf '\033[1m%s:\033[0m %s\n' "slurm_replay" "$*"; }
fail() { say "FAIL: $*"; exit 1; }
now() { date +%s.%N; }

[ "$(id -u)" = 0 ] || fail "run as root: it starts the Slurm daemons and MariaDB"
missing=()
command -v slurmctld >/dev/null || missing+=(slurm-wlm)
command -v munged >/dev/null || missing+=(munge)
command -v slurmdbd >/dev/null || missing+=(slurmdbd)
command -v mariadbd >/dev/null || missing+=(mariadb-server)
if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
for u in alice bob carol; do id "$u" >/dev/null 2>&1 || useradd -M -s /bin/bash "$u"; done
cargo build --release --bin gridscope -q

mkdir -p "$E" "$D"
source scripts/slurm_common.sh   # wait_for, STARTED, stop_pids, start_munge
trap stop_pids EXIT

# A fresh private MariaDB (port 3307, socket under run/) for each run: no usage carried over.
start_mariadb() {
  local M=$D/mysql
  rm -rf "$M" && mkdir -p "$M" && chown mysql:mysql "$M"
  mariadb-install-db --user=mysql --datadir="$M/data" --auth-root-authentication-method=socket \
    --skip-test-db >"$M/install.log" 2>&1 || { cat "$M/install.log"; fail "mariadb-install-db"; }
  # mariadbd does not daemonize: setsid and redirections keep it off this script's pipes.
  setsid runuser -u mysql -- /usr/sbin/mariadbd --no-defaults --datadir="$M/data" --socket="$M/sock" \
    --pid-file="$M/mariadbd.pid" --port=3307 --bind-address=127.0.0.1 \
    --innodb-buffer-pool-size=256M --innodb-lock-wait-timeout=900 \
    --log-error="$M/error.log" </dev/null >>"$M/stdout.log" 2>&1 &
  wait_for 60 test -s "$M/mariadbd.pid" || { tail "$M/error.log"; fail "mariadbd wrote no pid file"; }
  STARTED+=("$M/mariadbd.pid")
  wait_for 60 mariadb --socket="$M/sock" -e 'select 1' || { tail "$M/error.log"; fail "mariadbd"; }
  mariadb --socket="$M/sock" -e "CREATE USER IF NOT EXISTS 'slurm'@'127.0.0.1' IDENTIFIED BY 'slurmpw';
    GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1'; FLUSH PRIVILEGES;"
}

start_slurmdbd() {
  cat > "$E/slurmdbd.conf" <<EOF
AuthType=auth/munge
DbdHost=localhost
DbdPort=6919
SlurmUser=root
PidFile=$D/slurmdbd.pid
LogFile=$D/slurmdbd.log
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=3307
StorageLoc=slurm_acct_db
StorageUser=slurm
StoragePass=slurmpw
EOF
  chmod 600 "$E/slurmdbd.conf"
  slurmdbd
  wait_for 10 test -s "$D/slurmdbd.pid" || { tail "$D/slurmdbd.log"; fail "slurmdbd wrote no pid file"; }
  STARTED+=("$D/slurmdbd.pid")
  wait_for 60 sacctmgr -n list cluster || { tail "$D/slurmdbd.log"; fail "slurmdbd not answering"; }
}

# The configuration gridscope reads back unchanged (the keys it does not model are listed).
write_conf() {
  cat > "$SLURM_CONF" <<EOF
ClusterName=gsreplay
SlurmctldHost=$H
SlurmctldPort=6917
SlurmdPort=6918
AuthType=auth/munge
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1,bf_resolution=1,batch_sched_delay=0,sched_min_interval=0
StateSaveLocation=$D/state
SlurmdSpoolDir=$D/spool
SlurmctldPidFile=$D/slurmctld.pid
SlurmdPidFile=$D/slurmd.pid
SlurmctldLogFile=$D/slurmctld.log
SlurmdLogFile=$D/slurmd.log
SlurmUser=root
ReturnToService=2
MinJobAge=3600
SlurmdParameters=config_overrides
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort=6919
AccountingStorageEnforce=$ENFORCE
PriorityType=priority/multifactor
$FLAGS
PriorityDecayHalfLife=10
PriorityCalcPeriod=1
PriorityMaxAge=10
$WEIGHTS
NodeName=$H CPUs=16 RealMemory=16384 State=UNKNOWN
PartitionName=main Nodes=$H Default=YES MaxTime=INFINITE State=UP PriorityJobFactor=10
PartitionName=low Nodes=$H MaxTime=INFINITE State=UP PriorityJobFactor=1
EOF
}

one_run() { # TAG: a fresh stack, the workload, the logs; then gridscope and the comparison
  local tag=$1 out=$R/$1
  rm -rf "$out" "$D/state" "$D/spool" "$D"/*.log && mkdir -p "$out/jobs" "$D/state" "$D/spool"
  chmod 1777 "$out/jobs"
  write_conf
  start_munge
  start_mariadb
  start_slurmdbd
  sacctmgr -i add cluster gsreplay >/dev/null
  if [ "$FAIRSHARE" = accounts ] || [ "$FAIRSHARE" = job-accounts ]; then
    # Fair Tree over accounts: alice and bob share phys, carol has chem, the two accounts
    # equal beside root's own user.
    sacctmgr -i add account phys Fairshare=1 >/dev/null
    sacctmgr -i add account chem Fairshare=1 >/dev/null
    sacctmgr -i add user alice Account=phys Fairshare=2 >/dev/null
    sacctmgr -i add user bob Account=phys Fairshare=1 >/dev/null
    sacctmgr -i add user carol Account=chem Fairshare=1 >/dev/null
    # alice's second association (her default account stays phys, the first added).
    [ "$FAIRSHARE" = job-accounts ] && sacctmgr -i add user alice Account=chem Fairshare=1 >/dev/null
  else
    # Users directly under root (so classic fair share's effective usage is the user's
    # own): shares 2, 1, 1 beside root's own 1.
    sacctmgr -i add user alice Account=root Fairshare=2 >/dev/null
    sacctmgr -i add user bob Account=root Fairshare=1 >/dev/null
    sacctmgr -i add user carol Account=root Fairshare=1 >/dev/null
  fi
  if [ "$FAIRSHARE" = qos ]; then
    sacctmgr -i modify qos normal set MaxJobsPU=2 >/dev/null
    sacctmgr -i add qos high Priority=100 GrpTRES=cpu=8 >/dev/null
    sacctmgr -i modify user carol set QOS+=high >/dev/null
  fi
  slurmctld
  wait_for 10 test -s "$D/slurmctld.pid" || { tail "$D/slurmctld.log"; fail "slurmctld wrote no pid file"; }
  STARTED+=("$D/slurmctld.pid")
  wait_for 30 scontrol ping || { tail "$D/slurmctld.log"; fail "slurmctld not answering"; }
  slurmd
  wait_for 10 test -s "$D/slurmd.pid" || fail "slurmd wrote no pid file"
  STARTED+=("$D/slurmd.pid")
  wait_for 30 bash -c "sinfo -h -o %T | grep -qx idle" || fail "the node never became idle: $(sinfo 2>&1)"
  # Priorities change at PriorityCalcPeriod ticks, which Slurm counts from its decay
  # thread's start and the simulation from the log's first submit: the first submit goes
  # 0.3 s after a tick of Slurm's, so that the two count alike.
  local t0 off cpus rt lim user part name td qos account
  td=$(grep -m1 '_read_last_decay_ran' "$D/slurmctld.log" | sed 's/^\[\([^]]*\)\].*/\1/')
  [ -n "$td" ] || fail "no decay thread start in $D/slurmctld.log"
  t0=$(awk -v d="$(date -d "$td" +%s.%N)" -v n="$(now)" 'BEGIN{k=int((n+3-d)/60)+1; printf "%.3f", d+60*k+0.3}')
  while awk -v a="$t0" -v b="$(now)" 'BEGIN{exit !(b < a)}'; do sleep 0.02; done
  say "$tag: replaying $(grep -cv '^#' "$WL") jobs"
  while read -r off cpus rt lim user part name; do
    [[ -z "$off" || "$off" == \#* ]] && continue
    while awk -v a="$t0" -v o="$off" -v b="$(now)" 'BEGIN{exit !(b-a < o)}'; do sleep 0.02; done
    qos=normal
    [ "$FAIRSHARE" = qos ] && [ "$user" = carol ] && [ "$cpus" -le 8 ] && qos=high
    account=()
    [ "$FAIRSHARE" = job-accounts ] && [[ "$name" =~ ^a[0-9]*[02468]$ ]] && account=(--account=chem)
    sbatch -Q --uid="$user" -D "$out/jobs" -J "$name" -p "$part" -c "$cpus" -t "$lim" \
      --qos="$qos" "${account[@]}" -o "$out/jobs/$name.out" --wrap "sleep $rt" >/dev/null
  done < "$WL"
  wait_for 900 bash -c '[ -z "$(squeue -h)" ]' || fail "jobs still queued after 15 min: $(squeue)"
  sleep 2
  # Every job of the run: sacct's default window starts at today's midnight, so a run that
  # crossed midnight lost its first jobs (a check.sh run at 00:00 UTC, 2026-12-05). The
  # database is fresh for each run, so nothing older is there.
  sacct -X -P -S 2000-01-01T00:00:00 -E now \
    --format=JobID,JobName,Submit,Start,End,Elapsed,Timelimit,NCPUS,NNodes,State,Partition,User,Account,QOS \
    > "$out/log.sacct"
  local logged
  logged=$(grep -c '^[0-9]' "$out/log.sacct" || true)
  [ "$logged" = "$(grep -cv '^#' "$WL")" ] || fail "sacct lists $logged of the workload's jobs"
  sacctmgr -P show assoc cluster=gsreplay format=Cluster,Account,User,Fairshare,ParentName > "$out/assoc.txt"
  sacctmgr -P show qos format=Name,Priority,MaxJobsPU,GrpTRES > "$out/qos.txt"
  cp "$SLURM_CONF" "$out/slurm.conf"
  stop_pids
  "$G" simulate "$out/log.sacct" --policy slurm --slurm-conf "$out/slurm.conf" \
    --slurm-assoc "$out/assoc.txt" --slurm-qos "$out/qos.txt" --vs-log --jobs "$out/sim.csv" \
    > "$out/simulate.txt" 2> "$out/simulate.err" ||
    { cat "$out/simulate.err"; fail "gridscope could not simulate Slurm's log"; }
  python3 scripts/slurm_replay_compare.py "$out/log.sacct" "$out/sim.csv" | tee "$out/compare.txt"
}

status=0
for i in $(seq "$RUNS"); do
  one_run "$FAIRSHARE-run$i" || status=1
done
[ "$status" = 0 ] && say "PASS" || fail "a run's starts differ beyond the tolerance (target/slurm-replay/*-run*/compare.txt)"
