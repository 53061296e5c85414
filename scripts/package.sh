#!/usr/bin/env bash
# Builds the desktop app and its Linux packages (.deb and .rpm) with the Tauri CLI.
#
#   scripts/package.sh               release build: target/release/bundle/{deb,rpm}/
#   scripts/package.sh --debug       debug build (what CI checks): target/debug/bundle/...
#   scripts/package.sh --config F    merges a Tauri config file over tauri.conf.json
#                                    (scripts/check-package.sh uses it for a test key)
#
# Updater artifacts (a minisign .sig beside each package) are made when
# TAURI_SIGNING_PRIVATE_KEY holds the private key (with TAURI_SIGNING_PRIVATE_KEY_PASSWORD);
# without one the packages are built unsigned. AppImage is not built here: the bundler
# downloads AppRun and linuxdeploy from GitHub, which this network cannot reach; the
# release workflow (.github/workflows/release.yml) builds it.
# macOS (.app, .dmg) and Windows (.msi, NSIS .exe) are built by the release workflow too.
set -euo pipefail
cd "$(dirname "$0")/.."

profile=release
tauri_args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --debug) profile=debug; tauri_args+=(--debug) ;;
    --config) tauri_args+=(--config "$2"); shift ;;
    *) echo "package.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done

source scripts/setup.sh
source scripts/build-ui.sh
flightdeck_build_ui

if [ -z "${TAURI_SIGNING_PRIVATE_KEY:-}" ]; then
  echo "== no TAURI_SIGNING_PRIVATE_KEY: packages without updater signatures"
  tauri_args+=(--config '{"bundle":{"createUpdaterArtifacts":false}}')
fi

echo "== tauri build ($profile): deb, rpm"
ui/node_modules/.bin/tauri build --ci --bundles deb,rpm "${tauri_args[@]}"

bundle="target/$profile/bundle"
echo "== packages"
ls -l "$bundle"/deb/*.deb "$bundle"/rpm/*.rpm
ls "$bundle"/deb/*.sig "$bundle"/rpm/*.sig 2>/dev/null || true
