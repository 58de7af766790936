#!/usr/bin/env bash
# Throughput benchmark of the native engine on the shared real traces (see benches/throughput.rs).
# Optional argument: a substring of the trace names to run (e.g. SDSC-BLUE).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo bench --bench throughput -- "$@"
# SCJG: reservations' cost on SDSC-SP2 (≈ 60,000 jobs) per local policy.
cargo bench --bench scjg
# Each limit: the largest real trace's distance from it, and what an input at it costs.
cargo bench --bench limits
# Import speed of SWF, GWF, sacct and Batsim JSON on the same 100,000 generated jobs (issue #29).
cargo bench --bench formats
# Time and bytes per job from 10^4 to 5·10^6 generated jobs under every local policy.
scripts/bench_scale.sh
# Every local policy on every shared trace, whole process (TRACE_LIMIT seconds per case).
scripts/bench_traces.sh
# Every policy that places on nodes, on HPC2N's and RICC's nodes (TRACE_LIMIT seconds per case).
scripts/bench_nodes.sh
# Time per job on 1,024 nodes from 10^5 to 10^6 generated jobs, every policy that places on nodes.
scripts/bench_nodes_scale.sh
# What a failure model costs under FCFS, EASY and first-fit on HPC2N's and RICC's nodes.
scripts/bench_failures.sh
# What the energy accounting costs, and EASY with idle nodes off, on HPC2N's and RICC's nodes.
scripts/bench_energy.sh
# The headline: KTH-SP2 under EASY, whole process, median of 41 runs.
scripts/bench_headline.sh
# The page (issue #40): the longest main-thread task while a 3.5-year power series draws
# (needs `trunk build --release --offline` and the browser scripts/setup.sh installs).
PATH="$PWD/tests/browser/node_modules/.bin:$HOME/.cargo/bin:$PATH" node --test tests/browser/energy_speed.bench.mjs
