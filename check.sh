#!/usr/bin/env bash
# Runs exactly what CI runs: setup, formatting, clippy (host and wasm32, warnings denied),
# every test. `bash check.sh` is the README's test command.
set -euo pipefail
cd "$(dirname "$0")"
bash scripts/setup.sh
export PATH="$PWD/tests/browser/node_modules/.bin:$HOME/.cargo/bin:$PATH"
export TRUNK_SKIP_VERSION_CHECK=true

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "rustfmt"
cargo fmt --all -- --check

step "clippy (host)"
cargo clippy --release --all-targets -- -D warnings

step "clippy (wasm32)"
# The CLI (src/bin/gridscope) is native only: its clock and threads are fine there.
CLIPPY_CONF_DIR=scripts/clippy_wasm cargo clippy --release --target wasm32-unknown-unknown --lib --bin app --bin worker -- -D warnings

step "tests (unit, golden, differential, real traces, CLI, fuzz targets 15 s each)"
GRIDSCOPE_FUZZ_SECONDS="${GRIDSCOPE_FUZZ_SECONDS:-15}" cargo test --release

step "Python package (maturin wheel in target/pyenv; pytest vs the CLI, evalys, Gymnasium)"
bash scripts/python_test.sh

step "cluster sweeps on a real one-node Slurm (installs slurm-wlm + munge when missing)"
bash scripts/slurm_test.sh

step "the slurm policy against a real slurmctld + slurmdbd (installs slurmdbd + mariadb-server when missing)"
bash scripts/slurm_replay.sh 1 classic

step "QOS (priority, MaxJobsPU, GrpTRES=cpu) against the same real slurmctld"
bash scripts/slurm_replay.sh 1 qos

step "energy against a real SimGrid (installs libsimgrid-dev when missing)"
bash scripts/simgrid_test.sh

step "wasm unit tests (headless Chromium)"
CHROMEDRIVER=/usr/bin/chromedriver cargo test --target wasm32-unknown-unknown --lib

step "release build of the page (Trunk)"
trunk build --release --offline

step "page tests (Playwright-core driving headless Chromium)"
cargo build --release --bin gridscope
node --test tests/browser/
