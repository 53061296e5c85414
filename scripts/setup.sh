#!/usr/bin/env bash
# Installs the system packages the workspace needs, only when something is missing.
# Sourced by run.sh and test.sh so both README commands work on a fresh Debian machine.
set -euo pipefail

# build-essential: C compiler for the bundled SQLite; pkg-config + libdbus-1-dev: the
# keyring's Secret Service backend; dbus + gnome-keyring: a real Secret Service for tests.
flightdeck_missing=()
for pkg in build-essential pkg-config libdbus-1-dev dbus gnome-keyring; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" ||
    flightdeck_missing+=("$pkg")
done

if [ "${#flightdeck_missing[@]}" -gt 0 ]; then
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  echo "== installing ${flightdeck_missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo_cmd[@]}" apt-get update -qq
  "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${flightdeck_missing[@]}"
fi

if ! command -v cargo >/dev/null 2>&1; then
  echo "cargo is not installed: install the stable Rust toolchain (https://rustup.rs) first" >&2
  exit 1
fi
for tool in rustfmt cargo-clippy; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "$tool is missing: rustup component add ${tool#cargo-}" >&2
    exit 1
  fi
done
