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
cargo build --locked -p flightdeck-app
exec target/debug/flightdeck-app "$@"
