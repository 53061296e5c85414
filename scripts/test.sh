#!/usr/bin/env bash
# Runs every check and test: the UI's type check, unit tests and build; npm audit and
# cargo deny (the supply chain); the GitHub workflows (actionlint); rustfmt; clippy with
# warnings denied; every Rust test (inside a private D-Bus session with gnome-keyring);
# schemathesis over the sandbox's OpenAPI document; 5 rounds of the chaos suite; the
# end-to-end scenario on the real app under Xvfb; then the Linux packages, installed and
# checked (scripts/check-package.sh).
# This is the README's test command, and what CI (.ci/run) calls.
set -euo pipefail
cd "$(dirname "$0")/.."

source scripts/setup.sh

echo "== ui: npm ci, lint (eslint), unit tests (vitest), type check and build"
(
  cd ui
  npm ci --no-fund
  npm run lint
  npm test
  npm run build
)
echo "== npm audit (high and critical advisories)"
bash scripts/npm-audit.sh
echo "== cargo deny (advisories, licenses, bans, sources)"
bash scripts/deny.sh
echo "== GitHub workflows (actionlint)"
bash scripts/lint-workflows.sh
echo "== cargo fmt --check"
cargo fmt --all -- --check
echo "== cargo clippy (all targets, all features, warnings denied)"
cargo clippy --workspace --all-targets --all-features --locked -- -D warnings
echo "== cargo test (inside a private D-Bus session with gnome-keyring)"
bash scripts/with-keyring.sh cargo test --workspace --all-features --locked
echo "== schemathesis: the sandbox against its OpenAPI document (positive, negative, stateful)"
bash scripts/schemathesis.sh
echo "== chaos: real sandbox and push processes, faults and kill -9 (5 rounds)"
bash scripts/chaos.sh --rounds 5
echo "== end-to-end: the real app through WebDriver under Xvfb"
bash scripts/e2e.sh
echo "== Linux packages: build the .deb and .rpm, install the .deb, check the installed app"
bash scripts/check-package.sh
