#!/usr/bin/env bash
# Sets up what is missing, builds the release CLI and runs the built-in demo scenario:
# SES's Poisson workload on 128 processors under every local policy.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cargo build --release --bin gridscope
./target/release/gridscope run --preset demo "$@"
