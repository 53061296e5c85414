#!/usr/bin/env bash
# Measures the desktop app as a buyer feels it, on a large account: the release build,
# under Xvfb, driven through WebDriver (tauri-driver + WebKitWebDriver), with timing
# marks taken in the page (the tables' data-painted-at). Prints median and p95 per
# figure. The same private X server, D-Bus session and keyring as scripts/e2e.sh.
#
#   scripts/bench-ui.sh                      100,000 ad orders, 20 runs per figure
#   BENCH_AD_ORDERS=1000000 scripts/bench-ui.sh
#   BENCH_RUNS=30 scripts/bench-ui.sh
#   BENCH_ONLY_START=1 scripts/bench-ui.sh   cold starts (and the download) only; BENCH_SKIP_START=1 skips them
#   BENCH_ONLY_BULK=1 scripts/bench-ui.sh    after the download, only opening the table and the select-all preview (with memory)
#   BENCH_ONLY_FLOOR=1 scripts/bench-ui.sh   only the floor page (builds neither the app nor the sandbox data)
#   BENCH_ONLY_FILTER=1 scripts/bench-ui.sh  after the download, only the filter and the sort (with the floor's)
#   BENCH_ONLY_SAVES=1 scripts/bench-ui.sh   after the download, only memory over 4 rounds of saves (is growth a leak?),
#                                            with the JS heap after full collections (JSC_logGC)
#   BENCH_SAVE_TRACE=1 scripts/bench-ui.sh   also prints each save's timeline (IPC calls, frames, busy main thread)
#
# Figures: first the floor page (benches/blank-app/dist/floor.html in the blank app: the
# ad-order table's markup and the app's built CSS over N rows in a plain array, no React,
# no IPC), its filter and sort timed as the app's are; Flightdeck's filter, sort and save
# then print their p95 as a ratio to the floor's, beside their parts. Cold start to the first interactive screen against a blank Tauri v2 app
# (benches/blank-app, built the same way), on first launch and with existing data; the
# download with its progress, against curl making the same calls (caps 8 at once, as the
# app asks them) and as a ratio to it; opening the ad-orders table; a filter keystroke until the
# window repaints; a sort; a save until the table shows the new value; the bytes each
# command answer carries over the IPC; "select all" of every ad order and a preview of an
# edit of all of them, timed, with the IPC bytes that crossed both ways (counted in the
# page at the ipc:// transport; the run fails at 1 MB or more); resident memory of the app
# and its web process.
# The prepared sandbox database is kept in target/bench-ui/ for the next run
# ($CARGO_TARGET_DIR is honoured).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup.sh

orders="${BENCH_AD_ORDERS:-100000}"
echo "== ui: npm ci (if stale) and build"
if [ ! -f ui/node_modules/.package-lock.json ] || [ ui/package-lock.json -nt ui/node_modules/.package-lock.json ]; then
  (cd ui && npm ci --no-audit --no-fund --loglevel=error)
fi
(cd ui && npm run build --silent)
# The floor page uses the app's own CSS, as built: copied into the blank app's page
# (embedded at compile time; its build script recompiles it when dist/ changes).
# Rewritten only when it differs, so an unchanged CSS rebuilds nothing.
css="$(mktemp)"
cat ui/dist/assets/*.css >"$css"
if cmp -s "$css" benches/blank-app/dist/app.css; then rm "$css"; else mv "$css" benches/blank-app/dist/app.css; fi
target="${CARGO_TARGET_DIR:-$PWD/target}"
seed="$target/bench-ui/ad-orders-$orders/sandbox.db"
app="$target/release/flightdeck-app"
if [ -n "${BENCH_ONLY_FLOOR:-}" ]; then
  echo "== cargo build --release (the blank app)"
  cargo build --release --locked -p flightdeck-blank-app
  # Nothing starts the app; the e2e harness only wants a binary to point at.
  [ -x "$app" ] || app="$target/release/flightdeck-blank-app"
else
  echo "== cargo build --release (the app, the blank app, the data loader)"
  cargo build --release --locked -p flightdeck-app -p flightdeck-blank-app
  cargo build --release --locked -p flightdeck-sandbox --example load_ad_orders
fi

if [ -z "${BENCH_ONLY_FLOOR:-}" ] && [ ! -f "$seed" ]; then
  echo "== preparing a sandbox with $orders ad orders ($seed)"
  mkdir -p "$(dirname "$seed")"
  "$target/release/examples/load_ad_orders" "$seed.tmp" "$orders"
  for suffix in -wal -shm; do
    if [ -f "$seed.tmp$suffix" ]; then mv "$seed.tmp$suffix" "$seed$suffix"; fi
  done
  mv "$seed.tmp" "$seed"
fi

# For BENCH_ONLY_SAVES: JavaScriptCore logs each collection (to the app's stderr, in
# tauri-driver's log), so the bench can tell the page's heap from the rest of the web
# process. Only there: the logging would add to the timed figures.
if [ -n "${BENCH_ONLY_SAVES:-}" ]; then
  export JSC_logGC=1
fi

FLIGHTDECK_E2E_SKIP_BUILD=1 \
  FLIGHTDECK_APP="$app" \
  FLIGHTDECK_BENCH_BLANK="$target/release/flightdeck-blank-app" \
  FLIGHTDECK_BENCH_SEED="$seed" \
  FLIGHTDECK_BENCH_AD_ORDERS="$orders" \
  FLIGHTDECK_E2E_SCRIPT=tests/e2e/bench_ui.py \
  FLIGHTDECK_E2E_TIMEOUT="${FLIGHTDECK_E2E_TIMEOUT:-3600}" \
  exec bash scripts/e2e.sh "$@"
