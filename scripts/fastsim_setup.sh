#!/usr/bin/env bash
# Sets up FastSim (HewlettPackard/FastSim) for scripts/fastsim_compare.py, idempotently
# (issue #42's check against FastSim, docs/slurm.md "Against FastSim"):
#   1. FastSim's source, from a git repository: cloned, or extracted when MIRROR is a bare
#      mirror on this machine
#   2. a venv with FastSim's pinned requirements from PyPI (pandas 2.3.1: FastSim's
#      data_reader fails under pandas 3 — `df_events.loc[...] = Timestamp` on a str column
#      raises TypeError)
#   3. Gridscope's release binary (cargo build --release)
#
#   bash scripts/fastsim_setup.sh [DIR]      (default DIR: target/fastsim)
#
# Environment: MIRROR (default https://github.com/HewlettPackard/FastSim; a bare git
# directory is extracted instead of cloned), PYTHON (default python3). Re-running changes
# nothing that is already in place.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR="${1:-target/fastsim}"
MIRROR="${MIRROR:-https://github.com/HewlettPackard/FastSim}"
PYTHON="${PYTHON:-python3}"
mkdir -p "$DIR"

if [ ! -f "$DIR/FastSim/scheduler/controller.py" ]; then
  mkdir -p "$DIR/FastSim"
  if [ -d "$MIRROR" ]; then
    git --git-dir="$MIRROR" archive HEAD | tar -x -C "$DIR/FastSim"
    git --git-dir="$MIRROR" rev-parse HEAD > "$DIR/FastSim/.commit"
  else
    rmdir "$DIR/FastSim"
    git clone -q "$MIRROR" "$DIR/FastSim"
    git -C "$DIR/FastSim" rev-parse HEAD > "$DIR/FastSim/.commit"
  fi
  echo "FastSim extracted to $DIR/FastSim ($(cat "$DIR/FastSim/.commit"))"
else
  echo "FastSim already in $DIR/FastSim"
fi

if [ ! -x "$DIR/venv/bin/python" ]; then
  "$PYTHON" -m venv "$DIR/venv"
fi
if ! "$DIR/venv/bin/python" -c 'import pandas, numpy, yaml, dill, matplotlib, sys; sys.exit(0 if pandas.__version__.startswith("2.") else 1)' 2>/dev/null; then
  "$DIR/venv/bin/pip" install -q -r "$DIR/FastSim/requirements.txt"
fi
"$DIR/venv/bin/python" -c 'import pandas, numpy; print("venv:", "pandas", pandas.__version__, "numpy", numpy.__version__)'

cargo build --release --bin gridscope 2>&1 | tail -1
echo "now: python3 scripts/fastsim_compare.py $DIR/FastSim TRACE.swf.gz 2000 --python $DIR/venv/bin/python"
