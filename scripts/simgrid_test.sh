#!/usr/bin/env bash
# Energy against a real SimGrid (issue #40): installs Debian's SimGrid 3.32 (libsimgrid-dev,
# its C++ library with the host energy plugin) when missing, builds the replay program
# scripts/simgrid/replay.cpp into target/simgrid, and runs the integration test that
# compares Gridscope's joules with SimGrid's on random node timelines. Idempotent; the
# first run needs apt (root or sudo), later ones only build when the source changed.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! pkg-config --exists simgrid 2>/dev/null || ! command -v g++ >/dev/null; then
    SUDO=""
    [ "$(id -u)" = 0 ] || SUDO=sudo
    $SUDO apt-get update -q
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends \
        libsimgrid-dev g++ pkg-config
fi

REPLAY=target/simgrid/replay
mkdir -p target/simgrid
if [ ! -x "$REPLAY" ] || [ scripts/simgrid/replay.cpp -nt "$REPLAY" ]; then
    # shellcheck disable=SC2046 # pkg-config's flags are words
    g++ -O2 -std=c++17 -o "$REPLAY" scripts/simgrid/replay.cpp $(pkg-config --cflags --libs simgrid)
fi
echo "SimGrid $(pkg-config --modversion simgrid): $REPLAY"

GRIDSCOPE_SIMGRID_REPLAY="$PWD/$REPLAY" \
    cargo test --release --test integration energy:: -- --ignored --nocapture
