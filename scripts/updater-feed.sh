#!/usr/bin/env bash
# Writes the in-app updater's feed (latest.json) for one release, from a directory that
# holds the release's installers and their updater signatures (<file>.sig, made by
# `tauri signer sign --app-version`). Run by the release workflow's publish job, which
# holds no signing key: it only reads the signatures the sign job made.
#
#   scripts/updater-feed.sh DIR VERSION BASE_URL NOTES > latest.json
#
# BASE_URL is where the release's files are downloaded from (…/releases/download/vX.Y.Z).
# Each package is listed under the key the updater looks up for the way the running copy
# was installed ({os}-{arch}-{installer}), and the AppImage, the .msi and the .app also
# under {os}-{arch}, the key older updaters read. Every package the release workflow
# builds must be there with its signature: a feed that leaves a platform out would strand
# its installs on the old version without saying so.
set -euo pipefail

if [ "$#" -ne 4 ]; then
  echo "usage: $0 DIR VERSION BASE_URL NOTES" >&2
  exit 2
fi
dir="$1"
version="$2"
base_url="${3%/}"
notes="$4"

fail() {
  echo "updater-feed: $*" >&2
  exit 1
}

# key|file name pattern|also under this key ('' for none)
entries=(
  "linux-x86_64-appimage|*_amd64.AppImage|linux-x86_64"
  "linux-x86_64-deb|*_amd64.deb|"
  "linux-x86_64-rpm|*.x86_64.rpm|"
  "windows-x86_64-msi|*_x64_*.msi|windows-x86_64"
  "windows-x86_64-nsis|*_x64-setup.exe|"
  "darwin-aarch64-app|*_aarch64.app.tar.gz|darwin-aarch64"
  "darwin-x86_64-app|*_x64.app.tar.gz|darwin-x86_64"
)

platforms='{}'
for entry in "${entries[@]}"; do
  IFS='|' read -r key pattern alias <<<"$entry"
  shopt -s nullglob
  # shellcheck disable=SC2206 # the pattern is meant to glob
  matches=("$dir"/$pattern)
  shopt -u nullglob
  [ "${#matches[@]}" -eq 1 ] ||
    fail "$key: expected one file matching $pattern in $dir, found ${#matches[@]}"
  file="${matches[0]}"
  [ -s "$file.sig" ] || fail "$key: $(basename "$file") has no updater signature ($file.sig)"
  # The signature must be bound to this version, or the updater refuses the update
  # (plugins.updater.requireSignedVersion).
  signed="$(base64 -d "$file.sig")" || fail "$key: $(basename "$file").sig is not a signature"
  signed_version="$(sed -n 's/^trusted comment: .*	version:\([^	]*\)$/\1/p' <<<"$signed")"
  [ "$signed_version" = "$version" ] ||
    fail "$key: $(basename "$file").sig is not signed for version $version"
  name="$(basename "$file")"
  # GitHub serves a release file under its name with spaces turned into dots.
  url="$base_url/${name// /.}"
  platforms="$(jq --arg key "$key" --arg alias "$alias" --arg url "$url" \
    --rawfile sig "$file.sig" '
      . + {($key): {signature: ($sig | rtrimstr("\n")), url: $url}}
      | if $alias == "" then . else . + {($alias): .[$key]} end' <<<"$platforms")"
done

jq -n --arg version "$version" --arg notes "$notes" \
  --arg date "$(date -u +%Y-%m-%dT%H:%M:%SZ)" --argjson platforms "$platforms" \
  '{version: $version, notes: $notes, pub_date: $date, platforms: $platforms}'
