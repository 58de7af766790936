#!/usr/bin/env bash
# Sets up whatever is missing (see setup.sh), builds the app and serves it on
# http://127.0.0.1:${PORT:-8080}/ — the page runs its default scenario on load.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export PATH="$PWD/tests/browser/node_modules/.bin:$HOME/.cargo/bin:$PATH"
export TRUNK_SKIP_VERSION_CHECK=true
PORT="${PORT:-8080}"
echo "Gridscope: building, then serving on http://127.0.0.1:$PORT/"
exec trunk serve --release --offline --address 127.0.0.1 --port "$PORT"
