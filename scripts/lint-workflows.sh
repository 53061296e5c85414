#!/usr/bin/env bash
# Checks the GitHub workflows (.github/workflows: ci.yml, release.yml) with actionlint,
# installed into a private virtualenv (target/venv-actionlint) from a hash-pinned wheel,
# and that every action they use is pinned to a commit SHA.
# Runs from scripts/test.sh; on its own: scripts/lint-workflows.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=target/venv-actionlint
requirements=scripts/requirements/actionlint.txt
if [ ! -x "$venv/bin/actionlint" ] || [ "$requirements" -nt "$venv/bin/actionlint" ]; then
  echo "== installing actionlint into $venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check --require-hashes -r "$requirements"
  touch "$venv/bin/actionlint"
fi
"$venv/bin/actionlint" -version | head -n 1
"$venv/bin/actionlint" -no-color

# Every action by the commit of a release, never by a tag or branch, which its owner (or
# whoever takes over the account) can move: the release job hands these actions the
# repository's write token, and the sign job the updater key. The tag goes in a comment.
unpinned="$(grep -nE '^[[:space:]-]*uses:' .github/workflows/*.yml |
  grep -vE 'uses:[[:space:]]*("|'"'"')?(\./|docker://)' |
  grep -vE 'uses:[[:space:]]*[^@[:space:]]+@[0-9a-f]{40}[[:space:]]+#[[:space:]]*[^[:space:]]' || true)"
if [ -n "$unpinned" ]; then
  echo "workflows: actions not pinned to a full commit SHA with the tag in a comment:" >&2
  echo "$unpinned" >&2
  exit 1
fi
echo "workflows: ok"
