#!/usr/bin/env bash
# Builds and launches the Flightdeck desktop app on its embedded sandbox (demo data,
# sign-in demo / demo shown on the first screen). Installs what a fresh Debian machine
# lacks first (scripts/setup.sh). Extra arguments go to the app.
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/setup.sh

echo "== building the UI (ui/dist)"
(
  cd ui
  [ -d node_modules ] || npm ci --no-audit --no-fund
  npm run build
)
echo "== building the app"
# As the Tauri CLI builds it (the e2e run and the packages share this build).
cargo build --locked -p flightdeck-app --bins --features tauri/custom-protocol
exec target/debug/flightdeck-app "$@"
