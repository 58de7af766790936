#!/usr/bin/env bash
# The Python package's tests (issue #27): a venv under target/pyenv (made once), the PyPI
# packages the tests use (installed only when missing), the wheel built by maturin from
# python/ and installed into the venv, then pytest over python/tests. Exits with pytest's
# code, so a failing test fails check.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
VENV="$ROOT/target/pyenv"
PY="${PYTHON:-python3}"

if [ ! -x "$VENV/bin/python" ]; then
    "$PY" -m venv "$VENV"
fi
VPY="$VENV/bin/python"

# Only what is missing: a cached venv costs one import check here.
NEED=()
for spec in maturin:maturin pytest:pytest pandas:pandas polars:polars pyarrow:pyarrow \
            gymnasium:gymnasium evalys:evalys numpy:numpy; do
    mod="${spec%%:*}"; pkg="${spec##*:}"
    "$VPY" -c "import $mod" 2>/dev/null || NEED+=("$pkg")
done
if [ "${#NEED[@]}" -gt 0 ]; then
    echo "installing into $VENV: ${NEED[*]}"
    "$VPY" -m pip install --quiet --disable-pip-version-check "${NEED[@]}"
fi

# The bindings crate is outside the root workspace, so check.sh's fmt and clippy do not see
# it: the same house rules here (warnings are errors).
cargo fmt --manifest-path python/Cargo.toml -- --check
# Its own target dir: maturin builds PyO3 with another build configuration, and sharing one
# would make each rebuild PyO3 and the bindings for the other at every run.
PYO3_PYTHON="$VPY" CARGO_TARGET_DIR=python/target/clippy \
    cargo clippy --release --all-targets --manifest-path python/Cargo.toml -- -D warnings

# The CLI the byte-identity tests compare against.
cargo build --release --bin gridscope

# The wheel, built in release mode into target/wheels and installed over any older one.
# The bindings crate has its own target dir (python/target) so the root build never builds
# PyO3 and the two do not invalidate each other's caches.
WHEELS="$ROOT/target/wheels"
rm -rf "$WHEELS"
"$VENV/bin/maturin" build --release --quiet --manifest-path python/Cargo.toml \
    --interpreter "$VPY" --out "$WHEELS"
"$VPY" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps "$WHEELS"/*.whl

export GRIDSCOPE_CLI="$ROOT/target/release/gridscope"
export GRIDSCOPE_TRACES="${GRIDSCOPE_TRACES:-$ROOT/../shared/traces}"
set +e
"$VPY" -m pytest -q python/tests "$@"
code=$?
set -e
exit "$code"
