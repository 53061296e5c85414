#!/usr/bin/env bash
# Runs a command with a real Secret Service: a private D-Bus session with gnome-keyring
# unlocked on a throwaway keyring, so tests never touch the user's own keyring.
#   scripts/with-keyring.sh cargo test
#
# Everything lives under one temporary directory, removed afterwards and exported as
# FLIGHTDECK_KEYRING_DIR (tests search it for secrets written in plaintext):
#   data/     XDG_DATA_HOME: gnome-keyring writes keyrings/login.keyring here (encrypted);
#   runtime/  XDG_RUNTIME_DIR: the daemon's control socket. A fresh one (and no inherited
#             GNOME_KEYRING_CONTROL) keeps `--unlock` from reaching the desktop's own
#             gnome-keyring and unlocking the user's keyring with the test password;
#   bus/      the session bus configuration that starts the daemon (scripts/keyring-bus.sh).
set -euo pipefail
source "$(dirname "$0")/keyring-bus.sh"
if [ -z "${FLIGHTDECK_IN_KEYRING_SESSION:-}" ]; then
  for tool in dbus-run-session gnome-keyring-daemon; do
    if ! command -v "$tool" >/dev/null 2>&1; then
      echo "$tool is missing: run scripts/setup.sh (it installs dbus and gnome-keyring)" >&2
      exit 1
    fi
  done
  FLIGHTDECK_KEYRING_DIR="$(mktemp -d "${TMPDIR:-/tmp}/flightdeck-keyring.XXXXXX")"
  trap 'rm -rf "$FLIGHTDECK_KEYRING_DIR"' EXIT
  mkdir -m 700 "$FLIGHTDECK_KEYRING_DIR/data" "$FLIGHTDECK_KEYRING_DIR/runtime" "$FLIGHTDECK_KEYRING_DIR/bus"
  keyring_bus_config "$FLIGHTDECK_KEYRING_DIR/bus" flightdeck-test
  export FLIGHTDECK_KEYRING_DIR
  export XDG_DATA_HOME="$FLIGHTDECK_KEYRING_DIR/data"
  export XDG_RUNTIME_DIR="$FLIGHTDECK_KEYRING_DIR/runtime"
  unset GNOME_KEYRING_CONTROL DBUS_SESSION_BUS_ADDRESS
  export FLIGHTDECK_IN_KEYRING_SESSION=1
  status=0
  # dbus-daemon's "Failed to set fd limit" warning is harmless (unprivileged containers).
  dbus-run-session --config-file="$FLIGHTDECK_KEYRING_DIR/bus/bus.conf" -- bash "$0" "$@" || status=$?
  exit "$status"
fi
# Inside the session: a login keyring unlocked with a throwaway password.
keyring_bus_start
status=0
"$@" || status=$?
keyring_bus_stop
exit "$status"
