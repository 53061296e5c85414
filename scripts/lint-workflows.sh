#!/usr/bin/env bash
# Checks the GitHub workflows (.github/workflows: ci.yml, release.yml) with actionlint,
# installed into a private virtualenv (target/venv-actionlint) from a hash-pinned wheel.
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
echo "workflows: ok"
