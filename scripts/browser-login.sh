#!/usr/bin/env bash
# The sandbox's partner login page in a real browser engine: Debian's Chromium, driven by
# its chromedriver, signs in through the page with the CLI's loopback redirect and with
# the app's com.flightdeck.desktop: scheme (tests/browser/test_login_page.py). Real
# browsers apply the page's Content-Security-Policy (form-action) to the redirect after
# the form, which the end-to-end scenario's stand-in browser does not.
#
# Installs chromium and chromium-driver when missing, builds and starts the sandbox on a
# free loopback port with the demo seed, and stops both at the end.
set -euo pipefail
cd "$(dirname "$0")/.."

sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
missing=()
for pkg in chromium chromium-driver; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "== installing ${missing[*]}"
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

echo "== building the sandbox"
# With the test build's features, so nothing compiles again after it (see schemathesis.sh).
cargo build --workspace --all-features --locked --quiet --bin flightdeck-sandbox

out=target/browser-login
mkdir -p "$out"
log="$out/sandbox.log"
driver_log="$out/chromedriver.log"
pids=()
stop_all() {
  local pid
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
}
trap stop_all EXIT

# Request lines (method, path, status) on standard error: the test waits for the form's 303.
env -u FLIGHTDECK_SANDBOX_ADMIN_TOKEN FLIGHTDECK_LOG=debug target/debug/flightdeck-sandbox \
  --addr 127.0.0.1:0 --seed demo >"$log" 2>&1 &
pids+=($!)
url=""
for _ in $(seq 1 200); do
  url=$(sed -n 's/^listening on //p' "$log" | head -n 1)
  [ -n "$url" ] && break
  kill -0 "${pids[0]}" 2>/dev/null || { cat "$log" >&2; exit 1; }
  sleep 0.05
done
[ -n "$url" ] || { echo "the sandbox did not start" >&2; cat "$log" >&2; exit 1; }

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
chromedriver --port="$port" --allowed-ips=127.0.0.1 >"$driver_log" 2>&1 &
pids+=($!)
for _ in $(seq 1 200); do
  python3 -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=1)' \
    "http://127.0.0.1:$port/status" >/dev/null 2>&1 && break
  kill -0 "${pids[1]}" 2>/dev/null || { cat "$driver_log" >&2; exit 1; }
  sleep 0.05
done
echo "== sandbox on $url, chromedriver $(chromedriver --version | cut -d' ' -f2) on port $port"

FLIGHTDECK_SANDBOX_URL="$url" FLIGHTDECK_SANDBOX_LOG="$log" \
  FLIGHTDECK_CHROMEDRIVER_URL="http://127.0.0.1:$port" \
  python3 tests/browser/test_login_page.py
