#!/usr/bin/env bash
# Builds and starts Flightdeck on its embedded sandbox with the demo seed.
# Until the desktop app lands, this starts the sandbox service itself on
# http://127.0.0.1:8700; its data lives in $FLIGHTDECK_DATA (default below).
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/setup.sh

data="${FLIGHTDECK_DATA:-${XDG_DATA_HOME:-$HOME/.local/share}/flightdeck/sandbox.db}"
mkdir -p "$(dirname "$data")"
exec cargo run --locked -p flightdeck-sandbox -- --seed demo --data "$data" "$@"
