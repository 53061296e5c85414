#!/usr/bin/env bash
# Builds the Linux packages (debug build, as CI does) and checks them on this machine:
#
# 1. the .rpm: its files and dependencies (rpm -qpl, rpm -qpR);
# 2. the .deb installs with the system's package manager, as root, and puts in place the
#    binary, a valid desktop entry (desktop-file-validate), the hicolor icons and the
#    com.flightdeck.desktop: sign-in link handler (xdg-mime names the app);
# 3. the installed app, under Xvfb with a private D-Bus session and keyring
#    (tests/package/test_installed.py through scripts/e2e.sh): it starts from its
#    installed path on the Local sandbox profile; a sign-in redirect opened with xdg-open
#    reaches the running instance; an update whose signature was tampered with is refused;
#    a signed update (a 0.0.1-higher .deb served from loopback) is found, verified,
#    installed and the app restarts; uninstalling removes the app and leaves the user's
#    workspaces and keyring entries alone.
#
# The update is signed with a throwaway key made here; the app is built with its public
# half (and with plain http allowed for the loopback feed) through a config overlay. The
# release build keeps the key in tauri.conf.json.
#
#   scripts/check-package.sh                build, then check
#   FLIGHTDECK_PACKAGE_SKIP_BUILD=1 ...     check the packages already in target/debug/bundle
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"

sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)

source scripts/setup.sh
# rpm, cpio: read the .rpm; libsecret-tools: secret-tool, to look at the keyring after removal;
# sudo: the updater installs a package through pkexec, a graphical sudo, or sudo;
# procps: pgrep, to find the installed app's processes.
missing=()
for pkg in rpm cpio libsecret-tools sudo procps; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "== installing ${missing[*]}"
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

work="$repo/target/package-check"
mkdir -p "$work"
tauri=ui/node_modules/.bin/tauri
version="$(node -p 'require("./src-tauri/tauri.conf.json").version')"
next="$(node -p 'const [a, b, c] = require("./src-tauri/tauri.conf.json").version.split("."); `${a}.${b}.${Number(c) + 1}`')"

if [ -z "${FLIGHTDECK_PACKAGE_SKIP_BUILD:-}" ]; then
  source scripts/build-ui.sh
  flightdeck_build_ui
  rm -f "$work/updater.key" "$work/updater.key.pub"
  "$tauri" signer generate --ci -p "" -w "$work/updater.key" >/dev/null
  node -e '
    const fs = require("fs");
    const pub = fs.readFileSync(process.argv[1], "utf8").trim();
    fs.writeFileSync(process.argv[2], JSON.stringify({
      plugins: { updater: { pubkey: pub, dangerousInsecureTransportProtocol: true } },
    }));' "$work/updater.key.pub" "$work/tauri.check.json"
  TAURI_SIGNING_PRIVATE_KEY="$(cat "$work/updater.key")" TAURI_SIGNING_PRIVATE_KEY_PASSWORD="" \
    bash scripts/package.sh --debug --config "$work/tauri.check.json"
fi

bundle=target/debug/bundle
deb="$(ls "$bundle"/deb/*_"$version"_*.deb)"
rpm="$(ls "$bundle"/rpm/*-"$version"-*.rpm)"
package="$(dpkg-deb -f "$deb" Package)"
fail() {
  echo "package check: $*" >&2
  exit 1
}

echo "== the .deb: $deb"
dpkg-deb -I "$deb" | sed -n '/Package:/,$p'
[ -f "$deb.sig" ] || fail "the build made no updater signature for the .deb ($deb.sig)"
dpkg-deb -c "$deb" | grep -q ' ./usr/bin/export-bindings$' && fail "the .deb ships a development tool (export-bindings)"
dpkg-deb -f "$deb" Description | grep -q 'campaign manager' || fail "the .deb's description is not the app's"

echo "== the .rpm: $rpm"
rpm_files="$(rpm -qpl "$rpm" 2>/dev/null)"
rpm_requires="$(rpm -qpR "$rpm" 2>/dev/null)"
echo "$rpm_files"
echo "-- requires:"
echo "$rpm_requires"
for f in /usr/bin/flightdeck-app /usr/share/applications/Flightdeck.desktop \
  /usr/share/icons/hicolor/32x32/apps/flightdeck-app.png /usr/share/icons/hicolor/128x128/apps/flightdeck-app.png; do
  grep -qx "$f" <<<"$rpm_files" || fail "the .rpm lacks $f"
done
for dep in 'libwebkit2gtk-4.1.so.0()(64bit)' 'libgtk-3.so.0()(64bit)'; do
  grep -qxF "$dep" <<<"$rpm_requires" || fail "the .rpm does not require $dep"
done
grep -q '^/usr/bin/export-bindings$' <<<"$rpm_files" && fail "the .rpm ships a development tool (export-bindings)"
rpm_desktop="$(rpm2cpio "$rpm" 2>/dev/null | cpio -i --to-stdout ./usr/share/applications/Flightdeck.desktop 2>/dev/null || true)"
grep -q '^MimeType=x-scheme-handler/com.flightdeck.desktop;*$' <<<"$rpm_desktop" ||
  fail "the .rpm's desktop entry does not handle the sign-in links (com.flightdeck.desktop:)"

echo "== installing the .deb with apt (as root)"
"${sudo_cmd[@]}" dpkg --purge "$package" >/dev/null 2>&1 || true
DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends "$PWD/$deb"
installed="$(dpkg-query -W -f='${Version}' "$package")"
[ "$installed" = "$version" ] || fail "dpkg says $package $installed is installed, not $version"

echo "== files in place"
[ -x /usr/bin/flightdeck-app ] || fail "/usr/bin/flightdeck-app is missing"
desktop=/usr/share/applications/Flightdeck.desktop
[ -f "$desktop" ] || fail "$desktop is missing"
desktop-file-validate "$desktop" || fail "$desktop is not a valid desktop entry"
grep -q '^MimeType=x-scheme-handler/com.flightdeck.desktop;*$' "$desktop" || fail "$desktop does not handle the sign-in links (com.flightdeck.desktop:)"
grep -q '^Exec=flightdeck-app %u$' "$desktop" || fail "$desktop does not pass the URL to the app (%u)"
for size in 32x32 128x128 256x256@2; do
  [ -f "/usr/share/icons/hicolor/$size/apps/flightdeck-app.png" ] || fail "the $size icon is missing"
done
# A clean user: no earlier registration in a home directory can answer for the package.
clean="$(mktemp -d)"
handler="$(env -u XDG_CURRENT_DESKTOP HOME="$clean" XDG_CONFIG_HOME="$clean/.config" XDG_DATA_HOME="$clean/.local/share" \
  xdg-mime query default x-scheme-handler/com.flightdeck.desktop)"
rm -rf "$clean"
[ "$handler" = "Flightdeck.desktop" ] || fail "xdg-mime names '$handler' for com.flightdeck.desktop:, not Flightdeck.desktop"
echo "xdg-mime: com.flightdeck.desktop: links open with $handler"

echo "== the update: $package $next, signed with the throwaway key, and a tampered copy"
updates="$work/updates"
rm -rf "$updates" "$work/unpacked"
mkdir -p "$updates"
dpkg-deb -R "$deb" "$work/unpacked"
sed -i "s/^Version: .*/Version: $next/" "$work/unpacked/DEBIAN/control"
dpkg-deb --root-owner-group -b "$work/unpacked" "$updates/Flightdeck_${next}_amd64.deb" >/dev/null
"$tauri" signer sign --private-key-path "$work/updater.key" --password "" --app-version "$next" \
  "$updates/Flightdeck_${next}_amd64.deb" >/dev/null
# The same package with one byte of its description changed: a valid .deb, a wrong signature.
sed -i "s/^Description: /Description: (tampered) /" "$work/unpacked/DEBIAN/control"
dpkg-deb --root-owner-group -b "$work/unpacked" "$updates/tampered.deb" >/dev/null
rm -rf "$work/unpacked"

echo "== the installed app"
FLIGHTDECK_E2E_SKIP_BUILD=1 \
  FLIGHTDECK_APP=/usr/bin/flightdeck-app \
  FLIGHTDECK_E2E_SCRIPT=tests/package/test_installed.py \
  FLIGHTDECK_E2E_OUT="$repo/target/package-check/screens" \
  FLIGHTDECK_PACKAGE_NAME="$package" \
  FLIGHTDECK_PACKAGE_VERSION="$version" \
  FLIGHTDECK_UPDATE_VERSION="$next" \
  FLIGHTDECK_UPDATE_DIR="$updates" \
  FLIGHTDECK_UPDATE_FEED="http://127.0.0.1:${FLIGHTDECK_UPDATE_PORT:-4460}/latest.json" \
  bash scripts/e2e.sh || status=$?
if dpkg-query -W "$package" >/dev/null 2>&1; then
  # The scenario removes the package itself; after a failure it may still be there.
  "${sudo_cmd[@]}" dpkg --purge "$package" >/dev/null || true
fi
[ "${status:-0}" -eq 0 ] || fail "the installed app's checks failed"
echo "package check: ok"
