#!/usr/bin/env bash
# Builds the desktop app and runs its end-to-end scenario (tests/e2e/test_app.py) through
# tauri-driver + WebKitWebDriver, on a private X server (Xvfb), a private D-Bus session with
# a throwaway unlocked gnome-keyring, a throwaway HOME and a throwaway app data directory.
#
#   scripts/e2e.sh                      build what is stale, then run the scenario
#   FLIGHTDECK_E2E_SKIP_BUILD=1 scripts/e2e.sh   run against the binary as it is
#
# Screenshots go to $FLIGHTDECK_E2E_OUT (default target/e2e/). Other knobs:
# FLIGHTDECK_E2E_TIMEOUT (seconds for the whole run, default 900), FLIGHTDECK_E2E_PORT
# (tauri-driver's port, default 4444; WebKitWebDriver gets the next one),
# FLIGHTDECK_APP (the binary to test, default target/debug/flightdeck-app),
# FLIGHTDECK_E2E_KEEP=1 keeps the temporary directory (logs, app data) for a look,
# FLIGHTDECK_E2E_SCRIPT runs another driver script in the same setup (scripts/bench-ui.sh).
# The embedded sandbox gets a throwaway FLIGHTDECK_SANDBOX_ADMIN_TOKEN, so the scenario can
# move its clock past token expiry.
set -euo pipefail
source "$(dirname "$0")/keyring-bus.sh"

if [ -z "${FLIGHTDECK_E2E_INNER:-}" ]; then
  cd "$(dirname "$0")/.."
  source scripts/setup.sh
  repo="$PWD"

  if [ -z "${FLIGHTDECK_E2E_SKIP_BUILD:-}" ]; then
    source scripts/build-ui.sh
    flightdeck_build_ui
    # As the Tauri CLI builds it (`tauri build --debug`): the assets served the way an
    # installed app serves them, and the same compiled Tauri as scripts/package.sh, so
    # the package check after this run rebuilds only the app crate.
    echo "== cargo build -p flightdeck-app (tauri/custom-protocol)"
    cargo build -p flightdeck-app --bins --features tauri/custom-protocol --locked
  fi
  app="${FLIGHTDECK_APP:-$repo/target/debug/flightdeck-app}"
  if [ ! -x "$app" ]; then
    echo "$app is missing: build it with cargo build -p flightdeck-app --features tauri/custom-protocol" >&2
    exit 1
  fi

  # Resolved before HOME changes: pyenv's shims need the real HOME.
  python="$(python3 -c 'import sys; print(sys.executable)')"
  out="${FLIGHTDECK_E2E_OUT:-$repo/target/e2e}"
  mkdir -p "$out"
  out="$(cd "$out" && pwd)"
  rm -f "$out"/*.png

  tmp="$(mktemp -d "${TMPDIR:-/tmp}/flightdeck-e2e.XXXXXX")"
  if [ -n "${FLIGHTDECK_E2E_KEEP:-}" ]; then
    echo "== keeping $tmp"
  else
    # Daemons of the private session may still be writing there for a moment.
    trap 'rm -rf "$tmp" 2>/dev/null || { sleep 2; rm -rf "$tmp"; }' EXIT
  fi
  mkdir -m 700 -p "$tmp/home/.local/share" "$tmp/home/.config" "$tmp/home/.cache" "$tmp/runtime" "$tmp/data" "$tmp/bus"
  keyring_bus_config "$tmp/bus" flightdeck-e2e

  # A stand-in for the system browser: the app's "open in browser" lands here (xdg-open
  # runs $BROWSER when no desktop environment is detected). The test plays the browser.
  cat >"$tmp/browser" <<'BROWSER'
#!/bin/sh
printf '%s\n' "$1" >>"$FLIGHTDECK_E2E_BROWSER_LOG"
BROWSER
  chmod +x "$tmp/browser"

  port="${FLIGHTDECK_E2E_PORT:-4444}"
  echo "== e2e: $app (screenshots in $out)"
  # Noise filtered from the output: dbus-daemon's "Failed to set fd limit" (unprivileged
  # containers) and its activation chatter for the accessibility bus WebKitGTK asks for.
  noise='Failed to set fd limit|dbus-daemon\[[0-9]+\]: .*(Activating|Successfully activated) service|SpiRegistry daemon is running'
  set +e
  env -u DBUS_SESSION_BUS_ADDRESS -u GNOME_KEYRING_CONTROL -u DISPLAY -u WAYLAND_DISPLAY \
    -u XDG_CURRENT_DESKTOP -u DESKTOP_SESSION \
    HOME="$tmp/home" \
    XDG_DATA_HOME="$tmp/home/.local/share" \
    XDG_CONFIG_HOME="$tmp/home/.config" \
    XDG_CACHE_HOME="$tmp/home/.cache" \
    XDG_RUNTIME_DIR="$tmp/runtime" \
    CARGO_HOME="${CARGO_HOME:-$HOME/.cargo}" \
    RUSTUP_HOME="${RUSTUP_HOME:-$HOME/.rustup}" \
    NO_AT_BRIDGE=1 \
    BROWSER="$tmp/browser" \
    FLIGHTDECK_E2E_BROWSER_LOG="$tmp/browser.log" \
    FLIGHTDECK_DATA_DIR="$tmp/data" \
    FLIGHTDECK_SANDBOX_ADMIN_TOKEN="$(head -c 18 /dev/urandom | base64 | tr '+/' '-_')" \
    FLIGHTDECK_E2E_OUT="$out" \
    FLIGHTDECK_E2E_TMP="$tmp" \
    FLIGHTDECK_E2E_PYTHON="$python" \
    FLIGHTDECK_APP="$app" \
    FLIGHTDECK_WEBDRIVER_URL="http://127.0.0.1:$port" \
    FLIGHTDECK_E2E_PORT="$port" \
    FLIGHTDECK_E2E_INNER=1 \
    timeout --kill-after=20 "${FLIGHTDECK_E2E_TIMEOUT:-900}" \
    xvfb-run -a -s "-screen 0 1280x800x24 -nolisten tcp" \
    dbus-run-session --config-file="$tmp/bus/bus.conf" -- bash "$repo/scripts/e2e.sh" "$@" 2>&1 |
    grep --line-buffered -v -E "$noise"
  status="${PIPESTATUS[0]}"
  set -e
  if [ "$status" -eq 124 ]; then
    echo "e2e: timed out after ${FLIGHTDECK_E2E_TIMEOUT:-900} s" >&2
  fi
  echo "== screenshots: $out"
  exit "$status"
fi

# Inside Xvfb and the private D-Bus session: start the throwaway keyring (as in
# scripts/with-keyring.sh), start tauri-driver, run the scenario, stop what was started.
cd "$(dirname "$0")/.."
keyring_bus_start

log="$FLIGHTDECK_E2E_TMP/tauri-driver.log"
# RUST_BACKTRACE=0: tauri-driver logs every dropped proxy connection, with a backtrace otherwise.
RUST_BACKTRACE=0 tauri-driver --port "$FLIGHTDECK_E2E_PORT" --native-port "$((FLIGHTDECK_E2E_PORT + 1))" >"$log" 2>&1 &
driver_pid=$!
stop() {
  kill "$driver_pid" 2>/dev/null || true
  wait "$driver_pid" 2>/dev/null || true
  keyring_bus_stop
}
trap stop EXIT

ready=""
for _ in $(seq 100); do
  if ! kill -0 "$driver_pid" 2>/dev/null; then
    break
  fi
  if (exec 3<>"/dev/tcp/127.0.0.1/$FLIGHTDECK_E2E_PORT") 2>/dev/null; then
    ready=1
    break
  fi
  sleep 0.1
done
if [ -z "$ready" ]; then
  echo "tauri-driver did not listen on port $FLIGHTDECK_E2E_PORT (is another e2e run using it?):" >&2
  cat "$log" >&2
  exit 1
fi

status=0
"$FLIGHTDECK_E2E_PYTHON" "${FLIGHTDECK_E2E_SCRIPT:-tests/e2e/test_app.py}" "$@" || status=$?
if [ "$status" -ne 0 ]; then
  echo "---- tauri-driver log (app output included) ----" >&2
  # Without the proxy's dropped keep-alive connections (the client retries those).
  grep -v -E '^(Error serving connection: hyper::Error\(User\(Service\), client error \(SendRequest\)|Caused by:|    0: connection error|    1: Connection reset by peer \(os error 104\)\)|)$' "$log" |
    tail -n 200 >&2 || true
  echo "---- end of tauri-driver log ----" >&2
fi
exit "$status"
