#!/usr/bin/env bash
# Installs whatever Gridscope needs and this machine lacks; does nothing for what is there.
# Safe to run again and again (check.sh and serve.sh both start with it).
#
#   wasm32 target, clippy/rustfmt       rustup
#   trunk 0.21.14                        cargo install (~10 min the first time)
#   wasm-bindgen-cli = Cargo.lock's      cargo install (~5 min the first time)
#   chromium + chromedriver              apt-get (Debian packages)
#   playwright-core, binaryen (wasm-opt) npm, in tests/browser
#
# Nothing here downloads a prebuilt binary from outside the package registries: these
# machines only reach crates.io, npm, PyPI and Debian.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PATH"

TRUNK_VERSION=0.21.14
# The CLI must match the wasm-bindgen crate in Cargo.lock exactly, or Trunk tries to download one.
WBG_VERSION=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)

say() { printf '\033[1msetup:\033[0m %s\n' "$*"; }

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi
for c in clippy rustfmt; do
  if ! rustup component list --installed | grep -q "^$c"; then
    say "adding $c"
    rustup component add "$c"
  fi
done

if ! trunk --version 2>/dev/null | grep -q " $TRUNK_VERSION"; then
  say "installing trunk $TRUNK_VERSION (compiles from source, ~10 min)"
  cargo install trunk --locked --version "$TRUNK_VERSION"
fi

if ! wasm-bindgen --version 2>/dev/null | grep -q " $WBG_VERSION"; then
  say "installing wasm-bindgen-cli $WBG_VERSION (compiles from source, ~5 min)"
  # Not --locked: its own lockfile names a crate version the registry does not serve.
  cargo install wasm-bindgen-cli --version "$WBG_VERSION"
fi

if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
  say "installing Debian chromium and chromium-driver"
  SUDO=""
  [ "$(id -u)" = 0 ] || SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends chromium chromium-driver
fi

if [ -f tests/browser/package.json ]; then
  # Reinstall only when the lockfile changed since the last install.
  stamp=tests/browser/node_modules/.gridscope-stamp
  want=$(cat tests/browser/package.json tests/browser/package-lock.json 2>/dev/null | sha256sum | cut -d' ' -f1)
  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    say "installing browser-test packages (npm)"
    if [ -f tests/browser/package-lock.json ]; then
      npm ci --prefix tests/browser --no-audit --no-fund
    else
      npm install --prefix tests/browser --no-audit --no-fund
    fi
    echo "$want" > "$stamp"
  fi
fi
# Trunk builds with --offline (it must never try to download); fetch the crates first.
cargo fetch --quiet
say "all tools present"
