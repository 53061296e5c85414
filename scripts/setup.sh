#!/usr/bin/env bash
# Installs the system packages and tools the workspace needs, only when something is missing.
# Sourced by run.sh, test.sh and e2e.sh so the README commands work on a fresh Debian machine.
set -euo pipefail

# build-essential: C compiler for the bundled SQLite; pkg-config + libdbus-1-dev: the
# keyring's Secret Service backend; dbus + gnome-keyring: a real Secret Service for tests.
# The desktop app (Tauri v2 on WebKitGTK): libwebkit2gtk-4.1-dev, libsoup-3.0-dev,
# librsvg2-dev, libxdo-dev, libssl-dev, file (bundling). Deep links: xdg-utils and
# desktop-file-utils (register the com.flightdeck.desktop: sign-in link handler). End-to-end tests: xvfb + xauth
# (xvfb-run), webkit2gtk-driver (WebKitWebDriver under tauri-driver), dbus-x11, and
# imagemagick (`import -window root` screenshots), xdotool (moves the X pointer out of
# the way of tooltips before a screenshot). shellcheck: actionlint checks the workflows'
# shell steps with it (scripts/lint-workflows.sh).
flightdeck_missing=()
for pkg in build-essential pkg-config libdbus-1-dev dbus gnome-keyring \
  libwebkit2gtk-4.1-dev libsoup-3.0-dev librsvg2-dev libxdo-dev libssl-dev file \
  xdg-utils desktop-file-utils \
  xvfb xauth webkit2gtk-driver dbus-x11 imagemagick xdotool shellcheck python3-venv; do
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
unset flightdeck_missing

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

# The UI (ui/) builds with Node.js. Debian 12's own nodejs package is too old for it, so it
# is not installed from apt here: install Node.js 20 LTS (or newer) with npm yourself.
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "Node.js and npm are missing: install Node.js 20 LTS or newer with npm" \
    "(https://nodejs.org/en/download, e.g. the NodeSource packages or nvm)," \
    "not Debian's nodejs package, then run this again" >&2
  exit 1
fi
if [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 18 ]; then
  echo "Node.js $(node --version) is too old for the UI: install Node.js 20 LTS or newer" >&2
  exit 1
fi

# tauri-driver: the WebDriver front for the desktop app's end-to-end tests (cargo puts it
# in $CARGO_HOME/bin, which rustup puts on PATH; made sure of here for fresh shells).
case ":$PATH:" in
  *":${CARGO_HOME:-$HOME/.cargo}/bin:"*) ;;
  *) export PATH="${CARGO_HOME:-$HOME/.cargo}/bin:$PATH" ;;
esac
if ! command -v tauri-driver >/dev/null 2>&1; then
  echo "== installing tauri-driver"
  cargo install tauri-driver --version '^2' --locked --quiet
fi
